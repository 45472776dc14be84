package compat

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Client-side caching (CLIENT TRACKING) against redis-server 7.0.15.
//
// TestRedisTrackingOptions: one connection, one reply per command, in both
// protocols and every write mode: option parsing and validation, every
// error, CLIENT CACHING, GETREDIR, TRACKINGINFO.
//
// TestRedisTracking: scenarios over several connections, played on both
// servers at once and compared step by step. Invalidations arrive on their
// own, so a step either runs a command and reads up to its reply (pushes
// before it are part of the step), or syncs a connection: sends PING with
// a sentinel and records everything that came before its answer, which
// catches what Redis writes after a reply (its own keys' invalidations,
// broadcasts at the end of the event loop's iteration) and what another
// connection's write sent meanwhile. RESP2 redirect targets receive
// messages on __redis__:invalidate, RESP3 connections ">2 invalidate"
// pushes. Client ids differ between the servers: "$idN" in a command is
// connection N's id there, and steps marked ids show each connection's id
// as $idN.

func TestRedisTrackingOptions(t *testing.T) {
	on := "CLIENT TRACKING on"
	runRedisCases(t, []redisCase{
		{name: "arity and syntax", cmds: mbs("CLIENT TRACKING", "CLIENT TRACKING maybe", on+" foo", on+" REDIRECT",
			on+" PREFIX", on+" BCAST PREFIX", "CLIENT TRACKING maybe BCAST", "CLIENT TRACKING off BCAST PREFIX a OPTIN OPTOUT NOLOOP",
			"CLIENT TRACKING off", "CLIENT TRACKINGINFO", "CLIENT TRACKINGINFO x", "CLIENT GETREDIR x", "client tracking ON bcast NOLOOP prefix x",
			"CLIENT TRACKINGINFO", "client TRACKING OFF")},
		{name: "redirect errors", cmds: mbs(on+" REDIRECT x", on+" REDIRECT 0", on+" REDIRECT -1", on+" REDIRECT 999999999",
			on+" REDIRECT 99999999999999999999", on+" REDIRECT 1.5", "CLIENT TRACKING off REDIRECT x", "CLIENT TRACKING maybe REDIRECT x",
			"CLIENT TRACKINGINFO", "CLIENT GETREDIR")},
		{name: "incompatible options", cmds: mbs(on+" PREFIX a", on+" OPTIN OPTOUT", on+" BCAST OPTIN", on+" BCAST OPTOUT",
			on+" OPTIN OPTOUT BCAST", on+" BCAST PREFIX a OPTIN", on+" PREFIX a BCAST OPTIN OPTOUT", "CLIENT TRACKINGINFO")},
		{name: "mode switches", cmds: mbs(on, on+" BCAST", on+" OPTIN", on+" OPTOUT", "CLIENT TRACKINGINFO", on, "CLIENT TRACKINGINFO",
			on+" OPTOUT NOLOOP", "CLIENT TRACKINGINFO", on+" OPTIN", "CLIENT TRACKING off", on+" BCAST", on, on+" BCAST OPTIN",
			"CLIENT TRACKINGINFO", "CLIENT GETREDIR", "CLIENT TRACKING off", "CLIENT TRACKINGINFO", "CLIENT GETREDIR")},
		{name: "prefix overlaps", cmds: cmds(mbs(on+" BCAST PREFIX FOOBAR PREFIX FOO", on+" BCAST PREFIX FOO PREFIX FOOBAR",
			on+" BCAST PREFIX FOO PREFIX BAR", on+" BCAST PREFIX FO", on+" BCAST PREFIX BARB", on+" BCAST PREFIX FOO",
			on+" BCAST PREFIX baz", "CLIENT TRACKINGINFO", on+" BCAST", "CLIENT TRACKINGINFO", on+" BCAST PREFIX q",
			"CLIENT TRACKING off", "CLIENT TRACKINGINFO"),
			cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "", "PREFIX", "a"),
			cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a\r\nb", "PREFIX", "a"),
			cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "PREFIX", "x"),
			cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", ""),
			cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "z"),
			cmd("CLIENT", "TRACKINGINFO"))},
		{name: "caching", cmds: mbs("CLIENT CACHING yes", "CLIENT CACHING", "CLIENT CACHING yes no", on, "CLIENT CACHING yes",
			"CLIENT CACHING no", "CLIENT CACHING maybe", "CLIENT TRACKING off", on+" OPTIN", "CLIENT CACHING no", "CLIENT CACHING maybe",
			"CLIENT CACHING YES", "CLIENT TRACKINGINFO", "CLIENT GETNAME", "CLIENT TRACKINGINFO", "CLIENT CACHING",
			"CLIENT TRACKINGINFO", "CLIENT", "CLIENT TRACKINGINFO", "CLIENT CACHING yes", "PING", "CLIENT TRACKINGINFO",
			"CLIENT CACHING yes", "MULTI", "CLIENT TRACKINGINFO", "PING", "EXEC", "CLIENT TRACKINGINFO",
			"CLIENT CACHING yes", "NOSUCH", "CLIENT TRACKINGINFO", "CLIENT CACHING yes", "CLIENT NOSUCH", "CLIENT TRACKINGINFO",
			"CLIENT TRACKING off", on+" OPTOUT", "CLIENT CACHING yes", "CLIENT CACHING no", "CLIENT TRACKINGINFO",
			"CLIENT TRACKING off", "CLIENT TRACKINGINFO", "CLIENT CACHING no")},
		{name: "reset turns tracking off", cmds: mbs(on+" BCAST NOLOOP PREFIX a PREFIX b", "RESET", "CLIENT TRACKINGINFO",
			on+" OPTIN", "CLIENT CACHING yes", "RESET", "CLIENT TRACKINGINFO", "CLIENT GETREDIR")},
		{name: "command info", cmds: mbs("COMMAND INFO client|tracking client|caching client|getredir client|trackinginfo")},
	})
}

// trkStep is one step of a tracking scenario.
type trkStep struct {
	conn    int
	kind    trkKind
	args    []string // "$idN": connection N's id
	replies int      // trkDo: replies the command answers with (0: one)
	pause   time.Duration
	ids     bool // show connection ids as $idN
	// norm, when set, rewrites the step's transcript before comparing
	// (invalidations of keys a server picks at random).
	norm func(string) string
}

type trkKind int

const (
	trkDo    trkKind = iota // send, read up to the reply
	trkSend                 // send only (a blocking command, CLIENT REPLY OFF)
	trkSync                 // everything before a PING sentinel's answer
	trkPause                // sleep
	trkClose                // close, and wait until the server forgot the connection
	trkInfo                 // the tracking_* fields of INFO
	trkFlags                // CLIENT INFO's flags= and redir=
)

func tDo(conn int, line string) trkStep {
	return trkStep{conn: conn, args: trkFields(line)}
}

// tDoN is a command answered with n replies.
func tDoN(conn, n int, line string) trkStep {
	return trkStep{conn: conn, args: trkFields(line), replies: n}
}

// tArgs is a command given as its arguments (a script).
func tArgs(conn int, args ...string) trkStep { return trkStep{conn: conn, args: args} }

// tSend sends a command without reading a reply.
func tSend(conn int, line string) trkStep {
	return trkStep{conn: conn, args: trkFields(line), kind: trkSend}
}

// tIDs is a command whose reply shows client ids.
func tIDs(conn int, line string) trkStep {
	return trkStep{conn: conn, args: trkFields(line), ids: true}
}

func tSync(conn int) trkStep         { return trkStep{conn: conn, kind: trkSync, ids: true} }
func tClose(conn int) trkStep        { return trkStep{conn: conn, kind: trkClose} }
func tInfo() trkStep                 { return trkStep{kind: trkInfo} }
func tFlags(conn int) trkStep        { return trkStep{conn: conn, kind: trkFlags, ids: true} }
func tPause(d time.Duration) trkStep { return trkStep{kind: trkPause, pause: d} }

// trkFields splits a command line on spaces; ” is an empty argument.
func trkFields(line string) []string {
	f := strings.Fields(line)
	for i, s := range f {
		if s == "''" {
			f[i] = ""
		}
	}
	return f
}

type trkScenario struct {
	name   string
	protos []int // each connection's protocol
	steps  []trkStep
	// restore runs on a fresh connection after the scenario (CONFIG SET
	// back to the default).
	restore []string
}

const trkSentinel = "__trk_sync__"

func TestRedisTracking(t *testing.T) {
	for _, sc := range trackingScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			for _, a := range []string{refRedis, sutRedis} {
				if err := flushRedis(a); err != nil {
					t.Fatal(err)
				}
				if err := waitNoTracking(a); err != nil {
					t.Fatal(err)
				}
			}
			ref, sut := both(func(addr string) []string { return playTracking(addr, sc) }, refRedis, sutRedis)
			for i := range ref {
				if strings.HasPrefix(ref[i], "error: ") {
					t.Fatalf("step %d %v (conn %d) on redis-server: %s (the scenario is wrong)", i, sc.steps[i].args, sc.steps[i].conn, ref[i])
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

// waitNoTracking waits until no connection of an earlier test still
// tracks (closing is asynchronous), so that INFO's counts start at 0.
func waitNoTracking(addr string) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		info, err := trkControl(addr, cmd("INFO", "clients"))
		if err != nil {
			return err
		}
		if strings.Contains(info[0].text, "tracking_clients:0\r\n") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: connections still tracking: %q", addr, info)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type trkConn struct {
	c  net.Conn
	r  *bufio.Reader
	id string
}

// playTracking runs a scenario on addr: one transcript entry per step.
func playTracking(addr string, sc trkScenario) []string {
	out := make([]string, len(sc.steps))
	timeout := timeoutFor(addr)
	conns := make([]*trkConn, len(sc.protos))
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.c.Close()
			}
		}
		for _, line := range sc.restore {
			trkControl(addr, cmd(strings.Fields(line)...))
		}
	}()
	fail := func(i int, err error) []string {
		for j := i; j < len(out); j++ {
			out[j] = "error: " + err.Error()
		}
		return out
	}
	roundTrip := func(c *trkConn, args ...string) (reply, error) {
		c.c.SetDeadline(time.Now().Add(timeout))
		if _, err := c.c.Write([]byte(cmd(args...))); err != nil {
			return reply{}, err
		}
		return readReply(c.r)
	}
	for i, proto := range sc.protos {
		nc, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			return fail(0, err)
		}
		c := &trkConn{c: nc, r: bufio.NewReader(nc)}
		conns[i] = c
		rep, err := roundTrip(c, "CLIENT", "ID")
		if err != nil {
			return fail(0, err)
		}
		c.id = rep.text
		if proto == 3 {
			if _, err := roundTrip(c, "HELLO", "3"); err != nil {
				return fail(0, err)
			}
		}
	}
	subst := func(args []string) []string {
		res := make([]string, len(args))
		for i, a := range args {
			res[i] = a
			if n, ok := strings.CutPrefix(a, "$id"); ok {
				if k, err := strconv.Atoi(n); err == nil && k < len(conns) {
					res[i] = conns[k].id
				}
			}
		}
		return res
	}
	showIDs := func(s string) string {
		for k, c := range conns {
			s = strings.ReplaceAll(s, ":"+c.id+"\r\n", ":$id"+strconv.Itoa(k)+"\r\n")
			s = strings.ReplaceAll(s, "redir="+c.id, "redir=$id"+strconv.Itoa(k))
		}
		return s
	}
	for i, st := range sc.steps {
		var c *trkConn
		if st.kind != trkPause && st.kind != trkInfo {
			c = conns[st.conn]
		}
		var got strings.Builder
		switch st.kind {
		case trkSend:
			c.c.SetDeadline(time.Now().Add(timeout))
			if _, err := c.c.Write([]byte(cmd(subst(st.args)...))); err != nil {
				return fail(i, err)
			}
		case trkDo:
			c.c.SetDeadline(time.Now().Add(timeout))
			if _, err := c.c.Write([]byte(cmd(subst(st.args)...))); err != nil {
				return fail(i, err)
			}
			for n := max(st.replies, 1); n > 0; {
				rep, err := readReply(c.r)
				if err != nil {
					noteErr(addr, err)
					return fail(i, fmt.Errorf("after %q: %v", got.String(), err))
				}
				got.Write(rep.raw)
				if rep.kind != '>' {
					n--
				}
			}
		case trkSync:
			c.c.SetDeadline(time.Now().Add(timeout))
			if _, err := c.c.Write([]byte(cmd("PING", trkSentinel))); err != nil {
				return fail(i, err)
			}
			for {
				rep, err := readReply(c.r)
				if err != nil {
					noteErr(addr, err)
					return fail(i, fmt.Errorf("after %q: %v", got.String(), err))
				}
				if strings.Contains(string(rep.raw), trkSentinel) {
					break
				}
				got.Write(rep.raw)
			}
		case trkPause:
			time.Sleep(st.pause)
		case trkClose:
			id := c.id
			c.c.Close()
			if err := waitGone(addr, id); err != nil {
				return fail(i, err)
			}
		case trkInfo:
			rep, err := trkControl(addr, cmd("INFO"))
			if err != nil {
				return fail(i, err)
			}
			for _, line := range strings.Split(rep[0].text, "\r\n") {
				if strings.HasPrefix(line, "tracking_") {
					got.WriteString(line + "\n")
				}
			}
		case trkFlags:
			rep, err := roundTrip(c, "CLIENT", "INFO")
			if err != nil {
				return fail(i, err)
			}
			for _, f := range strings.Fields(rep.text) {
				if strings.HasPrefix(f, "flags=") || strings.HasPrefix(f, "redir=") {
					got.WriteString(f + " ")
				}
			}
		}
		s := got.String()
		if st.ids {
			s = showIDs(s)
		}
		if st.norm != nil {
			s = st.norm(s)
		}
		out[i] = s
	}
	return out
}

// waitGone waits until the server at addr no longer knows client id:
// until it refuses it as a redirect target.
func waitGone(addr, id string) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		// Turned off again on the same connection, so that no closing
		// tracking connection lingers in INFO's count.
		reps, err := trkControl(addr, cmd("CLIENT", "TRACKING", "on", "REDIRECT", id), cmd("CLIENT", "TRACKING", "off"))
		if err != nil {
			return err
		}
		if reps[0].isError() {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("client " + id + " still connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// trkControl runs commands (encoded) on a connection of its own, closed
// after, and returns their replies.
func trkControl(addr string, commands ...string) ([]reply, error) {
	c, err := net.DialTimeout("tcp", addr, timeoutFor(addr))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeoutFor(addr)))
	if _, err := c.Write([]byte(strings.Join(commands, ""))); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	out := make([]reply, len(commands))
	for i := range out {
		if out[i], err = readReply(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// anyTagKey hides which of 1{tag} and 2{tag} a server invalidated.
func anyTagKey(s string) string {
	return regexp.MustCompile(`[12]\{tag\}`).ReplaceAllLiteralString(s, "N{tag}")
}

// countInvalidations turns a transcript of invalidations of keys the
// server picked at random into how many there were.
func countInvalidations(s string) string {
	return strconv.Itoa(len(regexp.MustCompile(`invalidate`).FindAllString(s, -1))) + " invalidations"
}

// trackingScenarios are the multi-connection cases, for the protocols
// each makes sense in.
func trackingScenarios() []trkScenario {
	var all []trkScenario
	add := func(sc trkScenario) { all = append(all, sc) }

	// Default mode: a connection is told about the keys it read.
	for _, p := range []int{3, 2} {
		name := "resp" + strconv.Itoa(p)
		add(trkScenario{name: "basic invalidation/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on"), tDo(1, "SET k 1"), tDo(1, "SET other 1"), tDo(0, "GET k"),
			tDo(1, "SET k 2"), tDo(1, "INCR other"), tSync(0), tDo(1, "SET k 3"), tSync(0),
			tDo(0, "MGET k a b"), tDo(1, "MSET a 1 k 4 b 2"), tSync(0), tInfo(),
		}})
		add(trkScenario{name: "own writes after the reply/" + name, protos: []int{p}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on"), tDo(0, "HSET h f 1"), tDo(0, "HGET h f"), tDo(0, "HDEL h f"), tSync(0),
			tDo(0, "MSET a 1 b 2"), tDo(0, "GET a"), tDo(0, "MULTI"), tDo(0, "INCR a"), tDo(0, "GET b"), tDo(0, "EXEC"), tSync(0),
			tDo(0, "EXISTS b"), tDo(0, "DEL b"), tDo(0, "DEL b"), tSync(0),
			tDo(0, "STRLEN s"), tDo(0, "APPEND s x"), tDo(0, "SETRANGE s 0 y"), tSync(0),
			tDo(0, "TYPE l"), tDo(0, "RPUSH l a"), tDo(0, "LLEN l"), tDo(0, "EXPIRE l 100"), tDo(0, "TTL l"), tDo(0, "PERSIST l"),
			tDo(0, "LRANGE l 0 -1"), tDo(0, "PERSIST l"), tDo(0, "RENAME l l2"), tSync(0),
		}})
		add(trkScenario{name: "noloop/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on NOLOOP"), tDo(0, "MGET other1 loop other2"), tDo(1, "SET other1 1"), tDo(0, "SET loop 1"),
			tDo(1, "SET other2 1"), tSync(0), tDo(0, "GET loop"), tArgs(0, "EVAL", "return redis.call('set', KEYS[1], '2')", "1", "loop"),
			tSync(0), tDo(1, "SET loop 3"), tSync(0),
		}})
		add(trkScenario{name: "optin and optout/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on OPTIN"), tDo(0, "GET k1"), tDo(1, "SET k1 1"), tSync(0),
			tDo(0, "CLIENT CACHING yes"), tDo(0, "GET k2"), tDo(1, "SET k2 1"), tSync(0),
			tDo(0, "CLIENT CACHING yes"), tDo(0, "PING"), tDo(0, "GET k3"), tDo(1, "SET k3 1"), tSync(0),
			tDo(0, "CLIENT CACHING yes"), tDo(0, "CLIENT GETNAME"), tDo(0, "GET k4"), tDo(1, "SET k4 1"), tSync(0),
			tDo(0, "CLIENT CACHING yes"), tDo(0, "MULTI"), tDo(0, "GET k5"), tDo(0, "GET k6"), tDo(0, "EXEC"),
			tDo(1, "MSET k5 1 k6 1"), tSync(0),
			tDo(0, "CLIENT TRACKING off"), tDo(0, "CLIENT TRACKING on OPTOUT"), tDo(0, "GET k7"), tDo(1, "SET k7 1"), tSync(0),
			tDo(0, "CLIENT CACHING no"), tDo(0, "GET k8"), tDo(0, "GET k9"), tDo(1, "MSET k8 1 k9 1"), tSync(0),
		}})
		add(trkScenario{name: "scripts track their declared keys/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on"), tDo(1, "MSET k1 1 k2 1"),
			tArgs(0, "EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2"), tDo(1, "MSET k2 2 k1 2"), tSync(0),
			tArgs(0, "EVAL", "redis.call('get', 'k3')", "2", "k1", "k2"), tDo(1, "MSET k2 2 k1 2 k3 2"), tSync(0),
			tArgs(0, "EVAL_RO", "redis.call('ping')", "2", "k1", "k2"), tDo(1, "MSET k2 2 k1 2"), tSync(0),
			tArgs(0, "EVAL_RO", "redis.call('get', 'k1')", "2", "k1", "k2"), tDo(1, "MSET k2 3 k1 3"), tSync(0),
			tArgs(0, "EVAL", "return 1", "0"), tArgs(0, "EVAL", "redis.call('get', 'x'); redis.call('exists', 'y')", "1", "z"),
			tDo(1, "MSET x 1 y 1 z 1"), tSync(0),
			tDo(0, "CLIENT TRACKING on OPTIN"), tArgs(0, "EVAL", "return redis.call('get', KEYS[1])", "1", "o1"),
			tDo(0, "CLIENT CACHING yes"), tArgs(0, "EVAL", "return redis.call('get', KEYS[1])", "1", "o2"), tDo(1, "MSET o1 1 o2 1"), tSync(0),
		}})
		add(trkScenario{name: "flushes/" + name, protos: []int{p, 2, 3}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on"), tDo(2, "CLIENT TRACKING on BCAST"), tDo(0, "GET k"), tDo(1, "FLUSHALL"), tSync(0), tSync(2),
			tDo(0, "GET k"), tDo(1, "FLUSHDB"), tSync(0), tSync(2), tDo(1, "SELECT 3"), tDo(1, "FLUSHDB ASYNC"), tSync(0),
			tDo(1, "SWAPDB 0 1"), tSync(0), tSync(2), tDo(0, "FLUSHALL"), tSync(0), tDo(0, "MULTI"), tDo(0, "FLUSHDB"), tDo(0, "EXEC"), tSync(0),
			tDo(0, "GET k"), tInfo(), tDo(1, "FLUSHALL"), tInfo(), tSync(2),
		}})
	}

	// Redirects: to a RESP2 connection in pub/sub mode (messages on
	// __redis__:invalidate), to a RESP3 one (pushes), to a RESP2 one that
	// is not subscribed (nothing).
	for _, p := range []int{2, 3} {
		name := "tracking resp" + strconv.Itoa(p)
		add(trkScenario{name: "redirect to a subscriber/" + name, protos: []int{p, 2, 2}, steps: []trkStep{
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on REDIRECT $id1"), tIDs(0, "CLIENT GETREDIR"),
			tDo(2, "SET a 1"), tDo(0, "GET a"), tDo(2, "SET b 1"), tDo(2, "INCR a"), tSync(1), tDo(0, "GET a"), tDo(0, "SET a 5"), tSync(1), tSync(0),
			tDo(0, "MGET a b c"), tDo(2, "FLUSHALL"), tSync(1), tFlags(0), tIDs(0, "CLIENT TRACKINGINFO"),
		}})
		add(trkScenario{name: "redirect to resp3/" + name, protos: []int{p, 3, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on REDIRECT $id1"), tDo(0, "GET a"), tDo(2, "SET a 1"), tSync(1), tSync(0),
			tSend(1, "CLIENT REPLY OFF"), tDo(0, "GET a"), tDo(2, "SET a 2"), tDo(0, "GET b"), tDo(2, "FLUSHDB"), tDoN(1, 1, "CLIENT REPLY ON"), tSync(1),
		}})
		add(trkScenario{name: "redirect to resp2 without pubsub/" + name, protos: []int{p, 2, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on REDIRECT $id1"), tDo(0, "GET a"), tDo(2, "SET a 1"), tSync(1), tSync(0),
			tDo(1, "SUBSCRIBE other"), tDo(0, "GET a"), tDo(2, "SET a 2"), tSync(1),
		}})
		add(trkScenario{name: "redirect target gone/" + name, protos: []int{p, 2, 2}, steps: []trkStep{
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on REDIRECT $id1"), tDo(0, "GET a"), tDo(0, "GET b"),
			tClose(1), tDo(2, "SET a 1"), tSync(0), tFlags(0), tIDs(0, "CLIENT TRACKINGINFO"), tIDs(0, "CLIENT GETREDIR"),
			tDo(2, "SET b 1"), tSync(0), tDo(2, "FLUSHALL"), tSync(0), tDo(0, "CLIENT TRACKING on"), tFlags(0), tDo(0, "CLIENT TRACKINGINFO"),
		}})
		add(trkScenario{name: "two clients redirect to one/" + name, protos: []int{p, p, 2, 2}, steps: []trkStep{
			tDo(2, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on REDIRECT $id2"), tDo(1, "CLIENT TRACKING on REDIRECT $id2"),
			tDo(3, "MSET k1 1 k2 1"), tDo(0, "GET k1"), tDo(1, "GET k2"), tDo(3, "INCR k1"), tDo(3, "INCR k2"), tSync(2), tInfo(),
		}})
	}

	// Broadcast mode.
	for _, p := range []int{3, 2} {
		name := "resp" + strconv.Itoa(p)
		add(trkScenario{name: "bcast/" + name, protos: []int{p, 2, 2}, steps: []trkStep{
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on BCAST REDIRECT $id1"),
			tDo(2, "MSET c 3 a 1 b 2"), tSync(1), tDo(0, "CLIENT TRACKING off"),
			tDo(0, "CLIENT TRACKING on BCAST REDIRECT $id1 PREFIX b: PREFIX a:"), tDo(2, "MULTI"), tDo(2, "INCR a:1"), tDo(2, "INCR b:2"),
			tDo(2, "INCR b:1"), tDo(2, "INCR a:2"), tDo(2, "INCR c:1"), tDo(2, "EXEC"), tSync(1),
			tDo(0, "CLIENT TRACKING on BCAST REDIRECT $id1 PREFIX c:"), tDo(2, "INCR c:1234"), tSync(1), tIDs(0, "CLIENT TRACKINGINFO"),
			tDo(2, "DEL nothing"), tDo(2, "SET a:1 x"), tDo(2, "SET a:1 y"), tSync(1), tInfo(),
		}})
		add(trkScenario{name: "bcast to itself/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on BCAST PREFIX x"), tDo(0, "SET x1 1"), tSync(0), tDo(1, "MSET x2 1 y 1 x3 1"), tSync(0),
			tDo(0, "MSET x4 1 x5 1"), tDo(0, "GET x4"), tSync(0),
		}})
		add(trkScenario{name: "bcast noloop/" + name, protos: []int{p, 2, 2}, steps: []trkStep{
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on BCAST REDIRECT $id1 NOLOOP"),
			tDo(2, "SET otherkey1 1"), tDo(0, "SET loopkey 1"), tDo(2, "SET otherkey2 1"), tSync(1),
			tDo(0, "MULTI"), tDo(0, "SET mine 1"), tDo(0, "SET mykey 1"), tDo(0, "EXEC"), tSync(1),
		}})
		add(trkScenario{name: "bcast expired keys/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on BCAST REDIRECT $id1 NOLOOP"),
			tDo(0, "SET mykey myval px 1"), tDo(0, "SET mykeyotherkey myval"), tPause(400 * time.Millisecond), tSync(1),
		}})
		add(trkScenario{name: "normal to bcast/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDo(0, "CLIENT TRACKING on"), tDo(1, "SET key1 1"), tDo(0, "GET key1"), tDo(0, "CLIENT TRACKING off"),
			tDo(0, "CLIENT TRACKING on BCAST"), tDo(1, "INCR key1"), tSync(0), tFlags(0), tInfo(),
		}})
		add(trkScenario{name: "prefix error then enabled/" + name, protos: []int{p, 2}, steps: []trkStep{
			tDoN(0, 2, "CLIENT TRACKING on BCAST PREFIX a PREFIX b PREFIX bc"), tDo(0, "CLIENT TRACKINGINFO"),
			tDo(1, "MSET a1 1 bc1 1 b1 1 c 1"), tSync(0), tInfo(),
		}})
	}

	// Expiry, the tracking table's bound, blocked clients.
	add(trkScenario{name: "expired keys", protos: []int{3, 2, 2}, steps: []trkStep{
		tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on REDIRECT $id1"),
		tDo(2, "SET k v PX 100"), tDo(0, "GET k"), tPause(400 * time.Millisecond), tSync(1), tDo(0, "GET k"), tSync(1),
	}})
	add(trkScenario{name: "tracking-table-max-keys", protos: []int{3, 2, 2}, restore: []string{"CONFIG SET tracking-table-max-keys 1000000"},
		steps: []trkStep{
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on REDIRECT $id1"), tDo(0, "MGET k1 k2 k3"),
			tInfo(), tDo(2, "CONFIG SET tracking-table-max-keys 1"), tDo(2, "PING"),
			{conn: 1, kind: trkSync, norm: countInvalidations}, tInfo(),
			tDo(0, "GET k4"), tDo(2, "PING"), {conn: 1, kind: trkSync, norm: countInvalidations}, tInfo(),
			tDo(2, "CONFIG SET tracking-table-max-keys 0"), tDo(0, "MGET k5 k6"), tDo(2, "PING"), tSync(1), tInfo(),
		}})
	add(trkScenario{name: "lazy expiry, bcast noloop", protos: []int{3, 2}, restore: []string{"DEBUG SET-ACTIVE-EXPIRE 1"},
		steps: []trkStep{
			// The key the client itself set expires on its own GET: Redis
			// reports an expiry with no client, so NOLOOP does not spare it.
			tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on BCAST REDIRECT $id1 NOLOOP"),
			tDo(0, "DEBUG SET-ACTIVE-EXPIRE 0"), tDo(0, "SET mykey myval px 1"), tDo(0, "SET mykeyotherkey myval"),
			tPause(50 * time.Millisecond), tSync(1), tDo(0, "GET mykey"), tSync(1), tDo(0, "DEBUG SET-ACTIVE-EXPIRE 1"),
		}})
	add(trkScenario{name: "lazy expiry after a multi-key reply", protos: []int{3}, restore: []string{"DEBUG SET-ACTIVE-EXPIRE 1"},
		steps: []trkStep{
			tDo(0, "CLIENT TRACKING on"), tDo(0, "DEBUG SET-ACTIVE-EXPIRE 0"), tDo(0, "MULTI"), tDo(0, "MSET x 1 y 2"),
			tDo(0, "PEXPIRE y 100"), tDo(0, "GET y"), tDo(0, "EXEC"), tPause(200 * time.Millisecond), tDo(0, "MGET x y"), tSync(0),
			tDo(0, "DEBUG SET-ACTIVE-EXPIRE 1"),
		}})
	add(trkScenario{name: "table bound lowered while queuing a transaction", protos: []int{2, 3}, // redis #11715
		restore: []string{"CONFIG SET tracking-table-max-keys 1000000"}, steps: []trkStep{
			tDo(1, "CLIENT TRACKING on"), tDo(1, "MGET 1{tag} 2{tag}"), tDo(1, "MULTI"),
			tDo(0, "CONFIG SET tracking-table-max-keys 1"),
			{conn: 1, args: trkFields("PING"), norm: anyTagKey}, // a random one
			{conn: 1, args: trkFields("EXEC")}, tInfo(),
		}})
	add(trkScenario{name: "client reply off", protos: []int{3, 2}, steps: []trkStep{
		tDo(0, "CLIENT TRACKING on"), tDo(1, "SET foo bar"), tDo(0, "GET foo"), tSend(0, "CLIENT REPLY OFF"),
		tDo(1, "SET foo bar2"), tSend(0, "GET foo"), tPause(50 * time.Millisecond), tDo(1, "SET foo bar3"), tDo(0, "CLIENT REPLY ON"), tSync(0),
	}})
	add(trkScenario{name: "protocol switches", protos: []int{2, 2}, steps: []trkStep{
		tDo(0, "CLIENT TRACKING on"), tDo(0, "GET k"), tIDs(0, "HELLO 3"), tDo(1, "SET k 1"), tSync(0),
		tDo(0, "GET k"), tIDs(0, "HELLO 2"), tDo(1, "SET k 2"), tSync(0), tDo(0, "GET k"), tIDs(0, "HELLO 3"), tSync(0),
		tDo(1, "FLUSHALL"), tSync(0), tDo(0, "RESET"), tDo(1, "SET k 3"), tSync(0), tDo(0, "CLIENT TRACKINGINFO"),
	}})
	add(trkScenario{name: "broken redirect with client reply off", protos: []int{3, 2, 2}, steps: []trkStep{
		tDo(1, "SUBSCRIBE __redis__:invalidate"), tDo(0, "CLIENT TRACKING on REDIRECT $id1"), tDo(0, "GET foo"),
		tSend(0, "CLIENT REPLY OFF"), tClose(1), tDo(2, "SET foo bar2"), {conn: 0, args: trkFields("CLIENT REPLY ON"), ids: true},
		tDo(0, "PING"),
	}})
	add(trkScenario{name: "unblocked blmove", protos: []int{3, 2}, steps: []trkStep{
		tDo(1, "RPUSH list2 a"), tDo(0, "CLIENT TRACKING on"), tDo(0, "LRANGE list2 0 -1"),
		tSend(0, "BLMOVE list1 list2 LEFT LEFT 0"),
		tPause(100 * time.Millisecond), tDo(1, "RPUSH list1 foo"), tSync(0),
	}})
	add(trkScenario{name: "info and client list", protos: []int{3, 2, 3}, steps: []trkStep{
		tInfo(), tDo(0, "CLIENT TRACKING on"), tDo(0, "GET key1"), tDo(0, "GET key2"), tDo(2, "GET key1"), tInfo(),
		tDo(2, "CLIENT TRACKING on"), tDo(2, "GET key1"), tInfo(),
		tDo(1, "CLIENT TRACKING on BCAST PREFIX prefix: PREFIX other:"), tDo(1, "SET prefix:key1 1"), tInfo(),
		tFlags(0), tFlags(1), tFlags(2), tDo(1, "CLIENT TRACKING off"), tFlags(1), tInfo(),
		tDo(2, "SET key1 x"), tSync(2), tSync(0), tInfo(), tClose(0), tInfo(),
	}})
	return all
}
