package resp

import (
	"strings"

	"github.com/tandemkv/tandem/internal/glob"
	"github.com/tandemkv/tandem/resp/commanddocs"
)

// COMMAND and its subcommands. The commands listed are the command table's:
// there is no second list of commands. What the table does not say of a
// command, its documentation (COMMAND DOCS) and COMMAND INFO's key specs,
// comes from redis 7.0.15's, generated into package commanddocs; the key
// flags the table declares for GETKEYSANDFLAGS and ACLs (keyspec.go) are
// checked against those key specs by a test.

func commandSubcommands() []*Command {
	const f = FlagLoading | FlagStale
	return []*Command{
		{Name: "command|count", Arity: 2, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "2.8.13", Summary: "Get total number of Redis commands", Run: cmdCommandCount},
		{Name: "command|list", Arity: -2, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "7.0.0", Summary: "Get an array of Redis command names", Run: cmdCommandList},
		{Name: "command|info", Arity: -2, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "2.8.13", Summary: "Get array of specific Redis command details, or all when no argument is given.", Run: cmdCommandInfo},
		{Name: "command|docs", Arity: -2, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "7.0.0", Summary: "Get array of specific Redis command documentation", Run: cmdCommandDocs},
		{Name: "command|getkeys", Arity: -4, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "2.8.13", Summary: "Extract keys given a full Redis command", Run: cmdCommandGetKeys},
		{Name: "command|getkeysandflags", Arity: -4, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "7.0.0", Summary: "Extract keys and access flags given a full Redis command", Run: cmdCommandGetKeysAndFlags},
		{Name: "command|help", Arity: 2, Flags: f, ACL: []string{"@connection"}, Group: "server", Since: "5.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdCommandHelp},
	}
}

// commandHelp is COMMAND HELP's text, redis 7.0's.
var commandHelp = []string{
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
}

func cmdCommandHelp(c *Client, args [][]byte) { c.help(args[0], commandHelp) }

// cmdCommand is COMMAND without a subcommand: every command's details.
func cmdCommand(c *Client, _ [][]byte) { c.writeAllCommandInfo() }

func (c *Client) writeAllCommandInfo() {
	all := c.fe.table.All()
	c.w.Array(len(all))
	for _, cmd := range all {
		c.writeCommandInfo(cmd)
	}
}

func cmdCommandCount(c *Client, _ [][]byte) { c.w.Int(int64(len(c.fe.table.All()))) }

// lookupFullName finds a command by its full name, "get" or "client|list",
// in any case, as Redis's lookupCommandBySds: at most one '|', and a name
// with one must name a container's subcommand.
func (t *Table) lookupFullName(name []byte) *Command {
	var scratch [64]byte
	base, sub, hasSub := strings.Cut(string(name), "|")
	cmd := t.Lookup([]byte(base), scratch[:])
	if !hasSub || cmd == nil {
		return cmd
	}
	if cmd.sub == nil || strings.Contains(sub, "|") {
		return nil
	}
	return cmd.subcommand([]byte(sub), scratch[:])
}

// cmdCommandInfo is COMMAND INFO [name ...]: a null for an unknown name.
func cmdCommandInfo(c *Client, args [][]byte) {
	if len(args) == 2 {
		c.writeAllCommandInfo()
		return
	}
	c.w.Array(len(args) - 2)
	for _, name := range args[2:] {
		if cmd := c.fe.table.lookupFullName(name); cmd != nil {
			c.writeCommandInfo(cmd)
		} else {
			c.w.Null()
		}
	}
}

// aclCategories returns the command's ACL categories in Redis's order.
func aclCategories(cmd *Command) []string { return cmd.ACLCategories() }

// writeCommandInfo writes one command's COMMAND INFO entry, redis 7.0's
// ten fields: name, arity, flags, first key, last key, key step, ACL
// categories, tips, key specs, subcommands. Flags, categories, tips and key
// specs are sets in RESP3; subcommands an array, or an empty set when there
// are none (Redis's quirk, kept).
func (c *Client) writeCommandInfo(cmd *Command) {
	w := &c.w
	w.Array(10)
	w.BulkString(cmd.Name)
	w.Int(int64(cmd.Arity))
	flags := cmd.flagNames()
	w.Set(len(flags))
	for _, f := range flags {
		w.Status(f)
	}
	w.Int(int64(cmd.FirstKey))
	w.Int(int64(cmd.LastKey))
	w.Int(int64(cmd.KeyStep))
	cats := aclCategories(cmd)
	w.Set(len(cats))
	for _, cat := range cats {
		w.Status(cat)
	}
	var tips []string
	if d := commanddocs.Lookup(cmd.Name); d != nil {
		tips = d.Tips
	}
	w.Set(len(tips))
	for _, tip := range tips {
		w.BulkString(tip)
	}
	c.writeKeySpecs(cmd)
	if len(cmd.Subcommands) == 0 {
		w.Set(0)
		return
	}
	w.Array(len(cmd.Subcommands))
	for _, sc := range cmd.Subcommands {
		c.writeCommandInfo(sc)
	}
}

// writeKeySpecs writes the command's key specs, redis 7.0.15's as the
// docs table holds them (commanddocs), with the command's docs; a command
// newer than 7.0.15 has none there, nor keys.
func (c *Client) writeKeySpecs(cmd *Command) {
	w := &c.w
	var specs []commanddocs.KeySpec
	if d := commanddocs.Lookup(cmd.Name); d != nil {
		specs = d.KeySpecs
	}
	w.Set(len(specs))
	for i := range specs {
		ks := &specs[i]
		n := 3
		if ks.Notes != "" {
			n++
		}
		w.Map(n)
		if ks.Notes != "" {
			w.BulkString("notes")
			w.BulkString(ks.Notes)
		}
		w.BulkString("flags")
		c.writeStatusSet(ks.Flags)
		w.BulkString("begin_search")
		w.Map(2)
		w.BulkString("type")
		w.BulkString(ks.BeginSearch)
		w.BulkString("spec")
		switch ks.BeginSearch {
		case "index":
			c.writeIntMap("index", ks.Index)
		case "keyword":
			w.Map(2)
			w.BulkString("keyword")
			w.BulkString(ks.Keyword)
			w.BulkString("startfrom")
			w.Int(int64(ks.StartFrom))
		default:
			w.Map(0)
		}
		w.BulkString("find_keys")
		w.Map(2)
		w.BulkString("type")
		w.BulkString(ks.FindKeys)
		w.BulkString("spec")
		switch ks.FindKeys {
		case "range":
			c.writeIntMap("lastkey", ks.LastKey, "keystep", ks.KeyStep, "limit", ks.Limit)
		case "keynum":
			c.writeIntMap("keynumidx", ks.KeyNumIdx, "firstkey", ks.FirstKey, "keystep", ks.KeyStep)
		default:
			w.Map(0)
		}
	}
}

// writeIntMap writes a map of names to integers, given as name, value…
func (c *Client) writeIntMap(kv ...any) {
	c.w.Map(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		c.w.BulkString(kv[i].(string))
		c.w.Int(int64(kv[i+1].(int)))
	}
}

// writeStatusSet writes names as a set of status strings, as Redis's
// flag replies.
func (c *Client) writeStatusSet(names []string) {
	c.w.Set(len(names))
	for _, n := range names {
		c.w.Status(n)
	}
}

// cmdCommandDocs is COMMAND DOCS [name ...]: a map of name to docs,
// unknown names left out.
func cmdCommandDocs(c *Client, args [][]byte) {
	var cmds []*Command
	if len(args) == 2 {
		cmds = c.fe.table.All()
	} else {
		for _, name := range args[2:] {
			if cmd := c.fe.table.lookupFullName(name); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.w.Map(len(cmds))
	for _, cmd := range cmds {
		c.w.BulkString(cmd.Name)
		c.writeCommandDocs(cmd)
	}
}

// writeCommandDocs writes one command's docs, redis 7.0.15's
// (commanddocs) in addReplyCommandDocs's order, fields the command does
// not have left out; a container's subcommands follow. A command newer
// than 7.0.15 gets the table's summary, since and group.
func (c *Client) writeCommandDocs(cmd *Command) {
	w := &c.w
	d := commanddocs.Lookup(cmd.Name)
	if d == nil {
		d = &commanddocs.Doc{Summary: cmd.Summary, Since: cmd.Since, Group: cmd.Group}
	}
	strs := []struct{ name, val string }{{"summary", d.Summary}, {"since", d.Since}, {"group", d.Group},
		{"complexity", d.Complexity}}
	n := 0
	for _, f := range strs {
		if f.val != "" || f.name == "group" {
			n++
		}
	}
	for _, present := range []bool{len(d.DocFlags) > 0, d.DeprecatedSince != "", d.ReplacedBy != "",
		len(d.History) > 0, len(d.Arguments) > 0, len(cmd.Subcommands) > 0} {
		if present {
			n++
		}
	}
	w.Map(n)
	for _, f := range strs {
		if f.val != "" || f.name == "group" { // Redis always sends the group
			w.BulkString(f.name)
			w.BulkString(f.val)
		}
	}
	if len(d.DocFlags) > 0 {
		w.BulkString("doc_flags")
		c.writeStatusSet(d.DocFlags)
	}
	if d.DeprecatedSince != "" {
		w.BulkString("deprecated_since")
		w.BulkString(d.DeprecatedSince)
	}
	if d.ReplacedBy != "" {
		w.BulkString("replaced_by")
		w.BulkString(d.ReplacedBy)
	}
	if len(d.History) > 0 {
		w.BulkString("history")
		w.Set(len(d.History))
		for _, h := range d.History {
			w.Array(2)
			w.BulkString(h[0])
			w.BulkString(h[1])
		}
	}
	if len(d.Arguments) > 0 {
		w.BulkString("arguments")
		c.writeDocArgs(d.Arguments)
	}
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for _, sc := range cmd.Subcommands {
			w.BulkString(sc.Name)
			c.writeCommandDocs(sc)
		}
	}
}

// writeDocArgs writes an argument list as addReplyCommandArgList.
func (c *Client) writeDocArgs(args []commanddocs.Arg) {
	w := &c.w
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		strs := []struct{ name, val string }{{"summary", a.Summary}, {"since", a.Since},
			{"deprecated_since", a.DeprecatedSince}}
		n := 2
		for _, f := range strs {
			if f.val != "" {
				n++
			}
		}
		for _, present := range []bool{a.KeySpecIndex != nil, a.Token != nil, len(a.Flags) > 0, a.HasSubargs()} {
			if present {
				n++
			}
		}
		w.Map(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(a.Type)
		if a.KeySpecIndex != nil {
			w.BulkString("key_spec_index")
			w.Int(int64(*a.KeySpecIndex))
		}
		if a.Token != nil {
			w.BulkString("token")
			w.BulkString(*a.Token)
		}
		for _, f := range strs {
			if f.val != "" {
				w.BulkString(f.name)
				w.BulkString(f.val)
			}
		}
		if len(a.Flags) > 0 {
			w.BulkString("flags")
			c.writeStatusSet(a.Flags)
		}
		if a.HasSubargs() {
			w.BulkString("arguments")
			c.writeDocArgs(a.Arguments)
		}
	}
}

// cmdCommandList is COMMAND LIST [FILTERBY MODULE name|ACLCAT cat|PATTERN
// pattern]: every command's full name, subcommands included.
func cmdCommandList(c *Client, args [][]byte) {
	keep := func(*Command) bool { return true }
	for i := 2; i < len(args); i += 3 {
		if !argIs(args[i], "FILTERBY") || len(args)-1-i != 2 {
			c.w.Error(ErrSyntax)
			return
		}
		arg := string(args[i+2])
		switch typ := args[i+1]; {
		case argIs(typ, "MODULE"):
			keep = func(*Command) bool { return false } // no modules
		case argIs(typ, "ACLCAT"):
			cat := "@" + strings.ToLower(arg)
			keep = func(cmd *Command) bool {
				for _, c := range cmd.ACLCategories() {
					if c == cat {
						return true
					}
				}
				return false
			}
		case argIs(typ, "PATTERN"):
			keep = func(cmd *Command) bool { return glob.MatchString(arg, cmd.Name, true) }
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	var names []string
	c.fe.table.forEachCommand(func(cmd *Command) {
		if keep(cmd) {
			names = append(names, cmd.Name)
		}
	})
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// getKeysTarget resolves COMMAND GETKEYS's full command (args[2:]) as
// Redis's getKeysSubcommandImpl, replying its errors; a movablekeys
// command's keys come from its Keys, none (an invalid numkeys) being
// "Invalid arguments specified for command" as in Redis.
func (c *Client) getKeysTarget(args [][]byte) (*Command, []int, bool) {
	target := args[2:]
	cmd := c.fe.table.Lookup(target[0], c.scratch[:])
	if cmd != nil && cmd.sub != nil && len(target) > 1 {
		cmd = cmd.subcommand(target[1], c.scratch[:])
	}
	switch {
	case cmd == nil:
		c.w.Error(ErrInvalidCommand)
		return nil, nil, false
	case cmd.FirstKey == 0 && cmd.Keys == nil, cmd.Flags&FlagPubSub != 0: // only not_key specs
		c.w.Error(ErrNoKeyArgs)
		return nil, nil, false
	case !cmd.arityOK(len(target)):
		c.w.Error(ErrGetKeysArity)
		return nil, nil, false
	}
	idx := cmd.KeysOf(target)
	if len(idx) == 0 && cmd.Flags&FlagNoMandatoryKeys == 0 {
		c.w.Error(ErrGetKeysNone)
		return nil, nil, false
	}
	return cmd, idx, true
}

// cmdCommandGetKeys is COMMAND GETKEYS command [arg ...].
func cmdCommandGetKeys(c *Client, args [][]byte) {
	_, idx, ok := c.getKeysTarget(args)
	if !ok {
		return
	}
	c.w.Array(len(idx))
	for _, i := range idx {
		c.w.Bulk(args[2+i])
	}
}

// cmdCommandGetKeysAndFlags is COMMAND GETKEYSANDFLAGS command [arg ...]:
// each key with its access flags.
func cmdCommandGetKeysAndFlags(c *Client, args [][]byte) {
	cmd, idx, ok := c.getKeysTarget(args)
	if !ok {
		return
	}
	flags := cmd.KeyFlagsFor(args[2:], idx)
	c.w.Array(len(idx))
	for j, i := range idx {
		c.w.Array(2)
		c.w.Bulk(args[2+i])
		names := flags[j].Names()
		c.w.Set(len(names))
		for _, n := range names {
			c.w.Status(n)
		}
	}
}
