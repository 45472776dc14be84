package services_test

import (
	"errors"
	"testing"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/services"
	"github.com/tandemkv/tandem/users"
)

// requirepass is followed by the user store: at start, and on every
// CONFIG SET for the logins that come after it.
func TestRequirePassFollowedByUsers(t *testing.T) {
	cfg, err := conf.Load([]string{"--dir", t.TempDir(), "--requirepass", "first"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := services.New(services.Options{Config: cfg})
	u := svc.Users
	if !u.AuthRequired() {
		t.Fatal("requirepass at start: AuthRequired is false")
	}
	if _, err := u.Authenticate(users.DefaultName, "first"); err != nil {
		t.Fatalf("requirepass at start: %v", err)
	}

	if err := cfg.Set([2]string{"requirepass", "second"}); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Authenticate(users.DefaultName, "first"); !errors.Is(err, users.ErrWrongPassword) {
		t.Fatalf("old password after CONFIG SET: %v", err)
	}
	if _, err := u.Authenticate(users.DefaultName, "second"); err != nil {
		t.Fatalf("new password after CONFIG SET: %v", err)
	}

	if err := cfg.Set([2]string{"requirepass", ""}); err != nil {
		t.Fatal(err)
	}
	if u.AuthRequired() || !u.Default().NoPass() {
		t.Fatal(`requirepass "" must make the default user nopass`)
	}
}

// Without requirepass nobody has to log in.
func TestNoRequirePassNoAuth(t *testing.T) {
	svc := services.New(services.Options{})
	if svc.Users.AuthRequired() {
		t.Fatal("AuthRequired with no requirepass")
	}
}
