package resp

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tandemkv/tandem/scripting"
)

// failBGSave makes a BGSAVE fail (dir does not exist) and waits for it:
// with the default save rules and stop-writes-on-bgsave-error, writes
// then get MISCONF.
func failBGSave(t *testing.T, env *testEnv, c *testClient, dir string) {
	t.Helper()
	if err := env.cfg.Set([2]string{"dir", filepath.Join(dir, "missing")}); err != nil {
		t.Fatal(err)
	}
	c.expect("+Background saving started\r\n", "BGSAVE")
	env.fe.persist.Wait()
	c.expect("-"+ErrMisconf+"\r\n", "SET", "k", "v")
}

// Issue 12, defect 6 (scripts): after a failed BGSAVE, scripts may not
// write either. Redis 7.0.15, made to fail its BGSAVE the same way
// (CONFIG SET dir /proc), answers exactly these.
func TestMisconfRefusesScriptWrites(t *testing.T) {
	env, dir := persistEnv(t)
	c := env.client()
	c.expect("$3\r\nlib\r\n", "FUNCTION", "LOAD", "#!lua name=lib\n"+
		"redis.register_function('w', function() return redis.call('set','a','1') end)\n"+
		"redis.register_function{function_name='r', callback=function() return redis.call('get','a') end, flags={'no-writes'}}\n"+
		"redis.register_function('n', function() return 1 end)")
	shebang := "#!lua\nreturn 1"
	compatWrite := "return redis.call('set','a','1')"
	c.expect("$40\r\n"+scripting.SHA1Hex([]byte(shebang))+"\r\n", "SCRIPT", "LOAD", shebang)
	c.expect("$40\r\n"+scripting.SHA1Hex([]byte(compatWrite))+"\r\n", "SCRIPT", "LOAD", compatWrite)
	failBGSave(t, env, c, dir)

	misconf := "-" + ErrMisconf + "\r\n"
	inScript := func(body string) string {
		return "-" + ErrMisconf + " script: " + scripting.SHA1Hex([]byte(body)) + ", on @user_script:1.\r\n"
	}
	// redis.call of a write: scriptCall's MISCONF.
	c.expect(inScript(compatWrite), "EVAL", compatWrite, "0")
	c.expect(inScript(compatWrite), "EVALSHA", scripting.SHA1Hex([]byte(compatWrite)), "0")
	c.expect(inScript("return redis.call('del','nokey')"), "EVAL", "return redis.call('del','nokey')", "0")
	c.expect("$"+strconv.Itoa(len(ErrMisconf))+"\r\n"+ErrMisconf+"\r\n", "EVAL", "return redis.pcall('set','a','1')['err']", "0")
	// Reads, and commands that are not writes, still run in scripts.
	c.expect("$-1\r\n", "EVAL", "return redis.call('get','a')", "0")
	c.expect(":1\r\n", "EVAL", "return 1", "0")
	c.expect("+PONG\r\n", "EVAL", "return redis.call('ping')", "0")
	c.expect("$-1\r\n", "EVAL", "#!lua flags=no-writes\nreturn redis.call('get','a')", "0")
	c.expect("$-1\r\n", "FCALL", "r", "0")
	c.expect("$-1\r\n", "FCALL_RO", "r", "0")
	// A script that declared it may write is refused up front
	// (processCommand), before numkeys is read, however it would run.
	c.expect(misconf, "EVAL", shebang, "0")
	c.expect(misconf, "EVAL", shebang, "x")
	c.expect(misconf, "EVAL_RO", shebang, "0")
	c.expect(misconf, "EVAL", "#!lua flags=allow-oom\nreturn 1", "0")
	c.expect(misconf, "EVALSHA", scripting.SHA1Hex([]byte(shebang)), "0")
	c.expect(misconf, "FCALL", "w", "0")
	c.expect(misconf, "FCALL", "n", "0")
	c.expect(misconf, "FCALL", "w", "x")
	c.expect(misconf, "FCALL_RO", "w", "0")
	// Unknown scripts and bad shebangs fail on their own.
	c.expect("-ERR Function not found\r\n", "FCALL", "nofunc", "0")
	c.expect("-"+ErrNoScript+"\r\n", "EVALSHA", "3ea4d3c1ec5ca3e2ec7b1ef0f5d6ee92e1e1ce1c", "0")
	c.expect("-ERR Unexpected flag in script shebang: bogus\r\n", "EVAL", "#!lua flags=bogus\nreturn 1", "0")
	c.expect("$-1\r\n", "GET", "a") // nothing was written

	// A good save lets scripts write again.
	if err := env.cfg.Set([2]string{"dir", dir}); err != nil {
		t.Fatal(err)
	}
	c.expect("+Background saving started\r\n", "BGSAVE")
	env.fe.persist.Wait()
	c.expect("+OK\r\n", "FCALL", "w", "0")
	c.expect(":1\r\n", "EVAL", shebang, "0")
}
