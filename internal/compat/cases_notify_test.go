package compat

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// Keyspace notifications, differential: with notify-keyspace-events KEA
// on both servers, a subscriber connection PSUBSCRIBEs __key*@*__:*, the
// other connections run a scenario (the blocking-scenario steps of
// blocking_test.go), and the messages the subscriber receives — channel
// and payload, in order — must be identical, as must every reply. A
// PUBLISH on a sentinel channel matching the pattern ends the stream.
// Then, on Tandem only, memcached writes seen by a RESP subscriber.

const (
	notifyPattern  = "__key*@*__:*"
	notifySentinel = "__keyspace@0__:~notify-end~"
)

type notifyScenario struct {
	name  string
	flags string // notify-keyspace-events; "" means KEA
	conns int    // command connections (the subscriber is extra)
	steps []blockStep
}

// nLines turns command lines into steps on connection 0.
func nLines(lines ...string) []blockStep {
	steps := make([]blockStep, len(lines))
	for i, l := range lines {
		steps[i] = bDo(0, l)
	}
	return steps
}

var notifyScenarios = []notifyScenario{
	{name: "string", conns: 1, steps: nLines(
		"SET k v", "SET k v EX 100", "SET k v PX 100000 GET", "SET k v NX", "SET k2 v XX",
		"SET k v XX KEEPTTL", "SET k v EXAT 1", "SET k v", "SET k v PXAT 1", "SETNX k v", "SETNX n v",
		"SET gone v EXAT 1", "EXISTS gone",
		"SETEX s 100 v", "PSETEX p 100000 v", "SETEX s 0 v",
		"GETSET k v2", "GETSET new v", "GETDEL k", "GETDEL k", "SET k v", "GETEX k", "GETEX k EX 10",
		"GETEX k PERSIST", "GETEX k PERSIST", "GETEX k EXAT 1", "GETEX k EXAT 1", "SET k v", "GETEX k PXAT 1",
		"GETEX missing EX 10",
		"MSET a 1 b 2 a 3", "MSETNX a 1 c 2", "MSETNX c 1 d 2", "APPEND a x", "APPEND z y",
		"INCR i", "INCRBY i 5", "DECR i", "DECRBY i 2", "INCR a", "INCRBYFLOAT f 1.5", "INCRBYFLOAT f abc",
		"SETRANGE sr 2 abc", "SETRANGE sr 1 x", "SETRANGE sr 0 ''", "SETRANGE none 0 ''",
		"HSET h f v", "SET h v", "SET h v GET", "LCS a b", "STRLEN a", "GET a")},
	{name: "generic", conns: 1, steps: nLines(
		"SET a 1", "SET b 2", "DEL a b c a", "SET a 1", "UNLINK a x",
		"SET k v", "EXPIRE k 100", "EXPIRE k 100 NX", "PEXPIRE k 100000 XX", "EXPIRE k 50 GT", "EXPIRE k 50 LT",
		"EXPIREAT k 1", "SET k v", "PEXPIREAT k 99999999999999", "PERSIST k", "PERSIST k", "EXPIRE nokey 10",
		"SET k v", "EXPIRE k -1", "SET k v", "PEXPIRE k 0", "TOUCH k", "TTL k",
		"SET a 1", "RENAME a b", "RENAME b b", "SET c 3", "RENAME b c", "RENAMENX c d", "SET e 1",
		"RENAMENX c e", "RENAME zz yy", "RENAMENX d d",
		"COPY d f", "COPY d f", "COPY d f REPLACE", "COPY d f DB 1", "COPY d d", "COPY nokey f",
		"MOVE d 2", "MOVE d 2", "SET d 1", "MOVE d 2", "RPUSH l x", "COPY l l2",
		"SELECT 1", "SET one 1", "DEL one f", "SELECT 0",
		"FLUSHDB", "SET x 1", "FLUSHALL", "SET y 1", "SWAPDB 0 1", "SELECT 1", "DEL y", "SELECT 0")},
	{name: "list", conns: 1, steps: nLines(
		"LPUSH l a b c", "RPUSH l d", "LPUSHX nol a", "RPUSHX l e", "LPOP l", "RPOP l 2", "LPOP l 0", "LPOP nol",
		"LSET l 0 x", "LSET l 99 x", "LINSERT l BEFORE x y", "LINSERT l BEFORE nopivot y", "LREM l 0 zz", "LREM l 1 y",
		"LTRIM l 0 100", "LTRIM nol 0 1", "LTRIM l 5 10", "RPUSH l a b c", "LMOVE l d LEFT RIGHT",
		"LMOVE l l LEFT RIGHT", "RPOPLPUSH l d", "LMOVE l d RIGHT LEFT", "LMOVE nol d LEFT LEFT",
		"RPUSH m 1 2", "LMPOP 2 nol m LEFT COUNT 5", "RPUSH n 1 2 3", "BLPOP n 0", "BRPOP n 0",
		"BLMPOP 0 1 n LEFT COUNT 3", "RPUSH o 1", "BLMOVE o p LEFT LEFT 0", "BRPOPLPUSH p q 0",
		"LPUSH q 2", "RPOP q 5", "SET s v", "LPUSH s x", "LRANGE q 0 -1")},
	{name: "hash", conns: 1, steps: nLines(
		"HSET h a 1 b 2", "HSET h a 1", "HMSET h c 3", "HSETNX h a 1", "HSETNX h z 1", "HDEL h nosuch",
		"HDEL h a b", "HINCRBY h c 5", "HINCRBY h c x", "HINCRBYFLOAT h f 1.5", "HINCRBYFLOAT h nof x",
		"HDEL h c f z", "HDEL h x", "HINCRBY new f 1", "HGETALL new")},
	{name: "set", conns: 1, steps: nLines(
		"SADD s a b c", "SADD s a", "SREM s zz", "SREM s a", "SREM s b", "SPOP s", "SPOP s", "SPOP s 0",
		"SADD s d", "SPOP s 1", "SADD s 4 2 3 1", "SPOP s 0", "SPOP s 100", "SPOP s", "SPOP s 3",
		"SADD s 1 2 3", "SMOVE s t 1", "SMOVE s t 1", "SADD t 2",
		"SMOVE s t 2", "SMOVE s t 3", "SMOVE t t 1", "SMOVE nos t 1",
		"SADD a 1 2", "SADD b 2 3", "SINTERSTORE i a b", "SUNIONSTORE u a b", "SDIFFSTORE d a b",
		"SINTERSTORE u a nokey", "SDIFFSTORE d a a", "SUNIONSTORE z nokey", "SET str x",
		"SUNIONSTORE str a", "SINTERSTORE str nokey", "SMEMBERS u")},
	{name: "zset", conns: 1, steps: nLines(
		"ZADD z 1 a 2 b", "ZADD z 1 a", "ZADD z NX 5 a", "ZADD z XX CH 5 a", "ZADD z INCR 2 a",
		"ZADD z GT 1 a", "ZADD z NX INCR 1 a", "ZINCRBY z 0 a", "ZINCRBY z 1 a", "ZINCRBY z 1 new",
		"ZREM z nosuch", "ZREM z new", "ZADD z 1 c 2 d 3 e 4 f", "ZREMRANGEBYRANK z 0 0",
		"ZREMRANGEBYSCORE z 100 200", "ZREMRANGEBYSCORE z 0 2", "ZREMRANGEBYLEX z - +",
		"ZADD z 1 a 2 b 3 c", "ZPOPMIN z", "ZPOPMAX z 0", "ZPOPMAX z 5", "ZPOPMIN z",
		"ZADD y 1 a 2 b", "ZMPOP 2 nokey y MAX COUNT 1", "BZPOPMIN y 0", "ZADD y 5 q",
		"BZMPOP 0 1 y MIN COUNT 3",
		"ZADD s1 1 a 2 b", "ZADD s2 2 b 3 c", "ZUNIONSTORE u 2 s1 s2", "ZINTERSTORE i 2 s1 s2",
		"ZDIFFSTORE d 2 s1 s2", "ZINTERSTORE i 2 s1 nokey", "ZDIFFSTORE d 2 s1 s1",
		"ZRANGESTORE r s1 0 -1", "ZRANGESTORE r s1 5 10", "ZRANGESTORE r2 s1 5 10",
		"ZRANGESTORE r3 s1 (1 +inf BYSCORE", "ZRANGE r3 0 -1 WITHSCORES")},
	{name: "bitmap hll sort", conns: 1, steps: nLines(
		"SETBIT b 7 1", "SETBIT b 7 1", "SETBIT b 7 0", "SETBIT b 100 0", "SET i 1", "SETBIT i 0 0",
		"BITOP AND dst b nokey", "BITOP OR dst b", "BITOP OR dst nokey", "BITOP OR dst nokey", "BITOP NOT dst b",
		"BITFIELD bf GET u8 0", "BITFIELD bf SET u8 0 255", "BITFIELD bf OVERFLOW FAIL INCRBY u8 0 10",
		"BITFIELD bf INCRBY u8 0 -10", "BITFIELD bf SET u8 0 245", "BITFIELD bf INCRBY u8 0 0",
		"BITFIELD g OVERFLOW FAIL SET u8 0 999", "STRLEN g", "BITFIELD g OVERFLOW FAIL SET u8 16 999 GET u8 0",
		"BITFIELD g SET u4 0 0", "BITFIELD_RO bf GET u8 0",
		"PFADD h a b", "PFADD h a", "PFADD h", "PFADD h2", "PFMERGE h3 h h2", "PFMERGE h3", "PFCOUNT h h2",
		"RPUSH l 3 1 2", "SORT l STORE out", "SORT l STORE out2 LIMIT 5 5", "SORT l STORE out LIMIT 5 5",
		"SORT nokey STORE out", "SORT l")},
	{name: "databases", conns: 1, steps: nLines(
		"SELECT 5", "SET k v", "RPUSH l a", "LPOP l", "MOVE k 6", "SELECT 6", "COPY k k2 DB 5",
		"EXPIRE k 100", "RENAME k r", "SELECT 0", "SET here v")},
	{name: "classes K and l only", flags: "Kl", conns: 1, steps: nLines(
		"SET k v EX 10", "RPUSH l a b", "LPOP l 2", "HSET h f v", "DEL k")},
	{name: "classes E$x", flags: "E$x", conns: 1, steps: append(nLines(
		"SET k v PX 30", "SET p v", "DEL p", "APPEND k x"),
		bPause(300*time.Millisecond), bDo(0, "GET k"))},
	// One volatile key at a time: whether the active cycle or the next
	// access reclaims it, its "expired" comes at the same place.
	{name: "active expiry", conns: 1, steps: []blockStep{
		bDo(0, "SET k v PX 20"), bDo(0, "SET z v"), bPause(400 * time.Millisecond),
		bDo(0, "SELECT 3"), bDo(0, "HSET h f v"), bDo(0, "PEXPIRE h 40"), bPause(400 * time.Millisecond),
		bDo(0, "DBSIZE"),
	}},
	{name: "lazy expiry", conns: 1, steps: []blockStep{
		bDo(0, "SET k v PX 30"), bPause(60 * time.Millisecond), bDo(0, "GET k"),
		bDo(0, "RPUSH l a"), bDo(0, "PEXPIRE l 30"), bPause(60 * time.Millisecond), bDo(0, "RPUSH l b"),
		bDo(0, "SET s v PX 30"), bPause(60 * time.Millisecond), bDo(0, "SET s w NX"),
	}},
	{name: "blpop served", conns: 3, steps: []blockStep{
		bSend(1, "BLPOP l 0"), bBlocked(1), bSend(2, "BRPOP l 0"), bBlocked(2),
		bDo(0, "RPUSH l a b c"), bRead(1), bRead(2), bDo(0, "LRANGE l 0 -1"), bDo(0, "RPUSH l d"),
	}},
	{name: "blpop emptied", conns: 2, steps: []blockStep{
		bSend(1, "BLPOP l 0"), bBlocked(1), bDo(0, "LPUSH l a"), bRead(1), bDo(0, "EXISTS l"),
	}},
	{name: "blmpop served", conns: 2, steps: []blockStep{
		bSend(1, "BLMPOP 0 2 a b RIGHT COUNT 2"), bBlocked(1), bDo(0, "RPUSH b 1 2 3"), bRead(1), bDo(0, "SET x 1"),
	}},
	{name: "blmove served", conns: 2, steps: []blockStep{
		bSend(1, "BLMOVE src dst RIGHT LEFT 0"), bBlocked(1), bDo(0, "RPUSH src x"), bRead(1), bDo(0, "SET x 1"),
	}},
	{name: "blmove chain", conns: 4, steps: []blockStep{
		bSend(1, "BLMOVE a b RIGHT LEFT 0"), bBlocked(1), bSend(2, "BRPOPLPUSH b c 0"), bBlocked(2),
		bSend(3, "BLPOP c 0"), bBlocked(3), bDo(0, "RPUSH a x"), bRead(1), bRead(2), bRead(3), bDo(0, "SET end 1"),
	}},
	{name: "bzpop served", conns: 3, steps: []blockStep{
		bSend(1, "BZPOPMIN z 0"), bBlocked(1), bSend(2, "BZMPOP 0 1 z MAX COUNT 5"), bBlocked(2),
		bDo(0, "ZADD z 1 a 2 b 3 c"), bRead(1), bRead(2), bDo(0, "SET x 1"),
	}},
	{name: "lmove and rename onto waited key", conns: 2, steps: []blockStep{
		bSend(1, "BLPOP k 0"), bBlocked(1), bDo(0, "RPUSH src x"), bDo(0, "LMOVE src k LEFT LEFT"), bRead(1),
		bSend(1, "BLPOP k 0"), bBlocked(1), bDo(0, "RPUSH tmp a b"), bDo(0, "RENAME tmp k"), bRead(1),
		bDo(0, "LRANGE k 0 -1"),
	}},
	{name: "swapdb and move to waited key", conns: 2, steps: []blockStep{
		bSend(1, "BLPOP k 0"), bBlocked(1), bDo(0, "SELECT 1"), bDo(0, "RPUSH k v w"), bDo(0, "SWAPDB 0 1"),
		bRead(1), bDo(0, "SELECT 0"), bDo(0, "DEL k"), bSend(1, "BLPOP k 0"), bBlocked(1), bDo(0, "SELECT 2"),
		bDo(0, "RPUSH k z"), bDo(0, "MOVE k 0"), bRead(1),
	}},
	{name: "multi and scripts", conns: 2, steps: []blockStep{
		bSend(1, "BLPOP q 0"), bBlocked(1), bDo(0, "MULTI"), bDo(0, "RPUSH q a b"), bDo(0, "RPUSH l x"),
		bDo(0, "LPOP l"), bDo(0, "SET k v EX 10"), bDo(0, "EXEC"), bRead(1),
		{conn: 0, args: []string{"EVAL", "redis.call('rpush','l','a'); redis.call('lpop','l'); redis.call('select','2'); " +
			"redis.call('sadd','s','m'); redis.call('spop','s'); return redis.call('set','k','v')", "0"}},
		bDo(0, "DEL q k"),
	}},
	{name: "pipelined after served", conns: 2, steps: []blockStep{
		bSendRaw(1, cmd("BLPOP", "l", "0")+cmd("SET", "after", "1")+cmd("RPUSH", "l", "again")),
		bBlocked(1), bDo(0, "RPUSH l a"), bRead(1), bRead(1), bRead(1), bDo(0, "LLEN l"),
	}},
}

func TestRedisNotify(t *testing.T) {
	for _, sc := range notifyScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				for _, a := range []string{refRedis, sutRedis} {
					if err := flushRedis(a); err != nil {
						t.Fatal(err)
					}
				}
				type result struct{ replies, events []string }
				ref, sut := both(func(addr string) result {
					r, e := playNotify(addr, sc, proto)
					return result{r, e}
				}, refRedis, sutRedis)
				for i := range ref.replies {
					if strings.HasPrefix(ref.replies[i], "error: ") {
						t.Fatalf("step %d on redis-server: %s (the scenario is wrong)", i, ref.replies[i])
					}
					if i >= len(sut.replies) || sut.replies[i] != ref.replies[i] {
						got := "<missing>"
						if i < len(sut.replies) {
							got = sut.replies[i]
						}
						t.Fatalf("step %d %v: reply differs\n  redis:  %q\n  %s: %q", i, sc.steps[i].args, ref.replies[i], sideName(), got)
					}
				}
				if strings.Join(ref.events, "\n") != strings.Join(sut.events, "\n") {
					t.Fatalf("events differ\n  redis:\n    %s\n  %s:\n    %s", strings.Join(ref.events, "\n    "),
						sideName(), strings.Join(sut.events, "\n    "))
				}
				if len(ref.events) == 0 && sc.name != "none" {
					t.Fatalf("redis-server sent no event: the scenario tests nothing")
				}
			})
		}
	}
}

// notifySubscriber is the subscribing connection of a scenario.
type notifySubscriber struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
}

func subscribeNotify(addr string, proto int) (*notifySubscriber, error) {
	timeout := timeoutFor(addr)
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	s := &notifySubscriber{addr: addr, c: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(timeout))
	req := cmd("PSUBSCRIBE", notifyPattern)
	if proto == 3 {
		req = cmd("HELLO", "3") + req
	}
	if _, err := c.Write([]byte(req)); err != nil {
		c.Close()
		return nil, err
	}
	n := 1
	if proto == 3 {
		n = 2
	}
	for ; n > 0; n-- {
		if _, err := readReply(s.r); err != nil {
			noteErr(addr, err)
			c.Close()
			return nil, fmt.Errorf("PSUBSCRIBE: %v", err)
		}
	}
	return s, nil
}

// messages reads pmessages until the sentinel's, as "channel payload".
func (s *notifySubscriber) messages() ([]string, error) {
	var out []string
	for {
		s.c.SetReadDeadline(time.Now().Add(timeoutFor(s.addr)))
		rep, err := readReply(s.r)
		noteErr(s.addr, err)
		if err != nil {
			return out, err
		}
		if len(rep.elems) != 4 || rep.elems[0].text != "pmessage" {
			return out, fmt.Errorf("not a pmessage: %q", rep.raw)
		}
		ch, msg := rep.elems[2].text, rep.elems[3].text
		if ch == notifySentinel {
			return out, nil
		}
		out = append(out, ch+" "+msg)
	}
}

// playNotify runs a scenario on addr: the replies of its steps, and the
// keyspace events a subscriber received meanwhile.
func playNotify(addr string, sc notifyScenario, proto int) (replies, events []string) {
	fail := func(err error) ([]string, []string) { return []string{"error: " + err.Error()}, nil }
	if err := sutGaveUp(addr); err != nil {
		return fail(err)
	}
	flags := sc.flags
	if flags == "" {
		flags = "KEA"
	}
	ctl := controlFor(addr)
	setFlags := func(v string) error {
		line, err := ctl.roundTrip(cmd("CONFIG", "SET", "notify-keyspace-events", v))
		if err == nil && line != "+OK\r\n" {
			err = fmt.Errorf("CONFIG SET notify-keyspace-events %s: %q", v, line)
		}
		return err
	}
	if err := setFlags(flags); err != nil {
		return fail(err)
	}
	defer setFlags("")
	sub, err := subscribeNotify(addr, proto)
	if err != nil {
		return fail(err)
	}
	defer sub.c.Close()
	steps := make([]blockStep, len(sc.steps))
	for i, st := range sc.steps {
		for j, a := range st.args {
			if a == "''" {
				st.args = append([]string(nil), st.args...)
				st.args[j] = ""
			}
		}
		steps[i] = st
	}
	replies = playBlocking(addr, blockScenario{name: sc.name, conns: sc.conns, steps: steps}, proto)
	if _, err := ctl.roundTrip(cmd("PUBLISH", notifySentinel, "end")); err != nil {
		return append(replies, "error: PUBLISH: "+err.Error()), nil
	}
	events, err = sub.messages()
	if err != nil {
		events = append(events, "error: "+err.Error())
	}
	return replies, events
}

// TestCrossNotifyMemcached: memcached writes on Tandem publish, in
// database 0, the events of the equivalent Redis commands, which a RESP
// subscriber receives.
func TestCrossNotifyMemcached(t *testing.T) {
	mustNotSelfTest(t)
	flushSUT(t)
	ctl := controlFor(sutRedis)
	if line, err := ctl.roundTrip(cmd("CONFIG", "SET", "notify-keyspace-events", "KEA")); err != nil || line != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q %v", line, err)
	}
	t.Cleanup(func() { ctl.roundTrip(cmd("CONFIG", "SET", "notify-keyspace-events", "")) })
	sub, err := subscribeNotify(sutRedis, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.c.Close()
	m := dialMemc(t, sutMemc)
	for _, req := range []string{
		"set a 0 0 1\r\n1\r\n",
		"set b 0 100 1\r\nx\r\n",
		"add a 0 0 1\r\n2\r\n", // not stored: no event
		"add c 0 0 1\r\n3\r\n",
		"replace c 0 0 1\r\n4\r\n",
		"append c 0 0 1\r\n5\r\n",
		"prepend c 0 0 1\r\n6\r\n",
		"incr a 5\r\n",
		"decr a 1\r\n",
		"incr nokey 1\r\n", // NOT_FOUND: no event
		"touch b 50\r\n",
		"touch b 0\r\n",
		"touch a -1\r\n",
		"gat 100 c\r\n",
		"delete c\r\n",
		"delete c\r\n",
		"ms d 1 T60\r\nx\r\n",
		"mg d T0 v\r\n",
		"md d\r\n",
		"set e 0 -1 1\r\nx\r\n",
		"flush_all\r\n",
	} {
		m.do(req)
	}
	if line, err := ctl.roundTrip(cmd("PUBLISH", notifySentinel, "end")); err != nil || line != ":1\r\n" {
		t.Fatalf("PUBLISH sentinel: %q %v", line, err)
	}
	got, err := sub.messages()
	if err != nil {
		t.Fatalf("reading events: %v (got %q)", err, got)
	}
	var want []string
	for _, e := range []string{
		"set:a", "set:b", "expire:b", "set:c", "set:c", "append:c", "append:c", "incrby:a", "incrby:a",
		"expire:b", "persist:b", "del:a", "expire:c", "del:c", "set:d", "expire:d", "persist:d", "del:d",
		"set:e", "expire:e", "expired:e",
	} {
		ev, key, _ := strings.Cut(e, ":")
		want = append(want, "__keyspace@0__:"+key+" "+ev, "__keyevent@0__:"+ev+" "+key)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n  got  %q\n  want %q", got, want)
	}
}
