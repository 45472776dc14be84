package compat

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// Pub/sub. Single-connection cases (one reply per command) run through the
// usual harness; everything else is a scenario over several connections,
// played on redis-server and on Tandem at the same time with every frame
// compared: a step sends a command and reads a given number of frames (a
// SUBSCRIBE of three channels answers three pushes), reads frames that a
// PUBLISH on another connection caused, closes a connection, or polls a
// command until its reply is the expected one (a close is processed
// asynchronously by both servers).
//
// Redis keeps a client's channels, its shard channels and the server's
// channels in hash tables iterated in a per-process random order, so
// UNSUBSCRIBE / SUNSUBSCRIBE without arguments and PUBSUB CHANNELS are
// only used where one name is involved; patterns are a list in 7.0, so
// PUNSUBSCRIBE's order is compared in full. A channel matched by two
// patterns of one client is avoided for the same reason.

func TestRedisPubSubSingle(t *testing.T) { runRedisCases(t, pubsubCases) }

var pubsubCases = []redisCase{
	{name: "unsubscribe without subscriptions", cmds: mbs("UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "UNSUBSCRIBE a", "PUNSUBSCRIBE p*", "SUNSUBSCRIBE s")},
	{name: "subscribe unsubscribe one", cmds: mbs("SUBSCRIBE a", "UNSUBSCRIBE a", "GET k")},
	{name: "subscribe counts channels and patterns", cmds: mbs("SUBSCRIBE a", "PSUBSCRIBE p*", "SUBSCRIBE a", "SSUBSCRIBE s", "SUNSUBSCRIBE s", "PUNSUBSCRIBE p*", "UNSUBSCRIBE")},
	{name: "subscribe mode errors", proto: 2, cmds: mbs("SUBSCRIBE a", "GET k", "SET k v", "PUBLISH a x", "PUBSUB NUMSUB a", "CLIENT ID", "HELLO 3", "MULTI", "nosuchcmd x", "SUBSCRIBE", "UNSUBSCRIBE a", "GET k")},
	{name: "subscribe mode ping", cmds: mbs("PSUBSCRIBE x", "PING", "PING hello", "PING a b", "PUNSUBSCRIBE", "PING")},
	{name: "subscribe mode empty ping message", cmds: cmds(mbs("SSUBSCRIBE s"), cmd("PING", ""), mbs("SUNSUBSCRIBE s"))},
	{name: "subscribe then reset", cmds: mbs("SUBSCRIBE a", "PSUBSCRIBE b*", "RESET", "PUBSUB NUMSUB a", "PUBSUB NUMPAT", "GET k")},
	{name: "subscribe then quit", cmds: mbs("SUBSCRIBE a", "QUIT"), closes: true},
	{name: "publish without subscribers", cmds: mbs("PUBLISH a x", "SPUBLISH a x", "PUBLISH a", "SPUBLISH", "PUBLISH a b c")},
	{name: "pubsub introspection empty", cmds: mbs("PUBSUB NUMSUB", "PUBSUB NUMSUB a b a", "PUBSUB NUMPAT", "PUBSUB CHANNELS", "PUBSUB CHANNELS *", "PUBSUB SHARDCHANNELS", "PUBSUB SHARDNUMSUB s t")},
	{name: "pubsub errors", cmds: mbs("PUBSUB", "PUBSUB FOO", "pubsub foo", "PUBSUB CHANNELS a b", "pubsub shardchannels a b", "PUBSUB NUMPAT x", "PUBSUB HELP", "PUBSUB HELP x")},
	{name: "pubsub command info", cmds: mbs("COMMAND INFO subscribe unsubscribe psubscribe punsubscribe ssubscribe sunsubscribe publish spublish",
		"COMMAND INFO pubsub|numsub pubsub|numpat pubsub|channels pubsub|shardchannels pubsub|shardnumsub pubsub|help",
		"COMMAND GETKEYS SSUBSCRIBE a b", "COMMAND GETKEYS SPUBLISH a b", "COMMAND GETKEYS PUBLISH a b")},
	{name: "resp3 commands while subscribed multi", proto: 3, cmds: mbs("SUBSCRIBE a", "MULTI", "GET k", "PUBSUB NUMSUB a", "EXEC", "UNSUBSCRIBE a")},
	{name: "resp3 commands while subscribed", proto: 3, cmds: mbs("SUBSCRIBE a", "SET k v", "GET k", "PING", "PUBSUB NUMSUB a", "PUBSUB CHANNELS", "UNSUBSCRIBE a")},
	{name: "resp3 hello 2 while subscribed", proto: 3, cmds: mbs("SUBSCRIBE a", "HELLO 2", "PING", "GET k", "HELLO 3", "UNSUBSCRIBE a", "GET k"), loose: at(1, helloReply)},
	{name: "subscribe inside multi", cmds: mbs("MULTI", "SUBSCRIBE a", "EXEC", "UNSUBSCRIBE a")},
	{name: "ssubscribe inside multi", cmds: mbs("MULTI", "SSUBSCRIBE a", "EXEC", "GET k")},
	{name: "empty channel names", cmds: cmds(cmd("SUBSCRIBE", ""), cmd("UNSUBSCRIBE", ""), cmd("PUBLISH", "", "x"), cmd("PUBSUB", "NUMSUB", ""))},
}

// psStep is one step of a pub/sub scenario.
type psStep struct {
	conn  int
	args  []string
	read  int    // frames to read after sending (or, without args, just read)
	close bool   // close the connection
	until string // with args: repeat the command until its reply is this
	grep  string // keep only the reply's lines containing this (INFO)
	blind bool   // read, but do not compare (a reply carrying the client id)
}

// psDo sends a command and reads n frames.
func psDo(conn, n int, line string) psStep {
	return psStep{conn: conn, args: strings.Fields(line), read: n}
}

// psArgs is psDo with explicit arguments (empty ones, spaces).
func psArgs(conn, n int, args ...string) psStep { return psStep{conn: conn, args: args, read: n} }

// psRead reads n frames on conn.
func psRead(conn, n int) psStep { return psStep{conn: conn, read: n} }

func psClose(conn int) psStep { return psStep{conn: conn, close: true} }

// psUntil polls a command on conn until it answers want.
func psUntil(conn int, line, want string) psStep {
	return psStep{conn: conn, args: strings.Fields(line), until: want}
}

// psBlind sends a command and reads one reply without comparing it.
func psBlind(conn int, line string) psStep {
	return psStep{conn: conn, args: strings.Fields(line), read: 1, blind: true}
}

func psGrep(conn int, line, grep string) psStep {
	return psStep{conn: conn, args: strings.Fields(line), read: 1, grep: grep}
}

type psScenario struct {
	name  string
	conns int
	proto int // 2 or 3 only; 0 both
	steps []psStep
}

var psScenarios = []psScenario{
	{name: "subscribe many and unsubscribe", conns: 1, steps: []psStep{
		psDo(0, 3, "SUBSCRIBE a b a"), psDo(0, 2, "PSUBSCRIBE p1 p2"), psDo(0, 2, "SSUBSCRIBE s1 s2"),
		psDo(0, 1, "PING"), psDo(0, 1, "GET k"),
		psDo(0, 2, "UNSUBSCRIBE a zz"), psDo(0, 1, "UNSUBSCRIBE"), psDo(0, 1, "UNSUBSCRIBE"),
		psDo(0, 3, "PSUBSCRIBE q3 p1 aa"), psDo(0, 4, "PUNSUBSCRIBE"), psDo(0, 1, "PUNSUBSCRIBE"),
		psDo(0, 1, "SUNSUBSCRIBE s2"), psDo(0, 1, "SUNSUBSCRIBE"), psDo(0, 1, "SUNSUBSCRIBE"), psDo(0, 1, "GET k"),
	}},
	{name: "punsubscribe keeps pattern order", conns: 1, steps: []psStep{
		psDo(0, 8, "PSUBSCRIBE p1 zz p3 aa p5 q6 r7 s8"), psDo(0, 2, "PUNSUBSCRIBE aa p1"), psDo(0, 6, "PUNSUBSCRIBE"),
	}},
	{name: "messages to several subscribers", conns: 4, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE news"), psDo(2, 2, "SUBSCRIBE news other"), psDo(3, 1, "PSUBSCRIBE n*"),
		psDo(0, 1, "PUBLISH news hello"), psRead(1, 1), psRead(2, 1), psRead(3, 1),
		psDo(0, 1, "PUBLISH other x"), psRead(2, 1),
		psDo(0, 1, "PUBLISH nothing y"), psRead(3, 1),
		psDo(0, 1, "PUBLISH zzz no"),
		psArgs(0, 1, "PUBLISH", "news", "two words\r\nand a newline"), psRead(1, 1), psRead(2, 1), psRead(3, 1),
		psDo(2, 1, "UNSUBSCRIBE news"), psDo(0, 1, "PUBLISH news again"), psRead(1, 1), psRead(3, 1),
		psDo(0, 1, "PUBSUB NUMSUB news other zzz"), psDo(0, 1, "PUBSUB NUMPAT"),
	}},
	{name: "channel and pattern on one client", conns: 2, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE ab"), psDo(1, 1, "PSUBSCRIBE a*"),
		psDo(0, 1, "PUBLISH ab m"), psRead(1, 2),
		psDo(0, 1, "PUBLISH ac m"), psRead(1, 1),
	}},
	{name: "pattern syntax", conns: 5, steps: []psStep{
		psDo(1, 1, "PSUBSCRIBE h?llo"), psDo(2, 1, "PSUBSCRIBE h[ae]llo"), psDo(3, 1, "PSUBSCRIBE h[^e]llo"), psArgs(4, 1, "PSUBSCRIBE", "*"),
		psDo(0, 1, "PUBLISH hello 1"), psRead(1, 1), psRead(2, 1), psRead(4, 1),
		psDo(0, 1, "PUBLISH hallo 2"), psRead(1, 1), psRead(2, 1), psRead(3, 1), psRead(4, 1),
		psDo(0, 1, "PUBLISH hxllo 3"), psRead(1, 1), psRead(3, 1), psRead(4, 1),
		psArgs(0, 1, "PUBLISH", "", "empty"),
		psDo(0, 1, "PUBSUB NUMPAT"),
		psDo(4, 1, "PUNSUBSCRIBE *"), psDo(0, 1, "PUBSUB NUMPAT"),
	}},
	{name: "same pattern twice counts once", conns: 3, steps: []psStep{
		psDo(1, 2, "PSUBSCRIBE x* y*"), psDo(2, 1, "PSUBSCRIBE x*"),
		psDo(0, 1, "PUBSUB NUMPAT"), psDo(0, 1, "PUBLISH xa m"), psRead(1, 1), psRead(2, 1),
	}},
	{name: "pubsub introspection", conns: 3, steps: []psStep{
		psDo(1, 2, "SUBSCRIBE only.one other"), psDo(2, 1, "SUBSCRIBE only.one"), psDo(2, 1, "SSUBSCRIBE shard.x"), psDo(1, 1, "PSUBSCRIBE z*"),
		psDo(0, 1, "PUBSUB NUMSUB only.one other missing"), psDo(0, 1, "PUBSUB SHARDNUMSUB shard.x only.one"),
		psDo(0, 1, "PUBSUB CHANNELS only.*"), psDo(0, 1, "PUBSUB CHANNELS o?her"), psDo(0, 1, "PUBSUB CHANNELS nomatch*"),
		psDo(0, 1, "PUBSUB SHARDCHANNELS"), psDo(0, 1, "PUBSUB SHARDCHANNELS shard.?"), psDo(0, 1, "PUBSUB NUMPAT"),
		psGrep(0, "INFO stats", "pubsub"),
	}},
	{name: "shard channels", conns: 3, steps: []psStep{
		psDo(1, 2, "SSUBSCRIBE s1 s2"), psDo(2, 1, "SUBSCRIBE s1"),
		psDo(0, 1, "SPUBLISH s1 hello"), psRead(1, 1),
		psDo(0, 1, "PUBLISH s1 plain"), psRead(2, 1),
		psDo(0, 1, "SPUBLISH s2 two"), psRead(1, 1),
		psDo(1, 1, "SUNSUBSCRIBE s1"), psDo(0, 1, "SPUBLISH s1 gone"),
		psDo(0, 1, "PUBSUB SHARDNUMSUB s1 s2"), psDo(0, 1, "PUBSUB SHARDCHANNELS"),
	}},
	{name: "close drops subscriptions", conns: 3, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE gone"), psDo(1, 1, "PSUBSCRIBE gone*"), psDo(1, 1, "SSUBSCRIBE gone"), psDo(2, 1, "SUBSCRIBE gone"),
		psDo(0, 1, "PUBLISH gone m"), psRead(1, 2), psRead(2, 1),
		psClose(1), psUntil(0, "PUBSUB NUMPAT", ":0\r\n"), psUntil(0, "PUBSUB SHARDNUMSUB gone", "*2\r\n$4\r\ngone\r\n:0\r\n"),
		psDo(0, 1, "PUBSUB NUMSUB gone"), psDo(0, 1, "PUBLISH gone m"), psRead(2, 1),
	}},
	{name: "client kill drops subscriptions", conns: 3, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE k"), psDo(2, 1, "SUBSCRIBE k"), psDo(2, 1, "PSUBSCRIBE k*"),
		psDo(0, 1, "CLIENT KILL TYPE pubsub"), psDo(0, 1, "PUBSUB NUMSUB k"), psDo(0, 1, "PUBSUB NUMPAT"), psDo(0, 1, "PUBLISH k m"),
	}},
	{name: "reset drops subscriptions", conns: 2, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE r"), psDo(1, 1, "PSUBSCRIBE r*"), psDo(1, 1, "SSUBSCRIBE r"),
		psDo(1, 1, "RESET"), psDo(0, 1, "PUBSUB NUMSUB r"), psDo(0, 1, "PUBSUB NUMPAT"), psDo(0, 1, "PUBSUB SHARDNUMSUB r"),
		psDo(0, 1, "PUBLISH r m"), psDo(1, 1, "GET k"), psDo(1, 1, "PING"),
	}},
	{name: "subscribe mode keeps order with messages", conns: 2, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE o"), psDo(0, 1, "PUBLISH o 1"), psDo(0, 1, "PUBLISH o 2"),
		psDo(1, 3, "UNSUBSCRIBE o"), psDo(0, 1, "PUBLISH o 3"), psDo(1, 1, "PING"),
	}},
	{name: "resp3 hello 2 switches message format", conns: 2, proto: 3, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE h"), psDo(0, 1, "PUBLISH h three"), psRead(1, 1),
		psBlind(1, "HELLO 2"), psDo(0, 1, "PUBLISH h two"), psRead(1, 1), psDo(1, 1, "PING"),
		psDo(1, 1, "HELLO 3"), psDo(1, 1, "UNSUBSCRIBE h"), psDo(1, 1, "GET k"),
	}},
	{name: "reply off keeps pushes", conns: 2, steps: []psStep{
		psDo(1, 0, "CLIENT REPLY OFF"), psDo(1, 1, "SUBSCRIBE a"), psDo(1, 0, "PING"),
		psDo(0, 1, "PUBLISH a m"), psRead(1, 1), psDo(1, 1, "UNSUBSCRIBE a"), psDo(1, 0, "GET k"),
		psDo(1, 1, "CLIENT REPLY ON"), psDo(1, 1, "GET k"),
	}},
	{name: "self publish", conns: 1, proto: 3, steps: []psStep{
		psDo(0, 1, "SUBSCRIBE a"), psDo(0, 2, "PUBLISH a hello"), psDo(0, 1, "PSUBSCRIBE a*"), psDo(0, 3, "PUBLISH a both"),
		psDo(0, 1, "SSUBSCRIBE a"), psDo(0, 2, "SPUBLISH a s"), psDo(0, 1, "PUNSUBSCRIBE"), psDo(0, 1, "UNSUBSCRIBE a"),
		psDo(0, 1, "PUBLISH a gone"), psDo(0, 1, "SUNSUBSCRIBE a"),
	}},
	{name: "reply skip in resp3", conns: 2, proto: 3, steps: []psStep{
		psDo(1, 1, "SUBSCRIBE a"), psDo(1, 0, "CLIENT REPLY SKIP"), psDo(1, 1, "PUBLISH a self"), psDo(1, 2, "PUBLISH a again"),
	}},
}

func TestRedisPubSub(t *testing.T) {
	for _, sc := range psScenarios {
		for _, proto := range []int{2, 3} {
			if sc.proto != 0 && sc.proto != proto {
				continue
			}
			t.Run(fmt.Sprintf("%s/resp%d", sc.name, proto), func(t *testing.T) {
				ref, sut := both(func(addr string) []string { return playPubSub(addr, sc, proto) }, refRedis, sutRedis)
				what := func(i int) string {
					if i == len(sc.steps) {
						return "after the last step"
					}
					return fmt.Sprintf("step %d %v (conn %d)", i, sc.steps[i].args, sc.steps[i].conn)
				}
				for i := range ref {
					if strings.HasPrefix(ref[i], "error: ") || (i == len(sc.steps) && ref[i] != "") {
						t.Fatalf("%s on redis-server: %s (the scenario is wrong)", what(i), ref[i])
					}
					if i >= len(sut) || sut[i] != ref[i] {
						got := "<missing>"
						if i < len(sut) {
							got = sut[i]
						}
						t.Fatalf("%s: differs\n  redis:  %q\n  %s: %q", what(i), ref[i], sideName(), got)
					}
				}
			})
		}
	}
}

// pubsubQuiet waits until no subscription is left on addr (the
// connections of the previous scenario are closed asynchronously).
func pubsubQuiet(c net.Conn, r *bufio.Reader, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c.SetDeadline(time.Now().Add(timeout))
		c.Write([]byte(cmd("PUBSUB", "NUMPAT") + cmd("PUBSUB", "CHANNELS") + cmd("PUBSUB", "SHARDCHANNELS")))
		var got string
		for i := 0; i < 3; i++ {
			rep, err := readReply(r)
			if err != nil {
				return err
			}
			got += string(rep.raw)
		}
		if got == ":0\r\n*0\r\n*0\r\n" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("subscriptions left from an earlier test: %q", got)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// playPubSub runs a scenario on addr and returns one transcript entry per
// step: the frames read, "" for a step without any, or "error: …".
func playPubSub(addr string, sc psScenario, proto int) []string {
	type conn struct {
		c net.Conn
		r *bufio.Reader
	}
	out := make([]string, len(sc.steps))
	timeout := timeoutFor(addr)
	if err := sutGaveUp(addr); err != nil {
		out[0] = "error: " + err.Error()
		return out
	}
	conns := make([]*conn, sc.conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.c.Close()
			}
		}
	}()
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			out[0] = "error: " + err.Error()
			return out
		}
		conns[i] = &conn{c: c, r: bufio.NewReader(c)}
		if i == 0 {
			if err := pubsubQuiet(c, conns[i].r, timeout); err != nil {
				out[0] = "error: " + err.Error()
				return out
			}
		}
		if proto == 3 {
			c.SetDeadline(time.Now().Add(timeout))
			c.Write([]byte(cmd("HELLO", "3")))
			if _, err := readReply(conns[i].r); err != nil {
				out[0] = "error: HELLO: " + err.Error()
				return out
			}
		}
	}
	read := func(c *conn, n int) string {
		var b strings.Builder
		for j := 0; j < n; j++ {
			c.c.SetReadDeadline(time.Now().Add(timeout))
			rep, err := readReply(c.r)
			noteErr(addr, err)
			if err != nil {
				return "error: " + err.Error() + " after " + fmt.Sprintf("%q", b.String())
			}
			b.Write(rep.raw)
		}
		return b.String()
	}
	send := func(c *conn, args []string) error {
		c.c.SetWriteDeadline(time.Now().Add(timeout))
		_, err := c.c.Write([]byte(cmd(args...)))
		return err
	}
	for i, st := range sc.steps {
		c := conns[st.conn]
		switch {
		case st.close:
			c.c.Close()
		case st.until != "":
			deadline := time.Now().Add(timeout)
			for {
				if err := send(c, st.args); err != nil {
					out[i] = "error: " + err.Error()
					break
				}
				got := read(c, 1)
				if got == st.until {
					out[i] = got
					break
				}
				if time.Now().After(deadline) {
					out[i] = fmt.Sprintf("error: %v never answered %q: %q", st.args, st.until, got)
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
		default:
			if st.args != nil {
				if err := send(c, st.args); err != nil {
					out[i] = "error: " + err.Error()
					break
				}
			}
			out[i] = read(c, st.read)
			if st.blind && !strings.HasPrefix(out[i], "error: ") {
				out[i] = "(not compared)"
			}
			if st.grep != "" && !strings.HasPrefix(out[i], "error: ") {
				var keep []string
				for _, l := range strings.Split(out[i], "\r\n") {
					if strings.Contains(l, st.grep) {
						keep = append(keep, l)
					}
				}
				out[i] = strings.Join(keep, "\n")
			}
		}
		if strings.HasPrefix(out[i], "error: ") {
			return out[:i+1]
		}
	}
	// Nothing unrequested may follow on any open connection.
	tail := ""
	for i, c := range conns {
		c.c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if rep, err := readReply(c.r); err == nil {
			tail += fmt.Sprintf("conn %d: unrequested frame %q; ", i, rep.raw)
		}
	}
	return append(out, tail)
}
