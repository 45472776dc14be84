package resp

import (
	"strings"
	"sync/atomic"
)

// Flag is a command property, as Redis's COMMAND INFO lists them.
type Flag uint32

// Command flags. Names and meanings follow Redis's commands/*.json.
const (
	FlagWrite    Flag = 1 << iota // may modify the keyspace
	FlagReadonly                  // reads the keyspace only
	FlagDenyOOM                   // refused while used memory is over maxmemory
	FlagAdmin                     // administrative
	FlagPubSub                    // pub/sub related
	FlagNoScript                  // not allowed in scripts
	FlagBlocking                  // may block the client
	FlagLoading                   // allowed while loading
	FlagStale                     // allowed on a stale replica
	FlagSkipMonitor
	FlagSkipSlowlog
	FlagFast   // O(1) or O(log N)
	FlagNoAuth // allowed before AUTH
	FlagMayReplicate
	FlagNoMulti   // not allowed in MULTI
	FlagAllowBusy // allowed while a script runs
)

var flagNames = []string{
	"write", "readonly", "denyoom", "admin", "pubsub", "noscript", "blocking",
	"loading", "stale", "skip_monitor", "skip_slowlog", "fast", "no_auth",
	"may_replicate", "no_multi", "allow_busy",
}

// Names returns the flag names in Redis's spelling.
func (f Flag) Names() []string {
	var out []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Command is one entry of the command table: everything Redis declares
// about a command in data, plus the function that runs it. Declared once;
// dispatch, arity checks, COMMAND and ACL categories all derive from it.
type Command struct {
	Name  string // lower case; "client|id" for a subcommand
	Arity int    // > 0: exactly; < 0: at least -Arity (the name counts)
	Flags Flag
	// Key positions for COMMAND INFO and multi-key locking: first and last
	// argument index holding a key (last < 0 counts from the end) and the
	// step between keys; all zero when the command takes no key.
	FirstKey, LastKey, KeyStep int
	Group                      string // Redis's doc group: "string", "generic", "connection", "server"
	// ACL lists categories Redis assigns explicitly, beyond those derived
	// from Flags and Group (e.g. "@keyspace" on DBSIZE, "@dangerous" on INFO).
	ACL     []string
	Summary string
	Since   string
	// Run executes the command; args[0] is the name as sent.
	Run func(c *Client, args [][]byte)
	// Subcommands makes this a container (CLIENT, CONFIG, OBJECT…):
	// args[1] chooses one, which has its own arity and flags.
	Subcommands []*Command

	parent *Command
	sub    map[string]*Command
	stats  commandStats
}

// commandStats feed INFO commandstats.
type commandStats struct {
	calls, usec, rejected, failed atomic.Int64
}

// arityOK checks the argument count against Arity.
func (cmd *Command) arityOK(n int) bool {
	if cmd.Arity > 0 {
		return n == cmd.Arity
	}
	return n >= -cmd.Arity
}

// aclCategoryOrder is Redis's ACL category order (its category bits), in
// which COMMAND INFO lists a command's categories.
var aclCategoryOrder = []string{
	"@keyspace", "@read", "@write", "@set", "@sortedset", "@list", "@hash", "@string",
	"@bitmap", "@hyperloglog", "@geo", "@stream", "@pubsub", "@admin", "@fast", "@slow",
	"@blocking", "@dangerous", "@connection", "@transaction", "@scripting",
}

// groupCategory is the category a command's doc group implies.
var groupCategory = map[string]string{
	"string":     "@string",
	"generic":    "@keyspace",
	"connection": "@connection",
}

// ACLCategories returns the command's ACL categories in Redis's order:
// derived from flags and group, plus the explicit ACL list. A container
// (CLIENT, CONFIG…) takes no category from its group, as in Redis.
func (cmd *Command) ACLCategories() []string {
	has := map[string]bool{}
	add := func(c string) { has[c] = true }
	if cmd.Flags&FlagWrite != 0 {
		add("@write")
	}
	if cmd.Flags&FlagReadonly != 0 {
		add("@read")
	}
	if g, ok := groupCategory[cmd.Group]; ok && len(cmd.Subcommands) == 0 {
		add(g)
	}
	if cmd.Flags&FlagAdmin != 0 {
		add("@admin")
		add("@dangerous")
	}
	if cmd.Flags&FlagPubSub != 0 {
		add("@pubsub")
	}
	if cmd.Flags&FlagBlocking != 0 {
		add("@blocking")
	}
	if cmd.Flags&FlagFast != 0 {
		add("@fast")
	} else {
		add("@slow")
	}
	for _, c := range cmd.ACL {
		add(c)
	}
	var cats []string
	for _, c := range aclCategoryOrder {
		if has[c] {
			cats = append(cats, c)
		}
	}
	return cats
}

// KeyIndexes returns the positions of key arguments in args.
func (cmd *Command) KeyIndexes(nargs int) []int {
	if cmd.FirstKey == 0 {
		return nil
	}
	last := cmd.LastKey
	if last < 0 {
		last = nargs + last
	}
	step := max(cmd.KeyStep, 1)
	var idx []int
	for i := cmd.FirstKey; i <= last && i < nargs; i += step {
		idx = append(idx, i)
	}
	return idx
}

// Table is the set of commands a front-end serves, looked up by lower-case
// name. It is built once at start and read-only afterwards.
type Table struct {
	byName map[string]*Command
	sorted []*Command
}

// NewTable indexes commands; it panics on a duplicate name, which is a bug
// in a family's declaration.
func NewTable(families ...[]*Command) *Table {
	t := &Table{byName: map[string]*Command{}}
	for _, fam := range families {
		for _, cmd := range fam {
			if _, dup := t.byName[cmd.Name]; dup {
				panic("resp: command declared twice: " + cmd.Name)
			}
			if len(cmd.Subcommands) > 0 {
				cmd.sub = map[string]*Command{}
				for _, sc := range cmd.Subcommands {
					sc.parent = cmd
					short := sc.Name[strings.IndexByte(sc.Name, '|')+1:]
					cmd.sub[short] = sc
				}
			}
			t.byName[cmd.Name] = cmd
			t.sorted = append(t.sorted, cmd)
		}
	}
	return t
}

// Lookup finds a command by name in any case; scratch avoids allocating
// for the lower-casing.
func (t *Table) Lookup(name []byte, scratch []byte) *Command {
	return t.byName[string(lowerInto(scratch, name))]
}

// All returns the commands in declaration order.
func (t *Table) All() []*Command { return t.sorted }

// lowerInto lower-cases b into scratch when it fits, else into a new slice.
func lowerInto(scratch, b []byte) []byte {
	var out []byte
	if len(b) <= cap(scratch) {
		out = scratch[:len(b)]
	} else {
		out = make([]byte, len(b))
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// subcommand finds a container's subcommand by name in any case.
func (cmd *Command) subcommand(name []byte, scratch []byte) *Command {
	return cmd.sub[string(lowerInto(scratch, name))]
}
