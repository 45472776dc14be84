package compat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// memcached's own tests against Tandem: the Perl files of memcached's t/
// that speak the binary protocol, and the text ones beside them that the
// binary work touches, run unchanged with their own harness
// (t/lib/MemcachedTest.pm), which starts "memcached-debug" from its build
// directory for every server a test needs. Here that program is
// testdata/mcsuite/shim: it translates memcached's command line into
// Tandem's directives and starts the Tandem TestMain built. In self-test
// mode it starts the real memcached instead, and every test must pass.
//
// The suite is memcached's code, so it is not in this repository: the test
// takes it from Debian's source package of the installed memcached
// (apt-get source, with apt's own sources as deb-src, in a private apt
// directory), keeps t/ in the user cache directory, and uses it from there
// on. MCSUITE_SRC=/path/to/memcached-1.6.18 uses a source tree you have.
//
// A file passes when its plan ran to the end and every failing test is
// listed in mcSuiteDiffs, each with why Tandem differs; a listed test that
// passes fails the file too, so the list stays exact. Test numbers are not
// the key: binary.t's count depends on how many lines "stats" answers, so
// a failure is named by its description and the line Test::More reports.
//
// Not run, and why:
//   - 00-startup.t checks memcached's command-line parsing (-l fooble, -c 0,
//     -t 0, -b, -C, -B http), which Tandem does not have: its settings are
//     redis.conf directives. The shim would be what it tests.
//   - udp.t: Tandem has no UDP port (its binary half is binary over UDP).
//   - binary-extstore.t and the other extstore, slab, LRU, TLS-suite,
//     proxy and debug-command (debugtime) files: memcached
//     internals Tandem does not have.
//   - The other text-protocol files are not in scope here (the text and
//     meta protocols have their differential cases in cases_memc_*_test.go).
var mcSuiteFiles = []string{
	"lru-crawler.t", // lru_crawler enable/disable/crawl, metadump all and hash over 70 000 items, pipelining refused
	"binary.t",      // every binary opcode but SASL, quiet forms, stats, big values, buffer edges
	"binary-sasl.t", // SASL PLAIN against -S (requirepass)
	"issue_50.t",    // -B binary and a connection that does not speak it
	"issue_192.t",   // a binary AddQ whose body length underflows: the server lives on
	"binary-get.t",  // text get of values with NUL, CR and LF bytes
	"getandtouch.t", // gat, gats
	"flush-all.t",   // flush_all now, delayed, -F
	"incrdecr.t",    // incr, decr at the 64-bit edges
	"watcher.t",     // watch: skipped lines, uri-encoded keys, connevents, evictions, sizes, log_watchers, -W
}

// mcSuiteDiff is a known, explained difference between Tandem and memcached
// 1.6.18 in memcached's own tests: a failing test, or a file that stops.
type mcSuiteDiff struct {
	file string
	num  int    // the test's number, where the file's numbering is fixed; 0: any
	name string // the failing test's description as TAP prints it
	at   string // where Test::More says it failed, from "t/"
	died string // instead of a test: a line the file prints as it stops
	why  string
}

var mcSuiteDiffs = []mcSuiteDiff{
	{file: "binary-sasl.t", num: 1, name: "SASL shouldn't be used with protocol auto negotiate", at: "t/binary-sasl.t line 33",
		why: "memcached -S -B auto refuses to start: its SASL is binary-only. Tandem has no protocol switch (the shim accepts -B): " +
			"its port tells the protocol per connection, and with requirepass text clients log in too (the auth-file form, memproto/auth.go)"},
	{file: "binary-sasl.t", num: 2, name: "SASL isn't implemented in the ascii protocol", at: "t/binary-sasl.t line 38",
		why: "memcached -S -B ascii refuses to start; Tandem has no ascii-only mode (as -S -B auto above)"},
	{file: "binary-sasl.t", num: 3, name: "SASL isn't implemented in the ascii protocol", at: "t/binary-sasl.t line 43",
		why: "memcached -S -B binary -B ascii refuses to start; Tandem has no ascii-only mode (as -S -B auto above)"},
	{file: "binary-sasl.t", num: 6, name: "list_mechs PLAIN", at: "t/binary-sasl.t line 146",
		why: "List Mechanisms: memcached's Cyrus SASL, configured by t/sasl/memcached.conf (mech_list: plain cram-md5), " +
			"answers \"CRAM-MD5 PLAIN\"; Tandem serves PLAIN only (memproto/sasl.go)"},
	{file: "flush-all.t", num: 14, name: "foo == <undef>", at: "t/lib/MemcachedTest.pm line 98",
		why: "flush_all <in 2 s>, set foo, 5 s later get foo: memcached drops at the deadline every item older than it, " +
			"those set during the delay too; Tandem makes the keys that exist at the command expire then and keeps those " +
			"written during the delay (memproto/cmd_admin.go flushAll)"},
	{file: "flush-all.t", num: 27, name: "failed to set value after flush with no CAS at least once", at: "t/flush-all.t line 101",
		why: "memcached -C (no CAS values): Tandem always keeps CAS values, so the shim ignores -C and flush_all 0 " +
			"never drops a value set in the same second"},
	{file: "lru-crawler.t", num: 1, name: "", at: "t/lru-crawler.t line 13",
		why: "memcached -o no_modern starts with its crawler off; Tandem has no such switch (the shim ignores -o), its crawler " +
			"starts enabled as memcached's default (memproto/crawler.go)"},
	{file: "lru-crawler.t", num: 93, name: "enabled lru crawler", at: "t/lru-crawler.t line 42",
		why: "the crawler was never off (as line 13 above), so enabling it again fails as memcached's does when its thread runs"},
	{file: "lru-crawler.t", num: 97, name: "slab1 has 30 reclaims", at: "t/lru-crawler.t line 60",
		why: "items:1:crawler_reclaimed: Tandem's active expiry, not a crawl, reclaims expired keys, so a crawl reclaims nothing " +
			"(the expired keys are gone all the same)"},
	{file: "lru-crawler.t", num: 70257, name: "slab1 now has 0 used chunks", at: "t/lru-crawler.t line 166",
		why: "stats slabs: Tandem has no slab pages that outlive their items, so with no items it lists no class (memcached keeps " +
			"class 1 with 0 used chunks)"},
}

// mcSuiteTimeout bounds one file, a server that never answers included;
// binary.t takes 30 to 40 s.
const mcSuiteTimeout = 3 * time.Minute

func TestMemcachedSuite(t *testing.T) {
	if out, err := exec.Command("perl", "-MTest::More", "-e", "1").CombinedOutput(); err != nil {
		t.Fatalf("perl with Test::More is needed (apt-get install perl): %v\n%s", err, out)
	}
	memcBin := realserver.Path(t, realserver.Memcached)
	src := memcachedSuiteSource(t, memcBin)
	build := mcSuiteBuildDir(t, src)

	env := append(os.Environ(),
		"MCSUITE_WORK="+filepath.Join(build, "work"),
		"RUN_SASL_TESTS=1",
		// MemcachedTest's switches to other modes: an external daemon, TLS, valgrind.
		"T_MEMD_USE_DAEMON=", "SSL_TEST=", "VALGRIND_TEST=")
	diffs := mcSuiteDiffs
	if selfTest {
		// The real memcached, and Cyrus SASL's own saslpasswd2.
		if _, err := exec.LookPath("saslpasswd2"); err != nil {
			t.Fatal("binary-sasl.t against memcached needs saslpasswd2 and the PLAIN and CRAM-MD5 mechanisms: apt-get install sasl2-bin libsasl2-modules")
		}
		env = append(env, "MCSUITE_TARGET=memcached", "MCSUITE_MEMCACHED="+memcBin)
		diffs = nil
	} else {
		env = append(env, "MCSUITE_TARGET=tandem", "MCSUITE_TANDEM="+tandemBin,
			"PATH="+filepath.Join(build, "sbin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	}

	for _, file := range mcSuiteFiles {
		t.Run(strings.TrimSuffix(file, ".t"), func(t *testing.T) {
			t.Parallel()
			out, runErr := runMcSuiteFile(build, file, env)
			res := parseTAP(out)
			problems := checkMcSuiteRun(file, res, diffs)
			if len(problems) > 0 {
				msg := fmt.Sprintf("memcached's t/%s against %s (perl: %v):\n%s", file, sideName(), runErr, strings.Join(problems, "\n"))
				if res.plan < 0 || len(res.tests) != res.plan {
					msg += "\nits output ends:\n" + lastLines(out, 30)
				}
				msg += "\nthe servers' logs: " + filepath.Join(build, "work") + " (kept with COMPAT_KEEP=1)"
				t.Error(msg)
				return
			}
			known := 0
			for _, d := range diffs {
				if d.file == file {
					known++
				}
			}
			t.Logf("t/%s: %d of %d tests pass; %d known differences (mcSuiteDiffs)", file, res.passed(), res.plan, known)
		})
	}
}

// runMcSuiteFile runs one test file from the build directory and returns
// its standard output and error, interleaved as they were written.
func runMcSuiteFile(build, file string, env []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), mcSuiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "perl", filepath.Join("t", file))
	cmd.Dir, cmd.Env = build, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group: the servers it starts are in it, and are
	// ended with it, even those a failing test left running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err := cmd.Start()
	if err != nil {
		return nil, err
	}
	pgid := cmd.Process.Pid
	err = cmd.Wait()
	syscall.Kill(-pgid, syscall.SIGKILL)
	if ctx.Err() != nil {
		err = fmt.Errorf("stopped after %v: %v", mcSuiteTimeout, err)
	}
	return out.Bytes(), err
}

// mcSuiteBuildDir lays out what MemcachedTest expects in its build
// directory: t/, and memcached-debug and timedrun (the shim), plus
// saslpasswd2 in sbin/ for binary-sasl.t and work/ for the servers' logs.
func mcSuiteBuildDir(t *testing.T, src string) string {
	dir, err := os.MkdirTemp(tmpDir, "mcsuite-") // kept with COMPAT_KEEP=1, the servers' logs in work/
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"bin", "sbin", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(dir, "bin", "shim")
	buildCmd := exec.Command(goTool(), "build", "-o", shim, "./internal/compat/testdata/mcsuite/shim")
	buildCmd.Dir = root
	if out, err := buildCmd.CombinedOutput(); err != nil {
		t.Fatalf("building the memcached-debug shim: %v\n%s", err, out)
	}
	links := map[string]string{
		filepath.Join(dir, "t"):                   filepath.Join(src, "t"),
		filepath.Join(dir, "memcached-debug"):     shim,
		filepath.Join(dir, "timedrun"):            shim,
		filepath.Join(dir, "sbin", "saslpasswd2"): shim,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// memcachedSuiteSource returns a directory holding memcached's t/ for the
// version of memcBin: MCSUITE_SRC, or the user cache, filled from Debian's
// source package on first use.
func memcachedSuiteSource(t *testing.T, memcBin string) string {
	if src := os.Getenv("MCSUITE_SRC"); src != "" {
		if _, err := os.Stat(filepath.Join(src, "t", "lib", "MemcachedTest.pm")); err != nil {
			t.Fatalf("MCSUITE_SRC=%s is not a memcached source tree: %v", src, err)
		}
		return src
	}
	version, err := memcachedVersion(memcBin)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = tmpDir // no $HOME: fetched for this run only
	}
	dest := filepath.Join(cache, "tandem", "memcached-"+version)
	if _, err := os.Stat(filepath.Join(dest, "t", "lib", "MemcachedTest.pm")); err == nil {
		return dest
	}
	if err := fetchMemcachedSuite(version, dest); err != nil {
		t.Fatalf("memcached %s's test suite from Debian's source package: %v\n"+
			"(MCSUITE_SRC=/path/to/memcached-%s uses a source tree you have)", version, err, version)
	}
	return dest
}

// memcachedVersion reads "memcached 1.6.18" from memcached -V.
func memcachedVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		return "", fmt.Errorf("%s -V: %v", bin, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != "memcached" {
		return "", fmt.Errorf("%s -V answered %q", bin, out)
	}
	return f[1], nil
}

// fetchMemcachedSuite downloads Debian's memcached source package into a
// private apt directory (the machine's apt setup is only read) and puts
// the upstream tarball's t/ in dest.
func fetchMemcachedSuite(version, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	apt := func(d string) string { return filepath.Join(tmp, "apt", d) }
	for _, d := range []string{apt("parts"), apt("lists/partial"), apt("cache/archives/partial"), filepath.Join(tmp, "dl"), filepath.Join(tmp, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	srcList, err := debSrcSources()
	if err != nil {
		return err
	}
	if err := os.WriteFile(apt("parts/deb-src.sources"), []byte(srcList), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(apt("sources.list"), nil, 0o644); err != nil {
		return err
	}
	opts := []string{"-qq",
		"-o", "Dir::Etc::SourceList=" + apt("sources.list"),
		"-o", "Dir::Etc::SourceParts=" + apt("parts"),
		"-o", "Dir::State::Lists=" + apt("lists"),
		"-o", "Dir::Cache=" + apt("cache"),
		"-o", "Debug::NoLocking=1"}
	aptGet := func(args ...string) error {
		cmd := exec.Command("apt-get", append(opts, args...)...)
		cmd.Dir = filepath.Join(tmp, "dl")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	// A source apt lists as deb but that has no sources fails the update
	// without stopping the others; apt-get source then says what it found.
	updateErr := aptGet("update")
	pkg := "memcached"
	if v, err := exec.Command("dpkg-query", "-W", "-f=${source:Version}", "memcached").Output(); err == nil && len(v) > 0 {
		pkg += "=" + string(v) // the source of the installed reference itself
	}
	if err := aptGet("source", "--download-only", pkg); err != nil {
		if updateErr != nil {
			return fmt.Errorf("%v\nafter %v", err, updateErr)
		}
		return err
	}
	tarballs, _ := filepath.Glob(filepath.Join(tmp, "dl", "memcached_"+version+".orig.tar.*"))
	if len(tarballs) != 1 {
		got, _ := filepath.Glob(filepath.Join(tmp, "dl", "*"))
		return fmt.Errorf("no memcached_%s.orig.tar.* among %v", version, got)
	}
	top := "memcached-" + version
	if out, err := exec.Command("tar", "-xf", tarballs[0], "-C", filepath.Join(tmp, "x"), top+"/t").CombinedOutput(); err != nil {
		return fmt.Errorf("tar -xf %s (xz-utils unpacks .tar.xz): %v\n%s", tarballs[0], err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "x", top), dest); err != nil {
		if _, statErr := os.Stat(filepath.Join(dest, "t", "lib", "MemcachedTest.pm")); statErr == nil {
			return nil // another run put it there first
		}
		return err
	}
	return nil
}

// debSrcSources turns the machine's apt sources of binary packages into
// deb-src ones, in deb822 form: the same archives, suites and keys.
func debSrcSources() (string, error) {
	var b strings.Builder
	if data, err := os.ReadFile("/etc/apt/sources.list"); err == nil {
		b.WriteString(oneLineToDebSrc(string(data)))
	}
	for _, pattern := range []string{"/etc/apt/sources.list.d/*.list", "/etc/apt/sources.list.d/*.sources"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			if strings.HasSuffix(f, ".list") {
				b.WriteString(oneLineToDebSrc(string(data)))
			} else {
				b.WriteString(deb822ToDebSrc(string(data)))
			}
		}
	}
	if b.Len() == 0 {
		return "", errors.New("no apt sources of type deb in /etc/apt")
	}
	return b.String(), nil
}

var aptOneLine = regexp.MustCompile(`^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)$`)

// oneLineToDebSrc turns sources.list lines "deb [opts] URI suite comps"
// into deb822 deb-src stanzas.
func oneLineToDebSrc(list string) string {
	var b strings.Builder
	for _, line := range strings.Split(list, "\n") {
		m := aptOneLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		fmt.Fprintf(&b, "Types: deb-src\nURIs: %s\nSuites: %s\n", m[2], m[3])
		if m[4] != "" {
			fmt.Fprintf(&b, "Components: %s\n", m[4])
		}
		for _, opt := range strings.Fields(m[1]) {
			if k, v, ok := strings.Cut(opt, "="); ok && k == "signed-by" {
				fmt.Fprintf(&b, "Signed-By: %s\n", v)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// deb822ToDebSrc keeps the enabled stanzas of a .sources file whose Types
// include deb, with Types: deb-src; every other field is kept as written.
func deb822ToDebSrc(sources string) string {
	var b strings.Builder
	for _, stanza := range regexp.MustCompile(`\n[ \t]*\n`).Split(sources, -1) {
		var lines []string
		deb, enabled := false, true
		for _, line := range strings.Split(stanza, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") || strings.TrimSpace(line) == "" {
				continue
			}
			k, v, _ := strings.Cut(line, ":")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "types":
				deb = strings.Contains(" "+v+" ", " deb ")
				line = "Types: deb-src"
			case "enabled":
				enabled = strings.TrimSpace(v) != "no"
			}
			lines = append(lines, line)
		}
		if deb && enabled {
			b.WriteString(strings.Join(lines, "\n") + "\n\n")
		}
	}
	return b.String()
}

// tapRun is a test file's TAP output, read.
type tapRun struct {
	plan    int // -1: no plan line
	skipAll string
	tests   []tapTest
	lines   []string // every line, for the dying-words check
}

type tapTest struct {
	num  int
	ok   bool
	name string
	at   string   // "t/... line N" from a failure's diagnostics
	diag []string // a failure's "#" lines: got, expected
}

func (r tapRun) failed() int {
	n := 0
	for _, tt := range r.tests {
		if !tt.ok {
			n++
		}
	}
	return n
}

func (r tapRun) passed() int { return len(r.tests) - r.failed() }

var (
	tapPlan   = regexp.MustCompile(`^1\.\.(\d+)(?:\s*#\s*(?i:skip)\S*\s*(.*))?$`)
	tapResult = regexp.MustCompile(`^(not )?ok (\d+)(?: - (.*?))?(?:\s+#\s+(?i:skip|todo).*)?$`)
	tapAt     = regexp.MustCompile(`^#\s+at (.*) line (\d+)\.$`)
	tapFailed = regexp.MustCompile(`^#\s+Failed test (?:'.*'$|at (.*) line (\d+)\.$)`)
)

// parseTAP reads Test::More's output with its diagnostics interleaved: a
// "not ok" is followed by "#   Failed test 'name'" and "#   at FILE line N."
// (or "#   Failed test at FILE line N." for a test without a name).
func parseTAP(out []byte) tapRun {
	r := tapRun{plan: -1}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	awaitingAt, inFailure := false, false
	for sc.Scan() {
		line := sc.Text()
		r.lines = append(r.lines, line)
		if m := tapPlan.FindStringSubmatch(line); m != nil {
			r.plan, _ = strconv.Atoi(m[1])
			if r.plan == 0 {
				r.skipAll = m[2]
			}
			continue
		}
		if m := tapResult.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			r.tests = append(r.tests, tapTest{num: n, ok: m[1] == "", name: m[3]})
			awaitingAt, inFailure = m[1] != "", m[1] != ""
			continue
		}
		if !inFailure || !strings.HasPrefix(line, "#") || strings.HasPrefix(line, "# Looks like") {
			continue
		}
		last := &r.tests[len(r.tests)-1]
		last.diag = append(last.diag, line)
		if !awaitingAt {
			continue
		}
		if m := tapFailed.FindStringSubmatch(line); m != nil {
			if m[1] != "" {
				last.at, awaitingAt = fromT(m[1])+" line "+m[2], false
			}
		} else if m := tapAt.FindStringSubmatch(line); m != nil {
			last.at, awaitingAt = fromT(m[1])+" line "+m[2], false
		}
	}
	return r
}

// fromT cuts a path to the part from t/: "/tmp/x/t/lib/MemcachedTest.pm"
// and "t/binary.t" read the same wherever the suite lies.
func fromT(path string) string {
	if strings.HasPrefix(path, "t/") {
		return path
	}
	if i := strings.LastIndex(path, "/t/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// checkMcSuiteRun lists what is wrong with a file's run: a failing test or
// an early stop that diffs does not list, a listed difference that did not
// happen, a skipped file, a gap in the numbering.
func checkMcSuiteRun(file string, r tapRun, diffs []mcSuiteDiff) []string {
	var problems []string
	used := make([]bool, len(diffs))
	match := func(ok func(d mcSuiteDiff) bool) bool {
		for i, d := range diffs {
			if d.file == file && ok(d) {
				used[i] = true
				return true
			}
		}
		return false
	}
	if r.skipAll != "" {
		problems = append(problems, "skipped: "+r.skipAll)
	}
	for i, tt := range r.tests {
		if tt.num != i+1 {
			problems = append(problems, fmt.Sprintf("test %d is numbered %d", i+1, tt.num))
			break
		}
		if tt.ok {
			continue
		}
		if !match(func(d mcSuiteDiff) bool {
			return d.died == "" && (d.num == 0 || d.num == tt.num) && d.name == tt.name && d.at == tt.at
		}) {
			problems = append(problems, fmt.Sprintf("not ok %d - %s (at %s)\n\t%s", tt.num, tt.name, tt.at, strings.Join(tt.diag, "\n\t")))
		}
	}
	if r.plan < 0 || len(r.tests) != r.plan {
		lineSeen := func(d mcSuiteDiff) bool {
			for _, l := range r.lines {
				if d.died != "" && l == d.died {
					return true
				}
			}
			return false
		}
		if !match(lineSeen) {
			if r.plan < 0 {
				problems = append(problems, fmt.Sprintf("stopped after %d tests, before its plan line", len(r.tests)))
			} else {
				problems = append(problems, fmt.Sprintf("stopped after %d tests of a plan of %d", len(r.tests), r.plan))
			}
		}
	}
	for i, d := range diffs {
		if d.file == file && !used[i] {
			what := fmt.Sprintf("test %d %q (at %s)", d.num, d.name, d.at)
			if d.died != "" {
				what = fmt.Sprintf("the stop printing %q", d.died)
			}
			problems = append(problems, "listed in mcSuiteDiffs but not seen, remove it: "+what)
		}
	}
	return problems
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestMcSuiteCheck checks the reading of TAP and the known-differences
// rules on output shaped as Test::More writes it.
func TestMcSuiteCheck(t *testing.T) {
	diffs := []mcSuiteDiff{
		{file: "a.t", num: 2, name: "foo == <undef>", at: "t/lib/MemcachedTest.pm line 98"},
		{file: "a.t", name: "any number", at: "t/a.t line 7"},
		{file: "b.t", died: "alarm"},
	}
	failed := func(num int, name, at string) string {
		return fmt.Sprintf("not ok %d - %s\n#   Failed test '%s'\n#   at %s.\n#          got: 'x'\n#     expected: 'y'\n", num, name, name, at)
	}
	cases := []struct {
		name, file, out string
		want            []string // substrings, one per problem, in order
	}{
		{"all pass", "c.t", "1..2\nok 1 - one\nok 2\n", nil},
		{"plan at the end", "c.t", "ok 1 - one\nSucceeded!!!\nok 2 - two\n1..2\n", nil},
		{"unlisted failure", "c.t", "1..2\nok 1\n" + failed(2, "two", "t/c.t line 5"),
			[]string{"not ok 2 - two (at t/c.t line 5)"}},
		{"unnamed failure", "c.t", "1..1\nnot ok 1\n#   Failed test at t/c.t line 9.\n",
			[]string{"not ok 1 -  (at t/c.t line 9)"}},
		{"listed failures", "a.t", "1..3\nok 1\n" + failed(2, "foo == <undef>", "/tmp/x/t/lib/MemcachedTest.pm line 98") +
			failed(3, "any number", "t/a.t line 7"), nil},
		{"listed number differs", "a.t", "1..3\n" + failed(1, "foo == <undef>", "t/lib/MemcachedTest.pm line 98") +
			"ok 2\n" + failed(3, "any number", "t/a.t line 7"),
			[]string{"not ok 1 - foo == <undef>", "remove it: test 2"}},
		{"listed line differs", "a.t", "1..3\nok 1\n" + failed(2, "foo == <undef>", "t/lib/MemcachedTest.pm line 99") +
			failed(3, "any number", "t/a.t line 7"),
			[]string{"not ok 2 - foo == <undef> (at t/lib/MemcachedTest.pm line 99)", "remove it: test 2"}},
		{"listed tests pass", "a.t", "1..3\nok 1\nok 2\nok 3\n",
			[]string{"remove it: test 2", "remove it: test 0 \"any number\""}},
		{"stop", "c.t", "1..5\nok 1\nok 2\nMemcache Error (4): ...\n# Looks like your test exited with 255 just after 2.\n",
			[]string{"stopped after 2 tests of a plan of 5"}},
		{"no plan", "c.t", "ok 1\n", []string{"stopped after 1 tests, before its plan line"}},
		{"listed stop", "b.t", "1..1\nalarm\n# Looks like your test exited with 4 before it could output anything.\n", nil},
		{"listed stop does not happen", "b.t", "1..1\nok 1\n", []string{"remove it: the stop printing \"alarm\""}},
		{"skip all", "c.t", "1..0 # SKIP Skipping SASL tests\n", []string{"skipped: Skipping SASL tests"}},
		{"numbering", "c.t", "1..2\nok 1\nok 3\n", []string{"test 2 is numbered 3"}},
	}
	for _, c := range cases {
		got := checkMcSuiteRun(c.file, parseTAP([]byte(c.out)), diffs)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s: problems %q, want ones containing %q", c.name, got, c.want)
		}
	}
}
