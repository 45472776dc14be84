// Package commanddocs holds redis-server 7.0.15's documentation of the
// commands Tandem serves: COMMAND DOCS's fields and COMMAND INFO's key
// specs, one table for both. The table, docs.json, is generated from
// Redis's src/commands/*.json (go generate; the generator is gen/), in
// the shape the replies print: names as Redis's generate-command-code.py
// spells them into its command table (argument names lower case, tokens
// upper case, flags in reply spelling and order).
package commanddocs

import (
	_ "embed"
	"encoding/json"
	"sync"
)

//go:generate go run ./gen -out docs.json

//go:embed docs.json
var raw []byte

// Doc is one command's documentation, its fields in COMMAND DOCS's order;
// empty ones are left out of the reply as Redis leaves out NULL fields.
// KeySpecs and Tips are COMMAND INFO's.
type Doc struct {
	Summary         string      `json:"summary,omitempty"`
	Since           string      `json:"since,omitempty"`
	Group           string      `json:"group"`
	Complexity      string      `json:"complexity,omitempty"`
	DocFlags        []string    `json:"doc_flags,omitempty"`
	DeprecatedSince string      `json:"deprecated_since,omitempty"`
	ReplacedBy      string      `json:"replaced_by,omitempty"`
	History         [][2]string `json:"history,omitempty"`
	Arguments       []Arg       `json:"arguments,omitempty"`
	KeySpecs        []KeySpec   `json:"key_specs,omitempty"`
	Tips            []string    `json:"tips,omitempty"` // COMMAND INFO's command tips
}

// Arg is one argument of a command, or of a oneof or block argument.
type Arg struct {
	Name            string   `json:"name"`
	Type            string   `json:"type"`
	KeySpecIndex    *int     `json:"key_spec_index,omitempty"`
	Token           *string  `json:"token,omitempty"` // MIGRATE's is "", printed
	Summary         string   `json:"summary,omitempty"`
	Since           string   `json:"since,omitempty"`
	DeprecatedSince string   `json:"deprecated_since,omitempty"`
	Flags           []string `json:"flags,omitempty"`
	Arguments       []Arg    `json:"arguments,omitempty"`
}

// HasSubargs reports whether the argument lists arguments of its own:
// Redis prints the list of a oneof or block, even an empty one.
func (a *Arg) HasSubargs() bool { return a.Type == "oneof" || a.Type == "block" }

// KeySpec is one key spec: where the keys begin (BeginSearch "index" at
// Index, "keyword" Keyword searched from StartFrom, or "unknown") and how
// they are found from there (FindKeys "range" to LastKey by KeyStep up to
// Limit, "keynum" counted at KeyNumIdx from FirstKey by KeyStep, or
// "unknown").
type KeySpec struct {
	Notes       string   `json:"notes,omitempty"`
	Flags       []string `json:"flags"`
	BeginSearch string   `json:"bs"`
	Index       int      `json:"index,omitempty"`
	Keyword     string   `json:"keyword,omitempty"`
	StartFrom   int      `json:"startfrom,omitempty"`
	FindKeys    string   `json:"fk"`
	LastKey     int      `json:"lastkey,omitempty"`
	KeyNumIdx   int      `json:"keynumidx,omitempty"`
	FirstKey    int      `json:"firstkey,omitempty"`
	KeyStep     int      `json:"keystep,omitempty"`
	Limit       int      `json:"limit,omitempty"`
}

// Table maps a command's full name ("get", "client|list") to its doc.
type Table map[string]*Doc

var load = sync.OnceValue(func() Table {
	var t Table
	if err := json.Unmarshal(raw, &t); err != nil {
		panic("commanddocs: docs.json: " + err.Error()) // generated; a test parses it
	}
	return t
})

// Lookup returns the doc of the command of that full name, or nil.
func Lookup(fullName string) *Doc { return load()[fullName] }

// All returns the whole table; callers must not change it.
func All() Table { return load() }
