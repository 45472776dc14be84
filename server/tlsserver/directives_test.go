package tlsserver_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/node"
)

// runNode runs a node on args and returns Run's exit code channel and a
// stop function; it does not wait for any port.
func runNode(t *testing.T, args ...string) (done chan int, stop func()) {
	t.Helper()
	cfg, err := conf.Load(append([]string{"--save", "", "--dir", t.TempDir(), "--maxmemory", "64mb"}, args...), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := node.New(node.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Environ: []string{"GOGC=100", "GOMEMLIMIT=4GiB"}})
	sigs := make(chan os.Signal, 1)
	done = make(chan int, 1)
	go func() { done <- n.Run(sigs) }()
	return done, func() { sigs <- syscall.SIGTERM }
}

// runPlainNode runs a node without TLS ports or memcached and returns a
// client of its Redis port once it answers, with runNode's exit channel
// and stop function.
func runPlainNode(t *testing.T) (c *redis.Client, done chan int, stop func()) {
	t.Helper()
	port := freePort(t)
	done, stop = runNode(t, "--port", strconv.Itoa(port), "--memcached-port", "0")
	c = redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no node")
		}
	}
	return c, done, stop
}

// expectStartFails runs a node on args and fails the test unless Run
// refuses to start (a non-zero exit) within 10 s.
func expectStartFails(t *testing.T, what string, args ...string) {
	t.Helper()
	done, stop := runNode(t, args...)
	defer stop()
	select {
	case code := <-done:
		if code == 0 {
			t.Fatalf("started with %s", what)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not refuse %s", what)
	}
}

// An encrypted private key with its pass serves TLS from the start; a
// wrong pass refuses start-up, as Redis ("Failed to configure TLS").
func TestStartWithEncryptedKey(t *testing.T) {
	for _, key := range []string{"server-pkcs8-aes256.key", "server-legacy-aes128.key"} {
		td := startTandem(t, "--tls-cert-file", fixture(t, "server.crt"), "--tls-key-file", fixture(t, key),
			"--tls-key-file-pass", "tandem", "--tls-auth-clients", "no")
		if err := td.redis(t, fixtureClient(t)).Ping(context.Background()).Err(); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	expectStartFails(t, "a wrong key pass", "--port", strconv.Itoa(freePort(t)), "--memcached-port", "0", "--tls-port", strconv.Itoa(freePort(t)),
		"--tls-cert-file", fixture(t, "server.crt"), "--tls-key-file", fixture(t, "server-pkcs8-aes256.key"),
		"--tls-key-file-pass", "wrong", "--tls-auth-clients", "no")
}

// Without a TLS port, tls-replication or tls-cluster, Redis configures no
// TLS: a CONFIG SET of a file that does not load is accepted. Turning
// tls-replication on makes TLS configured, and the files must then
// load; tls-replication yes at start loads them (a bad one refuses
// start-up).
func TestTLSOffAcceptsAnyFile(t *testing.T) {
	c, done, stop := runPlainNode(t)
	ctx := context.Background()
	if err := c.Do(ctx, "CONFIG", "SET", "tls-cert-file", "/nonexistent", "tls-key-file", "/nonexistent").Err(); err != nil {
		t.Fatalf("without TLS: %v", err)
	}
	err := c.Do(ctx, "CONFIG", "SET", "tls-replication", "yes").Err()
	if want := "ERR CONFIG SET failed (possibly related to argument 'tls-replication') - Unable to update TLS configuration. Check server logs."; err == nil || err.Error() != want {
		t.Fatalf("tls-replication yes with bad files: %v", err)
	}
	if err := c.Do(ctx, "CONFIG", "SET", "tls-replication", "yes", "tls-cert-file", fixture(t, "server.crt"), "tls-key-file", fixture(t, "server.key"),
		"tls-ca-cert-file", fixture(t, "ca.crt")).Err(); err != nil {
		t.Fatalf("tls-replication yes with good files: %v", err)
	}
	if err := c.Do(ctx, "CONFIG", "SET", "tls-key-file", "/nonexistent").Err(); err == nil {
		t.Fatal("with tls-replication yes, a bad key was accepted")
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("Run exited %d", code)
	}

	expectStartFails(t, "tls-replication yes and a mismatched key", "--port", strconv.Itoa(freePort(t)), "--memcached-port", "0", "--tls-replication", "yes",
		"--tls-cert-file", fixture(t, "server.crt"), "--tls-key-file", fixture(t, "client.key"), "--tls-ca-cert-file", fixture(t, "ca.crt"))
}

// tls-session-caching on a node, as in Redis 7.0: a client resumes its
// session by ticket; a CONFIG SET of a TLS directive makes new ticket
// keys (the next connection handshakes in full); with
// tls-session-caching no tickets still resume.
func TestNodeSessionTickets(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	cfg := td.pki.clientConfig(t, "")
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	addr := "127.0.0.1:" + strconv.Itoa(td.tlsPort)
	if pingResumed(t, addr, cfg) {
		t.Fatal("the first connection resumed")
	}
	if !pingResumed(t, addr, cfg) {
		t.Fatal("the second connection did not resume its session")
	}
	if err := td.redis(t, nil).ConfigSet(context.Background(), "tls-session-caching", "no").Err(); err != nil {
		t.Fatal(err)
	}
	if pingResumed(t, addr, cfg) {
		t.Fatal("resumed with a ticket of the previous configuration")
	}
	if !pingResumed(t, addr, cfg) {
		t.Fatal("no resumption under tls-session-caching no (Redis resumes by ticket)")
	}
}

// pingResumed connects to a RESP TLS port with cfg, runs PING (a round
// trip: a TLS 1.3 client takes its ticket on a read) and reports whether
// the handshake resumed a session.
func pingResumed(t *testing.T, addr string, cfg *tls.Config) bool {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING: %q %v", line, err)
	}
	return c.ConnectionState().DidResume
}

// tls-replication is read at each connection attempt, as Redis's
// connectToMaster: a replica redialling its master turns to TLS once a
// CONFIG SET turns it on. The dial, on the replica's goroutine, reads the
// certificates the Set's commit installs (an unsynchronised read fails
// this test under -race). The master is a listener that reads the first
// byte (a TLS handshake's is 0x16, a plain link's PING's '*' or 'P') and
// closes, so the replica keeps redialling.
func TestTLSReplicationTurnedOnWhileReplicaDials(t *testing.T) {
	master, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	var dials, tlsDials atomic.Int64
	go func() {
		for {
			c, err := master.Accept()
			if err != nil {
				return
			}
			var first [1]byte
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := io.ReadFull(c, first[:]); err == nil && first[0] == 0x16 {
				tlsDials.Add(1)
			}
			dials.Add(1)
			c.Close()
		}
	}()
	c, done, stop := runPlainNode(t)
	ctx := context.Background()
	mport := master.Addr().(*net.TCPAddr).Port
	if err := c.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(mport)).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); dials.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the replica never dialled its master")
		}
	}
	if err := c.Do(ctx, "CONFIG", "SET", "tls-replication", "yes", "tls-cert-file", fixture(t, "server.crt"), "tls-key-file", fixture(t, "server.key"),
		"tls-ca-cert-file", fixture(t, "ca.crt")).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); tlsDials.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no TLS dial after tls-replication yes (%d plain dials)", dials.Load())
		}
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("Run exited %d", code)
	}
}
