package resp

import (
	"strings"

	"github.com/tandemkv/tandem/internal/glob"
)

// COMMAND and its subcommands. Every reply derives from the command table:
// there is no second list of commands. What Redis declares and the table
// does not hold yet (command tips, complexity, arguments, history, the
// keynum and unknown key specs of movablekeys commands) is left out, as
// Redis leaves out what a command does not declare. Key-spec flags are the
// table's (keyspec.go).

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
	w.Set(len(cmd.Tips))
	for _, tip := range cmd.Tips {
		w.BulkString(tip)
	}
	if cmd.FirstKey == 0 {
		w.Set(0)
	} else {
		c.writeKeySpecs(cmd)
	}
	if len(cmd.Subcommands) == 0 {
		w.Set(0)
		return
	}
	w.Array(len(cmd.Subcommands))
	for _, sc := range cmd.Subcommands {
		c.writeCommandInfo(sc)
	}
}

// writeKeySpecs writes the key specs equivalent to the command's first,
// last and step: index begin_search and range find_keys specs, whose
// lastkey is relative to their first key (negative: from the end). With
// one KeyFlags entry that is one spec over all keys; with more, a spec
// for each single key in turn (COPY's source, then destination) and the
// last over the keys left (SUNIONSTORE's sources). A movablekeys command
// gets one spec, with its first key's flags (Redis declares keynum or
// unknown specs the table does not hold).
func (c *Client) writeKeySpecs(cmd *Command) {
	if len(cmd.KeySpecs) > 0 {
		c.w.Set(len(cmd.KeySpecs))
		for _, ks := range cmd.KeySpecs {
			c.writeKeySpecOf(ks)
		}
		return
	}
	flags := cmd.specKeyFlags()
	if cmd.Keys != nil {
		flags = flags[:1]
	}
	c.w.Set(len(flags))
	step := max(cmd.KeyStep, 1)
	for i, f := range flags {
		first := cmd.FirstKey + i*step
		last := 0 // a single key
		if i == len(flags)-1 {
			if last = cmd.LastKey; last >= 0 {
				last -= first
			}
		}
		c.writeKeySpec(f, first, last, step)
	}
}

// KeySpec is one key spec of COMMAND INFO, declared (Command.KeySpecs):
// its flags, a begin_search by Index or, when Keyword is set, by that
// keyword searched for from StartFrom (negative: from the end), and a
// range find_keys (LastKey relative to the first key; negative: from the
// end).
type KeySpec struct {
	Flags     KeyFlag
	Index     int
	Keyword   string
	StartFrom int
	LastKey   int
	KeyStep   int
	Limit     int
}

// writeKeySpec writes one index/range key spec.
func (c *Client) writeKeySpec(f KeyFlag, first, last, step int) {
	c.writeKeySpecOf(KeySpec{Flags: f, Index: first, LastKey: last, KeyStep: step})
}

// writeKeySpecOf writes one key spec.
func (c *Client) writeKeySpecOf(ks KeySpec) {
	w := &c.w
	w.Map(3)
	w.BulkString("flags")
	names := ks.Flags.Names()
	w.Set(len(names))
	for _, n := range names {
		w.Status(n)
	}
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	if ks.Keyword != "" {
		w.BulkString("keyword")
		w.BulkString("spec")
		w.Map(2)
		w.BulkString("keyword")
		w.BulkString(ks.Keyword)
		w.BulkString("startfrom")
		w.Int(int64(ks.StartFrom))
	} else {
		w.BulkString("index")
		w.BulkString("spec")
		w.Map(1)
		w.BulkString("index")
		w.Int(int64(ks.Index))
	}
	last, step := ks.LastKey, ks.KeyStep
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("range")
	w.BulkString("spec")
	w.Map(3)
	w.BulkString("lastkey")
	w.Int(int64(last))
	w.BulkString("keystep")
	w.Int(int64(step))
	w.BulkString("limit")
	w.Int(int64(ks.Limit))
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

// writeCommandDocs writes what the table documents of a command: summary,
// since, group and, for a container, its subcommands' docs.
func (c *Client) writeCommandDocs(cmd *Command) {
	w := &c.w
	n := 3
	if len(cmd.Subcommands) > 0 {
		n++
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(cmd.Summary)
	w.BulkString("since")
	w.BulkString(cmd.Since)
	w.BulkString("group")
	w.BulkString(cmd.Group)
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for _, sc := range cmd.Subcommands {
			w.BulkString(sc.Name)
			c.writeCommandDocs(sc)
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
