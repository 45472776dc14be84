package resp

import (
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
)

// Keyspace notifications: the events each command family emits, captured
// by a sink on the test engine. The expected sequences are what
// redis-server 7.0.15 publishes for the same commands (checked against it;
// internal/compat/cases_notify_test.go compares the two live).

// notifyEnv is a test front-end whose keyspace events are recorded as
// "channel message" lines, with notify-keyspace-events set to flags.
func notifyEnv(t *testing.T, flags string) (*testEnv, *[]string) {
	env := newTestEnv(t)
	var got []string
	env.eng.SetNotifySink(services.NotifySink(func(ch, msg []byte) int {
		got = append(got, string(ch)+" "+string(msg))
		return 0
	}))
	env.client().expect("+OK\r\n", "CONFIG", "SET", "notify-keyspace-events", flags)
	return env, &got
}

// events turns "db:event:key" shorthands into the KE lines Redis sends:
// keyspace first, then keyevent.
func events(evs ...string) []string {
	var out []string
	for _, e := range evs {
		p := strings.SplitN(e, ":", 3)
		out = append(out, "__keyspace@"+p[0]+"__:"+p[2]+" "+p[1], "__keyevent@"+p[0]+"__:"+p[1]+" "+p[2])
	}
	return out
}

func checkEvents(t *testing.T, what string, got *[]string, want []string) {
	t.Helper()
	if strings.Join(*got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, *got, want)
	}
	*got = nil
}

func TestNotifyCommandFamilies(t *testing.T) {
	type step struct {
		cmds [][]string
		want []string
	}
	cmds := func(lines ...string) [][]string {
		var out [][]string
		for _, l := range lines {
			out = append(out, strings.Fields(l))
		}
		return out
	}
	cases := []struct {
		name string
		step
	}{
		{"string", step{cmds("SET k v EX 100", "SET k v NX", "GETEX k PERSIST", "GETEX k PERSIST", "GETDEL k",
			"MSET a 1 b 2", "MSETNX a 1 c 2", "INCR a", "INCRBYFLOAT a 1.5", "INCR a", "APPEND b x",
			"SETRANGE b 5 y", "SETRANGE b 0 \"\"" /* empty: no event */, "SET k v PXAT 1", "EXISTS k"),
			events("0:set:k", "0:expire:k", "0:persist:k", "0:del:k", "0:set:a", "0:set:b",
				"0:incrby:a", "0:incrbyfloat:a", "0:append:b", "0:setrange:b",
				"0:set:k", "0:expire:k", "0:expired:k")}},
		{"generic", step{cmds("SET a 1", "SET b 2", "DEL a x b", "SET a 1", "EXPIRE a 100", "EXPIRE a 100 NX",
			"PERSIST a", "EXPIRE a -1", "SET a 1", "RENAME a b", "RENAME b b", "COPY b c", "COPY b c DB 1",
			"MOVE c 2", "UNLINK b", "FLUSHALL", "SET z 1", "SWAPDB 0 1"),
			events("0:set:a", "0:set:b", "0:del:a", "0:del:b", "0:set:a", "0:expire:a", "0:persist:a",
				"0:del:a", "0:set:a", "0:rename_from:a", "0:rename_to:b", "0:copy_to:c", "1:copy_to:c",
				"0:move_from:c", "2:move_to:c", "0:del:b", "0:set:z")}},
		{"list", step{cmds("RPUSH l a b c", "LPUSHX nol a", "LPOP l", "RPOP l 0", "LSET l 0 x",
			"LINSERT l BEFORE x y", "LREM l 1 y", "LTRIM l 0 10", "LMOVE l d LEFT RIGHT",
			"RPUSH m 1 2", "LMPOP 2 nol m RIGHT COUNT 5", "RPUSH n 1", "BLPOP n 0"),
			events("0:rpush:l", "0:lpop:l", "0:lset:l", "0:linsert:l", "0:lrem:l", "0:ltrim:l",
				"0:rpush:d", "0:lpop:l", "0:rpush:m", "0:rpop:m", "0:del:m",
				"0:rpush:n", "0:lpop:n", "0:del:n")}},
		{"hash", step{cmds("HSET h a 1 b 2", "HSETNX h a 1", "HINCRBY h a 2", "HINCRBYFLOAT h a 0.5",
			"HDEL h x", "HDEL h a b"),
			events("0:hset:h", "0:hincrby:h", "0:hincrbyfloat:h", "0:hdel:h", "0:del:h")}},
		{"set", step{cmds("SADD s 1 2", "SADD s 1", "SREM s 1", "SADD t 2", "SMOVE s t 2",
			"SPOP t 5", "SADD a 1", "SINTERSTORE i a nokey", "SUNIONSTORE i a", "SINTERSTORE i a nokey"),
			events("0:sadd:s", "0:srem:s", "0:sadd:t", "0:srem:s", "0:del:s", "0:spop:t", "0:del:t",
				"0:sadd:a", "0:sunionstore:i", "0:del:i")}},
		{"zset", step{cmds("ZADD z 1 a 2 b", "ZADD z 1 a", "ZINCRBY z 1 a", "ZREM z x", "ZREM z a",
			"ZADD z 3 c", "ZREMRANGEBYSCORE z 3 3", "ZPOPMAX z", "ZADD y 1 a", "ZRANGESTORE r y 0 -1",
			"ZUNIONSTORE u 2 y nokey", "ZINTERSTORE u 2 y nokey", "BZPOPMIN y 0"),
			events("0:zadd:z", "0:zincr:z", "0:zrem:z", "0:zadd:z", "0:zremrangebyscore:z",
				"0:zpopmax:z", "0:del:z", "0:zadd:y", "0:zrangestore:r", "0:zunionstore:u", "0:del:u",
				"0:zpopmin:y", "0:del:y")}},
		{"bitmap hll sort", step{cmds("SETBIT b 7 1", "SETBIT b 7 1", "BITOP NOT d b", "BITOP AND d nokey",
			"BITFIELD f GET u8 0", "BITFIELD f SET u8 0 1", "PFADD h a", "PFADD h a", "PFMERGE h",
			"RPUSH l 2 1", "SORT l STORE o", "SORT nokey STORE o"),
			events("0:setbit:b", "0:set:d", "0:del:d", "0:setbit:f", "0:pfadd:h", "0:pfadd:h",
				"0:rpush:l", "0:sortstore:o", "0:del:o")}},
		{"wrong type and errors", step{cmds("HSET h f v", "INCR h", "LPUSH h x", "SET n x", "INCR n", "SETEX n 0 v"),
			events("0:hset:h", "0:set:n")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, got := notifyEnv(t, "KEA")
			c := env.client()
			for _, cmd := range tc.cmds {
				if len(cmd) > 0 && cmd[len(cmd)-1] == `""` {
					cmd[len(cmd)-1] = ""
				}
				c.do(cmd...)
			}
			checkEvents(t, tc.name, got, tc.want)
		})
	}
}

// Lazy and active expiry report "expired"; DEL reports each key's events
// in key order, so a later key's "expired" follows an earlier key's "del".
func TestNotifyExpired(t *testing.T) {
	env, got := notifyEnv(t, "KEA")
	c := env.client()
	c.do("SET", "a", "1")
	c.do("SET", "b", "1", "PX", "10")
	*got = nil
	env.clock.Advance(time.Second)
	c.do("DEL", "a", "b")
	checkEvents(t, "DEL a b (b expired)", got, events("0:del:a", "0:expired:b"))
	c.do("SELECT", "3")
	c.do("SET", "x", "1", "PX", "10")
	*got = nil
	env.clock.Advance(time.Second)
	env.eng.ActiveExpireCycle(time.Second)
	checkEvents(t, "active expiry", got, events("3:expired:x"))
}

// The flags choose the channels and classes, and CONFIG SET changes them
// at once.
func TestNotifyConfigFlags(t *testing.T) {
	env, got := notifyEnv(t, "")
	c := env.client()
	c.do("SET", "k", "v")
	checkEvents(t, "off", got, nil)
	c.do("CONFIG", "SET", "notify-keyspace-events", "K$")
	c.do("SET", "k", "v", "EX", "10") // expire is class g: off
	checkEvents(t, "K$", got, []string{"__keyspace@0__:k set"})
	c.do("CONFIG", "SET", "notify-keyspace-events", "Eg")
	c.do("SET", "k", "v", "EX", "10")
	checkEvents(t, "Eg", got, []string{"__keyevent@0__:expire k"})
	c.do("CONFIG", "SET", "notify-keyspace-events", "Kl")
	c.do("RPUSH", "l", "a")
	c.do("LPOP", "l") // del is class g: off
	checkEvents(t, "Kl", got, []string{"__keyspace@0__:l rpush", "__keyspace@0__:l lpop"})
}

// A push that serves blocked clients reports its own event first, then
// the pops it handed over; a BLMOVE's retry comes after both.
func TestNotifyBlockedClients(t *testing.T) {
	env, got := notifyEnv(t, "KEA")
	a, b, p := env.loopClient(), env.loopClient(), env.loopClient()
	a.do("BLPOP", "l", "0")
	b.do("BRPOP", "l", "0")
	p.expect(":2\r\n", "RPUSH", "l", "x", "y")
	checkEvents(t, "two pops served", got, events("0:rpush:l", "0:lpop:l", "0:rpop:l", "0:del:l"))
	a.expectWoken("*2\r\n$1\r\nl\r\n$1\r\nx\r\n")
	b.expectWoken("*2\r\n$1\r\nl\r\n$1\r\ny\r\n")
	checkEvents(t, "replies", got, nil)

	a.do("BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
	p.expect(":1\r\n", "RPUSH", "src", "v")
	checkEvents(t, "push before the retry", got, events("0:rpush:src"))
	a.expectWoken("$1\r\nv\r\n")
	checkEvents(t, "BLMOVE retry", got, events("0:rpush:dst", "0:lpop:src", "0:del:src"))

	a.do("BZPOPMAX", "z", "0")
	p.do("ZADD", "z", "1", "m")
	a.expectWoken("*3\r\n$1\r\nz\r\n$1\r\nm\r\n$1\r\n1\r\n")
	checkEvents(t, "BZPOPMAX served", got, events("0:zadd:z", "0:zpopmax:z", "0:del:z"))
}

// With notifications off the sink is never called.
func TestNotifyOff(t *testing.T) {
	env := newTestEnv(t)
	calls := 0
	env.eng.SetNotifySink(func(engine.Event) { calls++ })
	c := env.client()
	c.do("SET", "k", "v", "EX", "1")
	c.do("RPUSH", "l", "a")
	c.do("LPOP", "l")
	env.clock.Advance(2 * time.Second)
	c.do("GET", "k")
	if calls != 0 {
		t.Errorf("%d events with notify-keyspace-events empty", calls)
	}
}
