package users

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// selectorStore is a store over testCatalog plus SELECT, a command
// without subcommands for first-argument rules.
func selectorStore(t *testing.T) *Store {
	t.Helper()
	cmds := slices.Clone(testCatalog().cmds)
	cmds = append(cmds, CatalogCommand{Name: "select", Categories: CategoryBit("connection") | CategoryBit("fast")})
	s := New()
	s.SetCatalog(NewCatalog(cmds))
	return s
}

func mustSetUser(t *testing.T, s *Store, name string, ops ...string) *Spec {
	t.Helper()
	if err := s.SetUser(name, ops...); err != nil {
		t.Fatalf("SETUSER %s %q: %v", name, ops, err)
	}
	return s.Lookup(name).ACL()
}

func req(name string, args ...string) *Request {
	r := &Request{Name: name, Args: [][]byte{[]byte(name)}}
	for _, a := range args {
		r.Args = append(r.Args, []byte(a))
	}
	return r
}

// keys marks every argument after the name as a key needing need.
func (r *Request) keys(need KeyAccess) *Request {
	for i := 1; i < len(r.Args); i++ {
		r.Keys = append(r.Keys, KeyRef{Pos: i, Need: need})
	}
	return r
}

func TestSelectorsDescribeAndCheck(t *testing.T) {
	s := selectorStore(t)
	sp := mustSetUser(t, s, "u", "reset", "on", "~root*", "+get", "(~sel*", "+set)", "(%R~r*", "+@hash)")
	want := "on sanitize-payload ~root* resetchannels -@all +get (~sel* resetchannels -@all +set) (%R~r* resetchannels -@all +@hash)"
	if got := sp.Describe(); got != want {
		t.Fatalf("Describe:\n got %q\nwant %q", got, want)
	}
	if len(sp.Selectors) != 2 || sp.Selectors[1].KeysRule() != "%R~r*" || sp.Selectors[1].CommandRules() != "-@all +@hash" {
		t.Fatalf("selectors %+v", sp.Selectors)
	}
	rw, r := KeyRead|KeyWrite, KeyRead
	for _, c := range []struct {
		r    *Request
		want Denial
	}{
		{req("get", "root1").keys(r), Denial{}},
		{req("set", "sel1", "v").keys(rw), Denial{}}, // the value is not a key here: only args[1] checked below
		{req("hget", "r1", "f").keys(r), Denial{}},
		{req("get", "sel1").keys(r), Denial{Reason: DeniedKey, Pos: 1}},      // root: key; others: command
		{req("hset", "r1", "f").keys(rw), Denial{Reason: DeniedKey, Pos: 1}}, // %R~ lacks write
		{req("client|id"), Denial{Reason: DeniedCommand}},
	} {
		c.r.Keys = c.r.Keys[:min(len(c.r.Keys), 1)]
		if got := sp.Check(c.r); got != c.want {
			t.Errorf("%s %q: %+v, want %+v", c.r.Name, c.r.Args[1:], got, c.want)
		}
	}
	// Of the selectors' denials the greatest argument position wins.
	sp = mustSetUser(t, s, "m", "reset", "on", "~a*", "+get", "(~b*", "+get)")
	mget := req("get", "a1", "b1").keys(r)
	if got := sp.Check(mget); got != (Denial{Reason: DeniedKey, Pos: 2}) {
		t.Errorf("precedence: %+v", got)
	}
	sp = mustSetUser(t, s, "m", "clearselectors")
	if len(sp.Selectors) != 0 || sp.Describe() != "on sanitize-payload ~a* resetchannels -@all +get" {
		t.Errorf("clearselectors: %q", sp.Describe())
	}
	sp = mustSetUser(t, s, "m", "(+set)", "reset")
	if len(sp.Selectors) != 0 {
		t.Error("reset keeps selectors")
	}
}

func TestSelectorRuleErrors(t *testing.T) {
	s := selectorStore(t)
	mustSetUser(t, s, "u", "on")
	for _, c := range []struct {
		ops  []string
		text string
	}{
		{[]string{"(+get"}, "Unmatched parenthesis in acl selector starting at '(+get'."},
		{[]string{"+get", "(~a", "+set"}, "Unmatched parenthesis in acl selector starting at '(~a'."},
		{[]string{"(on)"}, "Error in ACL SETUSER modifier '(on)': Syntax error"},
		{[]string{"(~a", ">pw)"}, "Error in ACL SETUSER modifier '(~a >pw)': Syntax error"},
		{[]string{"(+nosuch)"}, "Error in ACL SETUSER modifier '(+nosuch)': Unknown command or category name in ACL"},
		{[]string{"(~*", "~a)"}, "Error in ACL SETUSER modifier '(~* ~a)': " + ErrRuleAfterAllKey.Error()},
		{[]string{"x)"}, "Error in ACL SETUSER modifier 'x)': Syntax error"},
		{[]string{"+client|id|x"}, "Error in ACL SETUSER modifier '+client|id|x': Allowing first-arg of a subcommand is not supported"},
	} {
		if err := s.SetUser("u", c.ops...); err == nil || err.Error() != c.text {
			t.Errorf("%q: %v, want %q", c.ops, err, c.text)
		}
	}
	// Inside parentheses words split as sdssplitargs: quotes group, and an
	// unbalanced quote leaves the selector empty, as in Redis.
	sp := mustSetUser(t, s, "u", `(%R~x "unbalanced)`, `("~q*" '+get')`, "")
	if got := sp.Describe(); got != "on resetchannels -@all (resetchannels -@all) (~q* resetchannels -@all +get)" {
		t.Errorf("quoted selectors: %q", got)
	}
}

func TestFirstArgRules(t *testing.T) {
	s := selectorStore(t)
	sp := mustSetUser(t, s, "f", "reset", "on", "~*", "+select|0", "+SELECT|0", "+select|Db1")
	if got := sp.CommandRules(); got != "-@all +select|0 +select|Db1" {
		t.Fatalf("rules %q", got)
	}
	for arg, want := range map[string]Reason{"0": Allowed, "db1": Allowed, "DB1": Allowed, "2": DeniedCommand} {
		if got := sp.Check(req("select", arg)).Reason; got != want {
			t.Errorf("SELECT %s: %v, want %v", arg, got, want)
		}
	}
	if sp.Check(req("select")).Reason != DeniedCommand {
		t.Error("a first-arg rule allowed the command without arguments")
	}
	// +select or -select drops the first-argument rules; +@all too.
	if got := mustSetUser(t, s, "f", "+select", "-select").CommandRules(); got != "-@all" {
		t.Errorf("after +select -select: %q", got)
	}
	if got := mustSetUser(t, s, "f", "+@all", "-select", "+select|7").CommandRules(); got != "+@all -select +select|7" {
		t.Errorf("after +@all -select +select|7: %q", got)
	}
	// A container's cmd|name is its subcommand, never a first argument.
	if got := mustSetUser(t, s, "f", "-@all", "+client|id").CommandRules(); got != "-@all +client|id" {
		t.Errorf("+client|id: %q", got)
	}
	for _, op := range []string{"+client|nosuch", "-select|0", "+nosuch|x"} {
		if err := s.SetUser("f", op); !errors.Is(err, ErrRuleUnknown) {
			t.Errorf("%s: %v", op, err)
		}
	}
	// Rules set before the catalog are replayed with it, first-arg ones too.
	s2 := New()
	if err := s2.SetUser("f", "+@all"); err != nil {
		t.Fatal(err)
	}
	s2.SetCatalog(s.Catalog())
	if err := s2.SetUser("f", "-select", "+select|3"); err != nil {
		t.Fatal(err)
	}
	s2.SetCatalog(s.Catalog())
	if got := s2.Lookup("f").ACL().CommandRules(); got != "+@all -select +select|3" {
		t.Errorf("after a second SetCatalog: %q", got)
	}
}

func TestUnrestrictedKeyAccess(t *testing.T) {
	s := selectorStore(t)
	r := req("get", "k").keys(KeyRead)
	for _, c := range []struct {
		ops  []string
		want bool
	}{
		{[]string{"~k"}, false},
		{[]string{"~k", "%R~*"}, true},
		{[]string{"~k", "%W~*"}, false},
		{[]string{"~k", "(+get %R~*)"}, true},
		{[]string{"~k", "(+set %R~*)"}, false}, // the selector must allow the command too
	} {
		sp := mustSetUser(t, s, "x", append([]string{"reset", "+get"}, c.ops...)...)
		if got := sp.CheckUnrestrictedKeys(r, KeyRead); got != c.want {
			t.Errorf("%q: %v", c.ops, got)
		}
	}
}

// DeleteUsers, LoadText and a SETUSER that narrows channels tell the
// subscribers, with the origin given.
func TestChangesAreNotified(t *testing.T) {
	s := selectorStore(t)
	var got []Change
	s.Subscribe(func(c Change) { got = append(got, c) })
	mustSetUser(t, s, "a", "on", "&news*")
	a := s.Lookup("a")
	mustSetUser(t, s, "b", "on")
	if len(got) != 0 {
		t.Fatalf("creating users notified: %+v", got)
	}
	mustSetUser(t, s, "a", "&sport*") // more channels: nothing to close
	mustSetUser(t, s, "a", "resetchannels", "&news*", "&sport*", "(&x*)")
	if len(got) != 0 {
		t.Fatalf("a wider channel set notified: %+v", got)
	}
	mustSetUser(t, s, "a", "resetchannels", "&news*")
	if len(got) != 1 || got[0].Narrowed != a || got[0].Before == nil || len(got[0].Removed) != 0 {
		t.Fatalf("narrowed: %+v", got)
	}
	// The selector's &x* still grants x1; sport* is gone.
	if sp := a.ACL(); !sp.KeepsSubscription([]byte("news.1"), false) || !sp.KeepsSubscription([]byte("x1"), false) ||
		sp.KeepsSubscription([]byte("sport.1"), false) ||
		sp.KeepsSubscription([]byte("news*x"), true) || !sp.KeepsSubscription([]byte("news*"), true) {
		t.Error("KeepsSubscription")
	}
	got = nil
	origin := "conn-7"
	if n := s.DeleteUsers(origin, "a", "nosuch", DefaultName); n != 1 {
		t.Fatalf("DeleteUsers = %d", n)
	}
	if len(got) != 1 || !slices.Equal(got[0].Removed, []*User{a}) || got[0].Origin != origin || !a.Removed() {
		t.Fatalf("delete: %+v", got)
	}
	if a.ACL().Check(req("get")).Reason != DeniedCommand || s.Default().Removed() {
		t.Error("a removed user can still run commands, or default was removed")
	}
	// ACL LOAD: every user but default is new; the old ones are removed.
	got = nil
	b := s.Lookup("b")
	if err := s.LoadText(nil, "users.acl", "user b on nopass +@all\n"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !slices.Equal(got[0].Removed, []*User{b}) || s.Lookup("b") == b || s.Lookup("b") == nil {
		t.Fatalf("load: %+v", got)
	}
}

func TestLoadTextRedisTexts(t *testing.T) {
	s := selectorStore(t)
	text := "# comment\nuser\nuser a on (~k +get\nuser b +nosuch bogus %X~a +nosuch2\nuser b\n  user c  on  >p  (~x* +get)\t\n"
	want := "f:1 should start with user keyword followed by the username. " +
		"f:2 should start with user keyword followed by the username. " +
		"f:3: Unmatched parenthesis in selector definition." +
		"f:4: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
		"f:4: Syntax error. " +
		"f:4: Error in applying operation '+nosuch2': Unknown command or category name in ACL. " +
		"WARNING: Duplicate user 'b' found on line 5. " +
		"WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err := s.LoadText(nil, "f", text); err == nil || err.Error() != want {
		t.Fatalf("errors:\n got %v\nwant %q", err, want)
	}
	if err := s.LoadText(nil, "f", "  user c  on  >p  (~x* +get)\t\n"); err != nil {
		t.Fatal(err)
	}
	if got := s.Lookup("c").Describe(); got != "user c on #"+HashPassword("p")+" resetchannels -@all (~x* resetchannels -@all +get)" {
		t.Errorf("loaded %q", got)
	}
	if got := s.Default().Describe(); got != "user default on nopass ~* &* +@all" {
		t.Errorf("default %q", got)
	}
}

func TestLogMaxLen(t *testing.T) {
	s := New()
	now := testNow()
	add := func(obj string) { s.Log(LogEntry{Reason: "key", Context: "toplevel", Object: obj, Username: "u"}, now) }
	for _, k := range []string{"a", "b", "c", "d"} {
		add(k)
	}
	s.SetLogMaxLen(2)
	if n := len(s.LogEntries(-1)); n != 4 {
		t.Fatalf("lowering acllog-max-len trimmed at once (Redis trims at the next entry): %d", n)
	}
	add("a") // counted again, not added: no trim either
	if e := s.LogEntries(-1); len(e) != 4 || e[0].Object != "a" || e[0].Count != 2 {
		t.Fatalf("regrouped: %+v", e)
	}
	add("e")
	if e := s.LogEntries(-1); len(e) != 2 || e[0].Object != "e" || e[1].Object != "a" {
		t.Fatalf("after a new entry: %+v", e)
	}
	s.SetLogMaxLen(0)
	add("f")
	if n := len(s.LogEntries(-1)); n != 0 {
		t.Fatalf("acllog-max-len 0 keeps %d", n)
	}
	// Grouping holds for exactly 60 s, as Redis's ms comparison.
	s.SetLogMaxLen(10)
	add("g")
	s.Log(LogEntry{Reason: "key", Context: "toplevel", Object: "g", Username: "u"}, now.Add(60*time.Second))
	if e := s.LogEntries(-1); len(e) != 1 || e[0].Count != 2 {
		t.Fatalf("60 s apart: %+v", e)
	}
}

// acl-pubsub-default allchannels: a new user, a new selector and reset get
// every channel; users made before keep theirs.
func TestPubsubDefault(t *testing.T) {
	s := selectorStore(t)
	mustSetUser(t, s, "before", "on")
	s.SetPubsubDefault(true)
	sp := mustSetUser(t, s, "after", "resetchannels", "(+get)")
	if got := sp.Describe(); got != "off resetchannels -@all (&* -@all +get)" {
		t.Errorf("new selector: %q", got)
	}
	if got := mustSetUser(t, s, "fresh").Describe(); got != "off &* -@all" {
		t.Errorf("new user: %q", got)
	}
	if got := mustSetUser(t, s, "after", "reset").Describe(); got != "off sanitize-payload &* -@all" {
		t.Errorf("reset: %q", got)
	}
	if got := s.Lookup("before").ACL().Describe(); got != "on resetchannels -@all" {
		t.Errorf("an older user changed: %q", got)
	}
}
