package conf

import (
	"reflect"
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
	if _, err := Load([]string{"--aclfile", "a b"}, nil); err == nil {
		t.Error("aclfile with two words accepted")
	}
}
