package resp

import (
	"bytes"
	"math"
	"strings"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/latency"
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
	FlagNoMulti         // not allowed in MULTI
	FlagAllowBusy       // allowed while a script runs
	FlagNoAsyncLoading  // not allowed while loading asynchronously
	FlagNoMandatoryKeys // may take no key although it declares key positions
	FlagAsking          // allowed on a cluster node importing the slot (RESTORE-ASKING)
)

// flagOrder lists the flags in the order Redis's COMMAND INFO prints them,
// with their names. may_replicate is not among them: Redis 7.0 hides it
// "on purpose" (addReplyCommandFlags), though it acts on it (CLIENT PAUSE
// WRITE, read-only scripts).
var flagOrder = []struct {
	f    Flag
	name string
}{
	{FlagWrite, "write"}, {FlagReadonly, "readonly"}, {FlagDenyOOM, "denyoom"}, {FlagAdmin, "admin"},
	{FlagPubSub, "pubsub"}, {FlagNoScript, "noscript"}, {FlagBlocking, "blocking"}, {FlagLoading, "loading"},
	{FlagStale, "stale"}, {FlagSkipMonitor, "skip_monitor"}, {FlagSkipSlowlog, "skip_slowlog"}, {FlagAsking, "asking"},
	{FlagFast, "fast"}, {FlagNoAuth, "no_auth"},
	{FlagNoMandatoryKeys, "no_mandatory_keys"}, {FlagNoAsyncLoading, "no_async_loading"},
	{FlagNoMulti, "no_multi"}, {FlagAllowBusy, "allow_busy"},
}

// Names returns the flag names in Redis's spelling and order.
func (f Flag) Names() []string {
	var out []string
	for _, o := range flagOrder {
		if f&o.f != 0 {
			out = append(out, o.name)
		}
	}
	return out
}

// InternalFlag is a command property Tandem needs and Redis's COMMAND INFO
// does not print: where Redis's processCommand singles a command out by
// its function (c->cmd->proc == execCommand…), Tandem declares it in the
// command's row, so the dispatch tests a bit, never a name. Flag keeps
// exactly Redis's printed flags; these stay apart from it and flagOrder.
type InternalFlag uint8

// Internal flags, each mirroring one of processCommand's lists.
const (
	// RunsInMulti: runs at once inside MULTI instead of being queued
	// (EXEC, DISCARD, MULTI, WATCH, QUIT, RESET), as the commands
	// processCommand excepts from queueMultiCommand. MULTI and WATCH run
	// so they can answer their own "inside MULTI" errors.
	RunsInMulti InternalFlag = 1 << iota
	// AllowedSubscribed: allowed in RESP2 subscribe mode, where every
	// other command is refused ((P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING,
	// QUIT, RESET), as processCommand's CLIENT_PUBSUB check.
	AllowedSubscribed
	// RefusedOnMisconf: refused with MISCONF after a failed BGSAVE
	// although it writes nothing (PING), as processCommand's disk-error
	// check, which singles out pingCommand so health checks notice.
	// Write commands are refused by FlagWrite already.
	RefusedOnMisconf
	// RunsQueue: runs the MULTI queue (EXEC). It is denyoom when a
	// command it queued is, and a refusal before it runs discards the
	// transaction with EXECABORT, as Redis's execCommandAbort.
	RunsQueue
	// NotTracked: a read-only command whose keys client tracking does not
	// register (EVAL_RO, EVALSHA_RO, FCALL_RO: their scripts' reads
	// register them), as Redis's call() excepts evalRoCommand….
	NotTracked
	// EndsMulti: ends a transaction (EXEC, DISCARD, QUIT, RESET), and so
	// is not refused when memory is over the bound, where every command
	// a transaction would queue is (processCommand's reject_cmd_on_oom).
	EndsMulti
	// PropagatedOnSuccess: fed to the write stream whenever it succeeds,
	// whether or not it changed a key (FLUSHALL of an empty keyspace,
	// SWAPDB, FUNCTION LOAD: Redis counts them dirty anyway).
	PropagatedOnSuccess
)

// Command is one entry of the command table: everything Redis declares
// about a command in data, plus the function that runs it. Declared once;
// dispatch, arity checks, COMMAND and ACL categories all derive from it.
type Command struct {
	Name  string // lower case; "client|id" for a subcommand
	Arity int    // > 0: exactly; < 0: at least -Arity (the name counts)
	Flags Flag
	// Internal holds Tandem's dispatch properties, never printed by
	// COMMAND INFO (see InternalFlag).
	Internal InternalFlag
	// Key positions for COMMAND INFO and multi-key locking: first and last
	// argument index holding a key (last < 0 counts from the end) and the
	// step between keys; all zero when the command takes no key.
	FirstKey, LastKey, KeyStep int
	// Keys, when set, makes the command "movablekeys": its key positions
	// depend on the arguments (a numkeys count, SORT's STORE) and Keys
	// computes them from the full argument list, args[0] the name. It
	// returns none when the arguments name no key (numkeys invalid), the
	// case where Redis's getkeys helpers find none. FirstKey..KeyStep then
	// hold only Redis's legacy triple for COMMAND INFO.
	Keys func(args [][]byte) []int
	// KeyFlags are Redis's key-spec flags of the keys KeysOf returns, in
	// that order, the last one for all keys after it (MSET: one; COPY:
	// the source's, then the destination's); nil derives them from Flags
	// (keyspec.go). VarKeyFlags, when set and not returning nil, computes
	// them from the arguments instead (SET with or without GET).
	KeyFlags    []KeyFlag
	VarKeyFlags func(args [][]byte, keys []int) []KeyFlag
	Group       string // Redis's doc group: "string", "generic", "connection", "server"
	// ACL lists categories Redis assigns explicitly, beyond those derived
	// from Flags and Group (e.g. "@keyspace" on DBSIZE, "@dangerous" on
	// INFO); "-@x" removes one they imply that Redis does not give.
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
	stats  commandStats       // stats.go
	hist   *latency.Histogram // latency-tracking (cmd_latency.go)
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
		if c[0] == '-' {
			delete(has, c[1:])
		} else {
			add(c)
		}
	}
	var cats []string
	for _, c := range aclCategoryOrder {
		if has[c] {
			cats = append(cats, c)
		}
	}
	return cats
}

// flagNames returns the command's flags in Redis's spelling and order,
// with "movablekeys", which Redis derives from the command's key lookup as
// Tandem does from Keys, in its place before "allow_busy".
func (cmd *Command) flagNames() []string {
	names := cmd.Flags.Names()
	if cmd.Keys == nil {
		return names
	}
	if n := len(names); n > 0 && names[n-1] == "allow_busy" {
		return append(names[:n-1:n-1], "movablekeys", "allow_busy")
	}
	return append(names, "movablekeys")
}

// KeysOf returns the positions of the key arguments in args (args[0] the
// command name): Keys's answer for a movablekeys command, else the
// declared first, last and step.
func (cmd *Command) KeysOf(args [][]byte) []int {
	if cmd.Keys != nil {
		return cmd.Keys(args)
	}
	return cmd.KeyIndexes(len(args))
}

// KeyIndexes returns the positions of key arguments in args by the
// declared first, last and step alone (see KeysOf for movablekeys).
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

// lastLookup is a client's last command lookup: a pipeline repeats one
// command, and comparing a few bytes costs less than lower-casing and
// hashing them into the table (2.3 % of a pipelined SET).
type lastLookup struct {
	cmd  *Command
	name [16]byte
	n    int
}

// find is t.Lookup, answered from the last lookup when name is its name
// in any case.
func (l *lastLookup) find(t *Table, name, scratch []byte) *Command {
	if l.cmd != nil && len(name) == l.n && bytes.EqualFold(name, l.name[:l.n]) {
		return l.cmd
	}
	cmd := t.Lookup(name, scratch)
	if cmd != nil && len(name) <= len(l.name) {
		l.cmd, l.n = cmd, copy(l.name[:], name)
	}
	return cmd
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

// numkeysKeys returns the key positions of a command whose keys are a count
// at args[countAt] and that many keys after it, with a destination key at
// storeAt (0: none), exactly as redis 7.0's COMMAND GETKEYS finds them. It
// first reads the count as the command's key specs do: a strict integer
// >= 0 (truncated to 32 bits, as Redis's int cast) whose keys must all be
// present, answering the destination first. When that fails it falls back
// to the getkeys helper (genericGetKeys): the count read by C's atoi
// ("2abc" is 2, "+2" too), between 1 and the arguments left, answering the
// destination last. No keys when both fail.
func numkeysKeys(args [][]byte, storeAt, countAt int) []int {
	if countAt >= len(args) {
		return nil
	}
	if first, last, ok := numkeysBySpec(args, countAt); ok {
		return keyRange(storeAt, first, last, true)
	}
	first := countAt + 1
	n := cAtoi(args[countAt])
	if n < 1 || n > len(args)-first {
		return nil
	}
	return keyRange(storeAt, first, first+n-1, false)
}

// numkeysBySpec reads the count at args[countAt] as Redis's key specs do
// (numkeysKeys) and returns the first and last key positions.
func numkeysBySpec(args [][]byte, countAt int) (first, last int, ok bool) {
	if countAt >= len(args) {
		return 0, 0, false
	}
	first = countAt + 1
	if n, ok := num.ParseInt(args[countAt]); ok && n >= 0 {
		last = first + int(int32(n)) - 1
		if last < len(args) && last >= first {
			return first, last, true
		}
	}
	return 0, 0, false
}

// keyRange lists first..last with storeAt (when not 0) before or after.
func keyRange(storeAt, first, last int, storeFirst bool) []int {
	idx := make([]int, 0, last-first+2)
	if storeAt != 0 && storeFirst {
		idx = append(idx, storeAt)
	}
	for i := first; i <= last; i++ {
		idx = append(idx, i)
	}
	if storeAt != 0 && !storeFirst {
		idx = append(idx, storeAt)
	}
	return idx
}

// cAtoi is C's atoi as glibc implements it, (int)strtol(s, NULL, 10):
// leading white space, a sign, then digits up to the first non-digit; an
// overflow clamps to the 64-bit limit before the cast to 32 bits.
func cAtoi(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var v uint64
	overflow := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		d := uint64(b[i] - '0')
		if v > (math.MaxInt64+1-d)/10 {
			overflow = true
			continue
		}
		v = v*10 + d
	}
	var l int64
	switch {
	case overflow || (!neg && v > math.MaxInt64):
		l = math.MaxInt64
		if neg {
			l = math.MinInt64
		}
	case neg:
		l = -int64(v)
	default:
		l = int64(v)
	}
	return int(int32(l))
}
