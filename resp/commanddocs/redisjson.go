package commanddocs

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Redis's src/commands/*.json, the fields the docs and key specs read.
type (
	redisFile map[string]redisCommand

	redisCommand struct {
		Summary         string         `json:"summary"`
		Complexity      string         `json:"complexity"`
		Group           string         `json:"group"`
		Since           string         `json:"since"`
		Container       string         `json:"container"`
		History         [][2]string    `json:"history"`
		DeprecatedSince string         `json:"deprecated_since"`
		ReplacedBy      string         `json:"replaced_by"`
		DocFlags        []string       `json:"doc_flags"`
		Tips            []string       `json:"command_tips"`
		KeySpecs        []redisKeySpec `json:"key_specs"`
		Arguments       []redisArg     `json:"arguments"`
	}

	redisArg struct {
		Name            string     `json:"name"`
		Type            string     `json:"type"`
		KeySpecIndex    *int       `json:"key_spec_index"`
		Token           string     `json:"token"`
		Summary         string     `json:"summary"`
		Since           string     `json:"since"`
		DeprecatedSince string     `json:"deprecated_since"`
		Optional        bool       `json:"optional"`
		Multiple        bool       `json:"multiple"`
		MultipleToken   bool       `json:"multiple_token"`
		Arguments       []redisArg `json:"arguments"`
	}

	redisKeySpec struct {
		Notes       string   `json:"notes"`
		Flags       []string `json:"flags"`
		BeginSearch struct {
			Index   *struct{ Pos int } `json:"index"`
			Keyword *struct {
				Keyword   string `json:"keyword"`
				StartFrom int    `json:"startfrom"`
			} `json:"keyword"`
		} `json:"begin_search"`
		FindKeys struct {
			Range *struct {
				LastKey int `json:"lastkey"`
				Step    int `json:"step"`
				Limit   int `json:"limit"`
			} `json:"range"`
			KeyNum *struct {
				KeyNumIdx int `json:"keynumidx"`
				FirstKey  int `json:"firstkey"`
				Step      int `json:"step"`
			} `json:"keynum"`
		} `json:"find_keys"`
	}
)

// keySpecFlags are Redis's key-spec flags in the order COMMAND INFO
// prints them, JSON spelling to reply spelling.
var keySpecFlags = [][2]string{{"RO", "RO"}, {"RW", "RW"}, {"OW", "OW"}, {"RM", "RM"},
	{"ACCESS", "access"}, {"UPDATE", "update"}, {"INSERT", "insert"}, {"DELETE", "delete"},
	{"NOT_KEY", "not_key"}, {"INCOMPLETE", "incomplete"}, {"VARIABLE_FLAGS", "variable_flags"}}

var docFlags = [][2]string{{"DEPRECATED", "deprecated"}, {"SYSCMD", "syscmd"}}

// Parse adds to t the commands of one Redis command file, keyed by full
// name, their group still as the file spells it (Finish fixes it).
func (t Table) Parse(file []byte) error {
	var f redisFile
	if err := json.Unmarshal(file, &f); err != nil {
		return err
	}
	for name, c := range f {
		full := strings.ToLower(name)
		if c.Container != "" {
			full = strings.ToLower(c.Container) + "|" + full
		}
		d, err := c.doc()
		if err != nil {
			return fmt.Errorf("%s: %w", full, err)
		}
		t[full] = d
	}
	return nil
}

// Finish gives every subcommand its container's group, as Redis's
// generator, and spells groups as COMMAND DOCS does ("sorted-set").
func (t Table) Finish() {
	for name, d := range t {
		if base, _, ok := strings.Cut(name, "|"); ok && t[base] != nil {
			d.Group = t[base].Group
		}
	}
	for _, d := range t {
		d.Group = strings.ReplaceAll(d.Group, "_", "-")
	}
}

func (c *redisCommand) doc() (*Doc, error) {
	d := &Doc{Summary: cString(c.Summary), Since: cString(c.Since), Group: c.Group, Complexity: cString(c.Complexity),
		DeprecatedSince: cString(c.DeprecatedSince), ReplacedBy: cString(c.ReplacedBy)}
	for _, h := range c.History {
		d.History = append(d.History, [2]string{cString(h[0]), cString(h[1])})
	}
	for _, tip := range c.Tips {
		d.Tips = append(d.Tips, strings.ToLower(tip))
	}
	var err error
	if d.DocFlags, err = ordered(c.DocFlags, docFlags); err != nil {
		return nil, err
	}
	for _, a := range c.Arguments {
		d.Arguments = append(d.Arguments, a.arg())
	}
	for _, ks := range c.KeySpecs {
		s, err := ks.spec()
		if err != nil {
			return nil, err
		}
		d.KeySpecs = append(d.KeySpecs, s)
	}
	return d, nil
}

func (a *redisArg) arg() Arg {
	out := Arg{Name: cString(strings.ToLower(a.Name)), Type: a.Type, KeySpecIndex: a.KeySpecIndex,
		Summary: cString(a.Summary), Since: cString(a.Since),
		DeprecatedSince: cString(a.DeprecatedSince)}
	if a.Token != "" {
		tok := cString(strings.ToUpper(a.Token))
		out.Token = &tok
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{a.Optional, "optional"}, {a.Multiple, "multiple"}, {a.MultipleToken, "multiple_token"}} {
		if f.on {
			out.Flags = append(out.Flags, f.name)
		}
	}
	if out.HasSubargs() {
		for _, s := range a.Arguments {
			out.Arguments = append(out.Arguments, s.arg())
		}
	}
	return out
}

func (ks *redisKeySpec) spec() (KeySpec, error) {
	flags, err := ordered(ks.Flags, keySpecFlags)
	if err != nil {
		return KeySpec{}, err
	}
	s := KeySpec{Notes: cString(ks.Notes), Flags: flags, BeginSearch: "unknown", FindKeys: "unknown"}
	if s.Flags == nil {
		s.Flags = []string{}
	}
	switch bs := ks.BeginSearch; {
	case bs.Index != nil:
		s.BeginSearch, s.Index = "index", bs.Index.Pos
	case bs.Keyword != nil:
		s.BeginSearch, s.Keyword, s.StartFrom = "keyword", bs.Keyword.Keyword, bs.Keyword.StartFrom
	}
	switch fk := ks.FindKeys; {
	case fk.Range != nil:
		s.FindKeys, s.LastKey, s.KeyStep, s.Limit = "range", fk.Range.LastKey, fk.Range.Step, fk.Range.Limit
	case fk.KeyNum != nil:
		s.FindKeys, s.KeyNumIdx, s.FirstKey, s.KeyStep = "keynum", fk.KeyNum.KeyNumIdx, fk.KeyNum.FirstKey, fk.KeyNum.Step
	}
	return s, nil
}

// ordered maps names through table (file spelling to reply spelling),
// in the table's order; a name it does not hold is an error.
func ordered(names []string, table [][2]string) ([]string, error) {
	var out []string
	for _, n := range names {
		found := false
		for _, e := range table {
			found = found || e[0] == n
		}
		if !found {
			return nil, fmt.Errorf("unknown flag %q", n)
		}
	}
	for _, e := range table {
		for _, n := range names {
			if n == e[0] {
				out = append(out, e[1])
				break
			}
		}
	}
	return out, nil
}

// cString is the string Redis's binary holds for a JSON string: its
// generator writes each between double quotes into C source unescaped, so
// quotes inside end one literal and start the next, which the compiler
// joins — MIGRATE's token `""` is the empty string in redis-server.
func cString(s string) string { return strings.ReplaceAll(s, `"`, "") }
