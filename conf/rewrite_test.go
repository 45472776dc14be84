package conf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewriteFile loads a config file of content, runs set, rewrites it and
// returns the new content.
func rewriteFile(t *testing.T, content string, users []string, set ...[2]string) (string, *Config, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "tandem.conf")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) > 0 {
		if err := c.SetFrom(true, set...); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Rewrite(users); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	return string(out), c, dir
}

func TestRewrite(t *testing.T) {
	in := "# Tandem's configuration\n" +
		"   port 7000  \r\n" +
		"\n\n\n" +
		"maxmemory 100mb\n" +
		"save 900 1\n" +
		"save 300 10\n" +
		"rename-command FLUSHALL \"\"\n" +
		"list-max-ziplist-entries 512\n" +
		"slave-read-only yes\n" +
		"hz 10\n" +
		"hz 11\n" +
		"bind 127.0.0.1 ::1\n" +
		"dbfilename 'my \"db\".rdb'\n"
	absData, _ := filepath.Abs("./data")
	got, _, _ := rewriteFile(t, in, []string{"user default on nopass ~* &* +@all"},
		[2]string{"maxmemory", "1gb"}, [2]string{"save", "60 5"}, [2]string{"timeout", "30"},
		[2]string{"notify-keyspace-events", "KEA"}, [2]string{"maxmemory-clients", "10%"},
		[2]string{"client-output-buffer-limit", "pubsub 64mb 16mb 90"})
	want := "# Tandem's configuration\n" +
		"port 7000\n" +
		"\n" +
		"maxmemory 1gb\n" +
		"save 60 5\n" +
		"\n" + // the second save line, blanked
		"rename-command FLUSHALL \"\"\n" +
		"# ??? list-max-ziplist-entries 512\n" + // deprecated: unknown to the rewrite, as in Redis
		"replica-read-only yes\n" + // an alias is its directive
		"hz 11\n" +
		"\n" + // the second hz line
		"bind 127.0.0.1 ::1\n" +
		"dbfilename \"my \\\"db\\\".rdb\"\n" +
		"\n" + // the file's last newline made an empty line
		rewriteSignature + "\n" +
		"timeout 30\n" +
		"notify-keyspace-events \"AKE\"\n" +
		"client-output-buffer-limit pubsub 64mb 16mb 90\n" +
		"maxmemory-clients 10%\n" +
		"dir \"" + absData + "\"\n" + // relative to the working directory, as Tandem reads it

		"latency-tracking-info-percentiles 50 99 99.9\n" +
		"user default on nopass ~* &* +@all\n"
	for _, line := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("rewritten file lacks %q:\n%s", line, got)
		}
	}
	head, _, _ := strings.Cut(want, rewriteSignature)
	if !strings.HasPrefix(got, head+rewriteSignature+"\n") {
		t.Errorf("rewritten file:\n%s\nwant it to start:\n%s", got, head)
	}
	if strings.Count(got, rewriteSignature) != 1 {
		t.Errorf("signature count: %s", got)
	}
}

// TestRewriteAgain: the file's last newline is an empty line, which the
// next rewrite keeps (as Redis's: its files end with one blank line after
// a second rewrite); after that nothing changes, and the file reloads the
// same values.
func TestRewriteAgain(t *testing.T) {
	first, c, _ := rewriteFile(t, "port 7000\nsave 900 1\n", nil, [2]string{"hz", "20"}, [2]string{"maxmemory", "3000"})
	read := func() string {
		t.Helper()
		if err := c.Rewrite(nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(c.ConfigFile())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	second, third := read(), read()
	if second != first+"\n" || third != second {
		t.Errorf("rewrites:\n%q\n%q\n%q", first, second, third)
	}
	again, err := Load([]string{c.ConfigFile()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"port", "save", "hz", "maxmemory"} {
		a, _ := c.Value(name)
		b, _ := again.Value(name)
		if a != b {
			t.Errorf("%s: %q, reloaded %q", name, a, b)
		}
	}
	dir, _ := c.Value("dir")
	abs, _ := filepath.Abs(dir)
	if d, _ := again.Value("dir"); d != abs {
		t.Errorf("dir reloaded %q, want %q", d, abs)
	}
}

func TestRewriteUnknownAndEmpty(t *testing.T) {
	// A line Tandem does not know (a module's, say) becomes a comment;
	// empty strings that Redis keeps as NULL are not written; the file's
	// user lines give way to the users', loadmodule lines go.
	path := filepath.Join(t.TempDir(), "tandem.conf")
	os.WriteFile(path, []byte("nosuch-directive 1\n\"unbalanced\nrequirepass \"\"\nuser alice on\nloadmodule /m.so\n"), 0o600)
	c := Default()
	c.file = path
	if err := c.SetFrom(true, [2]string{"requirepass", ""}); err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite([]string{"user default on nopass ~* &* +@all"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	for _, want := range []string{"# ??? nosuch-directive 1\n", "# ??? \"unbalanced\n", "user default on nopass ~* &* +@all\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "requirepass") || strings.Contains(got, "user alice") || strings.Contains(got, "loadmodule") {
		t.Errorf("requirepass, the file's user line or loadmodule kept:\n%s", got)
	}
}

func TestRewriteWithoutFile(t *testing.T) {
	if err := Default().Rewrite(nil); !errors.Is(err, ErrNoConfigFile) {
		t.Errorf("without a file: %v", err)
	}
}

func TestRewriteUnwritable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes anywhere")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tandem.conf")
	os.WriteFile(path, []byte("port 7000\n"), 0o600)
	c, err := Load([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if err := c.Rewrite(nil); !errors.Is(err, os.ErrPermission) {
		t.Errorf("in a read-only directory: %v", err)
	}
}

// TestRewriteWithACLFile: with an aclfile the users are that file's, and
// no user line is written.
func TestRewriteWithACLFile(t *testing.T) {
	got, _, _ := rewriteFile(t, "aclfile /etc/tandem/users.acl\n", []string{"user default on nopass ~* &* +@all"})
	if strings.Contains(got, "user ") || !strings.Contains(got, "aclfile \"/etc/tandem/users.acl\"\n") {
		t.Errorf("rewritten with an aclfile:\n%s", got)
	}
}
