package users

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

func TestHashPasswordIsSHA256Hex(t *testing.T) {
	// echo -n foobar | sha256sum; Redis's ACL GETUSER shows the same.
	const want = "c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2"
	if got := HashPassword("foobar"); got != want {
		t.Fatalf("HashPassword(foobar) = %s, want %s", got, want)
	}
	var sp Spec
	sp.AddPassword("foobar")
	if !slices.Equal(sp.Passwords, []string{want}) {
		t.Fatalf("stored %q, want only the digest", sp.Passwords)
	}
	if err := sp.AddHash("C3AB8FF13720E8AD9047DD39466B3C8974E592C2FA383D4A3960714CAEF0C4F2"); err != nil {
		t.Fatal(err)
	}
	if len(sp.Passwords) != 1 {
		t.Fatalf("an upper-case copy of a stored hash was added again: %q", sp.Passwords)
	}
	for _, bad := range []string{"abc", "zz" + want[2:], want + "0"} {
		if sp.AddHash(bad) == nil {
			t.Errorf("AddHash(%q) accepted", bad)
		}
	}
}

func TestDefaultUserIsNoPassUntilRequirePass(t *testing.T) {
	s := New()
	if s.AuthRequired() {
		t.Fatal("a new store requires authentication")
	}
	if u, err := s.Authenticate(DefaultName, "anything"); err != nil || u != s.Default() {
		t.Fatalf("nopass default: %v, %v", u, err)
	}
	s.SetDefaultPassword("s3cret")
	if !s.AuthRequired() {
		t.Fatal("requirepass set but AuthRequired is false")
	}
	if got := s.Default().Spec().Passwords; !slices.Equal(got, []string{HashPassword("s3cret")}) {
		t.Fatalf("default passwords %q", got)
	}
	s.SetDefaultPassword("")
	if s.AuthRequired() || !s.Default().NoPass() || len(s.Default().Spec().Passwords) != 0 {
		t.Fatalf("empty requirepass did not make default nopass: %+v", s.Default().Spec())
	}
}

func TestAuthenticateErrors(t *testing.T) {
	s := New()
	s.SetDefaultPassword("pw")
	alice := s.Set("alice", func(sp *Spec) {
		sp.Enabled = true
		sp.AddPassword("one")
		sp.AddPassword("two")
	})
	s.Set("bob", func(sp *Spec) { sp.AddPassword("bobpw") }) // created disabled
	cases := []struct {
		name, pass string
		want       *User
		err        error
	}{
		{DefaultName, "pw", s.Default(), nil},
		{DefaultName, "PW", nil, ErrWrongPassword},
		{DefaultName, "", nil, ErrWrongPassword},
		{"alice", "one", alice, nil},
		{"alice", "two", alice, nil},
		{"alice", "pw", nil, ErrWrongPassword},
		{"bob", "bobpw", nil, ErrUserDisabled},
		{"carol", "pw", nil, ErrUnknownUser},
		{"Default", "pw", nil, ErrUnknownUser}, // names are case-sensitive, as Redis's
	}
	for _, c := range cases {
		u, err := s.Authenticate(c.name, c.pass)
		if u != c.want || !errors.Is(err, c.err) {
			t.Errorf("Authenticate(%q, %q) = %v, %v; want %v, %v", c.name, c.pass, u, err, c.want, c.err)
		}
	}
	if errors.Is(ErrWrongPassword, ErrUnknownUser) || errors.Is(ErrUnknownUser, ErrUserDisabled) {
		t.Fatal("the errors are not distinct")
	}
}

func TestDisabledDefaultRequiresAuth(t *testing.T) {
	s := New()
	s.Set(DefaultName, func(sp *Spec) { sp.Enabled = false })
	if !s.AuthRequired() {
		t.Fatal("a disabled default user must require authentication (Redis's authRequired)")
	}
	if _, err := s.Authenticate(DefaultName, "x"); !errors.Is(err, ErrUserDisabled) {
		t.Fatalf("disabled default logged in: %v", err)
	}
}

func TestBoundUserSeesChanges(t *testing.T) {
	s := New()
	u := s.Set("alice", func(sp *Spec) { sp.Enabled = true; sp.AddPassword("old") })
	bound, err := s.Authenticate("alice", "old")
	if err != nil {
		t.Fatal(err)
	}
	s.Set("alice", func(sp *Spec) { sp.RemovePassword("old"); sp.AddPassword("new") })
	if bound != u || bound.CheckPassword("old") || !bound.CheckPassword("new") {
		t.Fatalf("a bound *User does not follow Set: %+v", bound.Spec())
	}
	s.Set("alice", func(sp *Spec) { sp.Enabled = false })
	if bound.Enabled() {
		t.Fatal("disable not seen by the bound user")
	}
	s.Set("alice", func(sp *Spec) { sp.ResetPass(); sp.Enabled = true })
	if bound.CheckPassword("new") || bound.CheckPassword("") {
		t.Fatal("resetpass left a way in")
	}
	if !s.Delete("alice") || s.Lookup("alice") != nil || s.Delete(DefaultName) {
		t.Fatal("Delete")
	}
	if !slices.Equal(s.Names(), []string{DefaultName}) {
		t.Fatalf("names %q", s.Names())
	}
}

func TestSpecCopiesAreIndependent(t *testing.T) {
	s := New()
	u := s.Set("alice", func(sp *Spec) { sp.AddPassword("a") })
	sp := u.Spec()
	sp.Passwords[0] = "tampered"
	if u.Spec().Passwords[0] != HashPassword("a") {
		t.Fatal("a Spec copy shares the published passwords")
	}
}

// TestConcurrentAuthAndChange runs logins on many goroutines while the
// default password and other users change (run with -race).
func TestConcurrentAuthAndChange(t *testing.T) {
	s := New()
	s.SetDefaultPassword("p0")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				u, err := s.Authenticate(DefaultName, "p0")
				if err == nil && u != s.Default() {
					t.Error("wrong user")
					return
				}
				_ = s.AuthRequired()
				_, _ = s.Authenticate("u3", "x")
			}
		}()
	}
	for i := 0; i < 2000; i++ {
		s.SetDefaultPassword(fmt.Sprint("p", i%2))
		name := fmt.Sprint("u", i%5)
		s.Set(name, func(sp *Spec) { sp.Enabled = i%2 == 0; sp.AddPassword("x") })
		if i%7 == 0 {
			s.Delete(name)
		}
	}
	close(stop)
	wg.Wait()
}
