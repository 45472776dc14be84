package users

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// testCatalog is a small command table: get/set (string), hset (hash),
// client with two subcommands, auth (no-auth).
func testCatalog() *Catalog {
	b := func(names ...string) uint32 {
		var m uint32
		for _, n := range names {
			m |= CategoryBit(n)
		}
		return m
	}
	return NewCatalog([]CatalogCommand{
		{Name: "get", Categories: b("read", "string", "fast")},
		{Name: "set", Categories: b("write", "string", "slow")},
		{Name: "hset", Categories: b("write", "hash", "fast")},
		{Name: "hget", Categories: b("read", "hash", "fast")},
		{Name: "client", Categories: b("slow")},
		{Name: "client|id", Categories: b("connection", "fast")},
		{Name: "client|kill", Categories: b("admin", "dangerous", "connection", "slow")},
		{Name: "auth", Categories: b("connection", "fast"), NoAuth: true},
	})
}

func TestRulesDescribe(t *testing.T) {
	s := New()
	s.SetCatalog(testCatalog())
	if got := s.Default().Describe(); got != "user default on nopass ~* &* +@all" {
		t.Fatalf("default: %q", got)
	}
	// Expectations follow Redis 7.0's fitting on this small catalog (the
	// compat suite checks it against redis-server on the real table).
	h := HashPassword("p1")
	cases := []struct {
		ops  []string
		want string
	}{
		{nil, "off resetchannels -@all"},
		{[]string{"reset"}, "off sanitize-payload resetchannels -@all"},
		{[]string{"reset", "on", ">p1", "~app:*", "%R~r:*", "%W~w:*", "%RW~rw", "&ch*", "+@read", "-get", "+set"},
			"on sanitize-payload #" + h + " ~app:* %R~r:* %W~w:* ~rw resetchannels &ch* -@all +set +hget"},
		{[]string{"reset", "on", "%W~x", "%R~x", "~y", "~y"}, "on sanitize-payload ~x ~y resetchannels -@all"},
		{[]string{"reset", "on", "+@all", "-@dangerous", "allkeys", "allchannels", "nopass"}, "on nopass sanitize-payload ~* &* +@all -@admin"},
		{[]string{"reset", "+@all", "-client", "+client|id"}, "off sanitize-payload resetchannels +@all -@admin -client +client|id"},
		{[]string{"reset", "nocommands", "+client"}, "off sanitize-payload resetchannels -@all +@admin +client"},
		{[]string{"reset", "+@hash", "-hset", "skip-sanitize-payload"}, "off skip-sanitize-payload resetchannels -@all +hget"},
		{[]string{"reset", "on", ">a", ">b", ">a", "<a", "#" + h, "!" + h}, "on sanitize-payload #" + HashPassword("b") + " resetchannels -@all"},
	}
	for i, c := range cases {
		if err := s.SetUser(fmt.Sprint("u", i), c.ops...); err != nil {
			t.Fatalf("%q: %v", c.ops, err)
		}
		if got := s.Lookup(fmt.Sprint("u", i)).ACL().Describe(); got != c.want {
			t.Errorf("after %q:\n got %q\nwant %q", c.ops, got, c.want)
		}
	}
}

func TestRuleErrors(t *testing.T) {
	s := New()
	s.SetCatalog(testCatalog())
	if err := s.SetUser("u", "on", "~k", ">pw"); err != nil {
		t.Fatal(err)
	}
	before := s.Lookup("u").Describe()
	cases := []struct {
		op  string
		err error
	}{
		{"+nosuch", ErrRuleUnknown}, {"+@nosuch", ErrRuleUnknown}, {"+client|nosuch", ErrRuleUnknown},
		{"#abc", ErrRuleBadHash}, {"#" + HashPassword("x")[:63] + "G", ErrRuleBadHash},
		{"<nope", ErrRuleNoPassword}, {"!" + HashPassword("nope"), ErrRuleNoPassword},
		{"%X~a", ErrRuleSyntax}, {"bogus", ErrRuleSyntax}, {"~a b", ErrRuleSyntax}, {"&a\x00", ErrRuleSyntax},
		{"+client|id|x", ErrRuleFirstArgSub}, {"+get|", ErrRuleSyntax}, {"-get|x", ErrRuleUnknown},
		{"(on)", ErrRuleSyntax}, {"(~a >pw)", ErrRuleSyntax}, {"(+nosuch)", ErrRuleUnknown},
	}
	for _, c := range cases {
		err := s.SetUser("u", "off", c.op)
		var re *RuleError
		if !errors.As(err, &re) || re.Op != c.op || !errors.Is(err, c.err) {
			t.Errorf("%q: %v, want %v", c.op, err, c.err)
		}
		if got := s.Lookup("u").Describe(); got != before {
			t.Errorf("%q: a refused SETUSER changed the user: %q", c.op, got)
		}
	}
	if err := s.SetUser("v", "~*", "~a"); !errors.Is(err, ErrRuleAfterAllKey) || s.Lookup("v") != nil {
		t.Errorf("~* ~a: %v; a refused SETUSER must not create the user", err)
	}
	if err := s.SetUser("v", "&*", "&a"); !errors.Is(err, ErrRuleAfterAllCh) {
		t.Errorf("&* &a: %v", err)
	}
	want := "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"
	if err := s.SetUser("u", "+nosuch"); err == nil || err.Error() != want {
		t.Errorf("text %q", err)
	}
}

func TestPermissionChecks(t *testing.T) {
	s := New()
	cat := testCatalog()
	s.SetCatalog(cat)
	if !s.Default().ACL().Unrestricted() {
		t.Fatal("default user is restricted")
	}
	if err := s.SetUser("u", "on", "nopass", "~app:*", "%R~r:*", "&news.*", "+@read", "-client", "+client|id"); err != nil {
		t.Fatal(err)
	}
	sp := s.Lookup("u").ACL()
	for name, want := range map[string]bool{"get": true, "hget": true, "set": false, "client|id": true, "client|kill": false, "auth": true} {
		if sp.CanRunNamed(name) != want {
			t.Errorf("CanRun(%s) = %v", name, !want)
		}
	}
	rw := KeyRead | KeyWrite
	if !sp.keyAllowed([]byte("app:1"), rw) || sp.keyAllowed([]byte("other"), KeyRead) ||
		!sp.keyAllowed([]byte("r:1"), KeyRead) || sp.keyAllowed([]byte("r:1"), KeyWrite) || !sp.keyAllowed([]byte("r:1"), 0) {
		t.Error("key patterns")
	}
	if !sp.channelAllowed([]byte("news.x"), false) || sp.channelAllowed([]byte("sport"), false) ||
		!sp.channelAllowed([]byte("news.*"), true) || sp.channelAllowed([]byte("news.x*"), true) {
		t.Error("channel patterns")
	}
	can := func(cats uint32) bool { return sp.CheckCategories(cats, nil, 0).Reason == Allowed }
	if !can(CategoryBit("read")) || can(CategoryBit("write")) || can(CategoryBit("admin")|CategoryBit("dangerous")) || sp.Unrestricted() {
		t.Error("categories")
	}
	// A catalog set after the rules (the store is built before the Redis
	// front-end) recomputes the bitmap from them.
	s2 := New()
	if err := s2.SetUser("u", "+@read"); err != nil {
		t.Fatal(err)
	}
	s2.SetCatalog(cat)
	if sp := s2.Lookup("u").ACL(); !sp.CanRunNamed("get") || sp.CanRunNamed("set") {
		t.Error("rules before the catalog")
	}
}

func TestLogGroups(t *testing.T) {
	s := New()
	now := testNow()
	s.Log(LogEntry{Reason: "key", Context: "toplevel", Object: "k", Username: "u"}, now)
	s.Log(LogEntry{Reason: "command", Context: "toplevel", Object: "get", Username: "u"}, now)
	s.Log(LogEntry{Reason: "key", Context: "toplevel", Object: "k", Username: "u"}, now.Add(time.Second))
	e := s.LogEntries(-1)
	if len(e) != 2 || e[0].Object != "k" || e[0].Count != 2 || e[1].Count != 1 {
		t.Fatalf("%+v", e)
	}
	s.Log(LogEntry{Reason: "key", Context: "toplevel", Object: "k", Username: "u"}, now.Add(2*time.Minute))
	if e := s.LogEntries(-1); len(e) != 3 || len(s.LogEntries(1)) != 1 {
		t.Fatalf("an entry over 60s old was counted again: %+v", e)
	}
	s.ResetLog()
	if len(s.LogEntries(-1)) != 0 {
		t.Fatal("reset")
	}
}

func testNow() time.Time { return time.Unix(1700000000, 0) }
