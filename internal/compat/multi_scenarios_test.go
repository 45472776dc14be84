package compat

import (
	"fmt"
	"strings"
	"testing"
)

// Transactions across connections, played like the blocking scenarios of
// blocking_test.go (same steps, same player) on redis-server and Tandem at
// once, every reply compared. Connection 0 is the one the player polls INFO
// on; the transactions run on 1 and the writers on 2 and 3 unless a
// scenario says otherwise. Then, Tandem only: a watched key written through
// the memcached port.

var multiScenarios = []blockScenario{
	// WATCH against writes from another connection.
	{name: "other conn writes watched key", conns: 3, steps: []blockStep{
		bDo(1, "WATCH k"), bDo(2, "SET k v"), bDo(1, "MULTI"), bDo(1, "GET k"), bDo(1, "EXEC"), bDo(1, "GET k"),
	}},
	{name: "other conn writes another key", conns: 3, steps: []blockStep{
		bDo(1, "WATCH k"), bDo(2, "SET other v"), bDo(1, "MULTI"), bDo(1, "SET k mine"), bDo(1, "EXEC"), bDo(2, "GET k"),
	}},
	{name: "other conn writes while queuing", conns: 3, steps: []blockStep{
		bDo(2, "SET k start"), bDo(1, "WATCH k"), bDo(1, "MULTI"), bDo(1, "SET k mine"), bDo(2, "SET k theirs"), bDo(1, "EXEC"), bDo(1, "GET k"),
	}},
	{name: "other conn reads watched key", conns: 3, steps: []blockStep{
		bDo(2, "SET k v"), bDo(1, "WATCH k"), bDo(2, "GET k"), bDo(2, "EXISTS k"), bDo(2, "TTL k"), bDo(1, "MULTI"), bDo(1, "APPEND k x"), bDo(1, "EXEC"),
	}},
	{name: "other conn no-op writes", conns: 3, steps: []blockStep{
		bDo(2, "SADD s a"), bDo(1, "WATCH s nosuch"), bDo(2, "SADD s a"), bDo(2, "DEL nosuch"), bDo(2, "SREM s zz"), bDo(1, "MULTI"), bDo(1, "SCARD s"), bDo(1, "EXEC"),
	}},
	{name: "other conn expires watched key", conns: 3, steps: []blockStep{
		bDo(2, "SET k v"), bDo(1, "WATCH k"), bDo(2, "EXPIRE k 100"), bDo(1, "MULTI"), bDo(1, "GET k"), bDo(1, "EXEC"),
	}},
	{name: "other conn deletes watched key", conns: 3, steps: []blockStep{
		bDo(2, "SET k v"), bDo(1, "WATCH k"), bDo(2, "DEL k"), bDo(1, "MULTI"), bDo(1, "SET k mine"), bDo(1, "EXEC"), bDo(2, "EXISTS k"),
	}},
	{name: "other conn flushall", conns: 3, steps: []blockStep{
		bDo(2, "SET k v"), bDo(1, "WATCH k"), bDo(2, "FLUSHALL"), bDo(1, "MULTI"), bDo(1, "PING"), bDo(1, "EXEC"),
	}},
	{name: "other conn swapdb", conns: 3, steps: []blockStep{
		bDo(2, "SET k v"), bDo(1, "WATCH k"), bDo(2, "SWAPDB 0 1"), bDo(1, "MULTI"), bDo(1, "GET k"), bDo(1, "EXEC"),
	}},
	{name: "other conn writes same key in another db", conns: 3, steps: []blockStep{
		bDo(1, "WATCH k"), bDo(2, "SELECT 1"), bDo(2, "SET k v"), bDo(1, "MULTI"), bDo(1, "GET k"), bDo(1, "EXEC"),
	}},
	{name: "watch in db 1 other conn writes db 1", conns: 3, steps: []blockStep{
		bDo(1, "SELECT 1"), bDo(1, "WATCH k"), bDo(2, "SELECT 1"), bDo(2, "SET k v"), bDo(1, "MULTI"), bDo(1, "GET k"), bDo(1, "EXEC"),
	}},
	{name: "other conn transaction writes watched key", conns: 3, steps: []blockStep{
		bDo(1, "WATCH k"), bDo(2, "MULTI"), bDo(2, "SET k theirs"), bDo(1, "MULTI"), bDo(1, "SET k mine"),
		bDo(2, "EXEC"), bDo(1, "EXEC"), bDo(1, "GET k"),
	}},
	{name: "other conn discarded transaction", conns: 3, steps: []blockStep{
		bDo(1, "WATCH k"), bDo(2, "MULTI"), bDo(2, "SET k theirs"), bDo(2, "DISCARD"), bDo(1, "MULTI"), bDo(1, "SET k mine"), bDo(1, "EXEC"),
	}},
	{name: "two watchers first wins", conns: 3, steps: []blockStep{
		bDo(0, "SET n 10"), bDo(1, "WATCH n"), bDo(2, "WATCH n"), bDo(1, "GET n"), bDo(2, "GET n"),
		bDo(1, "MULTI"), bDo(1, "SET n 11"), bDo(2, "MULTI"), bDo(2, "SET n 11"),
		bDo(1, "EXEC"), bDo(2, "EXEC"), bDo(2, "WATCH n"), bDo(2, "GET n"), bDo(2, "MULTI"), bDo(2, "SET n 12"), bDo(2, "EXEC"), bDo(0, "GET n"),
	}},
	{name: "other conn unwatch does not matter", conns: 3, steps: []blockStep{
		bDo(1, "WATCH k"), bDo(2, "WATCH k"), bDo(2, "UNWATCH"), bDo(2, "SET k v"), bDo(1, "MULTI"), bDo(1, "PING"), bDo(1, "EXEC"),
	}},
	{name: "queued writes invisible until exec", conns: 3, steps: []blockStep{
		bDo(1, "MULTI"), bDo(1, "SET k v"), bDo(1, "INCR n"), bDo(2, "GET k"), bDo(2, "EXISTS n"), bDo(1, "EXEC"), bDo(2, "GET k"), bDo(2, "GET n"),
	}},
	{name: "other conn writes between queue and exec", conns: 3, steps: []blockStep{
		bDo(1, "MULTI"), bDo(1, "INCR n"), bDo(2, "SET n 100"), bDo(1, "GET n"), bDo(1, "EXEC"),
	}},
	{name: "exec aborted leaves other writes", conns: 3, steps: []blockStep{
		bDo(1, "WATCH a b"), bDo(2, "SET b x"), bDo(1, "MULTI"), bDo(1, "SET a 1"), bDo(1, "DEL b"), bDo(1, "EXEC"), bDo(2, "MGET a b"),
	}},

	// Blocked clients and transactions: a blocked client is served after
	// EXEC, from the data as the whole transaction left it.
	{name: "blocked client waits for exec", conns: 3, steps: []blockStep{
		bSend(2, "BLPOP l 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "RPUSH l x"), bDo(1, "LPOP l"), bDo(1, "EXEC"),
		bBlocked(1), bDo(1, "EXISTS l"), bDo(1, "RPUSH l y"), bRead(2), bBlocked(0), bDo(1, "EXISTS l"),
	}},
	{name: "blocked client served after exec", conns: 3, steps: []blockStep{
		bSend(2, "BLPOP l 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "RPUSH l a b"), bDo(1, "LLEN l"), bDo(1, "RPUSH l c"), bDo(1, "EXEC"),
		bRead(2), bDo(1, "LRANGE l 0 -1"), bBlocked(0),
	}},
	{name: "blocked client served from last state", conns: 3, steps: []blockStep{
		bSend(2, "BRPOP l 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "RPUSH l a b c"), bDo(1, "RPOP l"), bDo(1, "LPOP l"), bDo(1, "EXEC"),
		bRead(2), bDo(1, "EXISTS l"), bBlocked(0),
	}},
	{name: "blocked client list deleted in transaction", conns: 3, steps: []blockStep{
		bSend(2, "BLPOP l 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "RPUSH l a"), bDo(1, "DEL l"), bDo(1, "SET l str"), bDo(1, "EXEC"),
		bBlocked(1), bDo(1, "DEL l"), bDo(1, "RPUSH l z"), bRead(2),
	}},
	{name: "two blocked clients one transaction", conns: 4, steps: []blockStep{
		bSend(2, "BLPOP l 0"), bBlocked(1), bSend(3, "BLPOP l 0"), bBlocked(2),
		bDo(1, "MULTI"), bDo(1, "RPUSH l a b c"), bDo(1, "LPOP l"), bDo(1, "EXEC"),
		bRead(2), bRead(3), bDo(1, "EXISTS l"), bBlocked(0),
	}},
	{name: "blocked blmove and transaction", conns: 3, steps: []blockStep{
		bSend(2, "BLMOVE src dst LEFT RIGHT 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "RPUSH src a b"), bDo(1, "LPOP src"), bDo(1, "EXEC"),
		bRead(2), bDo(1, "LRANGE dst 0 -1"), bDo(1, "EXISTS src"),
	}},
	{name: "blocked bzpopmin and transaction", conns: 3, steps: []blockStep{
		bSend(2, "BZPOPMIN z 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "ZADD z 2 b 1 a"), bDo(1, "ZPOPMIN z"), bDo(1, "ZCARD z"), bDo(1, "EXEC"),
		bRead(2), bDo(1, "EXISTS z"), bBlocked(0),
	}},
	{name: "blocked bzpopmin transaction empties set", conns: 3, steps: []blockStep{
		bSend(2, "BZPOPMIN z 0"), bBlocked(1),
		bDo(1, "MULTI"), bDo(1, "ZADD z 1 a"), bDo(1, "ZREM z a"), bDo(1, "EXEC"),
		bBlocked(1), bDo(1, "ZADD z 5 e"), bRead(2),
	}},
	{name: "transaction with blocking command does not block", conns: 3, steps: []blockStep{
		bDo(1, "MULTI"), bDo(1, "BLPOP l 0"), bDo(1, "EXEC"), bBlocked(0), bDo(2, "RPUSH l a"), bDo(1, "LLEN l"),
	}},
	{name: "blocked client serves watched key", conns: 4, steps: []blockStep{
		bSend(3, "BLPOP l 0"), bBlocked(1),
		bDo(1, "WATCH l"), bDo(2, "RPUSH l x"), bRead(3), bDo(1, "MULTI"), bDo(1, "LLEN l"), bDo(1, "EXEC"),
	}},
	{name: "transaction push watched by other", conns: 4, steps: []blockStep{
		bSend(3, "BLPOP l 0"), bBlocked(1),
		bDo(2, "WATCH l"), bDo(1, "MULTI"), bDo(1, "RPUSH l x"), bDo(1, "EXEC"), bRead(3),
		bDo(2, "MULTI"), bDo(2, "RPUSH l mine"), bDo(2, "EXEC"), bDo(1, "LRANGE l 0 -1"),
	}},
	{name: "pipelined transaction", conns: 3, steps: []blockStep{
		bSendRaw(1, cmd("MULTI")+cmd("SET", "k", "v")+cmd("INCR", "n")+cmd("EXEC")+cmd("GET", "k")),
		bRead(1), bRead(1), bRead(1), bRead(1), bRead(1), bDo(2, "GET n"),
	}},
	{name: "pipelined transaction behind blocking command", conns: 3, steps: []blockStep{
		bSendRaw(1, cmd("BLPOP", "l", "0")+cmd("MULTI")+cmd("LPOP", "l")+cmd("EXEC")), bBlocked(1),
		bDo(2, "RPUSH l a b"), bRead(1), bRead(1), bRead(1), bRead(1), bDo(2, "LLEN l"),
	}},
}

func TestRedisMultiScenarios(t *testing.T) {
	for _, sc := range multiScenarios {
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
					if dumpRefs && proto == 2 && ref[i] != "" {
						t.Logf("step %d conn %d %v -> %q", i, sc.steps[i].conn, stepText(sc.steps[i]), ref[i])
					}
					if i >= len(sut) || sut[i] != ref[i] {
						got := "<missing>"
						if i < len(sut) {
							got = sut[i]
						}
						t.Fatalf("step %d %s (conn %d): differs\n  redis:  %q\n  %s: %q", i, stepText(sc.steps[i]), sc.steps[i].conn, ref[i], sideName(), got)
					}
				}
			})
		}
	}
}

// stepText describes a scenario step for messages.
func stepText(st blockStep) string {
	switch st.kind {
	case stepRead:
		return "read"
	case stepWaitBlocked:
		return fmt.Sprintf("wait blocked_clients:%d", st.blocked)
	case stepClose:
		return "close"
	case stepPause:
		return "pause " + st.pause.String()
	}
	if st.raw != "" {
		return describe(st.raw)
	}
	return fmt.Sprint(st.args)
}

// Tandem only: memcached writes are writes to Redis database 0, so they
// touch watched keys like any RESP write.

func TestMultiWatchMemcachedSet(t *testing.T) {
	r, m := crossSetup(t)
	expectReply(t, "WATCH", r.do("WATCH", "k"), "+OK\r\n")
	expectMemc(t, "set", m.do("set k 0 0 1\r\nx\r\n"), "STORED\r\n")
	expectReply(t, "MULTI", r.do("MULTI"), "+OK\r\n")
	expectReply(t, "SET queued", r.do("SET", "k", "mine"), "+QUEUED\r\n")
	expectReply(t, "EXEC after memcached set of the watched key", r.do("EXEC"), "*-1\r\n")
	expectMemc(t, "get", m.do("get k\r\n"), "VALUE k 0 1\r\nx\r\nEND\r\n")
}

func TestMultiWatchMemcachedSetOtherKey(t *testing.T) {
	r, m := crossSetup(t)
	expectReply(t, "WATCH", r.do("WATCH", "k"), "+OK\r\n")
	expectMemc(t, "set", m.do("set other 0 0 1\r\nx\r\n"), "STORED\r\n")
	expectReply(t, "MULTI", r.do("MULTI"), "+OK\r\n")
	expectReply(t, "SET queued", r.do("SET", "k", "mine"), "+QUEUED\r\n")
	expectReply(t, "EXEC after memcached set of another key", r.do("EXEC"), "*1\r\n+OK\r\n")
	expectMemc(t, "get", m.do("get k\r\n"), "VALUE k 0 4\r\nmine\r\nEND\r\n")
}

func TestMultiWatchMemcachedSetWhileQueuing(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "k", "start")
	expectReply(t, "WATCH", r.do("WATCH", "k"), "+OK\r\n")
	expectReply(t, "MULTI", r.do("MULTI"), "+OK\r\n")
	expectReply(t, "SET queued", r.do("SET", "k", "mine"), "+QUEUED\r\n")
	expectMemc(t, "set", m.do("set k 5 0 6\r\ntheirs\r\n"), "STORED\r\n")
	expectReply(t, "EXEC", r.do("EXEC"), "*-1\r\n")
	expectMemc(t, "get", m.do("get k\r\n"), "VALUE k 5 6\r\ntheirs\r\nEND\r\n")
}

// TestMultiWatchMemcachedWrites: every memcached command that changes a
// value (or removes it) aborts a transaction watching the key; reads do not.
func TestMultiWatchMemcachedWrites(t *testing.T) {
	for _, tc := range []struct {
		name, memc, reply string
		aborts            bool
	}{
		{"delete", "delete k\r\n", "DELETED\r\n", true},
		{"incr", "incr k 1\r\n", "2\r\n", true},
		{"decr", "decr k 1\r\n", "0\r\n", true},
		{"append", "append k 0 0 1\r\nz\r\n", "STORED\r\n", true},
		{"prepend", "prepend k 0 0 1\r\nz\r\n", "STORED\r\n", true},
		{"replace", "replace k 0 0 1\r\nz\r\n", "STORED\r\n", true},
		{"ms", "ms k 1\r\nz\r\n", "HD\r\n", true},
		{"md", "md k\r\n", "HD\r\n", true},
		{"ma", "ma k\r\n", "HD\r\n", true},
		{"get", "get k\r\n", "VALUE k 0 1\r\n1\r\nEND\r\n", false},
		{"mg", "mg k v\r\n", "VA 1\r\n1\r\n", false},
		{"add existing", "add k 0 0 1\r\nz\r\n", "NOT_STORED\r\n", false},
		{"delete missing", "delete nosuch\r\n", "NOT_FOUND\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, m := crossSetup(t)
			r.do("SET", "k", "1")
			expectReply(t, "WATCH", r.do("WATCH", "k", "nosuch"), "+OK\r\n")
			expectMemc(t, tc.memc, m.do(tc.memc), tc.reply)
			expectReply(t, "MULTI", r.do("MULTI"), "+OK\r\n")
			expectReply(t, "PING queued", r.do("PING"), "+QUEUED\r\n")
			want := "*1\r\n+PONG\r\n"
			if tc.aborts {
				want = "*-1\r\n"
			}
			expectReply(t, "EXEC after memcached "+tc.name, r.do("EXEC"), want)
		})
	}
}

// TestMultiMemcachedSeesExecAtomically: a transaction's writes reach the
// memcached port together, after EXEC.
func TestMultiMemcachedSeesExecAtomically(t *testing.T) {
	r, m := crossSetup(t)
	expectReply(t, "MULTI", r.do("MULTI"), "+OK\r\n")
	r.do("SET", "a", "1")
	r.do("SET", "b", "2")
	expectMemc(t, "get before EXEC", m.do("get a b\r\n"), "END\r\n")
	expectReply(t, "EXEC", r.do("EXEC"), "*2\r\n+OK\r\n+OK\r\n")
	expectMemc(t, "get after EXEC", m.do("get a b\r\n"), "VALUE a 0 1\r\n1\r\nVALUE b 0 1\r\n2\r\nEND\r\n")
}

// TestMultiWatchMemcachedFlushAll: flush_all empties database 0 like
// FLUSHALL, which aborts a transaction watching an existing key.
func TestMultiWatchMemcachedFlushAll(t *testing.T) {
	r, m := crossSetup(t)
	r.do("SET", "k", "v")
	expectReply(t, "WATCH", r.do("WATCH", "k"), "+OK\r\n")
	expectMemc(t, "flush_all", m.do("flush_all\r\n"), "OK\r\n")
	expectReply(t, "MULTI", r.do("MULTI"), "+OK\r\n")
	r.do("PING")
	expectReply(t, "EXEC after flush_all", r.do("EXEC"), "*-1\r\n")
}
