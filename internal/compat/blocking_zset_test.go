package compat

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Blocking sorted-set pops (BZPOPMIN, BZPOPMAX, BZMPOP): single-connection
// cases (data already there, timeouts, errors), then scenarios across
// connections played by blocking_test.go's playBlocking on both servers.

func TestRedisZsetBlocking(t *testing.T) { runRedisCases(t, zsetBlockingCases) }

var zsetBlockingCases = []redisCase{
	{name: "bzpop ready", cmds: mbs("ZADD z 1 a 2 b 3 c 1.5 d -inf m +inf n", "BZPOPMIN nosuch z 0", "BZPOPMAX z 0", "BZPOPMIN z 1", "BZPOPMAX nosuch z nosuch2 0.5", "ZRANGE z 0 -1 WITHSCORES")},
	{name: "bzmpop ready", cmds: mbs("ZADD z 1 a 2 b 3 c 1.5 d", "ZADD y 5 e", "BZMPOP 0 2 nx z MIN COUNT 2", "BZMPOP 0 2 z y max", "BZMPOP 1 2 z y MiN count 10", "BZMPOP 0 1 y MAX COUNT 9223372036854775807", "EXISTS z y")},
	{name: "bzpop empties key", cmds: mbs("ZADD z 1 a", "BZPOPMIN z 0", "EXISTS z", "TYPE z")},
	{name: "bzpop timeouts", cmds: mbs("BZPOPMIN a b 0.01", "BZPOPMAX a 0.02", "BZMPOP 0.01 2 a b MIN", "BZMPOP 0.01 1 a MAX COUNT 3", "EXISTS a b")},
	{name: "bzpop wrong type", cmds: mbs("SET s v", "RPUSH l x", "ZADD z 1 a", "BZPOPMIN s 0", "BZPOPMAX nosuch l z 0", "BZPOPMIN z s 0", "BZMPOP 0 1 s MIN", "BZMPOP 0 2 nosuch l MAX COUNT 2", "BZMPOP 0 2 z l MAX", "EXISTS z")},
	{name: "bzpop timeout errors", cmds: mbs("BZPOPMIN a abc", "BZPOPMIN a -1", "BZPOPMAX a -0.5", "BZPOPMIN a inf", "BZPOPMIN a -inf", "BZPOPMAX a 1e30", "BZPOPMIN a 1e400", "BZPOPMIN a nan", "SET s v", "BZPOPMIN s x", "BZMPOP -1 1 a MIN", "BZMPOP x 1 a MAX", "BZMPOP x 1 s MIN")},
	{name: "bzmpop argument order", cmds: mbs("SET s v", "BZMPOP x 0 a MIN", "BZMPOP 0 -1 a MIN", "BZMPOP 0 abc a MIN", "BZMPOP x 1 a MIDDLE", "BZMPOP x 1 a MIN COUNT 0", "BZMPOP 0 1 a MIN COUNT -3", "BZMPOP x 2 a MIN", "BZMPOP 0 5 a MIN", "BZMPOP 0 1 a MIN FOO", "BZMPOP -1 1 a MIN COUNT 1 COUNT 2", "BZMPOP 0 1 s min count", "BZMPOP 0 9223372036854775807 s MIN", "BZMPOP 0 9223372036854775806 s MIN")},
	{name: "bzpop arity", cmds: mbs("BZPOPMIN a", "BZPOPMAX", "BZMPOP 0 1 a", "BZMPOP 0")},
}

var zsetBlockScenarios = []blockScenario{
	{name: "zadd wakes blocked", conns: 2, steps: []blockStep{
		bSend(1, "BZPOPMIN z 0"), bBlocked(1), bDo(0, "ZADD z 1 a 2 b"), bRead(1), bDo(0, "ZRANGE z 0 -1 WITHSCORES"), bBlocked(0),
	}},
	{name: "zset fifo across three", conns: 4, steps: []blockStep{
		bSend(1, "BZPOPMIN z 0"), bBlocked(1), bSend(2, "BZPOPMAX x z 0"), bBlocked(2), bSend(3, "BZMPOP 0 1 z MIN COUNT 2"), bBlocked(3),
		bDo(0, "ZADD z 1 a 2 b 3 c 4 d 5 e"), bRead(1), bRead(2), bRead(3), bDo(0, "ZRANGE z 0 -1 WITHSCORES"),
	}},
	{name: "zset two waiters one member", conns: 3, steps: []blockStep{
		bSend(1, "BZPOPMAX z 0"), bBlocked(1), bSend(2, "BZPOPMIN z 0"), bBlocked(2),
		bDo(0, "ZADD z 1 a"), bRead(1), bBlocked(1), bDo(0, "ZINCRBY z 2.5 b"), bRead(2), bDo(0, "EXISTS z"),
	}},
	{name: "bzmpop min max count", conns: 3, steps: []blockStep{
		bSend(1, "BZMPOP 0 2 a b MAX COUNT 2"), bBlocked(1), bSend(2, "BZMPOP 0 1 b MIN COUNT 10"), bBlocked(2),
		bDo(0, "ZADD b 1 one 2 two 3 three 4 four 5 five"), bRead(1), bRead(2), bDo(0, "EXISTS b"),
	}},
	{name: "zset multi key waiter", conns: 2, steps: []blockStep{
		bSend(1, "BZPOPMIN a b c 0"), bBlocked(1), bDo(0, "ZADD c 1 x"), bRead(1), bDo(0, "ZADD a 2 y"), bDo(0, "ZRANGE a 0 -1 WITHSCORES"),
	}},
	{name: "zset timeout reply", conns: 2, steps: []blockStep{
		bSend(1, "BZPOPMIN z 0.05"), bRead(1), bSend(1, "BZMPOP 0.05 1 z MAX"), bRead(1), bDo(0, "ZADD z 1 a"), bDo(0, "ZCARD z"), bBlocked(0),
	}},
	{name: "zset other type does not serve", conns: 3, steps: []blockStep{
		bSend(1, "BZPOPMIN k 0"), bBlocked(1), bSend(2, "BLPOP k 0"), bBlocked(2), bDo(0, "RPUSH k v"), bRead(2), bBlocked(1),
		bDo(0, "SET k s"), bPause(20 * time.Millisecond), bDo(0, "DEL k"), bDo(0, "ZADD k 3 m"), bRead(1),
	}},
	{name: "zunionstore into waited key", conns: 2, steps: []blockStep{
		bSend(1, "BZPOPMAX k 0"), bBlocked(1), bDo(0, "ZADD a 1 x 2 y"), bDo(0, "ZUNIONSTORE k 1 a"), bRead(1), bDo(0, "ZRANGE k 0 -1 WITHSCORES"),
	}},
	{name: "zset rename onto waited key", conns: 2, steps: []blockStep{
		bSend(1, "BZMPOP 0 1 k MIN COUNT 5"), bBlocked(1), bDo(0, "ZADD tmp 1 a 2 b"), bDo(0, "RENAME tmp k"), bRead(1), bDo(0, "EXISTS k"),
	}},
	{name: "zset pipelined after blocking", conns: 2, steps: []blockStep{
		bSendRaw(1, cmd("BZPOPMIN", "z", "0")+cmd("PING")+cmd("ZCARD", "z")), bBlocked(1),
		bDo(0, "ZADD z 1 a 2 b"), bRead(1), bRead(1), bRead(1),
	}},
	{name: "zset disconnect leaves no waiter", conns: 3, steps: []blockStep{
		bSend(1, "BZPOPMIN z 0"), bBlocked(1), bSend(2, "BZMPOP 0 2 y z MAX"), bBlocked(2),
		bClose(1), bClose(2), bBlocked(0), bDo(0, "ZADD z 1 a"), bDo(0, "ZCARD z"),
	}},
}

func TestRedisBlockingZset(t *testing.T) {
	for _, sc := range zsetBlockScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				for _, a := range []string{refRedis, sutRedis} {
					if err := flushRedis(a); err != nil {
						t.Fatal(err)
					}
				}
				ref, sut := both(func(addr string) []string { return playBlocking(addr, sc, proto) }, refRedis, sutRedis)
				for i := range ref {
					if strings.HasPrefix(ref[i], "error: ") {
						t.Fatalf("step %d on redis-server: %s (the scenario is wrong)", i, ref[i])
					}
					if i >= len(sut) || sut[i] != ref[i] {
						got := "<missing>"
						if i < len(sut) {
							got = sut[i]
						}
						t.Fatalf("step %d %v (conn %d): differs\n  redis:  %q\n  %s: %q", i, sc.steps[i].args, sc.steps[i].conn, ref[i], sideName(), got)
					}
				}
			})
		}
	}
}

// TestBlockingZsetTimeoutAccuracy: BZPOPMIN, BZPOPMAX and BZMPOP time out
// within 50 ms of their timeout (Tandem only, as
// TestBlockingTimeoutAccuracy).
func TestBlockingZsetTimeoutAccuracy(t *testing.T) {
	mustNotSelfTest(t)
	for _, args := range [][]string{
		{"BZPOPMIN", "nosuch", "0.2"},
		{"BZPOPMAX", "a", "b", "0.05"},
		{"BZMPOP", "0.15", "1", "nosuch", "MIN", "COUNT", "2"},
	} {
		c := dialRESP(t, sutRedis)
		want, _ := strconv.ParseFloat(args[len(args)-1], 64)
		if args[0] == "BZMPOP" {
			want, _ = strconv.ParseFloat(args[1], 64)
		}
		start := time.Now()
		rep := c.do(args...)
		elapsed := time.Since(start)
		if string(rep.raw) != "*-1\r\n" {
			t.Errorf("%v: reply %q", args, rep.raw)
		}
		wantD := time.Duration(want * float64(time.Second))
		if d := elapsed - wantD; d < 0 || d > time.Second { // never early; late only by scheduling
			t.Errorf("%v: timed out after %v, want %v (never early)", args, elapsed, wantD)
		}
	}
}
