// Package nodetest runs a whole node in a test, as the binary does: the
// composition root with its listeners, stopped when the test ends. Like
// net/http/httptest, it is for the tests of packages that sit around a
// node (metrics, TLS, the binary's health check).
package nodetest

import (
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/node"
)

// handedOut are the ports FreePort returned in this process: the kernel
// may give a port just closed to the next bind of port 0, and a test that
// asks for two ports (port, memcached-port) must get two.
var handedOut sync.Map // int → struct{}

// FreePort returns a loopback port that was free a moment ago, never one
// it returned before in this process.
func FreePort(t testing.TB) int {
	t.Helper()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if _, dup := handedOut.LoadOrStore(port, struct{}{}); !dup {
			return port
		}
	}
}

// Start runs a node configured by args (--directive value …, as the
// binary's flags), logging nowhere, and returns once ready reports true
// (nil: once the node is healthy). The node is stopped, and must exit 0,
// when the test ends; a node that exits early or is not ready within 10
// seconds fails t.
func Start(t testing.TB, args []string, ready func(*node.Node) bool) *node.Node {
	t.Helper()
	cfg, err := conf.Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := node.New(node.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test",
		Environ: []string{"GOGC=100", "GOMEMLIMIT=4GiB"}})
	sigs, done := make(chan os.Signal, 1), make(chan int, 1)
	go func() { done <- n.Run(sigs) }()
	t.Cleanup(func() {
		sigs <- syscall.SIGTERM
		if code := <-done; code != 0 {
			t.Errorf("Run exited %d", code)
		}
	})
	if ready == nil {
		ready = func(n *node.Node) bool { ok, _ := n.Healthy(); return ok }
	}
	for deadline := time.Now().Add(10 * time.Second); !ready(n); time.Sleep(10 * time.Millisecond) {
		select {
		case code := <-done:
			t.Fatalf("Run exited %d", code)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the node is not ready within 10 seconds")
		}
	}
	return n
}
