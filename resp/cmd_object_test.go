package resp

import (
	"strings"
	"testing"
)

// TestObjectRows: every OBJECT subcommand but HELP is tipped
// nondeterministic_output, as in redis 7.0's COMMAND INFO.
func TestObjectRows(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	for _, sub := range []string{"encoding", "freq", "idletime", "refcount"} {
		if r := c.do("COMMAND", "INFO", "object|"+sub); !strings.Contains(r, "*1\r\n$23\r\nnondeterministic_output\r\n") {
			t.Errorf("COMMAND INFO object|%s: %q", sub, r)
		}
	}
	if r := c.do("COMMAND", "INFO", "object|help"); strings.Contains(r, "nondeterministic_output") {
		t.Errorf("COMMAND INFO object|help: %q", r)
	}
	r := c.do("object", "help")
	if !strings.HasPrefix(r, "*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+ENCODING <key>\r\n") ||
		!strings.HasSuffix(r, "+HELP\r\n+    Prints this help.\r\n") {
		t.Errorf("OBJECT HELP: %q", r)
	}
}
