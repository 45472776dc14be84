package compat

import (
	"slices"
	"testing"

	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/services"
)

// Redis ACL: users, their rules as ACL LIST and ACL GETUSER print them,
// NOPERM replies, AUTH with a user name, ACL DRYRUN. Users outlive a case
// (FLUSHALL keeps them), so each case starts its users with "reset" and
// deletes them at the end, and switches back to the default user before
// the harness's ECHO sentinel.
//
// ACL GETUSER and ACL LIST are compared exactly only where the single
// commands after the fitted categories number at most one:
// redis-server lists them in its command dict's order, which its random
// hash seed makes different on every start.

func TestRedisACL(t *testing.T) { runRedisCases(t, aclCases) }

var aclCases = []redisCase{
	{name: "default user", cmds: mbs("ACL LIST", "ACL USERS", "ACL WHOAMI", "ACL GETUSER default", "ACL GETUSER nosuch")},
	{name: "setuser list getuser", cmds: mbs(
		"ACL SETUSER cu1 reset",
		"ACL LIST",
		"ACL SETUSER cu1 on >p1 #c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2 ~app:* %R~r:* %W~w:* &ch* +@read -get",
		"ACL LIST", "ACL GETUSER cu1", "ACL USERS",
		"ACL SETUSER cu1 <p1 %W~app:* %RW~r:* resetchannels &a &b &a -@all +get",
		"ACL GETUSER cu1",
		"ACL SETUSER cu1 allkeys allchannels +@all -@dangerous nopass sanitize-payload",
		"ACL GETUSER cu1",
		"ACL SETUSER cu1 resetkeys ~x resetpass skip-sanitize-payload nocommands +@hash +@string",
		"ACL LIST",
		"ACL SETUSER cu1 reset", "ACL LIST",
		"ACL DELUSER cu1 nosuch", "ACL DELUSER cu1")},
	{name: "setuser errors", cmds: mbs(
		"ACL SETUSER cu1 reset",
		"ACL SETUSER cu1 +nosuch", "ACL SETUSER cu1 +@nosuch", "ACL SETUSER cu1 #abc",
		"ACL SETUSER cu1 #C3AB8FF13720E8AD9047DD39466B3C8974E592C2FA383D4A3960714CAEF0C4F2",
		"ACL SETUSER cu1 <nope", "ACL SETUSER cu1 !c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2",
		"ACL SETUSER cu1 %X~a", "ACL SETUSER cu1 %R", "ACL SETUSER cu1 bogus",
		"ACL SETUSER cu1 +client|nosuch", "ACL SETUSER cu1 -get|x",
		"ACL SETUSER cu1 ~* ~a", "ACL SETUSER cu1 &* &a",
		"ACL SETUSER cu1 on ~k +get +nosuch", "ACL GETUSER cu1",
		"ACL DELUSER default", "ACL DELUSER cu1 default", "ACL USERS",
		"ACL DELUSER cu1")},
	{name: "username with space", cmds: cmds(cmd("ACL", "SETUSER", "a b", "on"), cmd("ACL", "SETUSER", "a\x00b"))},
	{name: "noperm", cmds: mbs(
		"ACL SETUSER cu2 reset on >pw ~k* &ch +get +set +publish +acl|whoami",
		"AUTH cu2 pw", "ACL WHOAMI",
		"GET k1", "SET k1 v", "GET k1", "GET other", "SET other v", "MGET k1 k2",
		"HSET k1 a b", "CLIENT ID", "ACL LIST",
		"PUBLISH ch m", "PUBLISH x m",
		"PING", "AUTH default x", "ACL WHOAMI", "GET other",
		"ACL DELUSER cu2")},
	{name: "noperm in multi", cmds: mbs(
		"ACL SETUSER cu2 reset on >pw ~k* +@all",
		"AUTH cu2 pw",
		"MULTI", "SET k1 v", "SET other v", "EXEC",
		"AUTH default x", "ACL DELUSER cu2")},
	{name: "read write patterns", cmds: mbs(
		"ACL SETUSER cu2 reset on >pw %R~r* %W~w* +@all",
		"AUTH cu2 pw",
		"GET r1", "GET w1", "SET w1 v", "SET r1 v",
		"AUTH default x", "ACL DELUSER cu2")},
	{name: "auth user pass", cmds: mbs(
		"ACL SETUSER cu3 reset on >one >two +@all ~*",
		"AUTH cu3 one", "ACL WHOAMI", "AUTH cu3 two", "AUTH cu3 three", "ACL WHOAMI",
		"AUTH nosuch x", "AUTH cu3", "AUTH a b c",
		"ACL SETUSER cu3 off", "AUTH cu3 one",
		"HELLO 2 AUTH cu3 one",
		"ACL SETUSER cu3 on", "HELLO 2 AUTH cu3 bad",
		"AUTH default x", "ACL WHOAMI", "ACL DELUSER cu3")},
	{name: "wrongpass with requirepass off", cmds: mbs("AUTH wrong", "AUTH default anything")},
	{name: "dryrun", cmds: mbs(
		"ACL SETUSER cu4 reset on >p ~a* &ch +get +set +publish +@hash -hdel",
		"ACL DRYRUN cu4 get a1", "ACL DRYRUN cu4 get b1", "ACL DRYRUN cu4 hdel a1 f",
		"ACL DRYRUN cu4 hset a1 f v", "ACL DRYRUN cu4 publish ch m", "ACL DRYRUN cu4 publish x m",
		"ACL DRYRUN cu4 client id", "ACL DRYRUN cu4 client", "ACL DRYRUN cu4 client nosuch",
		"ACL DRYRUN cu4 get", "ACL DRYRUN cu4 nosuch a", "ACL DRYRUN nosuch get a",
		"ACL DRYRUN cu4 auth x", "ACL DRYRUN cu4 mset a1 1 b1 2",
		"ACL DELUSER cu4")},
	{name: "cat", cmds: mbs("ACL CAT", "ACL CAT nosuch", "ACL CAT a b")},
	{name: "genpass", cmds: mbs("ACL GENPASS", "ACL GENPASS 5", "ACL GENPASS 4096"), loose: at(0, anyBulk, 1, anyBulk, 2, anyBulk)},
	{name: "genpass errors", cmds: mbs("ACL GENPASS 0", "ACL GENPASS 4097", "ACL GENPASS abc", "ACL GENPASS 1 2")},
	{name: "log errors", cmds: mbs("ACL LOG abc", "ACL LOG 1 2", "ACL LOG -1")},
	{name: "no acl file", cmds: mbs("ACL LOAD", "ACL SAVE")},
	{name: "help and arity", cmds: mbs("ACL HELP", "ACL", "ACL NOSUCH", "ACL GETUSER", "ACL LIST x", "ACL SETUSER", "ACL DRYRUN a")},
}

// TestRedisACLCat compares ACL CAT <category> for every category as sets
// of names restricted to the commands both serve (the named loosening:
// Tandem serves a subset of redis-server 7.0's commands plus two of 7.2's,
// CLIENT SETINFO and NO-TOUCH, and Redis lists them in its dict's random
// order).
func TestRedisACLCat(t *testing.T) {
	served := map[string]bool{}
	for _, cmd := range resp.New(resp.Options{Services: services.New(services.Options{})}).Table().All() {
		served[cmd.Name] = true
		for _, sc := range cmd.Subcommands {
			served[sc.Name] = true
		}
	}
	ref, sut := dialRESP(t, refRedis), dialRESP(t, sutRedis)
	cats := ref.do("ACL", "CAT")
	known := map[string]bool{} // every command is @fast or @slow
	for _, c := range []string{"fast", "slow"} {
		for _, e := range ref.do("ACL", "CAT", c).elems {
			known[e.text] = true
		}
	}
	for _, c := range cats.elems {
		names := func(cl *respClient, restrict bool) []string {
			r := cl.do("ACL", "CAT", c.text)
			var out []string
			for _, e := range r.elems {
				if restrict && served[e.text] || !restrict && known[e.text] || selfTest {
					out = append(out, e.text)
				}
			}
			slices.Sort(out)
			return out
		}
		want, got := names(ref, true), names(sut, false)
		if !slices.Equal(want, got) {
			t.Errorf("ACL CAT %s:\n  redis (served): %q\n  %s: %q", c.text, want, sideName(), got)
		}
	}
}

// TestRedisACLScripts: redis.call and redis.pcall obey the caller's user.
func TestRedisACLScripts(t *testing.T) { runRedisCases(t, aclScriptCases) }

var aclScriptCases = []redisCase{
	{name: "script noperm", cmds: cmds(
		cmd("ACL", "SETUSER", "cu5", "reset", "on", ">pw", "~a*", "+eval", "+set", "+ping"),
		cmd("AUTH", "cu5", "pw"),
		cmd("EVAL", "return redis.call('get','a')", "0"),
		cmd("EVAL", "return redis.pcall('get','a')", "0"),
		cmd("EVAL", "return redis.call('set','b','1')", "0"),
		cmd("EVAL", "return redis.call('set','a1','1')", "0"),
		cmd("AUTH", "default", "x"),
		cmd("ACL", "DELUSER", "cu5"))},
}
