package resp

import (
	"strconv"
	"strings"
	"testing"
)

// Replies below were taken from redis-server 7.0.15.

func TestCommandInfo(t *testing.T) {
	c := newTestEnv(t).client()
	getKeySpec2 := "*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
		"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n"
	getInfo2 := "*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n" + getKeySpec2 + "*0\r\n"
	configGet2 := "*10\r\n$10\r\nconfig|get\r\n:-3\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n"
	runSteps(c, []srvStep{
		{argv("COMMAND", "INFO", "get"), "*1\r\n" + getInfo2},
		{argv("COMMAND", "INFO", "GET", "nosuchcmd"), "*2\r\n" + getInfo2 + "$-1\r\n"},
		{argv("COMMAND", "INFO", "config|get"), "*1\r\n" + configGet2},
		{argv("COMMAND", "INFO", "CONFIG|GET"), "*1\r\n" + configGet2},
		{argv("COMMAND", "INFO", "config|"), "*1\r\n$-1\r\n"},
		{argv("COMMAND", "INFO", "get|x"), "*1\r\n$-1\r\n"},
		{argv("COMMAND", "INFO", "config|get|x"), "*1\r\n$-1\r\n"},
		{argv("COMMAND", "INFO", "ping", "time", "hello"), "*3\r\n" +
			"*10\r\n$4\r\nping\r\n:-1\r\n*1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n" +
			"*2\r\n$25\r\nrequest_policy:all_shards\r\n$29\r\nresponse_policy:all_succeeded\r\n*0\r\n*0\r\n" +
			"*10\r\n$4\r\ntime\r\n:1\r\n*3\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@fast\r\n*1\r\n$23\r\nnondeterministic_output\r\n*0\r\n*0\r\n" +
			"*10\r\n$5\r\nhello\r\n:-1\r\n*6\r\n+noscript\r\n+loading\r\n+stale\r\n+fast\r\n+no_auth\r\n+allow_busy\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n"},
		{argv("COMMAND", "INFO", "mset"), "*1\r\n*10\r\n$4\r\nmset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:-1\r\n:2\r\n*3\r\n+@write\r\n+@string\r\n+@slow\r\n" +
			"*2\r\n$26\r\nrequest_policy:multi_shard\r\n$29\r\nresponse_policy:all_succeeded\r\n" +
			"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+OW\r\n+update\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:2\r\n$5\r\nlimit\r\n:0\r\n*0\r\n"},
		// RESP3: flags, categories, tips and key specs are sets; the key
		// spec a map; no subcommands an empty set.
		{argv("HELLO", "3"), helloReply(3, c.c.id)},
		{argv("COMMAND", "INFO", "get", "nosuch"), "*2\r\n*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n~3\r\n+@read\r\n+@string\r\n+@fast\r\n~0\r\n" +
			"~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n~0\r\n_\r\n"},
	})

	// A container lists its subcommands, each in the same shape.
	got := c.do("COMMAND", "INFO", "config")
	head := "*1\r\n*10\r\n$6\r\nconfig\r\n:-2\r\n~0\r\n:0\r\n:0\r\n:0\r\n~1\r\n+@slow\r\n~0\r\n~0\r\n*5\r\n"
	if !strings.HasPrefix(got, head) || !strings.Contains(got, "*10\r\n$10\r\nconfig|get\r\n:-3\r\n~4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n~3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n~0\r\n~0\r\n~0\r\n") {
		t.Errorf("COMMAND INFO config: %q", got)
	}
}

func TestCommandAll(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	n := len(env.fe.table.All())
	c.expect(":"+strconv.Itoa(n)+"\r\n", "COMMAND", "COUNT")
	c.expect("-ERR wrong number of arguments for 'command|count' command\r\n", "COMMAND", "COUNT", "x")
	all := c.do("COMMAND")
	if !strings.HasPrefix(all, "*"+strconv.Itoa(n)+"\r\n*10\r\n") {
		t.Errorf("COMMAND: %q...", all[:min(len(all), 80)])
	}
	if info := c.do("COMMAND", "INFO"); info != all {
		t.Error("COMMAND INFO without names differs from COMMAND")
	}
	// Every command, subcommands included, is described once.
	var names []string
	env.fe.table.forEachCommand(func(cmd *Command) { names = append(names, cmd.Name) })
	for _, name := range names {
		if strings.Count(all, "\r\n$"+strconv.Itoa(len(name))+"\r\n"+name+"\r\n:") != 1 {
			t.Errorf("COMMAND describes %s other than once", name)
		}
	}
	list := c.do("COMMAND", "LIST")
	if !strings.HasPrefix(list, "*"+strconv.Itoa(len(names))+"\r\n") {
		t.Errorf("COMMAND LIST: %d names expected: %q...", len(names), list[:min(len(list), 80)])
	}
}

func TestCommandList(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("COMMAND", "LIST", "FILTERBY", "PATTERN", "ech*"), "*1\r\n$4\r\necho\r\n"},
		{argv("COMMAND", "LIST", "filterby", "pattern", "CONFIG|G*"), "*1\r\n$10\r\nconfig|get\r\n"},
		{argv("COMMAND", "LIST", "FILTERBY", "MODULE", "x"), "*0\r\n"},
		{argv("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"), "*0\r\n"},
		{argv("COMMAND", "LIST", "FILTERBY"), "-ERR syntax error\r\n"},
		{argv("COMMAND", "LIST", "FILTERBY", "foo", "x"), "-ERR syntax error\r\n"},
		{argv("COMMAND", "LIST", "FILTERBY", "PATTERN", "a", "b"), "-ERR syntax error\r\n"},
		{argv("COMMAND", "LIST", "x"), "-ERR syntax error\r\n"},
	})
	got := c.do("COMMAND", "LIST", "FILTERBY", "ACLCAT", "Connection")
	for _, name := range []string{"auth", "client|list", "echo", "ping"} {
		if !strings.Contains(got, "\r\n"+name+"\r\n") {
			t.Errorf("ACLCAT connection lacks %s: %q", name, got)
		}
	}
	if strings.Contains(got, "\r\nget\r\n") {
		t.Errorf("ACLCAT connection lists get")
	}
}

func TestCommandGetKeys(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("COMMAND", "GETKEYS", "SET", "k", "v"), "*1\r\n$1\r\nk\r\n"},
		{argv("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"), "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{argv("COMMAND", "GETKEYS", "OBJECT", "ENCODING", "k"), "*1\r\n$1\r\nk\r\n"},
		{argv("COMMAND", "GETKEYS", "GET"), "-ERR wrong number of arguments for 'command|getkeys' command\r\n"},
		{argv("COMMAND", "GETKEYS"), "-ERR wrong number of arguments for 'command|getkeys' command\r\n"},
		{argv("COMMAND", "GETKEYS", "NOSUCH", "a"), "-ERR Invalid command specified\r\n"},
		{argv("COMMAND", "GETKEYS", "config", "nosuch"), "-ERR Invalid command specified\r\n"},
		{argv("COMMAND", "GETKEYS", "CLIENT", "LIST"), "-ERR The command has no key arguments\r\n"},
		{argv("COMMAND", "GETKEYS", "get", "k", "x"), "-ERR Invalid number of arguments specified for command\r\n"},
		{argv("COMMAND", "GETKEYS", "MSET", "a"), "-ERR Invalid number of arguments specified for command\r\n"},
		{argv("COMMAND", "GETKEYSANDFLAGS", "GET", "k"), "*1\r\n*2\r\n$1\r\nk\r\n*2\r\n+RO\r\n+access\r\n"},
		{argv("COMMAND", "GETKEYSANDFLAGS", "PING"), "-ERR wrong number of arguments for 'command|getkeysandflags' command\r\n"},
		{argv("COMMAND", "FOO"), "-ERR unknown subcommand 'FOO'. Try COMMAND HELP.\r\n"},
	})
}

func TestCommandDocs(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("COMMAND", "DOCS", "nosuch"), "*0\r\n"},
		{argv("COMMAND", "DOCS", "echo", "nosuch"), "*2\r\n$4\r\necho\r\n*10\r\n$7\r\nsummary\r\n$21\r\nEcho the given string\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n" +
			"$10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\narguments\r\n*1\r\n*4\r\n$4\r\nname\r\n$7\r\nmessage\r\n$4\r\ntype\r\n$6\r\nstring\r\n"},
		{argv("HELLO", "3"), helloReply(3, c.c.id)},
		{argv("COMMAND", "DOCS", "nosuch"), "%0\r\n"},
		{argv("COMMAND", "DOCS", "client|id"), "%1\r\n$9\r\nclient|id\r\n%4\r\n$7\r\nsummary\r\n$48\r\nReturns the client ID for the current connection\r\n$5\r\nsince\r\n$5\r\n5.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n"},
	})
	got := c.do("COMMAND", "DOCS", "config")
	if !strings.HasPrefix(got, "%1\r\n$6\r\nconfig\r\n%5\r\n$7\r\nsummary\r\n$45\r\nA container for server configuration commands\r\n") ||
		!strings.Contains(got, "$11\r\nsubcommands\r\n%5\r\n$10\r\nconfig|get\r\n%6\r\n$7\r\nsummary\r\n") {
		t.Errorf("COMMAND DOCS config: %q", got)
	}
	all := c.do("COMMAND", "DOCS")
	if !strings.HasPrefix(all, "%"+strconv.Itoa(len(c.env.fe.table.All()))+"\r\n") {
		t.Errorf("COMMAND DOCS: %q...", all[:min(len(all), 60)])
	}
}

func TestCommandHelp(t *testing.T) {
	c := newTestEnv(t).client()
	c.expect("*21\r\n+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+(no subcommand)\r\n+    Return details about all Redis commands.\r\n"+
		"+COUNT\r\n+    Return the total number of commands in this Redis server.\r\n+LIST\r\n+    Return a list of all commands in this Redis server.\r\n"+
		"+INFO [<command-name> ...]\r\n+    Return details about multiple Redis commands.\r\n+    If no command names are given, documentation details for all\r\n+    commands are returned.\r\n"+
		"+DOCS [<command-name> ...]\r\n+    Return documentation details about multiple Redis commands.\r\n+    If no command names are given, documentation details for all\r\n+    commands are returned.\r\n"+
		"+GETKEYS <full-command>\r\n+    Return the keys from a full Redis command.\r\n+GETKEYSANDFLAGS <full-command>\r\n+    Return the keys and the access flags from a full Redis command.\r\n"+
		"+HELP\r\n+    Prints this help.\r\n", "COMMAND", "HELP")
}

// TestDeclarations checks the table against redis 7.0's declarations of the
// connection and server commands (COMMAND INFO on redis-server 7.0.15).
func TestDeclarations(t *testing.T) {
	table := newTestEnv(t).fe.table
	for _, d := range []struct {
		name  string
		arity int
		flags string
	}{
		{"auth", -2, "noscript loading stale fast no_auth allow_busy"},
		{"client", -2, ""},
		{"client|getname", 2, "noscript loading stale"},
		{"client|id", 2, "noscript loading stale"},
		{"client|info", 2, "noscript loading stale"},
		{"client|kill", -3, "admin noscript loading stale"},
		{"client|list", -2, "admin noscript loading stale"},
		{"client|no-evict", 3, "admin noscript loading stale"},
		{"client|reply", 3, "noscript loading stale"},
		{"client|setname", 3, "noscript loading stale"},
		{"client|help", 2, "loading stale"},
		{"echo", 2, "loading stale fast"},
		{"hello", -1, "noscript loading stale fast no_auth allow_busy"},
		{"ping", -1, "fast"},
		{"quit", -1, "noscript loading stale fast no_auth allow_busy"},
		{"reset", 1, "noscript loading stale fast no_auth allow_busy"},
		{"select", 2, "loading stale fast"},
		{"command", -1, "loading stale"},
		{"command|count", 2, "loading stale"},
		{"command|docs", -2, "loading stale"},
		{"command|getkeys", -4, "loading stale"},
		{"command|getkeysandflags", -4, "loading stale"},
		{"command|help", 2, "loading stale"},
		{"command|info", -2, "loading stale"},
		{"command|list", -2, "loading stale"},
		{"config", -2, ""},
		{"config|get", -3, "admin noscript loading stale"},
		{"config|set", -4, "admin noscript loading stale"},
		{"config|resetstat", 2, "admin noscript loading stale"},
		{"config|rewrite", 2, "admin noscript loading stale"},
		{"config|help", 2, "loading stale"},
		{"dbsize", 1, "readonly fast"},
		{"flushall", -1, "write"},
		{"flushdb", -1, "write"},
		{"info", -1, "loading stale"},
		{"swapdb", 3, "write fast"},
		{"time", 1, "loading stale fast"},
	} {
		cmd := table.lookupFullName([]byte(d.name))
		if cmd == nil {
			t.Errorf("%s: not declared", d.name)
			continue
		}
		if cmd.Arity != d.arity || strings.Join(cmd.Flags.Names(), " ") != d.flags || cmd.FirstKey != 0 {
			t.Errorf("%s: arity %d flags %q first key %d; redis: %d %q 0", d.name, cmd.Arity, strings.Join(cmd.Flags.Names(), " "), cmd.FirstKey, d.arity, d.flags)
		}
		if cmd.Summary == "" || cmd.Since == "" || (cmd.Group != "connection" && cmd.Group != "server") {
			t.Errorf("%s: incomplete docs %+v", d.name, cmd.Group)
		}
	}
}

// getKeysReply is COMMAND GETKEYS's RESP2 reply for keys.
func getKeysReply(keys ...string) string {
	out := "*" + strconv.Itoa(len(keys)) + "\r\n"
	for _, k := range keys {
		out += "$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n"
	}
	return out
}

// Replies of redis-server 7.0.15: the key specs' strict count first
// (destination first), else the getkeys helper's atoi (destination last).
func TestCommandGetKeysMovable(t *testing.T) {
	c := newTestEnv(t).client()
	const invalid = "-ERR Invalid arguments specified for command\r\n"
	const arity = "-ERR Invalid number of arguments specified for command\r\n"
	gk := func(args ...string) []string { return argv(append([]string{"COMMAND", "GETKEYS"}, args...)...) }
	runSteps(c, []srvStep{
		{gk("ZUNIONSTORE", "d", "2", "a", "b"), getKeysReply("d", "a", "b")},
		{gk("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"), getKeysReply("d", "a", "b")},
		{gk("ZINTERSTORE", "d", "2abc", "a", "b"), getKeysReply("a", "b", "d")},
		{gk("ZDIFFSTORE", "d", "+2", "a", "b"), getKeysReply("a", "b", "d")},
		{gk("ZDIFFSTORE", "d", " 2", "a", "b"), getKeysReply("a", "b", "d")},
		{gk("ZUNIONSTORE", "d", "4294967298", "a", "b"), getKeysReply("d", "a", "b")},
		{gk("ZUNIONSTORE", "d", "3", "a", "b"), invalid},
		{gk("ZUNIONSTORE", "d", "0", "a"), invalid},
		{gk("ZUNIONSTORE", "d", "-1", "a"), invalid},
		{gk("ZUNIONSTORE", "d", "x", "a"), invalid},
		{gk("ZUNIONSTORE", "d", "99999999999999999999", "a", "b"), invalid},
		{gk("ZINTERSTORE", "d", "1"), arity},
		{gk("ZUNION", "2", "a", "b"), getKeysReply("a", "b")},
		{gk("ZINTER", "1", "a", "WITHSCORES"), getKeysReply("a")},
		{gk("ZDIFF", "3", "a", "b"), invalid},
		{gk("ZDIFF", "1"), arity},
		{gk("ZINTERCARD", "2", "a", "b", "LIMIT", "1"), getKeysReply("a", "b")},
		{gk("ZMPOP", "2", "a", "b", "MIN"), getKeysReply("a", "b")},
		{gk("ZMPOP", "3", "a", "b", "MIN"), getKeysReply("a", "b", "MIN")},
		{gk("BZMPOP", "0", "2", "a", "b", "MIN"), getKeysReply("a", "b")},
		{gk("BZMPOP", "0", "3", "a", "b"), invalid},
		{gk("LMPOP", "1", "a", "LEFT"), getKeysReply("a")},
		{gk("LMPOP", "2", "a", "LEFT"), getKeysReply("a", "LEFT")},
		{gk("LMPOP", "3", "a", "LEFT"), invalid},
		{gk("LMPOP", "1", "a"), arity},
		{gk("BLMPOP", "0", "1", "a", "LEFT"), getKeysReply("a")},
		{gk("BLMPOP", "0", "3", "a", "LEFT"), invalid},
		{gk("SINTERCARD", "2", "a", "b"), getKeysReply("a", "b")},
		{gk("SINTERCARD", "1", "a", "LIMIT", "2"), getKeysReply("a")},
		{gk("SINTERCARD", "0", "a"), invalid},
		{gk("SINTERCARD", "2", "a"), invalid},
		{gk("SORT", "k"), getKeysReply("k")},
		{gk("SORT", "k", "STORE", "d"), getKeysReply("k", "d")},
		{gk("SORT", "k", "STORE"), getKeysReply("k")},
		{gk("SORT", "k", "store", "d", "STORE", "e"), getKeysReply("k", "e")},
		{gk("SORT", "k", "BY", "store", "STORE", "d"), getKeysReply("k", "d")},
		{gk("SORT", "k", "GET", "store"), getKeysReply("k")},
		{gk("SORT", "k", "LIMIT", "store", "x", "STORE", "d"), getKeysReply("k", "d")},
		{gk("SORT_RO", "k", "STORE", "d"), getKeysReply("k")},
		// Flags come from the command flags (Redis: the key specs' "OW
		// update" and "RO access", or none on the helper's path).
		{argv("COMMAND", "GETKEYSANDFLAGS", "ZUNION", "1", "a"), "*1\r\n*2\r\n$1\r\na\r\n*2\r\n+RO\r\n+access\r\n"},
		{argv("COMMAND", "GETKEYSANDFLAGS", "ZUNION", "0", "a"), invalid},
	})
}

// COMMAND INFO's flags and legacy key triple of the movablekeys commands,
// redis 7.0.15's.
func TestCommandInfoMovableKeys(t *testing.T) {
	env := newTestEnv(t)
	for _, d := range []struct {
		name, flags string
		first       int
	}{
		{"zunion", "readonly movablekeys", 0},
		{"zinter", "readonly movablekeys", 0},
		{"zdiff", "readonly movablekeys", 0},
		{"zunionstore", "write denyoom movablekeys", 1},
		{"zinterstore", "write denyoom movablekeys", 1},
		{"zdiffstore", "write denyoom movablekeys", 1},
		{"zintercard", "readonly movablekeys", 0},
		{"zmpop", "write movablekeys", 0},
		{"bzmpop", "write blocking movablekeys", 0},
		{"lmpop", "write movablekeys", 0},
		{"blmpop", "write blocking movablekeys", 0},
		{"sintercard", "readonly movablekeys", 0},
		{"sort", "write denyoom movablekeys", 1},
		{"sort_ro", "readonly movablekeys", 1},
		{"get", "readonly fast", 1},
		{"hello", "noscript loading stale fast no_auth allow_busy", 0},
	} {
		cmd := env.fe.table.lookupFullName([]byte(d.name))
		if cmd == nil {
			t.Errorf("%s: not declared", d.name)
			continue
		}
		if got := strings.Join(cmd.flagNames(), " "); got != d.flags {
			t.Errorf("%s: flags %q, redis %q", d.name, got, d.flags)
		}
		if cmd.FirstKey != d.first || cmd.LastKey != d.first || cmd.KeyStep != d.first {
			t.Errorf("%s: keys %d,%d,%d, redis %d,%d,%d", d.name, cmd.FirstKey, cmd.LastKey, cmd.KeyStep, d.first, d.first, d.first)
		}
	}
	// The flag's place among Redis's: before allow_busy.
	withBusy := &Command{Flags: FlagWrite | FlagAllowBusy, Keys: sortROKeys}
	if got := strings.Join(withBusy.flagNames(), " "); got != "write movablekeys allow_busy" {
		t.Errorf("flags %q", got)
	}
	c := env.client()
	runSteps(c, []srvStep{
		{argv("COMMAND", "INFO", "zunion"), "*1\r\n*10\r\n$6\r\nzunion\r\n:-3\r\n*2\r\n+readonly\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n" +
			"*3\r\n+@read\r\n+@sortedset\r\n+@slow\r\n*0\r\n" +
			"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$6\r\nkeynum\r\n$4\r\nspec\r\n*6\r\n$9\r\nkeynumidx\r\n:0\r\n$8\r\nfirstkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n*0\r\n"}, // a keynum key spec
	})
}

func TestCAtoi(t *testing.T) {
	for in, want := range map[string]int{
		"2": 2, "2abc": 2, "+2": 2, " \t\n2": 2, "02": 2, "-3": -3, "": 0, "x": 0, "- 2": 0,
		"2147483648": -2147483648, "4294967298": 2,
		"9223372036854775807": -1, "99999999999999999999": -1, "-9223372036854775808": 0, "-99999999999999999999": 0,
	} {
		if got := cAtoi([]byte(in)); got != want {
			t.Errorf("cAtoi(%q) = %d, want %d", in, got, want)
		}
	}
}
