package resp

import (
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/syncbuf"
	"github.com/tandemkv/tandem/scripting"
)

// Replies below were captured from redis-server 7.0.15.

func TestEvalBasics(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect(":1\r\n", "EVAL", "return 1", "0")
	c.expect("*4\r\n$1\r\na\r\n$1\r\nb\r\n:1\r\n:2\r\n", "EVAL", "return {KEYS[1], ARGV[1], #KEYS, #ARGV}", "1", "a", "b", "c")
	c.expect("+OK\r\n", "EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v")
	c.expect("$1\r\nv\r\n", "GET", "k")
	c.expect("-ERR Number of keys can't be negative\r\n", "EVAL", "return 1", "-1")
	c.expect("-ERR Number of keys can't be greater than number of args\r\n", "EVAL", "return 1", "2", "a")
	c.expect("-ERR value is not an integer or out of range\r\n", "EVAL", "return 1", "abc")
	c.expect("-NOSCRIPT No matching script. Please use EVAL.\r\n", "EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0")
	c.expect("-NOSCRIPT No matching script. Please use EVAL.\r\n", "EVALSHA", "abc", "0")
	c.expect("$40\r\ne0e1f9fabfc9d4800c877a703b823ac0578ff8db\r\n", "SCRIPT", "LOAD", "return 1")
	c.expect(":1\r\n", "EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0")
	c.expect("*3\r\n:1\r\n:0\r\n:1\r\n", "SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "ffffffffffffffffffffffffffffffffffffffff", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB")
	c.expect("-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n", "SCRIPT", "FLUSH", "foo")
	c.expect("+OK\r\n", "SCRIPT", "FLUSH", "ASYNC")
	c.expect("*1\r\n:0\r\n", "SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
	c.expect("-NOTBUSY No scripts in execution right now.\r\n", "SCRIPT", "KILL")
	c.expect("-NOTBUSY No scripts in execution right now.\r\n", "FUNCTION", "KILL")
	c.expect("-ERR wrong number of arguments for 'script|kill' command\r\n", "SCRIPT", "KILL", "x")
	c.expect("-ERR unknown subcommand 'foo'. Try SCRIPT HELP.\r\n", "SCRIPT", "foo")
	c.expect("-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n", "SCRIPT", "LOAD", "return {")
}

func TestEvalCallErrors(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	sha := func(body string) string { return scripting.SHA1Hex([]byte(body)) }
	run := func(want, body string) {
		t.Helper()
		c.expect(strings.ReplaceAll(want, "<sha>", sha(body)), "EVAL", body, "0")
	}
	run("-ERR Wrong number of args calling Redis command from script script: <sha>, on @user_script:1.\r\n", "return redis.call('get')")
	run("-ERR Unknown Redis command called from script script: <sha>, on @user_script:1.\r\n", "return redis.call('nosuch', 'a')")
	run("-WRONGTYPE Operation against a key holding the wrong kind of value script: <sha>, on @user_script:1.\r\n", "redis.call('set','k','v'); return redis.call('lpush','k','x')")
	run("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "return redis.pcall('lpush','k','x')")
	run("-ERR Unknown Redis command called from script\r\n", "return redis.pcall('nosuch')")
	run("-ERR This Redis command is not allowed from script script: <sha>, on @user_script:1.\r\n", "return redis.call('eval','return 1','0')")
	run("-ERR This Redis command is not allowed from script script: <sha>, on @user_script:1.\r\n", "return redis.call('multi')")
	run("$19\r\n0.10000000000000001\r\n", "redis.call('set','k',0.1); return redis.call('get','k')")
	run("*2\r\n$1\r\na\r\n$1\r\n1\r\n", "redis.setresp(3); redis.call('del','h'); redis.call('hset','h','a','1'); return redis.call('hgetall','h')")
	run("*2\r\n$5\r\ntable\r\n:1\r\n", "redis.setresp(3); redis.call('zadd','z','1.5','a'); local r = redis.call('zscore','z','a'); return {type(r), r.double}")
	// Blocking commands are noscript in 7.0.
	run("-ERR This Redis command is not allowed from script script: <sha>, on @user_script:1.\r\n", "return redis.call('blpop','nolist','0')")
	// SELECT inside a script does not move the caller.
	run("+OK\r\n", "redis.call('select','1'); return redis.call('set','indb1','x')")
	c.expect(":0\r\n", "EXISTS", "indb1")
	c.expect("+OK\r\n", "SELECT", "1")
	c.expect(":1\r\n", "EXISTS", "indb1")
}

func TestEvalReadOnly(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	body := "return redis.call('set','k','v')"
	c.expect("-ERR Write commands are not allowed from read-only scripts. script: "+scripting.SHA1Hex([]byte(body))+", on @user_script:1.\r\n", "EVAL_RO", body, "0")
	nw := "#!lua flags=no-writes\nreturn redis.call('set','k','v')"
	c.expect("-ERR Write commands are not allowed from read-only scripts. script: "+scripting.SHA1Hex([]byte(nw))+", on @user_script:2.\r\n", "EVAL", nw, "0")
	c.expect("-ERR Can not execute a script with write flag using *_ro command.\r\n", "EVAL_RO", "#!lua\nreturn 1", "0")
	c.expect(":1\r\n", "EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0")
	c.expect("$-1\r\n", "EVAL_RO", "return redis.call('get','k')", "0")
}

func TestFunctions(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	lib := "#!lua name=mylib\nredis.register_function('f1', function(keys, args) return {keys[1], args[1]} end)\n" +
		"redis.register_function{function_name='f2', callback=function() return redis.call('set','x','1') end, flags={'no-writes'}, description='desc2'}"
	c.expect("$5\r\nmylib\r\n", "FUNCTION", "LOAD", lib)
	c.expect("*2\r\n$1\r\nk\r\n$1\r\na\r\n", "FCALL", "f1", "1", "k", "a")
	c.expect("*2\r\n$1\r\nk\r\n$1\r\na\r\n", "FCALL", "F1", "1", "k", "a")
	c.expect("-ERR Write commands are not allowed from read-only scripts. script: f2, on @user_function:3.\r\n", "FCALL", "f2", "0")
	c.expect("-ERR Can not execute a script with write flag using *_ro command.\r\n", "FCALL_RO", "f1", "0")
	c.expect("-ERR Function not found\r\n", "FCALL", "nosuch", "0")
	c.expect("-ERR Bad number of keys provided\r\n", "FCALL", "f1", "x")
	c.expect("-ERR Number of keys can't be negative\r\n", "FCALL", "f1", "-1")
	c.expect("-ERR Library 'mylib' already exists\r\n", "FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('f1', function() return 1 end)")
	c.expect("-ERR Missing library metadata\r\n", "FUNCTION", "LOAD", "return 1")
	c.expect("-ERR Library name was not given\r\n", "FUNCTION", "LOAD", "#!lua\nreturn 1")
	c.expect("-ERR No functions registered\r\n", "FUNCTION", "LOAD", "#!lua name=x\nreturn 1")
	c.expect("-ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'\r\n", "FUNCTION", "LOAD", "#!lua name=x\nredis.call('ping')")
	c.expect("-ERR Function f1 already exists\r\n", "FUNCTION", "LOAD", "#!lua name=x\nredis.register_function('f1', function() return 1 end)")
	c.expect("-ERR Error registering functions: ERR unknown flag given\r\n", "FUNCTION", "LOAD", "#!lua name=x\nredis.register_function{function_name='g', callback=function() end, flags={'bad'}}")
	c.expect("-ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'string'\r\n", "FUNCTION", "LOAD", "#!lua name=t1\nlocal s = string.format('%d', 1)\nredis.register_function('t1f', function() return s end)")
	c.expect("-ERR Engine 'js' not found\r\n", "FUNCTION", "LOAD", "#!js name=x\n")
	c.expect("-ERR Unknown option given: badarg\r\n", "FUNCTION", "LOAD", "badarg", "#!lua name=lib3\n")
	c.expect("*1\r\n*6\r\n$12\r\nlibrary_name\r\n$5\r\nmylib\r\n$6\r\nengine\r\n$3\r\nLUA\r\n$9\r\nfunctions\r\n*2\r\n"+
		"*6\r\n$4\r\nname\r\n$2\r\nf1\r\n$11\r\ndescription\r\n$-1\r\n$5\r\nflags\r\n*0\r\n"+
		"*6\r\n$4\r\nname\r\n$2\r\nf2\r\n$11\r\ndescription\r\n$5\r\ndesc2\r\n$5\r\nflags\r\n*1\r\n+no-writes\r\n", "FUNCTION", "LIST")
	c.expect("*0\r\n", "FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "my")
	c.expect("-ERR Unknown argument foo\r\n", "FUNCTION", "LIST", "foo")
	c.expect("*4\r\n$14\r\nrunning_script\r\n$-1\r\n$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n$15\r\nlibraries_count\r\n:1\r\n$15\r\nfunctions_count\r\n:2\r\n", "FUNCTION", "STATS")
	c.expect("-ERR Library not found\r\n", "FUNCTION", "DELETE", "nosuch")
	c.expect("+OK\r\n", "FUNCTION", "DELETE", "mylib")
	c.expect("-ERR Function not found\r\n", "FCALL", "f1", "0")
	c.expect("$4\r\nlib2\r\n", "FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('h', function(k, a) error('oops') end)")
	c.expect("-ERR user_function:2: oops script: h, on @user_function:2.\r\n", "FCALL", "h", "0")
	c.expect("$4\r\nlib2\r\n", "FUNCTION", "LOAD", "REPLACE", "#!lua name=lib2\nredis.register_function('h', function(k, a) return 2 end)")
	c.expect(":2\r\n", "FCALL", "h", "0")
	c.expect("-ERR FUNCTION FLUSH only supports SYNC|ASYNC option\r\n", "FUNCTION", "FLUSH", "bad")
	c.expect("+OK\r\n", "FUNCTION", "FLUSH")
	c.expect("-ERR Function not found\r\n", "FCALL", "h", "0")
}

func TestScriptingCommandInfo(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("*2\r\n$1\r\na\r\n$1\r\nb\r\n", "COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c")
	c.expect("*1\r\n$1\r\na\r\n", "COMMAND", "GETKEYS", "FCALL", "f", "1", "a", "b")
	got := c.do("COMMAND", "INFO", "eval_ro")
	for _, want := range []string{"$7\r\neval_ro\r\n:-3\r\n", "+readonly\r\n+noscript\r\n+stale\r\n+skip_monitor\r\n+no_mandatory_keys\r\n+movablekeys\r\n", "*2\r\n+@slow\r\n+@scripting\r\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("COMMAND INFO eval_ro = %q, missing %q", got, want)
		}
	}
}

// parkedScriptReply returns the reply of a script started by a do on its own
// goroutine: at once if the script ended within busy-reply-threshold,
// else the client parked and the reply comes when its loop serves it again
// after the script ends (polled here, as the loop would on Wake).
func parkedScriptReply(runner *testClient, done chan string) string {
	if got := <-done; got != "" {
		return got
	}
	for {
		if got := runner.raw(""); got != "" {
			return got
		}
		runtime.Gosched()
	}
}

// TestScriptBusyKill: a script that never ends makes other clients get
// BUSY once busy-reply-threshold passes; SCRIPT KILL from another client
// stops it and service resumes.
func TestScriptBusyKill(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"busy-reply-threshold", "10"}); err != nil {
		t.Fatal(err)
	}
	var logBuf syncbuf.Buffer
	env.fe.log = slog.New(slog.NewTextHandler(&logBuf, nil))
	runner, other := env.client(), env.client()
	other.expect("+OK\r\n", "SET", "k", "v")
	body := "while true do end"
	done := make(chan string)
	go func() { done <- runner.do("EVAL", body, "0") }()
	gate := env.eng.Gate()
	for !gate.Busy() {
		runtime.Gosched()
	}
	// As Redis, the server log says so once (scriptInterrupt's warning).
	if want := "Slow script detected: still in execution after "; !strings.Contains(logBuf.String(), want) ||
		!strings.Contains(logBuf.String(), "You can try killing the script using the SCRIPT KILL command. Script name is: f_"+scripting.SHA1Hex([]byte(body))+".") {
		t.Errorf("the log lacks the slow script warning:\n%s", logBuf.String())
	}
	other.expect("-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n", "GET", "k")
	other.expect("-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n", "FUNCTION", "KILL")
	other.expect("+OK\r\n", "SCRIPT", "KILL")
	want := "-ERR Script killed by user with SCRIPT KILL... script: " + scripting.SHA1Hex([]byte(body)) + ", on @user_script:1.\r\n"
	if got := parkedScriptReply(runner, done); got != want {
		t.Errorf("killed script replied %q, want %q", got, want)
	}
	other.expect("$1\r\nv\r\n", "GET", "k")
	other.expect("-NOTBUSY No scripts in execution right now.\r\n", "SCRIPT", "KILL")
}

// TestScriptUnkillable: a busy script that wrote cannot be killed.
func TestScriptUnkillable(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"busy-reply-threshold", "10"}); err != nil {
		t.Fatal(err)
	}
	runner, other := env.client(), env.client()
	body := "redis.call('set','w','1') local n = 0 while n < 1 do n = tonumber(redis.call('get','stop') or '0') end return n"
	done := make(chan string)
	go func() { done <- runner.do("EVAL", body, "0") }()
	gate := env.eng.Gate()
	for !gate.Busy() {
		runtime.Gosched()
	}
	other.expect("-"+scripting.ErrUnkillable+"\r\n", "SCRIPT", "KILL")
	// The script stops by itself once it sees the key: set it from
	// inside, through the engine, as no client may write now.
	if _, err := env.eng.DB(0).Set([]byte("stop"), []byte("1"), engine.SetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := parkedScriptReply(runner, done); got != ":1\r\n" {
		t.Errorf("script replied %q", got)
	}
}

// TestFunctionBusyKill: the same for FCALL, with FUNCTION KILL and the
// FUNCTION variant of BUSY.
func TestFunctionBusyKill(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"busy-reply-threshold", "10"}); err != nil {
		t.Fatal(err)
	}
	runner, other := env.client(), env.client()
	runner.expect("$4\r\nloop\r\n", "FUNCTION", "LOAD", "#!lua name=loop\nredis.register_function('spin', function() while true do end end)")
	done := make(chan string)
	go func() { done <- runner.do("FCALL", "spin", "0") }()
	for !env.eng.Gate().Busy() {
		runtime.Gosched()
	}
	other.expect("-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n", "PING")
	other.expect("-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n", "SCRIPT", "KILL")
	if got := other.do("FUNCTION", "STATS"); !strings.Contains(got, "$4\r\nspin\r\n") {
		t.Errorf("FUNCTION STATS while running = %q", got)
	}
	other.expect("+OK\r\n", "FUNCTION", "KILL")
	if got, want := parkedScriptReply(runner, done), "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.\r\n"; got != want {
		t.Errorf("killed function replied %q, want %q", got, want)
	}
	other.expect("+PONG\r\n", "PING")
}

// TestEvalInsideMulti: EVAL queued in a transaction runs inside EXEC's
// exclusive section.
func TestEvalInsideMulti(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "EVAL", "return redis.call('incr', KEYS[1])", "1", "n")
	c.expect("+QUEUED\r\n", "EVAL", "return redis.call('incr', KEYS[1])", "1", "n")
	c.expect("*2\r\n:1\r\n:2\r\n", "EXEC")
}

// TestLongScriptFreesItsLoop: a script running past busy-reply-threshold
// parks its client, so the Serve call (the event loop) returns and the
// loop can serve SCRIPT KILL from a client of its own.
func TestLongScriptFreesItsLoop(t *testing.T) {
	env := newTestEnv(t)
	if err := env.cfg.Set([2]string{"busy-reply-threshold", "10"}); err != nil {
		t.Fatal(err)
	}
	runner, neighbour := env.client(), env.client()
	if got := runner.do("EVAL", "while true do end", "0"); got != "" {
		t.Fatalf("EVAL of an endless script replied %q before it ended", got)
	}
	neighbour.expect("+OK\r\n", "SCRIPT", "KILL")
	done := make(chan string, 1)
	done <- ""
	if got := parkedScriptReply(runner, done); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL") {
		t.Errorf("killed script replied %q", got)
	}
	runner.expect("+PONG\r\n", "PING")
}
