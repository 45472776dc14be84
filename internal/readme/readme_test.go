package readme

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/resp"
)

// The command lists' convention, as README.md's HTML comments state it:
// a list is the bullet lines ("- ", continued on indented lines) from the
// first bullet after its marker line up to the next blank line. In a
// bullet, text up to the first colon outside parentheses and backticks is
// a label; after it every bare word is a command name, spelt as the
// protocol spells it (Redis upper case, memcached lower case). Text in
// backticks or in parentheses is a remark, except that for Redis a
// parenthesized group of upper-case names right after a command lists
// that command's subcommands: "CLIENT (ID SETNAME)".
const (
	redisMarker = "**Redis commands**"
	memcMarker  = "**memcached commands**"
	layoutHead  = "## Layout"
)

// helpSubcommand is the one loosening: every Redis container command
// answers HELP, which README.md says once instead of in every list.
const helpSubcommand = "help"

var (
	redisName = regexp.MustCompile(`^[A-Z][A-Z0-9_-]*$`)
	memcName  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// entry is one command named in a list, with the subcommands listed in
// the parentheses after it.
type entry struct {
	name string
	subs []string
}

// listSyntax is how one protocol's list spells its commands.
type listSyntax struct {
	name        *regexp.Regexp
	subcommands bool // a group of names after a command lists its subcommands
}

var (
	redisSyntax = listSyntax{name: redisName, subcommands: true}
	memcSyntax  = listSyntax{name: memcName}
)

// readREADME returns README.md's lines, found from the module root.
func readREADME(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// moduleRoot is the nearest directory above the test's with a go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// bullets returns the list after the line equal to marker: its bullets,
// each with its continuation lines joined and without the "- ".
func bullets(lines []string, marker string) ([]string, error) {
	i := slices.Index(lines, marker)
	if i < 0 {
		return nil, fmt.Errorf("no line %q", marker)
	}
	i++
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	var out []string
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "- "):
			out = append(out, line[2:])
		case len(out) > 0 && (line[0] == ' ' || line[0] == '\t'):
			out[len(out)-1] += " " + strings.TrimSpace(line)
		default:
			return nil, fmt.Errorf("line %d %q under %s is neither a bullet nor its continuation", i+1, line, marker)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no bullet list after %q", marker)
	}
	return out, nil
}

// parseBullet returns the commands one bullet names.
func parseBullet(b string, syn listSyntax) ([]entry, error) {
	if i := labelEnd(b); i >= 0 {
		b = b[i+1:]
	}
	var out []entry
	afterCommand := false // the previous token was a command name
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '`':
			j := strings.IndexByte(b[i+1:], '`')
			if j < 0 {
				return nil, fmt.Errorf("unclosed backtick in %q", b)
			}
			i += j + 2
			afterCommand = false
		case c == '(':
			j := closingParen(b, i)
			if j < 0 {
				return nil, fmt.Errorf("unclosed parenthesis in %q", b)
			}
			words := strings.Fields(b[i+1 : j])
			names := len(words) > 0 && !slices.ContainsFunc(words, func(w string) bool { return !syn.name.MatchString(w) })
			if syn.subcommands && names {
				if !afterCommand {
					return nil, fmt.Errorf("subcommands %q follow no command in %q", b[i:j+1], b)
				}
				last := &out[len(out)-1]
				last.subs = append(last.subs, words...)
			}
			i = j + 1
			afterCommand = false
		default:
			j := i
			for j < len(b) && !strings.ContainsRune(" \t(`", rune(b[j])) {
				j++
			}
			w := b[i:j]
			if !syn.name.MatchString(w) {
				return nil, fmt.Errorf("%q is not a command name (prose goes in parentheses or backticks) in %q", w, b)
			}
			out = append(out, entry{name: w})
			i = j
			afterCommand = true
		}
	}
	return out, nil
}

// labelEnd is the index of the colon ending b's label, -1 if none: the
// first colon outside parentheses and backticks.
func labelEnd(b string) int {
	depth, code := 0, false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '`':
			code = !code
		case '(':
			depth++
		case ')':
			depth--
		case ':':
			if depth == 0 && !code {
				return i
			}
		}
	}
	return -1
}

// closingParen is the index of the ')' closing the '(' at b[open], -1 if
// none.
func closingParen(b string, open int) int {
	depth := 0
	for i := open; i < len(b); i++ {
		switch b[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// listed returns the lower-case names a list gives, "client|id" for a
// subcommand, and the ones it gives twice.
func listed(t *testing.T, lines []string, marker string, syn listSyntax) (names map[string]bool, twice []string) {
	t.Helper()
	bs, err := bullets(lines, marker)
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	names = map[string]bool{}
	add := func(n string) {
		if names[n] {
			twice = append(twice, n)
		}
		names[n] = true
	}
	for _, b := range bs {
		entries, err := parseBullet(b, syn)
		if err != nil {
			t.Fatalf("README.md, list %s: %v", marker, err)
		}
		for _, e := range entries {
			name := strings.ToLower(e.name)
			add(name)
			for _, s := range e.subs {
				add(name + "|" + strings.ToLower(s))
			}
		}
	}
	return names, twice
}

// compare fails the test for every served name not listed and every
// listed name not served.
func compare(t *testing.T, what string, served, listedNames map[string]bool, twice []string, implied func(string) bool) {
	t.Helper()
	var missing, extra []string
	for n := range served {
		if !listedNames[n] && !implied(n) {
			missing = append(missing, n)
		}
	}
	for n := range listedNames {
		if !served[n] {
			extra = append(extra, n)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("%s served but not in README.md's list: %s", what, strings.Join(missing, " "))
	}
	if len(extra) > 0 {
		t.Errorf("%s in README.md's list but not served: %s", what, strings.Join(extra, " "))
	}
	if len(twice) > 0 {
		t.Errorf("%s listed twice in README.md: %s", what, strings.Join(twice, " "))
	}
}

// TestRedisCommands compares README.md's Redis lists with the table the
// RESP front-end serves, subcommands included. A command whose behaviour
// depends on configuration (DEBUG and enable-debug-command) is in the
// table, so it is listed, with the condition in a remark.
func TestRedisCommands(t *testing.T) {
	served := map[string]bool{}
	for _, cmd := range resp.Commands() {
		served[cmd.Name] = true
		for _, sc := range cmd.Subcommands {
			served[sc.Name] = true
		}
	}
	names, twice := listed(t, readREADME(t), redisMarker, redisSyntax)
	compare(t, "Redis commands", served, names, twice, func(n string) bool {
		_, sub, ok := strings.Cut(n, "|")
		return ok && sub == helpSubcommand
	})
}

// TestMemcachedCommands compares README.md's memcached list with the
// memcached front-end's table.
func TestMemcachedCommands(t *testing.T) {
	served := map[string]bool{}
	for _, n := range memproto.CommandNames() {
		served[n] = true
	}
	names, twice := listed(t, readREADME(t), memcMarker, memcSyntax)
	compare(t, "memcached commands", served, names, twice, func(string) bool { return false })
}

func TestParseBullet(t *testing.T) {
	cases := []struct {
		in   string
		syn  listSyntax
		want []entry
		err  bool
	}{
		{in: "strings: GET SET", syn: redisSyntax, want: []entry{{name: "GET"}, {name: "SET"}}},
		{in: "CLIENT (ID SETNAME) PING", syn: redisSyntax, want: []entry{{name: "CLIENT", subs: []string{"ID", "SETNAME"}}, {name: "PING"}}},
		{in: "SORT (BY, LIMIT over lists: sets) `GET x`", syn: redisSyntax, want: []entry{{name: "SORT"}}},
		{in: "SCRIPT (LOAD DEBUG) (DEBUG accepts `NO` only)", syn: redisSyntax, want: []entry{{name: "SCRIPT", subs: []string{"LOAD", "DEBUG"}}}},
		{in: "x: (GET SET)", syn: redisSyntax, err: true},
		{in: "keys: DEL, EXISTS", syn: redisSyntax, err: true},
		{in: "keys: DEL and EXISTS", syn: redisSyntax, err: true},
		{in: "admin: stats (settings items) quit", syn: memcSyntax, want: []entry{{name: "stats"}, {name: "quit"}}},
		{in: "admin: STATS", syn: memcSyntax, err: true},
		{in: "GET (unclosed", syn: redisSyntax, err: true},
	}
	for _, c := range cases {
		got, err := parseBullet(c.in, c.syn)
		if (err != nil) != c.err {
			t.Errorf("parseBullet(%q): error %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("parseBullet(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestLayoutCoversPackages checks README.md's Layout table against the
// module's packages: the directories holding a non-test Go file that
// builds here (go/build's rules, so test-only and ignored directories are
// not packages). A row's first cell names its packages in backticks,
// relative to the module root, with or without a trailing slash.
func TestLayoutCoversPackages(t *testing.T) {
	root := moduleRoot(t)
	rows := layoutRows(t, readREADME(t))
	pkgs := modulePackages(t, root)

	var unlisted, unknown []string
	for _, p := range pkgs {
		if _, ok := rows[p]; !ok {
			unlisted = append(unlisted, p)
		}
	}
	for p, job := range rows {
		if !slices.Contains(pkgs, p) {
			unknown = append(unknown, p)
		}
		if job == "" {
			t.Errorf("README.md Layout: row %q says nothing of its job", p)
		}
	}
	slices.Sort(unknown)
	if len(unlisted) > 0 {
		t.Errorf("packages without a row in README.md's Layout table: %s", strings.Join(unlisted, " "))
	}
	if len(unknown) > 0 {
		t.Errorf("README.md's Layout table has rows for packages that do not exist: %s", strings.Join(unknown, " "))
	}
}

// layoutRows maps each package the Layout table names to its row's job.
func layoutRows(t *testing.T, lines []string) map[string]string {
	t.Helper()
	i := slices.Index(lines, layoutHead)
	if i < 0 {
		t.Fatalf("README.md: no line %q", layoutHead)
	}
	rows := map[string]string{}
	inTable := false
	for _, line := range lines[i+1:] {
		if strings.HasPrefix(line, "#") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 || strings.Trim(cells[0], " -") == "" || strings.TrimSpace(cells[0]) == "package" {
			continue // separator or header
		}
		names := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[0], -1)
		if len(names) == 0 {
			t.Errorf("README.md Layout: row %q names no package in backticks", line)
		}
		job := strings.TrimSpace(strings.Join(cells[1:], "|"))
		for _, m := range names {
			p := strings.TrimSuffix(m[1], "/")
			if _, dup := rows[p]; dup {
				t.Errorf("README.md Layout: %s has two rows", p)
			}
			rows[p] = job
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md: no table under " + layoutHead)
	}
	return rows
}

// modulePackages lists the module's package directories relative to root,
// sorted, skipping what the go tool skips (testdata, dot and underscore
// directories) and nested modules.
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		_, err = build.Default.ImportDir(path, 0)
		var noGo *build.NoGoError
		switch {
		case errors.As(err, &noGo):
			return nil
		case err != nil:
			// A package being edited may not parse; it is still a package.
			t.Logf("%s: %v", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}
