package memproto

import (
	"testing"
)

// A user with "~app:* +@read" may get app:x, and may not set it, get
// other:x nor flush_all: memcached commands obey the user's ACL rules.
func TestACLReadOnlyUser(t *testing.T) {
	env := newTestEnv(t, "--requirepass", "pw")
	admin := env.client()
	admin.expect(loginPW, "STORED\r\n")
	admin.expect("set app:x 0 0 1\r\nv\r\n", "STORED\r\n")
	admin.expect("set other:x 0 0 1\r\nw\r\n", "STORED\r\n")
	if err := env.fe.users.SetUser("reader", "on", ">rpw", "~app:*", "+@read"); err != nil {
		t.Fatal(err)
	}

	c := env.client()
	c.expect("set auth 0 0 10\r\nreader rpw\r\n", "STORED\r\n")
	c.expect("get app:x\r\n", "VALUE app:x 0 1\r\nv\r\nEND\r\n")
	c.expect("mg app:x v\r\n", "VA 1\r\nv\r\n")
	c.expect("set app:x 0 0 1\r\nz\r\n", errPermissionDenied+"\r\n")
	c.expect("delete app:x\r\n", errPermissionDenied+"\r\n")
	c.expect("get other:x\r\n", errPermissionDenied+"\r\n")
	c.expect("get app:x other:x\r\n", errPermissionDenied+"\r\n")
	c.expect("flush_all\r\n", errPermissionDenied+"\r\n")
	c.expect("version\r\n", "VERSION 1.6.18-tandem-test\r\n")
	admin.expect("get app:x other:x\r\n", "VALUE app:x 0 1\r\nv\r\nVALUE other:x 0 1\r\nw\r\nEND\r\n")

	log := env.fe.users.LogEntries(-1)
	if len(log) != 4 || log[0].Reason != "command" || log[0].Object != "flush_all" || log[0].Username != "reader" {
		t.Fatalf("ACL LOG %+v", log)
	}

	// Rules change under a logged-in session at its next request.
	if err := env.fe.users.SetUser("reader", "+@write", "%W~other:*"); err != nil {
		t.Fatal(err)
	}
	c.expect("set app:x 0 0 1\r\nz\r\n", "STORED\r\n")
	c.expect("set other:x 0 0 1\r\nz\r\n", "STORED\r\n")
	c.expect("get other:x\r\n", errPermissionDenied+"\r\n") // %W~: written, not read
	c.expect("flush_all\r\n", errPermissionDenied+"\r\n")
}
