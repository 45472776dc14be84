package resp

import (
	"strconv"
	"strings"
	"testing"
)

// Replies below were taken from redis-server 7.0.15.

// helloReply is HELLO's reply for a client of the given id.
func helloReply(proto int, id uint64) string {
	head := "*14\r\n"
	if proto == 3 {
		head = "%7\r\n"
	}
	return head + "$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n" + Version + "\r\n" +
		"$5\r\nproto\r\n:" + strconv.Itoa(proto) + "\r\n$2\r\nid\r\n:" + strconv.FormatUint(id, 10) + "\r\n" +
		"$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"
}

// srvStep is one command and its expected reply.
type srvStep struct {
	args []string
	want string
}

func runSteps(c *testClient, steps []srvStep) {
	c.env.t.Helper()
	for _, s := range steps {
		c.expect(s.want, s.args...)
	}
}

func argv(args ...string) []string { return args }

func TestPingEcho(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("PING"), "+PONG\r\n"},
		{argv("PING", "hello"), "$5\r\nhello\r\n"},
		{argv("PING", "a", "b"), "-ERR wrong number of arguments for 'ping' command\r\n"},
		{argv("ECHO"), "-ERR wrong number of arguments for 'echo' command\r\n"},
		{argv("ECHO", "a", "b"), "-ERR wrong number of arguments for 'echo' command\r\n"},
		{argv("ECHO", ""), "$0\r\n\r\n"},
		{argv("echo", "\x00\r\n"), "$3\r\n\x00\r\n\r\n"},
	})
}

func TestHello(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	id := c.c.id
	runSteps(c, []srvStep{
		{argv("HELLO"), helloReply(2, id)},
		{argv("HELLO", "4"), "-NOPROTO unsupported protocol version\r\n"},
		{argv("HELLO", "1"), "-NOPROTO unsupported protocol version\r\n"},
		{argv("HELLO", "-3"), "-NOPROTO unsupported protocol version\r\n"},
		{argv("HELLO", "abc"), "-ERR Protocol version is not an integer or out of range\r\n"},
		{argv("HELLO", "3.0"), "-ERR Protocol version is not an integer or out of range\r\n"},
		{argv("HELLO", "03"), "-ERR Protocol version is not an integer or out of range\r\n"},
		{argv("HELLO", "3", "AUTH", "default"), "-ERR Syntax error in HELLO option 'AUTH'\r\n"},
		{argv("HELLO", "3", "SETNAME"), "-ERR Syntax error in HELLO option 'SETNAME'\r\n"},
		{argv("HELLO", "2", "foo"), "-ERR Syntax error in HELLO option 'foo'\r\n"},
		{argv("HELLO", "3", "AUTH", "nobody", "x"), "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		// A bad name fails the whole HELLO: the protocol does not change.
		{argv("HELLO", "3", "SETNAME", "a b"), "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{argv("GET", "missing"), "$-1\r\n"},
		// HELLO 3 switches reply types: null, maps.
		{argv("HELLO", "3", "SETNAME", "x", "SETNAME", "conn1"), helloReply(3, id)},
		{argv("GET", "missing"), "_\r\n"},
		{argv("CONFIG", "GET", "databases"), "%1\r\n$9\r\ndatabases\r\n$2\r\n16\r\n"},
		{argv("CLIENT", "GETNAME"), "$5\r\nconn1\r\n"},
		// Without a version HELLO keeps the protocol.
		{argv("HELLO"), helloReply(3, id)},
		{argv("HELLO", "2", "AUTH", "default", "anything"), helloReply(2, id)},
		{argv("GET", "missing"), "$-1\r\n"},
		{argv("CONFIG", "GET", "databases"), "*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n"},
	})
}

func TestAuthWithoutPassword(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("AUTH", "secret"), "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n"},
		{argv("AUTH", "default", "secret"), "+OK\r\n"},
		{argv("AUTH", "nobody", "secret"), "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{argv("AUTH", "a", "b", "c"), "-ERR syntax error\r\n"},
		{argv("AUTH"), "-ERR wrong number of arguments for 'auth' command\r\n"},
	})
}

func TestAuthWithPassword(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"requirepass", "pw"}); err != nil {
		t.Fatal(err)
	}
	noauth := "-NOAUTH Authentication required.\r\n"
	helloNoAuth := "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"
	wrongpass := "-WRONGPASS invalid username-password pair or user is disabled.\r\n"

	c := env.client()
	runSteps(c, []srvStep{
		{argv("PING"), noauth},
		{argv("CLIENT", "GETNAME"), noauth},
		{argv("HELLO"), helloNoAuth},
		{argv("HELLO", "3", "SETNAME", "x"), helloNoAuth},
		{argv("HELLO", "4"), "-NOPROTO unsupported protocol version\r\n"},
		{argv("HELLO", "3", "AUTH", "default", "wrong"), wrongpass},
		{argv("AUTH", "wrong"), wrongpass},
		{argv("AUTH", "default", "wrong"), wrongpass},
		{argv("AUTH", "pw"), "+OK\r\n"},
		{argv("PING"), "+PONG\r\n"},
		// A failed AUTH does not log an authenticated client out.
		{argv("AUTH", "x", "y"), wrongpass},
		{argv("PING"), "+PONG\r\n"},
		// RESET does.
		{argv("RESET"), "+RESET\r\n"},
		{argv("PING"), noauth},
		{argv("QUIT"), "+OK\r\n"},
	})

	c = env.client()
	runSteps(c, []srvStep{
		{argv("HELLO", "3", "AUTH", "default", "pw", "SETNAME", "x"), helloReply(3, c.c.id)},
		{argv("CLIENT", "GETNAME"), "$1\r\nx\r\n"},
	})
}

func TestSelect(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("SELECT", "1"), "+OK\r\n"},
		{argv("SET", "k", "one"), "+OK\r\n"},
		{argv("SELECT", "0"), "+OK\r\n"},
		{argv("GET", "k"), "$-1\r\n"},
		{argv("SELECT", "1"), "+OK\r\n"},
		{argv("GET", "k"), "$3\r\none\r\n"},
		{argv("SELECT", "15"), "+OK\r\n"},
		{argv("SELECT", "16"), "-ERR DB index is out of range\r\n"},
		{argv("SELECT", "-1"), "-ERR DB index is out of range\r\n"},
		{argv("SELECT", "99999999999"), "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"},
		{argv("SELECT", "18446744073709551616"), "-ERR value is not an integer or out of range\r\n"},
		{argv("SELECT", "abc"), "-ERR value is not an integer or out of range\r\n"},
		{argv("SELECT", "01"), "-ERR value is not an integer or out of range\r\n"},
		{argv("SELECT", "+1"), "-ERR value is not an integer or out of range\r\n"},
		{argv("SELECT", ""), "-ERR value is not an integer or out of range\r\n"},
		{argv("SELECT"), "-ERR wrong number of arguments for 'select' command\r\n"},
	})
}

func TestReset(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("SELECT", "3"), "+OK\r\n"},
		{argv("SET", "k", "v"), "+OK\r\n"},
		{argv("HELLO", "3", "SETNAME", "x"), helloReply(3, c.c.id)},
		{argv("CLIENT", "NO-EVICT", "on"), "+OK\r\n"},
		{argv("CLIENT", "NO-TOUCH", "on"), "+OK\r\n"},
		{argv("CLIENT", "SETINFO", "LIB-NAME", "go-redis"), "+OK\r\n"},
		{argv("RESET"), "+RESET\r\n"},
		{argv("GET", "k"), "$-1\r\n"}, // database 0, RESP2
		{argv("CLIENT", "GETNAME"), "$-1\r\n"},
		{argv("RESET", "x"), "-ERR wrong number of arguments for 'reset' command\r\n"},
	})
	info := c.do("CLIENT", "INFO")
	for _, want := range []string{" flags=N ", " db=0 ", " resp=2 ", " lib-name=go-redis "} {
		if !strings.Contains(info, want) {
			t.Errorf("CLIENT INFO after RESET: %q lacks %q", info, want)
		}
	}
	if c.c.db.NoTouch {
		t.Error("RESET left NO-TOUCH on")
	}
}

func TestQuit(t *testing.T) {
	c := newTestEnv(t).client()
	c.expect("+OK\r\n", "QUIT", "now")
	if !c.closed {
		t.Fatal("QUIT did not close")
	}
}
