package resp

import (
	"strings"
	"testing"
	"time"
)

// Replies below were taken from redis-server 7.0.15.

func TestDBSizeFlush(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("DBSIZE"), ":0\r\n"},
		{argv("SET", "a", "1"), "+OK\r\n"},
		{argv("SET", "b", "2"), "+OK\r\n"},
		{argv("SET", "a", "3"), "+OK\r\n"},
		{argv("DBSIZE"), ":2\r\n"},
		{argv("DBSIZE", "x"), "-ERR wrong number of arguments for 'dbsize' command\r\n"},
		{argv("SELECT", "1"), "+OK\r\n"},
		{argv("SET", "c", "1"), "+OK\r\n"},
		{argv("FLUSHDB"), "+OK\r\n"},
		{argv("DBSIZE"), ":0\r\n"},
		{argv("SELECT", "0"), "+OK\r\n"},
		{argv("DBSIZE"), ":2\r\n"},
		{argv("FLUSHDB", "now"), "-ERR syntax error\r\n"},
		{argv("FLUSHDB", "ASYNC", "SYNC"), "-ERR syntax error\r\n"},
		{argv("FLUSHDB", "async"), "+OK\r\n"},
		{argv("DBSIZE"), ":0\r\n"},
		{argv("SET", "a", "1"), "+OK\r\n"},
		{argv("SELECT", "3"), "+OK\r\n"},
		{argv("SET", "b", "1"), "+OK\r\n"},
		{argv("FLUSHALL", "bad"), "-ERR syntax error\r\n"},
		{argv("FLUSHALL", "SYNC", "ASYNC"), "-ERR syntax error\r\n"},
		{argv("FLUSHALL", "SYNC"), "+OK\r\n"},
		{argv("DBSIZE"), ":0\r\n"},
		{argv("SELECT", "0"), "+OK\r\n"},
		{argv("DBSIZE"), ":0\r\n"},
	})
}

func TestSwapDB(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("SET", "a", "in0"), "+OK\r\n"},
		{argv("SELECT", "1"), "+OK\r\n"},
		{argv("SET", "b", "in1"), "+OK\r\n"},
		{argv("SWAPDB", "0", "1"), "+OK\r\n"},
		// The client stays on database 1, which now holds db 0's keys.
		{argv("GET", "a"), "$3\r\nin0\r\n"},
		{argv("GET", "b"), "$-1\r\n"},
		{argv("SWAPDB", "1", "1"), "+OK\r\n"},
		{argv("SWAPDB", "0", "16"), "-ERR DB index is out of range\r\n"},
		{argv("SWAPDB", "-1", "0"), "-ERR DB index is out of range\r\n"},
		{argv("SWAPDB", "x", "1"), "-ERR invalid first DB index\r\n"},
		{argv("SWAPDB", "x", "y"), "-ERR invalid first DB index\r\n"},
		{argv("SWAPDB", "0", "y"), "-ERR invalid second DB index\r\n"},
		{argv("SWAPDB", "99999999999", "0"), "-ERR invalid first DB index\r\n"},
		{argv("SWAPDB", "0", "99999999999"), "-ERR invalid second DB index\r\n"},
		{argv("SWAPDB", "0"), "-ERR wrong number of arguments for 'swapdb' command\r\n"},
	})
}

func TestTime(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("*2\r\n$10\r\n1700000000\r\n$1\r\n0\r\n", "TIME")
	env.clock.Advance(1500 * time.Millisecond)
	c.expect("*2\r\n$10\r\n1700000001\r\n$6\r\n500000\r\n", "TIME")
	c.expect("-ERR wrong number of arguments for 'time' command\r\n", "TIME", "now")
}

func TestConfig(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	runSteps(c, []srvStep{
		{argv("CONFIG"), "-ERR wrong number of arguments for 'config' command\r\n"},
		{argv("CONFIG", "FOO"), "-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n"},
		{argv("CONFIG", "GET"), "-ERR wrong number of arguments for 'config|get' command\r\n"},
		{argv("CONFIG", "GET", "databases"), "*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n"},
		{argv("CONFIG", "GET", "nosuch"), "*0\r\n"},
		{argv("CONFIG", "SET"), "-ERR wrong number of arguments for 'config|set' command\r\n"},
		{argv("CONFIG", "SET", "maxmemory"), "-ERR wrong number of arguments for 'config|set' command\r\n"},
		{argv("CONFIG", "SET", "maxmemory", "1", "hz"), "-ERR syntax error\r\n"},
		{argv("CONFIG", "SET", "nosuch", "1"), "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n"},
		{argv("CONFIG", "SET", "maxmemory-policy", "sometimes"), "-ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction, allkeys-s3fifo\r\n"},
		{argv("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"), "+OK\r\n"},
		{argv("CONFIG", "GET", "maxmemory-policy"), "*2\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lru\r\n"},
		{argv("CONFIG", "REWRITE"), "-ERR The server is running without a config file\r\n"},
		{argv("CONFIG", "REWRITE", "x"), "-ERR wrong number of arguments for 'config|rewrite' command\r\n"},
		{argv("CONFIG", "RESETSTAT", "x"), "-ERR wrong number of arguments for 'config|resetstat' command\r\n"},
		{argv("CONFIG", "HELP", "x"), "-ERR wrong number of arguments for 'config|help' command\r\n"},
		{argv("CONFIG", "HELP"), "*11\r\n+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+GET <pattern>\r\n+    Return parameters matching the glob-like <pattern> and their values.\r\n+SET <directive> <value>\r\n+    Set the configuration <directive> to <value>.\r\n+RESETSTAT\r\n+    Reset statistics reported by the INFO command.\r\n+REWRITE\r\n+    Rewrite the configuration file.\r\n+HELP\r\n+    Prints this help.\r\n"},
		// CONFIG GET is a map in RESP3.
		{argv("HELLO", "3"), helloReply(3, c.c.id)},
		{argv("CONFIG", "GET", "maxmemory-policy"), "%1\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lru\r\n"},
		{argv("CONFIG", "GET", "nosuch"), "%0\r\n"},
	})
	if got := env.cfg.MaxMemoryPolicy().String(); got != "allkeys-lru" {
		t.Errorf("CONFIG SET did not reach conf: %s", got)
	}
}

func TestConfigResetStat(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("SET", "k", "v")
	c.do("GET", "k")
	c.do("GET", "nokey")
	c.do("NOSUCH")
	before := bulkText(t, c.do("INFO", "all"))
	for _, want := range []string{"total_commands_processed:3\r\n", "keyspace_hits:1\r\n", "keyspace_misses:1\r\n",
		"total_error_replies:1\r\n", "errorstat_ERR:count=1\r\n", "cmdstat_get:calls=2,"} {
		if !strings.Contains(before, want) {
			t.Errorf("INFO before RESETSTAT lacks %q", want)
		}
	}
	c.expect("+OK\r\n", "CONFIG", "RESETSTAT")
	after := bulkText(t, c.do("INFO", "all"))
	for _, want := range []string{"total_commands_processed:1\r\n", "keyspace_hits:0\r\n", "keyspace_misses:0\r\n",
		"total_error_replies:0\r\n", "total_connections_received:0\r\n", "# Errorstats\r\n\r\n",
		"# Commandstats\r\ncmdstat_config|resetstat:calls=1,"} {
		if !strings.Contains(after, want) {
			t.Errorf("INFO after RESETSTAT lacks %q:\n%s", want, after)
		}
	}
	if strings.Contains(after, "cmdstat_get:") {
		t.Error("RESETSTAT left cmdstat_get")
	}
}
