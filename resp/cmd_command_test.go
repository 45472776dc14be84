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
			"*10\r\n$4\r\nping\r\n:-1\r\n*1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n" +
			"*10\r\n$4\r\ntime\r\n:1\r\n*3\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@fast\r\n*0\r\n*0\r\n*0\r\n" +
			"*10\r\n$5\r\nhello\r\n:-1\r\n*6\r\n+noscript\r\n+loading\r\n+stale\r\n+fast\r\n+no_auth\r\n+allow_busy\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n"},
		{argv("COMMAND", "INFO", "mset"), "*1\r\n*10\r\n$4\r\nmset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:-1\r\n:2\r\n*3\r\n+@write\r\n+@string\r\n+@slow\r\n*0\r\n" +
			// Redis: "OW update" and a request_policy tip; the table does not declare those yet.
			"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RW\r\n+update\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
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
		{argv("COMMAND", "DOCS", "echo", "nosuch"), "*2\r\n$4\r\necho\r\n*6\r\n$7\r\nsummary\r\n$21\r\nEcho the given string\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n"},
		{argv("HELLO", "3"), helloReply(3, c.c.id)},
		{argv("COMMAND", "DOCS", "nosuch"), "%0\r\n"},
		{argv("COMMAND", "DOCS", "client|id"), "%1\r\n$9\r\nclient|id\r\n%3\r\n$7\r\nsummary\r\n$48\r\nReturns the client ID for the current connection\r\n$5\r\nsince\r\n$5\r\n5.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n"},
	})
	got := c.do("COMMAND", "DOCS", "config")
	if !strings.HasPrefix(got, "%1\r\n$6\r\nconfig\r\n%4\r\n$7\r\nsummary\r\n$45\r\nA container for server configuration commands\r\n") ||
		!strings.Contains(got, "$11\r\nsubcommands\r\n%5\r\n$10\r\nconfig|get\r\n%3\r\n$7\r\nsummary\r\n") {
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
