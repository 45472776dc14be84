package memproto

import (
	"path/filepath"
	"strings"
	"testing"
)

// failSave makes the snapshot manager's next BGSAVE fail (its dir does
// not exist), runs one and waits for it: with save rules configured and
// stop-writes-on-bgsave-error on (both defaults), writes are refused.
func failSave(t *testing.T, e *testEnv) {
	t.Helper()
	e.set("dir", filepath.Join(t.TempDir(), "missing"))
	if _, err := e.fe.persist.BGSave(false); err != nil {
		t.Fatal(err)
	}
	e.fe.persist.Wait()
	if !e.fe.persist.WritesRefused() {
		t.Fatal("a failed BGSAVE did not refuse writes")
	}
}

// Issue 12, defect 6: after a failed BGSAVE every memcached write is
// refused, as Redis refuses its writes with MISCONF; reads still work.
func TestWritesRefusedAfterFailedBGSave(t *testing.T) {
	env := newTestEnv(t, "--dir", t.TempDir(), "--enable-protected-configs", "yes")
	c := env.client()
	c.expect("set k 0 0 1\r\nv\r\nset n 0 0 1\r\n5\r\n", "STORED\r\nSTORED\r\n")
	failSave(t, env)
	refused := errWritesRefused + "\r\n"
	for _, req := range []string{
		"set k 0 0 1\r\nx\r\n",
		"set k 0 0 1 noreply\r\nx\r\n", // errors are sent even with noreply, as memcached's out_errstring
		"add a 0 0 1\r\nx\r\n",
		"replace k 0 0 1\r\nx\r\n",
		"append k 0 0 1\r\nx\r\n",
		"prepend k 0 0 1\r\nx\r\n",
		"cas k 0 0 1 1\r\nx\r\n",
		"incr n 1\r\n",
		"decr n 1\r\n",
		"incr n 1 noreply\r\n",
		"delete k\r\n",
		"delete k noreply\r\n",
		"touch k 100\r\n",
		"gat 100 k\r\n",
		"gats 100 k\r\n",
		"flush_all\r\n",
		"flush_all noreply\r\n",
		"flush_all 10\r\n",
		"ms k 1\r\nx\r\n",
		"ms k 1 q\r\nx\r\n",
		"md k\r\n",
		"md k q\r\n",
		"ma n\r\n",
		"mg a N30 v\r\n",
		"mg k T30 v\r\n",
	} {
		if got := c.send(req); got != refused {
			t.Errorf("%q: got %q, want %q", req, got, refused)
		}
	}
	// Reads work; nothing above changed the data.
	c.expect("get k n a\r\n", "VALUE k 0 1\r\nv\r\nVALUE n 0 1\r\n5\r\nEND\r\n")
	c.expect("mg k v t\r\n", "VA 1 t-1\r\nv\r\n")
	c.expect("mg a v\r\n", "EN\r\n")
	c.expect("mn\r\n", "MN\r\n")
	if got := c.send("me k\r\n"); !strings.HasPrefix(got, "ME k ") {
		t.Errorf("me: %q", got)
	}
	// A malformed write still gets its own error first.
	c.expect("incr n x\r\n", errBadDelta+"\r\n")

	// Once a save works again, so do writes.
	env.set("dir", t.TempDir())
	if _, err := env.fe.persist.BGSave(false); err != nil {
		t.Fatal(err)
	}
	env.fe.persist.Wait()
	c.expect("set k 0 0 1\r\nx\r\ndelete n\r\n", "STORED\r\nDELETED\r\n")
}

// With stop-writes-on-bgsave-error off, a failed BGSAVE refuses nothing.
func TestWritesAcceptedWithStopWritesOff(t *testing.T) {
	env := newTestEnv(t, "--dir", t.TempDir(), "--enable-protected-configs", "yes")
	env.set("dir", filepath.Join(t.TempDir(), "missing"))
	if _, err := env.fe.persist.BGSave(false); err != nil {
		t.Fatal(err)
	}
	env.fe.persist.Wait()
	env.set("stop-writes-on-bgsave-error", "no")
	env.client().expect("set k 0 0 1\r\nx\r\n", "STORED\r\n")
}
