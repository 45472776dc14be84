package conf

import (
	"path/filepath"
	"strings"
	"testing"
)

// A user line Redis 7.0 would refuse at start stops start-up with its
// text: a user declared twice, a rule wrong whatever the command table.
// Unknown commands pass here (the users store refuses them later).
func TestUserLinesCheckedAtStart(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--user", "foo", "--user", "foo"}, "Error in user declaration 'foo': Duplicate user found. A user can only be defined once in config files"},
		{[]string{"--user", "default", "--user", "default on"}, "Error in user declaration 'default': Duplicate user found"},
		{[]string{"--user", "foo bogus"}, "Error in user declaration 'user': Syntax error"},
		{[]string{"--user", "foo on ~a bogus"}, "Error in user declaration 'on': Syntax error"},
		{[]string{"--user", "foo (on)"}, "Error in user declaration 'user': Syntax error"},
		{[]string{"--user", "foo ~* ~a"}, "Error in user declaration 'foo': Adding a pattern after the * pattern"},
	} {
		_, err := Load(c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	c := mustLoad(t, []string{"--user", "foo on +nosuchcommand (~k +get)"}, nil)
	if u := c.ACLUsers(); len(u) != 1 || len(u[0].Rules) != 4 {
		t.Errorf("a line with an unknown command: %q", u)
	}
}

// acl-pubsub-default is a mutable enum; a relative aclfile is relative to
// dir, where Redis's working directory is.
func TestACLPubsubDefaultAndFilePath(t *testing.T) {
	dir := t.TempDir()
	c := mustLoad(t, []string{"--dir", dir, "--aclfile", "users.acl", "--acl-pubsub-default", "allchannels"}, nil)
	if !c.ACLPubsubAllChannels() {
		t.Error("acl-pubsub-default allchannels not read")
	}
	if got := c.ACLFilePath(); got != filepath.Join(dir, "users.acl") || c.ACLFile() != "users.acl" {
		t.Errorf("ACLFilePath() = %q, ACLFile() = %q", got, c.ACLFile())
	}
	if err := c.Set([2]string{"acl-pubsub-default", "resetchannels"}); err != nil || c.ACLPubsubAllChannels() {
		t.Errorf("CONFIG SET acl-pubsub-default resetchannels: %v", err)
	}
	if err := c.Set([2]string{"acl-pubsub-default", "some"}); err == nil {
		t.Error("a bad value accepted")
	}
	abs := mustLoad(t, []string{"--dir", dir, "--aclfile", "/etc/tandem/users.acl"}, nil)
	if abs.ACLFilePath() != "/etc/tandem/users.acl" {
		t.Errorf("absolute aclfile: %q", abs.ACLFilePath())
	}
}
