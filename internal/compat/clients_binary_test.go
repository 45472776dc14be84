package compat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
)

// Real memcached binary-protocol clients, unchanged, against memcached and
// Tandem: pylibmc (binary=True), Dalli 3.0, php-memcached with
// OPT_BINARY_PROTOCOL and its session handler, spymemcached in binary mode
// and memjs. Each client runs a script of its own (testdata/binclients)
// that does set/get/add/replace/cas/incr/decr/touch/delete/multi-get/flush,
// client-side types and compression, stats, and checks every result
// itself, once per target:
//
//	open             no login
//	open_alice       SASL PLAIN as an ACL user on a server without a password
//	default          SASL PLAIN as "default" with the requirepass password
//	alice            SASL PLAIN as the ACL user alice
//	no_login         no credentials where a password is required: refused
//	wrong_password   default with a wrong password: refused
//	disabled_user    an ACL user that is off (memcached: one it does not know): refused
//
// The script first runs against the real memcached 1.6 (-B binary, and -S
// with a Cyrus sasldb holding default and alice), which checks the script's
// expectations; then, in the same process, against Tandem (one started
// without a password, one with --requirepass, alice and carol created on
// the Redis port). In self-test mode only the memcached targets run.
//
// Every target's connections go through a recorder, so a failure shows the
// decoded binary exchange that led to it (COMPAT_DUMP=1 with -v logs every
// target's whole exchange).
//
// The clients are Debian packages and one npm package; scripts/test.sh
// installs them all, and a missing one fails the test with the command
// that installs it: a skipped client would pass a build that checked nothing.

const (
	// memjsVersion is the memjs scripts/test.sh installs; its script relies on
	// 1.3.2's quirks (prepend sends Append, no CAS, no multi-get).
	memjsVersion = "1.3.2"
	aliceName    = "alice"
	alicePass    = "alice-pw"
	carolName    = "carol" // disabled on Tandem, unknown to memcached
	carolPass    = "carol-pw"
	// binClientTimeout bounds one script run over every target.
	binClientTimeout = 60 * time.Second
)

// binClient is one client library and how to run its script.
type binClient struct {
	name string
	// command resolves the interpreter and library and returns the
	// command line before the targets and extra environment; it fails t,
	// naming the install command, when something is missing.
	command func(t *testing.T) (argv, env []string)
}

var binClients = []binClient{
	{"pylibmc", pylibmcCommand},
	{"dalli", dalliCommand},
	{"php-memcached", phpMemcachedCommand},
	{"spymemcached", spymemcachedCommand},
	{"memjs", memjsCommand},
}

func binScript(name string) string { return filepath.Join("testdata", "binclients", name) }

// need fails t unless probe (a command line) succeeds.
func need(t *testing.T, what, install string, probe ...string) {
	t.Helper()
	if out, err := exec.Command(probe[0], probe[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s is not installed (%s: %v %s): %s (scripts/test.sh does); the test fails, it never skips", what, strings.Join(probe, " "), err, bytes.TrimSpace(out), install)
	}
}

// lookPath returns the path of a program or fails t naming its package.
func lookPath(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found on PATH: %s (scripts/test.sh does); the test fails, it never skips", name, install)
	}
	return p
}

func pylibmcCommand(t *testing.T) ([]string, []string) {
	// Debian's python3-pylibmc is importable by Debian's python3, which a
	// pyenv or venv python3 earlier on PATH would not see.
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		python = lookPath(t, "python3", "apt-get install python3 python3-pylibmc")
	}
	need(t, "pylibmc", "apt-get install python3-pylibmc", python, "-c", "import pylibmc")
	return []string{python, binScript("pylibmc_client.py")}, nil
}

func dalliCommand(t *testing.T) ([]string, []string) {
	ruby := lookPath(t, "ruby", "apt-get install ruby ruby-dalli")
	need(t, "Dalli 3", "apt-get install ruby-dalli", ruby, "-e", `require "dalli"; exit(Dalli::VERSION.start_with?("3.") ? 0 : 1)`)
	return []string{ruby, binScript("dalli_client.rb")}, nil
}

func phpMemcachedCommand(t *testing.T) ([]string, []string) {
	php := lookPath(t, "php", "apt-get install php-cli php-memcached")
	need(t, "php-memcached", "apt-get install php-memcached", php, "-r", `exit(class_exists("Memcached") && Memcached::HAVE_SASL ? 0 : 1);`)
	return []string{php, binScript("phpmemcached_client.php")}, nil
}

func spymemcachedCommand(t *testing.T) ([]string, []string) {
	java := lookPath(t, "java", "apt-get install default-jdk-headless")
	// java runs the .java file itself (JEP 330), which needs the compiler.
	lookPath(t, "javac", "apt-get install default-jdk-headless")
	jar := os.Getenv("COMPAT_SPYMEMCACHED_JAR")
	if jar == "" {
		jar = "/usr/share/java/spymemcached.jar"
	}
	if _, err := os.Stat(jar); err != nil {
		t.Fatalf("spymemcached jar %s: %v: apt-get install libspymemcached-java (scripts/test.sh does), or set COMPAT_SPYMEMCACHED_JAR; the test fails, it never skips", jar, err)
	}
	// C1 only: the program runs once, so the JIT's later tiers only cost start-up.
	return []string{java, "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", jar, binScript("SpymemcachedClient.java")}, nil
}

// memjsDir is where scripts/test.sh installs memjs: $COMPAT_MEMJS_DIR, or
// tandem-binclients in the user's cache directory.
func memjsDir() string {
	if d := os.Getenv("COMPAT_MEMJS_DIR"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "tandem-binclients")
}

func memjsCommand(t *testing.T) ([]string, []string) {
	node := lookPath(t, "node", "apt-get install nodejs npm")
	dir := memjsDir()
	install := fmt.Sprintf("npm install --prefix %s memjs@%s", dir, memjsVersion)
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "memjs", "package.json"))
	if err != nil {
		t.Fatalf("memjs is not installed in %s (%v): %s (scripts/test.sh does); the test fails, it never skips", dir, err, install)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != memjsVersion {
		t.Fatalf("memjs in %s is version %q (%v), the script is written for %s: %s", dir, pkg.Version, err, memjsVersion, install)
	}
	return []string{node, binScript("memjs_client.js")}, []string{"NODE_PATH=" + filepath.Join(dir, "node_modules")}
}

// binTarget is one run of a script: a server, a login, and whether the
// server must refuse the client.
type binTarget struct {
	name, addr, user, password string
	refused                    bool
}

// spec is the target as the scripts take it: NAME=[!][USER:PASS@]HOST:PORT.
func (b binTarget) spec(addr string) string {
	s := b.name + "="
	if b.refused {
		s += "!"
	}
	if b.user != "" {
		s += b.user + ":" + b.password + "@"
	}
	return s + addr
}

// binTargets lists the targets on a server without a password (open), on
// one that lets alice log in without requiring it (openLogin), and on one
// that requires authPassword as user default (auth).
func binTargets(open, openLogin, auth string) []binTarget {
	return []binTarget{
		{name: "open", addr: open},
		{name: "open_alice", addr: openLogin, user: aliceName, password: alicePass},
		{name: "default", addr: auth, user: "default", password: authPassword},
		{name: "alice", addr: auth, user: aliceName, password: alicePass},
		{name: "no_login", addr: auth, refused: true},
		{name: "wrong_password", addr: auth, user: "default", password: "wrong-pw", refused: true},
		{name: "disabled_user", addr: auth, user: carolName, password: carolPass, refused: true},
	}
}

// startMemcachedBinary starts the reference servers: memcached -B binary,
// and memcached -B binary -S with a sasldb of default and alice. memcached
// without -S refuses SASL, so open_alice's reference is the -S server.
func startMemcachedBinary(t *testing.T, dir string) []binTarget {
	t.Helper()
	memcBin := realserver.Path(t, realserver.Memcached)
	saslpasswd := lookPath(t, "saslpasswd2", "apt-get install sasl2-bin")
	if m, _ := filepath.Glob("/usr/lib/*/sasl2/libplain.so*"); len(m) == 0 {
		t.Fatal("Cyrus SASL's PLAIN mechanism (libplain.so) is not installed: apt-get install libsasl2-modules (scripts/test.sh does); the test fails, it never skips")
	}
	// memcached names its SASL realm after the host name; so must the users.
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "sasldb2")
	for _, u := range [][2]string{{"default", authPassword}, {aliceName, alicePass}} {
		cmd := exec.Command(saslpasswd, "-p", "-c", "-a", "memcached", "-u", host, "-f", db, u[0])
		cmd.Stdin = strings.NewReader(u[1])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("saslpasswd2 %s: %v\n%s", u[0], err, out)
		}
	}
	conf := "mech_list: plain\nsasldb_path: " + db + "\n"
	if err := os.WriteFile(filepath.Join(dir, "memcached.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	open := startFor(t, dir, "memcached-binary", 1, memcachedArgs(memcBin, "-B", "binary")).addrs[0]
	sasl := memcachedArgs(memcBin, "-B", "binary", "-S")
	auth := startFor(t, dir, "memcached-binary-sasl", 1, func(p []int) []string {
		// SASL_CONF_PATH tells Cyrus SASL where memcached.conf is.
		return append([]string{"/usr/bin/env", "SASL_CONF_PATH=" + dir}, sasl(p)...)
	}).addrs[0]
	return binTargets(open, auth, auth)
}

// startTandemBinary starts two Tandems, one without a password and one
// with requirepass, and creates alice (on) and carol (off) on both.
func startTandemBinary(t *testing.T, dir string) []binTarget {
	t.Helper()
	openDir, authDir := filepath.Join(dir, "open"), filepath.Join(dir, "auth")
	for _, d := range []string{openDir, authDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	open := startFor(t, openDir, "tandem-binary", 2, func(p []int) []string {
		return []string{tandemBin, "--port", fmt.Sprint(p[0]), "--memcached-port", fmt.Sprint(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", openDir, "--maxmemory", "0", "--maxmemory-policy", "noeviction"}
	})
	auth := startTandemAuth(t, authDir)
	ctx := context.Background()
	for _, s := range []struct {
		addr, password string
	}{{open.addrs[0], ""}, {auth.addrs[0], authPassword}} {
		rc := redis.NewClient(&redis.Options{Addr: s.addr, Password: s.password, Protocol: 2})
		for _, args := range [][]any{
			{"ACL", "SETUSER", aliceName, "on", ">" + alicePass, "~*", "+@all"},
			{"ACL", "SETUSER", carolName, "off", ">" + carolPass, "~*", "+@all"},
		} {
			if err := rc.Do(ctx, args...).Err(); err != nil {
				rc.Close()
				t.Fatalf("%v on %s: %v", args, s.addr, err)
			}
		}
		rc.Close()
	}
	return binTargets(open.addrs[1], open.addrs[1], auth.addrs[1])
}

// binSide is the servers one script run is checked against.
type binSide struct {
	name    string // the subtest: "memcached", or sideName()
	blame   string // who is wrong when a target fails
	targets []binTarget
}

func TestBinaryClients(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	dir := t.TempDir()
	sides := []binSide{{"memcached", "memcached (the script is wrong)", startMemcachedBinary(t, dir)}}
	if !selfTest {
		sides = append(sides, binSide{sideName(), sideName(), startTandemBinary(t, dir)})
	}
	for _, c := range binClients {
		t.Run(c.name, func(t *testing.T) {
			argv, env := c.command(t)
			runBinClient(t, argv, env, sides)
		})
	}
}

// runBinClient runs one script, one process for every side's targets
// (memcached's first: the JVM's start alone costs more than a side), each
// target behind a recorder, and reports each side and target as a subtest.
func runBinClient(t *testing.T, argv, env []string, sides []binSide) {
	type run struct {
		side   binSide
		target binTarget
		name   string // as the script knows it: side/target
		rec    *binRecorder
	}
	var runs []run
	args := append([]string(nil), argv[1:]...)
	for _, side := range sides {
		for _, tg := range side.targets {
			r, err := newBinRecorder(tg.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			named := tg
			named.name = side.name + "/" + tg.name
			runs = append(runs, run{side, tg, named.name, r})
			args = append(args, named.spec(r.addr()))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), binClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("%s: %v for %d targets", filepath.Base(argv[len(argv)-1]), time.Since(start).Round(time.Millisecond), len(runs))

	results := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	for sc.Scan() {
		verdict, rest, _ := strings.Cut(sc.Text(), " ")
		name, detail, _ := strings.Cut(rest, " ")
		if verdict == "ok" || verdict == "FAIL" {
			results[name] = strings.TrimSpace(verdict + " " + detail)
		}
	}
	for _, side := range sides {
		t.Run(side.name, func(t *testing.T) {
			for _, r := range runs {
				if r.side.name != side.name {
					continue
				}
				t.Run(r.target.name, func(t *testing.T) {
					res, ok := results[r.name]
					if dumpRefs {
						t.Logf("exchange (%s):\n%s", r.target.spec(r.target.addr), r.rec.transcript(math.MaxInt))
					}
					switch {
					case !ok:
						t.Errorf("%s: no result for this target (exit: %v)\nstdout:\n%s\nstderr (tail):\n%s", side.blame, runErr, stdout.String(), tail(stderr.String(), 30))
					case res != "ok":
						t.Errorf("%s: %s\nexchange (%s, last packets):\n%s\nstderr (tail):\n%s", side.blame, strings.TrimPrefix(res, "FAIL "), r.target.spec(r.target.addr), r.rec.transcript(60), tail(stderr.String(), 15))
					}
				})
			}
		})
	}
	if runErr != nil && len(results) == len(runs) && !strings.Contains(stdout.String(), "FAIL ") {
		t.Errorf("every target passed but the script exited with %v\nstderr:\n%s", runErr, tail(stderr.String(), 30))
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// binRecorder is a loopback proxy to one server that keeps every byte
// that passed, in arrival order, for a transcript of a failure.
type binRecorder struct {
	ln       net.Listener
	upstream string
	wg       sync.WaitGroup

	mu     sync.Mutex
	events []binEvent
	conns  []net.Conn
	nconn  int
}

// binEvent is bytes read from one side of one connection; data nil means
// that side closed.
type binEvent struct {
	conn       int
	fromClient bool
	data       []byte
}

func newBinRecorder(upstream string) (*binRecorder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &binRecorder{ln: ln, upstream: upstream}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

func (r *binRecorder) addr() string { return r.ln.Addr().String() }

func (r *binRecorder) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", r.upstream, replyTimeout)
		if err != nil {
			c.Close()
			continue
		}
		r.mu.Lock()
		r.nconn++
		id := r.nconn
		r.conns = append(r.conns, c, up)
		r.mu.Unlock()
		r.wg.Add(2)
		go r.pipe(id, true, c, up)
		go r.pipe(id, false, up, c)
	}
}

// pipe copies src to dst, recording, and passes on a close as a half-close
// so that a client's last request still gets its reply.
func (r *binRecorder) pipe(id int, fromClient bool, src, dst net.Conn) {
	defer r.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			r.record(binEvent{id, fromClient, append([]byte(nil), buf[:n]...)})
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			r.record(binEvent{id, fromClient, nil})
			if tc, ok := dst.(*net.TCPConn); ok && (err == io.EOF) {
				tc.CloseWrite()
			} else {
				dst.Close()
			}
			return
		}
	}
}

func (r *binRecorder) record(e binEvent) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *binRecorder) close() {
	r.ln.Close()
	r.mu.Lock()
	for _, c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// transcript decodes the recorded bytes into one line per binary packet
// (or text chunk, or close), keeping the last n lines.
func (r *binRecorder) transcript(n int) string {
	r.mu.Lock()
	events := append([]binEvent(nil), r.events...)
	r.mu.Unlock()
	type stream struct {
		buf  []byte
		text bool // not the binary protocol: shown raw
	}
	streams := map[[2]int]*stream{}
	var lines []string
	for _, e := range events {
		dir, arrow := 1, "<"
		if e.fromClient {
			dir, arrow = 0, ">"
		}
		s := streams[[2]int{e.conn, dir}]
		if s == nil {
			s = &stream{}
			streams[[2]int{e.conn, dir}] = s
		}
		prefix := fmt.Sprintf("conn %d %s ", e.conn, arrow)
		if e.data == nil {
			if len(s.buf) > 0 {
				lines = append(lines, prefix+fmt.Sprintf("%d bytes, not a whole packet: %q", len(s.buf), clipBytes(s.buf, 48)))
			}
			who := "server"
			if e.fromClient {
				who = "client"
			}
			lines = append(lines, prefix+"closed by the "+who)
			continue
		}
		s.buf = append(s.buf, e.data...)
		for len(s.buf) > 0 {
			if s.text || (s.buf[0] != 0x80 && s.buf[0] != 0x81) {
				s.text = true
				lines = append(lines, prefix+"text "+clipBytes(s.buf, 120))
				s.buf = nil
				break
			}
			line, size := describeBinPacket(s.buf)
			if size == 0 {
				break // wait for the rest
			}
			lines = append(lines, prefix+line)
			s.buf = s.buf[size:]
		}
	}
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("(%d earlier lines)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// binOpcodes names the opcodes memcached 1.6 serves over binary.
var binOpcodes = map[byte]string{
	0x00: "Get", 0x01: "Set", 0x02: "Add", 0x03: "Replace", 0x04: "Delete",
	0x05: "Increment", 0x06: "Decrement", 0x07: "Quit", 0x08: "Flush",
	0x09: "GetQ", 0x0a: "Noop", 0x0b: "Version", 0x0c: "GetK", 0x0d: "GetKQ",
	0x0e: "Append", 0x0f: "Prepend", 0x10: "Stat", 0x11: "SetQ", 0x12: "AddQ",
	0x13: "ReplaceQ", 0x14: "DeleteQ", 0x15: "IncrementQ", 0x16: "DecrementQ",
	0x17: "QuitQ", 0x18: "FlushQ", 0x19: "AppendQ", 0x1a: "PrependQ",
	0x1b: "Verbosity", 0x1c: "Touch", 0x1d: "GAT", 0x1e: "GATQ",
	0x20: "SASL-List", 0x21: "SASL-Auth", 0x22: "SASL-Step",
	0x23: "GATK", 0x24: "GATKQ",
}

// describeBinPacket describes the packet at the start of b and returns its
// size, or 0 when b does not hold all of it yet.
func describeBinPacket(b []byte) (string, int) {
	const header = 24
	if len(b) < header {
		return "", 0
	}
	keyLen := int(binary.BigEndian.Uint16(b[2:4]))
	extLen := int(b[4])
	bodyLen := int(binary.BigEndian.Uint32(b[8:12]))
	if len(b) < header+bodyLen {
		return "", 0
	}
	op := binOpcodes[b[1]]
	if op == "" {
		op = "?"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s(0x%02x)", op, b[1])
	if b[0] == 0x81 {
		fmt.Fprintf(&sb, " status=0x%04x", binary.BigEndian.Uint16(b[6:8]))
	}
	fmt.Fprintf(&sb, " opaque=0x%x cas=%d", binary.BigEndian.Uint32(b[12:16]), binary.BigEndian.Uint64(b[16:24]))
	body := b[header : header+bodyLen]
	if extLen+keyLen > len(body) {
		fmt.Fprintf(&sb, " malformed: extras %d + key %d > body %d", extLen, keyLen, bodyLen)
		return sb.String(), header + bodyLen
	}
	if extLen > 0 {
		fmt.Fprintf(&sb, " extras=%x", body[:extLen])
	}
	if keyLen > 0 {
		fmt.Fprintf(&sb, " key=%s", clipBytes(body[extLen:extLen+keyLen], 60))
	}
	if v := body[extLen+keyLen:]; len(v) > 0 {
		fmt.Fprintf(&sb, " value(%d)=%s", len(v), clipBytes(v, 40))
	}
	return sb.String(), header + bodyLen
}

// clipBytes quotes at most n bytes of b.
func clipBytes(b []byte, n int) string {
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q...", b[:n])
}
