package conf

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// quoteRedis quotes a word as redis sdscatrepr does, so splitArgs reads it back.
func quoteRedis(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{"", "save 900 1", `requirepass "a b\x41"`, `x 'it\'s'`, `foo"bar baz"`, `x "a"b`, "\v x\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, ok := splitArgs(line)
		if !ok {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = quoteRedis(w)
		}
		again, ok := splitArgs(strings.Join(quoted, " "))
		if !ok || !reflect.DeepEqual(again, words) {
			t.Fatalf("%q -> %q -> %q", line, words, again)
		}
	})
}

func FuzzGlobMatch(f *testing.F) {
	f.Add("*max-*-entries*", "hash-max-listpack-entries")
	f.Add("[^a-z]?\\", "x")
	f.Add("[abc", "a")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		_ = globMatch(pattern, s, true)
		_ = globMatch(pattern, s, false)
		var esc strings.Builder
		for i := 0; i < len(s); i++ {
			esc.WriteByte('\\')
			esc.WriteByte(s[i])
		}
		if !globMatch(esc.String(), s, false) {
			t.Fatalf("escaped %q does not match itself", s)
		}
		if s != "" && !globMatch("*", s, false) {
			t.Fatalf("* does not match %q", s)
		}
	})
}

func FuzzParseMemory(f *testing.F) {
	for _, s := range []string{"0", "1gb", "1k", "", "-1", "99999999999999999999", "8589934591gb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := parseMemory(s)
		if !ok {
			return
		}
		if n < 0 {
			t.Fatalf("parseMemory(%q) = %d", s, n)
		}
		if m, ok := parseMemory(strconv.FormatInt(n, 10)); !ok || m != n {
			t.Fatalf("%q -> %d -> %d, %v", s, n, m, ok)
		}
	})
}

// FuzzLoadFile: any file either fails with a *LoadError or loads a
// configuration whose every mutable value CONFIG SET accepts unchanged.
func FuzzLoadFile(f *testing.F) {
	for _, s := range []string{
		"port 7000\nsave 900 1\nsave 300 10\n",
		"maxmemory \"1xb\"\n",
		"client-output-buffer-limit \"normal 1kb 1kb 5\"\nbind 127.0.0.1 -::1\n",
		"save \"\"\nnotify-keyspace-events KEA\nhz 1000\n",
		"# c\n\n  requirepass 'x y'\n",
		"include /nonexistent\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		if strings.Contains(content, "include") {
			return // includes would read arbitrary files
		}
		path := filepath.Join(dir, "fuzz.conf")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load([]string{path, "--enable-protected-configs", "yes"}, nil)
		if err != nil {
			if _, ok := err.(*LoadError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		before := c.Get("*")
		for _, p := range before {
			id, _, _ := lookup(p[0])
			if !table[id].is(mutable) {
				continue
			}
			if err := c.Set(p); err != nil {
				t.Fatalf("Set(%q) after loading %q: %v", p, content, err)
			}
		}
		if after := c.Get("*"); !reflect.DeepEqual(before, after) {
			t.Fatalf("round trip changed values of %q", content)
		}
	})
}

// FuzzSet: a failed CONFIG SET changes nothing; a successful one shows a
// value that CONFIG SET accepts again without change.
func FuzzSet(f *testing.F) {
	f.Add("maxmemory", "1gb")
	f.Add("save", "900 1 300 10")
	f.Add("client-output-buffer-limit", "pubsub 1mb 1kb 9")
	f.Add("notify-keyspace-events", "KEA")
	f.Add("hz", "100000")
	f.Fuzz(func(t *testing.T, name, value string) {
		c := mustLoad(t, []string{"--enable-protected-configs", "yes"}, nil)
		before := c.Get("*")
		if err := c.Set([2]string{name, value}); err != nil {
			if !strings.HasPrefix(err.Error(), "ERR ") {
				t.Fatalf("error text %q", err)
			}
			if after := c.Get("*"); !reflect.DeepEqual(before, after) {
				t.Fatalf("failed Set(%q, %q) changed values", name, value)
			}
			return
		}
		shown, _ := c.Value(name)
		mid := c.Get("*")
		if err := c.Set([2]string{name, shown}); err != nil {
			t.Fatalf("Set(%q, %q) then Set of shown %q: %v", name, value, shown, err)
		}
		if after := c.Get("*"); !reflect.DeepEqual(mid, after) {
			t.Fatalf("re-setting %q = %q changed values", name, shown)
		}
	})
}
