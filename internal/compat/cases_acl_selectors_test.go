package compat

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// Redis 7.0 ACL beyond the basics of cases_acl_test.go: selectors, first-
// argument rules, per-key read/write access from the key specs, the
// connections of a deleted user, acllog-max-len. As there, each case
// starts its users with "reset", deletes them at the end and switches back
// to the default user, and every ACL LIST or GETUSER rule list shown has
// at most one single command after the fitted categories (redis-server
// prints them in its dict's random order).

func TestRedisACLSelectors(t *testing.T) { runRedisCases(t, aclSelectorCases) }

var aclSelectorCases = []redisCase{
	{name: "selectors getuser list", cmds: mbs(
		"ACL SETUSER s1 reset on nopass ~root* &rc +get (~sel* &sc +set) (%R~r* +@hash)",
		"ACL GETUSER s1", "ACL LIST",
		"ACL SETUSER s1 (%W~w* resetchannels -@all +hget)",
		"ACL GETUSER s1",
		"ACL SETUSER s1 clearselectors", "ACL GETUSER s1", "ACL LIST",
		"ACL SETUSER s1 ( +get ~a* )", "ACL SETUSER s1 (~b* +set) reset", "ACL GETUSER s1",
		"ACL SETUSER s1 () (allkeys allchannels allcommands) (nocommands resetkeys)", "ACL LIST",
		"ACL DELUSER s1")},
	{name: "selector arguments merged", cmds: cmds(
		cmd("ACL", "SETUSER", "s1", "reset", "(~a*", "+get", "&c)", "(", "+set", ")"),
		cmd("ACL", "GETUSER", "s1"),
		cmd("ACL", "SETUSER", "s1", "(~\"q*\"", "'+get')"),
		cmd("ACL", "SETUSER", "s1", "(%R~x \"unbalanced)"),
		cmd("ACL", "GETUSER", "s1"),
		cmd("ACL", "DELUSER", "s1"))},
	{name: "selector errors", cmds: cmds(
		mbs("ACL SETUSER s1 reset on ~k",
			"ACL SETUSER s1 (+get", "ACL SETUSER s1 +get (~a", "ACL SETUSER s1 x)",
			"ACL SETUSER s1 (on)", "ACL SETUSER s1 (>pw)", "ACL SETUSER s1 (reset)", "ACL SETUSER s1 (+nosuch)",
			"ACL SETUSER s1 (~* ~a)", "ACL SETUSER s1 (&* &a)", "ACL SETUSER s1 (clearselectors)",
			"ACL SETUSER s1 (%X~a)", "ACL SETUSER s1 (+get|)", "ACL SETUSER s1 ~a (+get) (+set"),
		cmd("ACL", "SETUSER", "s1", "(~\"a b\")"),
		cmd("ACL", "SETUSER", "s1", "~a b"),
		cmd("ACL", "SETUSER", "s1", "(&\"a b\")"),
		cmd("ACL", "SETUSER", "s1", ""),
		mbs("ACL GETUSER s1", "ACL DELUSER s1"))},
	// A command may run when one selector allows its command, keys and
	// channels together; otherwise the reported denial is the greatest
	// reason (command < key < channel), then the last argument.
	{name: "selectors decide", cmds: mbs(
		"ACL SETUSER s2 reset on >pw ~root* +get +mget (~sel* +set +mget) (%R~r* +@hash)",
		"AUTH s2 pw",
		"GET root1", "GET sel1", "SET sel1 v", "SET root1 v", "HGET r1 f", "HSET r1 f v", "DEL root1",
		"MGET root1 root2", "MGET sel1 sel2", "MGET root1 sel1",
		"AUTH default x",
		"ACL DRYRUN s2 get root1", "ACL DRYRUN s2 get sel1", "ACL DRYRUN s2 set sel1 v", "ACL DRYRUN s2 set root1 v",
		"ACL DRYRUN s2 hset r1 f v", "ACL DRYRUN s2 del x", "ACL DRYRUN s2 mget root1 sel1", "ACL DRYRUN s2 mget sel1 root1",
		"ACL DELUSER s2")},
	// acl-pubsub-default allchannels: a new user, a new selector and a
	// reset user get every channel.
	{name: "acl-pubsub-default", cmds: mbs(
		"CONFIG GET acl-pubsub-default", "CONFIG SET acl-pubsub-default allchannels", "CONFIG GET acl-pubsub-default",
		"ACL SETUSER pd", "ACL GETUSER pd", "ACL SETUSER pd resetchannels (+get) reset", "ACL SETUSER pd (+get)", "ACL LIST",
		"CONFIG SET acl-pubsub-default resetchannels", "ACL SETUSER pd (+set)", "ACL LIST", "ACL SETUSER pd reset", "ACL LIST",
		"CONFIG SET acl-pubsub-default nosuch", "ACL DELUSER pd")},
	{name: "selectors channels", cmds: mbs(
		"ACL SETUSER s3 reset on >pw resetchannels &a* +publish +subscribe (&b* +publish) (~k +get)",
		"ACL DRYRUN s3 publish a1 m", "ACL DRYRUN s3 publish b1 m", "ACL DRYRUN s3 publish c1 m",
		"ACL DRYRUN s3 subscribe a1 b1", "ACL DRYRUN s3 subscribe a1 a2", "ACL DRYRUN s3 get k", "ACL DRYRUN s3 get j",
		"AUTH s3 pw", "PUBLISH b1 m", "PUBLISH c1 m", "GET k", "GET j",
		"AUTH default x", "ACL DELUSER s3")},
}

func TestRedisACLFirstArg(t *testing.T) { runRedisCases(t, aclFirstArgCases) }

// +cmd|arg allows an otherwise denied command with that first argument
// (deprecated in 7.0 but accepted); for a container, cmd|sub is the
// subcommand. ACL LIST prints the first arguments after the command.
var aclFirstArgCases = []redisCase{
	{name: "first arg", cmds: mbs(
		"ACL SETUSER f1 reset on >pw ~* +select|0 +SELECT|0 +select|Db1",
		"ACL GETUSER f1", "ACL LIST",
		"AUTH f1 pw", "SELECT 0", "SELECT db1", "SELECT DB1", "SELECT 2", "GET k",
		"AUTH default x",
		"ACL DRYRUN f1 select 0", "ACL DRYRUN f1 select 3",
		"ACL SETUSER f1 +select", "ACL GETUSER f1",
		"ACL SETUSER f1 -select +select|5", "ACL GETUSER f1",
		"ACL SETUSER f1 +@all -select +select|0", "ACL GETUSER f1",
		"ACL SETUSER f1 +@connection", "ACL LIST",
		"ACL SETUSER f1 -@all +select|0 (+select|1 ~x)", "ACL LIST",
		"ACL DELUSER f1")},
	{name: "subcommand rules", cmds: mbs(
		"ACL SETUSER f2 reset on >pw ~* +@all -config|set",
		"ACL GETUSER f2", "AUTH f2 pw", "CONFIG GET maxclients", "CONFIG SET maxclients 100", "AUTH default x",
		"ACL SETUSER f2 -@all +config|get", "ACL LIST",
		"ACL SETUSER f2 -@all +client +client|id -client|kill", "ACL GETUSER f2",
		"ACL DELUSER f2")},
	{name: "first arg errors", cmds: mbs(
		"ACL SETUSER f3 reset",
		"ACL SETUSER f3 +acl|setuser|x", "ACL SETUSER f3 +get|", "ACL SETUSER f3 +client|",
		"ACL SETUSER f3 -select|0", "ACL SETUSER f3 +nosuch|x", "ACL SETUSER f3 +client|nosuch",
		"ACL SETUSER f3 -client|nosuch", "ACL SETUSER f3 +client|id|x", "ACL SETUSER f3 +@hash|x",
		"ACL GETUSER f3", "ACL DELUSER f3")},
}

func TestRedisACLKeyAccess(t *testing.T) { runRedisCases(t, aclKeyAccessCases) }

// %R~ and %W~ are checked per key with the access its key spec needs:
// "access" needs read, "insert", "update" or "delete" write, a key only
// touched (EXISTS, TYPE: RO) neither. COMMAND GETKEYSANDFLAGS shows the
// flags the check uses.
var aclKeyAccessCases = []redisCase{
	{name: "read write patterns per key", cmds: mbs(
		"SET src1 v", "RPUSH srcl a b", "SADD srcs a", "ZADD srcz 1 a", "PFADD srch a",
		"ACL SETUSER k1 reset on >pw %R~src* %W~dst* +@all",
		"AUTH k1 pw",
		"COPY src1 dst1", "COPY dst1 src2", "GET src1", "GET dst1", "SET dst2 v", "SET dst2 v GET", "SET src1 v",
		"EXISTS dst1 src1", "TYPE dst1", "STRLEN dst1", "TOUCH dst1",
		"LMOVE srcl dstl LEFT RIGHT", "RPOPLPUSH srcl dstl", "LRANGE srcl 0 -1",
		"SORT srcl ALPHA STORE dsts", "SORT srcl ALPHA", "SORT_RO srcl ALPHA",
		"SUNIONSTORE dstu srcs", "SINTERSTORE dstu srcs", "SMOVE srcs dsts a", "RENAME src1 dstr",
		"ZUNIONSTORE dstz 1 srcz", "ZRANGESTORE dstz srcz 0 -1", "BITOP OR dstb src1",
		"BITFIELD src1 GET u8 0", "BITFIELD src1 SET u8 0 1", "BITFIELD dst1 GET u8 0", "BITFIELD_RO src1 GET u8 0",
		"PFCOUNT srch", "PFCOUNT dst1", "PFMERGE dsth srch", "DEL dst1", "DEL src1", "GETDEL dst2",
		"MSET dst1 a dst2 b", "MSET dst1 a src1 b", "APPEND dst1 x", "INCR dst9",
		"AUTH default x",
		"ACL DRYRUN k1 zunionstore dstz 1abc srcz", "ACL DRYRUN k1 zunionstore other 1abc srcz",
		"ACL DRYRUN k1 eval x 1 src1", "ACL DRYRUN k1 eval_ro x 1 src1", "ACL DRYRUN k1 eval x 1abc src1",
		"ACL DRYRUN k1 lmpop 1 srcl LEFT", "ACL DRYRUN k1 zintercard 1 srcz", "ACL DRYRUN k1 sintercard 1x srcs",
		"ACL DELUSER k1", "FLUSHALL")},
	// SORT's BY and GET patterns read keys of their own: they need a
	// selector that allows SORT and reads every key (~*, %R~*, allkeys).
	{name: "sort patterns need every key readable", cmds: mbs(
		"RPUSH sl 2 1", "SET w1 1",
		"ACL SETUSER so reset on >pw ~sl ~w* +sort",
		"AUTH so pw", "SORT sl BY w*", "SORT sl BY nosort", "SORT sl GET #", "SORT sl LIMIT x y BY w*", "SORT sl", "AUTH default x",
		"ACL SETUSER so %R~*", "AUTH so pw", "SORT sl BY w*", "SORT sl GET # GET w*", "AUTH default x",
		"ACL SETUSER so resetkeys %W~* ~sl", "AUTH so pw", "SORT sl BY w*", "AUTH default x",
		"ACL SETUSER so resetkeys ~sl (+sort %R~*)", "AUTH so pw", "SORT sl BY w*", "SORT_RO sl GET #", "AUTH default x",
		"ACL DELUSER so", "FLUSHALL")},
	{name: "getkeysandflags", cmds: mbs(
		"COMMAND GETKEYSANDFLAGS copy a b", "COMMAND GETKEYSANDFLAGS lmove a b left right",
		"COMMAND GETKEYSANDFLAGS sunionstore d a b", "COMMAND GETKEYSANDFLAGS sort a by w get x store d",
		"COMMAND GETKEYSANDFLAGS sort_ro a", "COMMAND GETKEYSANDFLAGS set k v", "COMMAND GETKEYSANDFLAGS set k v get",
		"COMMAND GETKEYSANDFLAGS set k v GET", "COMMAND GETKEYSANDFLAGS bitfield k get u8 0 overflow wrap",
		"COMMAND GETKEYSANDFLAGS bitfield k get u8 0 incrby u8 0 1", "COMMAND GETKEYSANDFLAGS bitfield k get u8",
		"COMMAND GETKEYSANDFLAGS rename a b", "COMMAND GETKEYSANDFLAGS renamenx a b", "COMMAND GETKEYSANDFLAGS smove a b m",
		"COMMAND GETKEYSANDFLAGS zrangestore d s 0 1", "COMMAND GETKEYSANDFLAGS bitop and d a b",
		"COMMAND GETKEYSANDFLAGS pfmerge d a b", "COMMAND GETKEYSANDFLAGS pfcount a b", "COMMAND GETKEYSANDFLAGS exists a b",
		"COMMAND GETKEYSANDFLAGS getdel a", "COMMAND GETKEYSANDFLAGS append a b", "COMMAND GETKEYSANDFLAGS mset a 1 b 2",
		"COMMAND GETKEYSANDFLAGS msetnx a 1 b 2", "COMMAND GETKEYSANDFLAGS hsetnx h f v", "COMMAND GETKEYSANDFLAGS del a b",
		"COMMAND GETKEYSANDFLAGS eval s 2 a b", "COMMAND GETKEYSANDFLAGS eval s 1x a b", "COMMAND GETKEYSANDFLAGS fcall_ro f 1 a",
		"COMMAND GETKEYSANDFLAGS zunionstore d 2 a b", "COMMAND GETKEYSANDFLAGS zunionstore d 2abc a b",
		"COMMAND GETKEYSANDFLAGS zmpop 1 a min", "COMMAND GETKEYSANDFLAGS blmpop 0 1x a left",
		"COMMAND GETKEYSANDFLAGS blpop a b 0", "COMMAND GETKEYSANDFLAGS object encoding k", "COMMAND GETKEYSANDFLAGS watch a b",
		"COMMAND GETKEYSANDFLAGS sinterstore d a b", "COMMAND GETKEYSANDFLAGS linsert l before a b", "COMMAND GETKEYSANDFLAGS move k 1")},
	{name: "key specs", cmds: mbs(
		"COMMAND INFO copy rename renamenx lmove rpoplpush blmove smove",
		"COMMAND INFO sunionstore sdiffstore sinterstore zrangestore bitop pfmerge",
		"COMMAND INFO type getdel append lpush hincrby incr setnx bitfield_ro strlen hexists")},
}

// TestRedisACLLogMaxLen: acllog-max-len bounds the log when an entry is
// added (lowering it trims nothing until then); equal denials within 60
// seconds count in one entry, moved to the front. age-seconds and
// client-info differ between servers and are left out of the comparison.
func TestRedisACLLogMaxLen(t *testing.T) {
	steps := [][]string{
		{"ACL", "LOG", "RESET"},
		{"CONFIG", "GET", "acllog-max-len"},
		{"ACL", "SETUSER", "lg", "reset", "on", ">pw", "~k*", "+get"},
		{"CONFIG", "SET", "acllog-max-len", "3"},
		{"CONFIG", "GET", "acllog-max-len"},
		{"AUTH", "lg", "pw"},
		{"GET", "a"}, {"GET", "b"}, {"GET", "a"}, {"SET", "k", "v"}, {"GET", "c"}, {"GET", "d"}, {"GET", "b"},
		{"AUTH", "default", "x"},
		{"ACL", "LOG"},
		{"CONFIG", "SET", "acllog-max-len", "1"},
		{"ACL", "LOG"},
		{"ACL", "LOG", "1"},
		{"AUTH", "lg", "bad"},
		{"ACL", "LOG"},
		{"CONFIG", "SET", "acllog-max-len", "0"},
		{"AUTH", "lg", "bad"},
		{"ACL", "LOG"},
		{"CONFIG", "SET", "acllog-max-len", "-1"},
		{"CONFIG", "SET", "acllog-max-len", "128"},
		{"ACL", "DELUSER", "lg"},
		{"ACL", "LOG", "RESET"},
	}
	run := func(addr string) []string {
		c := dialRESP(t, addr)
		var out []string
		for _, s := range steps {
			out = append(out, withoutLogVariables(c.do(s...)))
		}
		return out
	}
	want, got := run(refRedis), run(sutRedis)
	for i := range steps {
		if want[i] != got[i] {
			t.Errorf("%q:\n  redis: %s\n  %s: %s", steps[i], want[i], sideName(), got[i])
		}
	}
}

// withoutLogVariables renders a reply, ACL LOG entries without the values
// of age-seconds and client-info.
func withoutLogVariables(r reply) string {
	if !r.isAggregate() {
		return string(r.raw)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%c%d[", r.kind, len(r.elems))
	for i := 0; i < len(r.elems); i++ {
		e := r.elems[i]
		b.WriteString(withoutLogVariables(e) + " ")
		if (e.text == "age-seconds" || e.text == "client-info") && i+1 < len(r.elems) {
			b.WriteString("<value> ")
			i++
		}
	}
	b.WriteString("]")
	return b.String()
}

// A user that ACL DELUSER removes loses its connections (and one that
// deletes itself gets its reply first), as redis-server 7.0 does.
var aclDelUserCases = []redisCase{
	{name: "deluser of self", closes: true, cmds: mbs(
		"ACL SETUSER du1 reset on >pw ~* +@all", "AUTH du1 pw", "ACL DELUSER du1")},
	{name: "deluser of self in multi", closes: true, cmds: mbs(
		"ACL SETUSER du1 reset on >pw ~* +@all", "AUTH du1 pw", "MULTI", "ACL DELUSER du1", "EXEC")},
}

func TestRedisACLDelUserClosesOwnConnection(t *testing.T) { runRedisCases(t, aclDelUserCases) }

// TestRedisACLDelUserClosesConnections: a connection of a deleted user is
// closed, on both servers; one of another user, or of a user that ACL
// SETUSER merely disables or gives a new password, stays (7.0 closes only
// on removal). ACL LOAD removes every user but default, so it closes all
// their connections, even of users the file declares again.
func TestRedisACLDelUserClosesConnections(t *testing.T) {
	for _, addr := range []string{refRedis, sutRedis} {
		admin := dialRESP(t, addr)
		admin.do("ACL", "SETUSER", "dv", "reset", "on", ">pw", "~*", "+@all")
		admin.do("ACL", "SETUSER", "keep", "reset", "on", ">pw", "~*", "+@all")
		victim, other := dialRESP(t, addr), dialRESP(t, addr)
		if r := victim.do("AUTH", "dv", "pw"); r.isError() {
			t.Fatalf("%s: AUTH: %s", addr, r)
		}
		other.do("AUTH", "keep", "pw")
		admin.do("ACL", "SETUSER", "dv", "off", "resetpass", ">new", "-@all")
		admin.do("ACL", "SETUSER", "keep", "reset")
		if r := victim.do("PING"); !strings.Contains(string(r.raw), "NOPERM") {
			t.Errorf("%s: a user SETUSER changed (off, new password, -@all) must stay connected, refused: %s", addr, r)
		}
		if n := admin.do("ACL", "DELUSER", "dv"); string(n.raw) != ":1\r\n" {
			t.Fatalf("%s: ACL DELUSER: %s", addr, n)
		}
		if err := waitClosed(victim.conn); err != nil {
			t.Errorf("%s: the deleted user's connection: %v", addr, err)
		}
		if r := other.do("PING"); !strings.Contains(string(r.raw), "NOPERM") {
			t.Errorf("%s: another user's connection: %s", addr, r)
		}
		admin.do("ACL", "DELUSER", "keep")
		if err := waitClosed(other.conn); err != nil {
			t.Errorf("%s: %v", addr, err)
		}

		// SETUSER that takes a channel away closes the user's subscribers
		// whose subscriptions it no longer allows, and only those.
		admin.do("ACL", "SETUSER", "ps", "reset", "on", ">pw", "resetchannels", "&ch*", "&keep", "+@all")
		sub, kept := dialRESP(t, addr), dialRESP(t, addr)
		for _, c := range []*respClient{sub, kept} {
			c.do("AUTH", "ps", "pw")
		}
		sub.do("SUBSCRIBE", "ch1")
		kept.do("SUBSCRIBE", "keep")
		admin.do("ACL", "SETUSER", "ps", "resetchannels", "&keep", "&other")
		if err := waitClosed(sub.conn); err != nil {
			t.Errorf("%s: a subscriber whose channel was revoked: %v", addr, err)
		}
		if r := kept.do("PING"); !strings.Contains(string(r.raw), "pong") {
			t.Errorf("%s: a subscriber whose channel is still allowed: %s", addr, r)
		}
		admin.do("ACL", "DELUSER", "ps")
	}
}

// waitClosed reads from conn until the server closes it, or fails after a
// few seconds.
func waitClosed(conn net.Conn) error {
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 512)
	for {
		_, err := conn.Read(buf)
		switch {
		case errors.Is(err, io.EOF), err != nil && strings.Contains(err.Error(), "reset"):
			return nil
		case err != nil:
			return fmt.Errorf("still open: %v", err)
		}
	}
}

// TestACLLoadClosesConnections: ACL LOAD builds every user but default
// anew, so redis-server 7.0 closes the connections of all of them, even of
// a user the file declares again; the default user's stay. Each server
// gets an aclfile of its own.
func TestACLLoadClosesConnections(t *testing.T) {
	dir := t.TempDir()
	aclFile := filepath.Join(dir, "users.acl")
	if err := os.WriteFile(aclFile, []byte("user default on nopass ~* &* +@all\nuser la on >pw ~* +@all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	redisBin, err := realserver.Lookup(realserver.Redis)
	if err != nil {
		t.Fatal(err)
	}
	start := func(name string, bin []string) string {
		s := startFor(t, dir, name, 1, func(p []int) []string {
			return append(bin, "--port", strconv.Itoa(p[0]), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--aclfile", aclFile)
		})
		return s.addrs[0]
	}
	addrs := []string{start("redis-aclload", []string{redisBin, "--appendonly", "no"})}
	if !selfTest {
		addrs = append(addrs, start("tandem-aclload", []string{tandemBin, "--maxmemory", "0"}))
	}
	for _, addr := range addrs {
		admin, la, def := dialRESP(t, addr), dialRESP(t, addr), dialRESP(t, addr)
		if r := la.do("AUTH", "la", "pw"); r.isError() {
			t.Fatalf("%s: AUTH la: %s", addr, r)
		}
		if r := admin.do("ACL", "LOAD"); string(r.raw) != "+OK\r\n" {
			t.Fatalf("%s: ACL LOAD: %s", addr, r)
		}
		if err := waitClosed(la.conn); err != nil {
			t.Errorf("%s: a connection of a user ACL LOAD rebuilt: %v", addr, err)
		}
		if r := def.do("PING"); string(r.raw) != "+PONG\r\n" {
			t.Errorf("%s: the default user's connection: %s", addr, r)
		}
		// The one that runs ACL LOAD as a user the load removes gets OK,
		// then is closed.
		self := dialRESP(t, addr)
		self.do("AUTH", "la", "pw")
		if r := self.do("ACL", "LOAD"); string(r.raw) != "+OK\r\n" {
			t.Errorf("%s: ACL LOAD by a removed user: %s", addr, r)
		}
		if err := waitClosed(self.conn); err != nil {
			t.Errorf("%s: ACL LOAD's own connection: %v", addr, err)
		}
	}
}

// TestACLDelUserClosesMemcachedSession: a memcached session logged in as
// a user that ACL DELUSER removes (on the RESP port) is closed too; one of
// another user stays. Tandem only: memcached has no ACL.
func TestACLDelUserClosesMemcachedSession(t *testing.T) {
	if selfTest {
		t.Skip("Tandem only: the real memcached has no Redis users")
	}
	s := startTandemAuth(t, t.TempDir())
	admin := dialRESP(t, s.addrs[0])
	admin.do("AUTH", authPassword)
	admin.do("ACL", "SETUSER", "mu", "reset", "on", ">mpw", "~*", "+@all")
	admin.do("ACL", "SETUSER", "mk", "reset", "on", ">kpw", "~*", "+@all")
	memLogin := func(user, pass string) *memcClient {
		c := dialMemc(t, s.addrs[1])
		data := user + " " + pass
		if got := c.do(fmt.Sprintf("set x 0 0 %d\r\n%s\r\n", len(data), data)); got != "STORED\r\n" {
			t.Fatalf("login %s: %q", user, got)
		}
		return c
	}
	victim, other := memLogin("mu", "mpw"), memLogin("mk", "kpw")
	if got := victim.do("set k 0 0 1\r\nv\r\n"); got != "STORED\r\n" {
		t.Fatalf("set before the delete: %q", got)
	}
	if r := admin.do("ACL", "DELUSER", "mu"); string(r.raw) != ":1\r\n" {
		t.Fatalf("ACL DELUSER: %s", r)
	}
	if err := waitClosed(victim.conn); err != nil {
		t.Errorf("the deleted user's memcached session: %v", err)
	}
	if got := other.do("get k\r\n"); got != "VALUE k 0 1\r\nv\r\nEND\r\n" {
		t.Errorf("another user's session: %q", got)
	}
	admin.do("ACL", "DELUSER", "mk")
}
