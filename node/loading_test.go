package node

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/internal/syncbuf"
)

// running is a node run by a test, as the binary runs it.
type running struct {
	n      *Node
	log    *syncbuf.Buffer
	sigs   chan os.Signal
	done   chan int
	port   int
	mcPort int
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func runNode(t *testing.T, dir string, extra ...string) *running {
	t.Helper()
	r := &running{log: &syncbuf.Buffer{}, sigs: make(chan os.Signal, 1), done: make(chan int, 1), port: freePort(t), mcPort: freePort(t)}
	args := append([]string{"--port", strconv.Itoa(r.port), "--memcached-port", strconv.Itoa(r.mcPort), "--dir", dir,
		"--save", "", "--maxmemory", "64mb"}, extra...)
	cfg, err := conf.Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.n = New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(r.log, nil)), Version: "test", MemoryRoot: fakeRoot(t),
		Environ: []string{"GOGC=100", "GOMEMLIMIT=4GiB"}})
	go func() { r.done <- r.n.Run(r.sigs) }()
	return r
}

// stop sends SIGTERM and returns the exit code.
func (r *running) stop(t *testing.T) int {
	t.Helper()
	r.sigs <- syscall.SIGTERM
	select {
	case code := <-r.done:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("the node did not stop within 20 s")
		return -1
	}
}

// dial connects to port, retrying while the listener is not open yet.
func dial(t *testing.T, port int) net.Conn {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return c
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
}

// respCall sends one command and returns its reply's first line, or a
// bulk reply's body.
func respCall(t *testing.T, c net.Conn, br *bufio.Reader, args ...string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	line = strings.TrimSuffix(line, "\r\n")
	if !strings.HasPrefix(line, "$") || line == "$-1" {
		return line
	}
	n, _ := strconv.Atoi(line[1:])
	body := make([]byte, n+2)
	if _, err := io.ReadFull(br, body); err != nil {
		t.Fatal(err)
	}
	return string(body[:n])
}

// writeDump runs a node on dir to save keys keys and one memcached item.
func writeDump(t *testing.T, dir string, keys int) {
	t.Helper()
	r := runNode(t, dir)
	c := dial(t, r.port)
	br := bufio.NewReader(c)
	for deadline := time.Now().Add(10 * time.Second); respCall(t, c, br, "PING") != "+PONG"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first node never answered PING")
		}
	}
	for i := 0; i < keys; i++ {
		if got := respCall(t, c, br, "SET", fmt.Sprintf("k%d", i), "v"); got != "+OK" {
			t.Fatalf("SET: %q", got)
		}
	}
	mc := dial(t, r.mcPort)
	fmt.Fprintf(mc, "set item 42 0 5\r\nhello\r\n")
	if line, _ := bufio.NewReader(mc).ReadString('\n'); line != "STORED\r\n" {
		t.Fatalf("memcached set: %q", line)
	}
	if got := respCall(t, c, br, "SAVE"); got != "+OK" {
		t.Fatalf("SAVE: %q", got)
	}
	if code := r.stop(t); code != 0 {
		t.Fatalf("first node exited %d", code)
	}
}

// While the dump loads at start the ports are open: Redis commands get
// LOADING, except those with the loading flag (INFO shows the progress,
// CONFIG SET appendonly is refused), and a memcached request waits and is
// answered from the loaded data; "Ready to accept connections" is logged
// once it is loaded.
func TestPortsOpenWhileLoading(t *testing.T) {
	dir := t.TempDir()
	const keys = 10
	writeDump(t, dir, keys)
	dump, err := os.Stat(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	// 150 ms a key: the load takes about 1.6 s.
	r := runNode(t, dir, "--key-load-delay", "150000")
	c := dial(t, r.port)
	br := bufio.NewReader(c)
	if got := respCall(t, c, br, "PING"); got != "-LOADING Redis is loading the dataset in memory" {
		t.Fatalf("PING while loading: %q", got)
	}
	if got := respCall(t, c, br, "GET", "k1"); !strings.HasPrefix(got, "-LOADING") {
		t.Errorf("GET while loading: %q", got)
	}
	if got := respCall(t, c, br, "CONFIG", "SET", "appendonly", "yes"); got != "-LOADING Redis is loading the dataset in memory" {
		t.Errorf("CONFIG SET appendonly while loading: %q", got)
	}
	if got := respCall(t, c, br, "CONFIG", "SET", "maxmemory-samples", "7"); got != "+OK" {
		t.Errorf("CONFIG SET maxmemory-samples while loading: %q", got)
	}
	info := respCall(t, c, br, "INFO", "persistence")
	for _, want := range []string{"loading:1\r\n", "loading_total_bytes:" + strconv.FormatInt(dump.Size(), 10) + "\r\n", "loading_loaded_perc:", "loading_eta_seconds:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO persistence while loading lacks %q:\n%s", want, info)
		}
	}
	if strings.Contains(r.log.String(), "Ready to accept connections") {
		t.Error("Ready to accept connections logged before the load ended")
	}

	mc := dial(t, r.mcPort)
	mc.SetDeadline(time.Now().Add(15 * time.Second))
	start := time.Now()
	fmt.Fprintf(mc, "get item\r\n")
	mbr := bufio.NewReader(mc)
	var lines []string
	for len(lines) < 3 {
		line, err := mbr.ReadString('\n')
		if err != nil {
			t.Fatalf("memcached get after %v: %v (lines %q)", time.Since(start), err, lines)
		}
		lines = append(lines, line)
	}
	if want := []string{"VALUE item 42 5\r\n", "hello\r\n", "END\r\n"}; fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("memcached get during the load: %q, want %q", lines, want)
	}
	if got := respCall(t, c, br, "GET", "k1"); got != "v" {
		t.Errorf("GET once memcached was answered: %q", got)
	}
	info = respCall(t, c, br, "INFO", "persistence")
	if !strings.Contains(info, "loading:0\r\n") || strings.Contains(info, "loading_total_bytes") {
		t.Errorf("INFO persistence after the load:\n%s", info)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(r.log.String(), "Ready to accept connections"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no Ready to accept connections in the log:\n%s", r.log.String())
		}
	}
	if code := r.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// SHUTDOWN and SIGTERM during the load exit at once and save nothing:
// the dump on disk is the one that was loading, not the part loaded.
func TestShutdownWhileLoadingKeepsTheDump(t *testing.T) {
	dir := t.TempDir()
	writeDump(t, dir, 40)
	path := filepath.Join(dir, "dump.rdb")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"SHUTDOWN", "SIGTERM"} {
		// 250 ms a key: 10 s to load it all.
		r := runNode(t, dir, "--key-load-delay", "250000", "--save", "3600 1")
		c := dial(t, r.port)
		br := bufio.NewReader(c)
		if got := respCall(t, c, br, "PING"); !strings.HasPrefix(got, "-LOADING") {
			t.Fatalf("%s: PING: %q", how, got)
		}
		time.Sleep(300 * time.Millisecond) // a key or two loaded
		start := time.Now()
		var code int
		if how == "SHUTDOWN" {
			c.Write([]byte("*2\r\n$8\r\nSHUTDOWN\r\n$4\r\nSAVE\r\n"))
			select {
			case code = <-r.done:
			case <-time.After(5 * time.Second):
				t.Fatalf("SHUTDOWN SAVE while loading: not stopped after 5 s")
			}
		} else {
			code = r.stop(t)
		}
		if took := time.Since(start); code != 0 || took > 5*time.Second {
			t.Errorf("%s while loading: exit %d after %v", how, code, took)
		}
		after, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("%s while loading changed the dump (%d bytes before, %d after, %v)", how, len(before), len(after), err)
		}
	}
}

// DEBUG RELOAD loads as the start does (Redis's startLoading): a client
// served meanwhile gets LOADING, not BUSY, once the reload holds the
// keyspace past busy-reply-threshold.
func TestDebugReloadIsLoading(t *testing.T) {
	dir := t.TempDir()
	writeDump(t, dir, 10)
	r := runNode(t, dir, "--enable-debug-command", "yes", "--busy-reply-threshold", "50")
	a := dial(t, r.port)
	abr := bufio.NewReader(a)
	for deadline := time.Now().Add(10 * time.Second); respCall(t, a, abr, "PING") != "+PONG"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never loaded")
		}
	}
	if got := respCall(t, a, abr, "CONFIG", "SET", "key-load-delay", "100000"); got != "+OK" { // 1 s to reload
		t.Fatalf("CONFIG SET key-load-delay: %q", got)
	}
	a.Write([]byte("*3\r\n$5\r\nDEBUG\r\n$6\r\nRELOAD\r\n$6\r\nNOSAVE\r\n"))
	b := dial(t, r.port)
	bbr := bufio.NewReader(b)
	time.Sleep(300 * time.Millisecond)
	if got := respCall(t, b, bbr, "PING"); got != "-LOADING Redis is loading the dataset in memory" {
		t.Errorf("PING during DEBUG RELOAD: %q", got)
	}
	a.SetDeadline(time.Now().Add(10 * time.Second))
	if line, err := abr.ReadString('\n'); line != "+OK\r\n" {
		t.Errorf("DEBUG RELOAD: %q %v", line, err)
	}
	if got := respCall(t, b, bbr, "GET", "k3"); got != "v" {
		t.Errorf("GET after the reload: %q", got)
	}
	if code := r.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}
