package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tandemkv/tandem/node"
	"github.com/tandemkv/tandem/node/nodetest"
)

// buildTandem builds this command into a temporary directory.
func buildTandem(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tandem")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var freePort = nodetest.FreePort

// cleanEnv is the environment without TANDEM_* variables, so the test's
// own environment cannot configure the server or the health check.
func cleanEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}

// runHealthcheck runs `tandem healthcheck args...` and returns its exit code.
func runHealthcheck(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"healthcheck"}, args...)...)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// redisDo authenticates with password, sends one command to addr and
// returns its first reply line.
func redisDo(t *testing.T, addr, password string, args ...string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	req := fmt.Sprintf("*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n*%d\r\n", len(password), password, len(args))
	for _, a := range args {
		req += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("AUTH: %q %v", line, err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// TestHealthcheckFollowsTheServersFlags: a server started with flags the
// health check is not given (another port, a password) is found through
// its health file; without the file the health check falls back to its
// own configuration; the file follows CONFIG SET requirepass and is
// removed on a clean stop.
func TestHealthcheckFollowsTheServersFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildTandem(t)
	dir := t.TempDir()
	port, mport := freePort(t), freePort(t)
	srv := exec.Command(bin, "--port", strconv.Itoa(port), "--memcached-port", strconv.Itoa(mport),
		"--requirepass", "pw", "--bind", "127.0.0.1", "--dir", dir, "--save", "")
	srv.Env = cleanEnv()
	logs, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	t.Cleanup(func() {
		_ = srv.Process.Kill()
		<-exited
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("server log:\n%s", b)
		}
	})
	file := filepath.Join(dir, node.HealthFileName)
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := os.Stat(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no health file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("health file mode: %v %v", st.Mode(), err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	// Only the data directory is given: port and password come from the file.
	if code, out := runHealthcheck(t, bin, "--dir", dir); code != 0 {
		t.Fatalf("healthcheck with the health file: exit %d\n%s", code, out)
	}
	// No file in that directory: the flags given to the health check decide.
	empty := t.TempDir()
	if code, out := runHealthcheck(t, bin, "--dir", empty, "--port", strconv.Itoa(port), "--memcached-port", strconv.Itoa(mport), "--requirepass", "pw"); code != 0 {
		t.Fatalf("fallback with the right flags: exit %d\n%s", code, out)
	}
	if code, _ := runHealthcheck(t, bin, "--dir", empty, "--port", strconv.Itoa(port), "--memcached-port", strconv.Itoa(mport)); code != 1 {
		t.Fatalf("fallback without the password (NOAUTH): exit %d, want 1", code)
	}
	if code, _ := runHealthcheck(t, bin, "--dir", empty, "--port", strconv.Itoa(port), "--memcached-port", strconv.Itoa(mport), "--requirepass", "nope"); code != 1 {
		t.Fatalf("fallback with a wrong password (WRONGPASS): exit %d, want 1", code)
	}
	// An unreadable file is ignored like a missing one.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, node.HealthFileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := runHealthcheck(t, bin, "--dir", bad, "--port", strconv.Itoa(port), "--memcached-port", strconv.Itoa(mport), "--requirepass", "pw"); code != 0 {
		t.Fatalf("bad file, right flags: exit %d\n%s", code, out)
	}

	// CONFIG SET requirepass rewrites the file.
	if got := redisDo(t, addr, "pw", "CONFIG", "SET", "requirepass", "pw2"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET requirepass: %q", got)
	}
	if code, out := runHealthcheck(t, bin, "--dir", dir); code != 0 {
		t.Fatalf("healthcheck after CONFIG SET requirepass: exit %d\n%s", code, out)
	}
	h, err := node.ReadHealth(dir)
	if err != nil || h.Password != "pw2" || h.PID != srv.Process.Pid {
		t.Fatalf("health file after CONFIG SET: %+v %v", h, err)
	}

	// A clean stop removes the file; then the check fails.
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop on SIGTERM")
	}
	exited <- nil // for the cleanup
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("health file left after a clean stop: %v", err)
	}
	if code, _ := runHealthcheck(t, bin, "--dir", dir, "--port", strconv.Itoa(port)); code != 1 {
		t.Fatalf("healthcheck of a stopped server: exit %d, want 1", code)
	}
}
