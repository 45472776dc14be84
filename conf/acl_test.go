package conf

import (
	"reflect"
	"strings"
	"testing"
)

// user lines and aclfile are accepted from a file, the environment and
// flags, in that order, and kept verbatim for the user store.
func TestACLDirectives(t *testing.T) {
	dir := t.TempDir()
	path := writeConf(t, dir, "acl.conf", "user alice on >pw ~app:* +@read\nuser bob\naclfile /tmp/users.acl\n")
	c := mustLoad(t, []string{path, "--user", "carol on nopass +@all"}, []string{"TANDEM_USER=dave off"})
	want := []ACLUser{
		{Name: "alice", Rules: []string{"on", ">pw", "~app:*", "+@read"}},
		{Name: "bob"},
		{Name: "dave", Rules: []string{"off"}},
		{Name: "carol", Rules: []string{"on", "nopass", "+@all"}},
	}
	if got := c.ACLUsers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ACLUsers() = %q, want %q", got, want)
	}
	if c.ACLFile() != "/tmp/users.acl" {
		t.Fatalf("ACLFile() = %q", c.ACLFile())
	}
	// One argument is one path, spaces and all, as redis-server quotes
	// each argument of its command line; two are refused.
	if c := mustLoad(t, []string{"--aclfile", "a b"}, nil); c.ACLFile() != "a b" {
		t.Errorf("--aclfile \"a b\": ACLFile() = %q", c.ACLFile())
	}
	if _, err := Load([]string{"--aclfile", "a", "b"}, nil); err == nil {
		t.Error("aclfile with two arguments accepted")
	}
	if v, _ := c.Value("aclfile"); v != "/tmp/users.acl" {
		t.Errorf("CONFIG GET aclfile = %q", v)
	}
	if err := c.Set([2]string{"aclfile", "/x"}); err == nil || !strings.Contains(err.Error(), reasonImmutable) {
		t.Errorf("CONFIG SET aclfile: %v", err)
	}
}
