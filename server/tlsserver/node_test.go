package tlsserver_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/node"
	"github.com/tandemkv/tandem/node/nodetest"
)

// tandem is a running node with plain and TLS ports on both protocols.
type tandem struct {
	n                              *node.Node
	port, mport, tlsPort, mtlsPort int
	pki                            *testPKI
	certFile, keyFile              string
}

var freePort = nodetest.FreePort

// startTandem runs a node; extra are more --directive value arguments.
// It is ready once its last TLS port listens.
func startTandem(t testing.TB, extra ...string) *tandem {
	t.Helper()
	td := &tandem{port: freePort(t), mport: freePort(t), tlsPort: freePort(t), mtlsPort: freePort(t), pki: newPKI(t)}
	td.certFile, td.keyFile = td.pki.issue(t, "server", true)
	args := []string{"--port", strconv.Itoa(td.port), "--memcached-port", strconv.Itoa(td.mport),
		"--tls-port", strconv.Itoa(td.tlsPort), "--memcached-tls-port", strconv.Itoa(td.mtlsPort),
		"--tls-cert-file", td.certFile, "--tls-key-file", td.keyFile, "--tls-ca-cert-file", td.pki.CAFile,
		"--save", "", "--dir", t.TempDir(), "--maxmemory", "64mb"}
	td.n = nodetest.Start(t, append(args, extra...), func(*node.Node) bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.mtlsPort))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return td
}

func (td *tandem) redis(t testing.TB, tlsCfg *tls.Config) *redis.Client {
	port := td.port
	if tlsCfg != nil {
		port = td.tlsPort
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), TLSConfig: tlsCfg, MaxRetries: -1, Protocol: 2,
		ReadTimeout: 20 * time.Second, WriteTimeout: 20 * time.Second, DialTimeout: 20 * time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRedisOverTLS: go-redis v9 over TLS, the plain port beside it, one
// keyspace with memcached over TLS.
func TestRedisOverTLS(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	ctx := context.Background()
	rt, rp := td.redis(t, td.pki.clientConfig(t, "")), td.redis(t, nil)
	if err := rt.Set(ctx, "k", "over tls", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := rp.Get(ctx, "k").Result(); err != nil || v != "over tls" {
		t.Fatalf("plain GET: %q %v", v, err)
	}
	// A big value: many TLS records each way.
	big := strings.Repeat("x", 3<<20)
	if err := rt.Set(ctx, "big", big, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := rt.Get(ctx, "big").Result(); err != nil || v != big {
		t.Fatalf("big GET over TLS: %d bytes, %v", len(v), err)
	}
	// A pipeline.
	pipe := rt.Pipeline()
	for i := 0; i < 1000; i++ {
		pipe.Incr(ctx, "n")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := rp.Get(ctx, "n").Int(); v != 1000 {
		t.Fatalf("n = %d after a pipeline of 1000 INCR", v)
	}
	if n, _ := rp.ClientList(ctx).Result(); strings.Count(n, "\n") < 2 {
		t.Fatalf("CLIENT LIST should show both connections:\n%s", n)
	}

	mc := memcache.New("127.0.0.1:" + strconv.Itoa(td.mtlsPort))
	mc.Timeout = 20 * time.Second // handshakes under -race on a busy machine
	mc.DialContext = (&tls.Dialer{Config: td.pki.clientConfig(t, "")}).DialContext
	it, err := mc.Get("k")
	if err != nil || string(it.Value) != "over tls" {
		t.Fatalf("memcached over TLS: %v %v", it, err)
	}
	if err := mc.Set(&memcache.Item{Key: "m", Value: []byte("from memcached"), Flags: 7}); err != nil {
		t.Fatal(err)
	}
	if v, err := rt.Get(ctx, "m").Result(); err != nil || v != "from memcached" {
		t.Fatalf("GET of a memcached write: %q %v", v, err)
	}
}

// TestMemcachedRawTLS: the text protocol over tls.Dial, byte for byte.
func TestMemcachedRawTLS(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.mtlsPort), td.pki.clientConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	_, _ = c.Write([]byte("set a 5 0 3\r\nabc\r\nget a\r\nmn\r\n"))
	var got strings.Builder
	for !strings.HasSuffix(got.String(), "MN\r\n") {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%v after %q", err, got.String())
		}
		got.WriteString(line)
	}
	if want := "STORED\r\nVALUE a 5 3\r\nabc\r\nEND\r\nMN\r\n"; got.String() != want {
		t.Fatalf("got %q, want %q", got.String(), want)
	}
}

// TestBlockingAndPubSubOverTLS: BLPOP on a TLS connection is woken by a
// push on the plain port; a TLS subscriber gets a message published on
// the plain port (AsyncWrite).
func TestBlockingAndPubSubOverTLS(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	ctx := context.Background()
	rt, rp := td.redis(t, td.pki.clientConfig(t, "")), td.redis(t, nil)
	res := make(chan []string, 1)
	go func() {
		v, err := rt.BLPop(ctx, 5*time.Second, "q").Result()
		if err != nil {
			v = []string{err.Error()}
		}
		res <- v
	}()
	time.Sleep(100 * time.Millisecond) // BLPOP is parked
	if err := rp.RPush(ctx, "q", "job").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-res:
		if len(v) != 2 || v[1] != "job" {
			t.Fatalf("BLPOP over TLS: %q", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("BLPOP over TLS was not woken")
	}
	// A BLPOP timeout is a Wake too.
	start := time.Now()
	if err := rt.BLPop(ctx, 200*time.Millisecond, "empty").Err(); err != redis.Nil || time.Since(start) > 2*time.Second {
		t.Fatalf("BLPOP timeout over TLS: %v after %v", err, time.Since(start))
	}

	sub := rt.Subscribe(ctx, "news")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscribe confirmation
		t.Fatal(err)
	}
	if n, err := rp.Publish(ctx, "news", "hello").Result(); err != nil || n != 1 {
		t.Fatalf("PUBLISH: %d %v", n, err)
	}
	select {
	case m := <-sub.Channel():
		if m.Payload != "hello" {
			t.Fatalf("message %q", m.Payload)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no pub/sub message over TLS")
	}
}

// TestMutualTLS: tls-auth-clients yes refuses a client without a
// certificate (and one from another CA); optional accepts both but still
// refuses a bad certificate; no asks for none.
func TestMutualTLS(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		auth                       string
		withCert, without, otherCA bool // whether each client gets in
	}{
		{"yes", true, false, false},
		{"optional", true, true, false},
		{"no", true, true, true},
	} {
		t.Run(tc.auth, func(t *testing.T) {
			td := startTandem(t, "--tls-auth-clients", tc.auth)
			other := newPKI(t)
			otherCfg := other.clientConfig(t, "stranger")
			otherCfg.RootCAs = td.pki.pool // trusts the server; its own cert is from another CA
			for _, c := range []struct {
				name string
				cfg  *tls.Config
				ok   bool
			}{
				{"with a certificate", td.pki.clientConfig(t, "client"), tc.withCert},
				{"without a certificate", td.pki.clientConfig(t, ""), tc.without},
				{"with another CA's certificate", otherCfg, tc.otherCA},
			} {
				for _, port := range []int{td.tlsPort, td.mtlsPort} {
					err := tryTLS(ctx, port, port == td.mtlsPort, c.cfg)
					if (err == nil) != c.ok {
						t.Errorf("tls-auth-clients %s, port %d, client %s: err %v, want ok=%v", tc.auth, port, c.name, err, c.ok)
					}
				}
			}
		})
	}
}

// tryTLS connects and runs one request (a TLS 1.3 server refuses a
// client certificate after the client's handshake returns, so the
// refusal shows at the first read).
func tryTLS(ctx context.Context, port int, memcached bool, cfg *tls.Config) error {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if !memcached {
		c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: cfg, MaxRetries: -1, Protocol: 2, DialTimeout: 20 * time.Second, ReadTimeout: 20 * time.Second})
		defer c.Close()
		return c.Ping(ctx).Err()
	}
	mc := memcache.New(addr)
	mc.Timeout = 20 * time.Second
	mc.DialContext = (&tls.Dialer{Config: cfg}).DialContext
	if err := mc.Set(&memcache.Item{Key: "probe", Value: []byte("1")}); err != nil {
		return err
	}
	return nil
}

// TestReloadCertificate: CONFIG SET tls-cert-file and tls-key-file make
// new connections see the new certificate; an established one goes on.
// A Set that leaves a pair that does not load is refused with Redis's
// text, all of it (cert and key in one Set are applied together or not
// at all): the old values and the old certificate stay. Setting a file
// to the path it has reloads it, as Redis (cert rotation in place).
func TestReloadCertificate(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	ctx := context.Background()
	serialOf := func() int64 {
		c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.tlsPort), td.pki.clientConfig(t, ""))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	files := func() [2]string {
		v, err := td.redis(t, nil).ConfigGet(ctx, "tls-*-file").Result()
		if err != nil {
			t.Fatal(err)
		}
		return [2]string{v["tls-cert-file"], v["tls-key-file"]}
	}
	before := serialOf()
	old := td.redis(t, td.pki.clientConfig(t, ""))
	if err := old.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	cert, key := td.pki.issue(t, "server2", true)
	const refused = "ERR CONFIG SET failed (possibly related to argument '%s') - Unable to update TLS configuration. Check server logs."
	for _, tc := range []struct {
		args []any
		name string
	}{
		{[]any{"tls-cert-file", cert}, "tls-cert-file"}, // the key does not match it
		{[]any{"tls-cert-file", "/nonexistent"}, "tls-cert-file"},
		{[]any{"tls-key-file", key}, "tls-key-file"},
		{[]any{"tls-cert-file", cert, "tls-key-file", "/nonexistent"}, "tls-cert-file"}, // Redis names the group's first
		{[]any{"maxmemory", "32mb", "tls-key-file", "/nonexistent"}, "tls-key-file"},
	} {
		err := old.Do(ctx, append([]any{"CONFIG", "SET"}, tc.args...)...).Err()
		if want := fmt.Sprintf(refused, tc.name); err == nil || err.Error() != want {
			t.Errorf("CONFIG SET %q: %v, want %q", tc.args, err, want)
		}
	}
	if got := serialOf(); got != before {
		t.Fatalf("a refused pair was loaded: serial %d, want %d", got, before)
	}
	if got := files(); got != [2]string{td.certFile, td.keyFile} {
		t.Fatalf("a refused CONFIG SET changed the values: %q", got)
	}
	if got, _ := old.ConfigGet(ctx, "maxmemory").Result(); got["maxmemory"] == "33554432" {
		t.Fatal("a refused CONFIG SET changed maxmemory")
	}

	if err := old.Do(ctx, "CONFIG", "SET", "tls-cert-file", cert, "tls-key-file", key).Err(); err != nil {
		t.Fatal(err)
	}
	after := serialOf()
	if after == before {
		t.Fatalf("new connections still see the old certificate (serial %d)", after)
	}
	if got := files(); got != [2]string{cert, key} {
		t.Fatalf("CONFIG GET after the Set: %q", got)
	}
	if err := old.Ping(ctx).Err(); err != nil {
		t.Fatalf("the established connection: %v", err)
	}

	// Rotation in place: new files under the first pair's names, then a
	// CONFIG SET to the same paths.
	if err := old.Do(ctx, "CONFIG", "SET", "tls-cert-file", td.certFile, "tls-key-file", td.keyFile).Err(); err != nil {
		t.Fatal(err)
	}
	if got := serialOf(); got != before {
		t.Fatalf("after setting both back: serial %d, want %d", got, before)
	}
	cert3, key3 := td.pki.issue(t, "server3", true)
	for _, f := range [][2]string{{cert3, td.certFile}, {key3, td.keyFile}} {
		b, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f[1], b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := serialOf(); got != before {
		t.Fatal("the files were reloaded without a CONFIG SET")
	}
	if err := old.Do(ctx, "CONFIG", "SET", "tls-cert-file", td.certFile, "tls-key-file", td.keyFile).Err(); err != nil {
		t.Fatal(err)
	}
	if got := serialOf(); got == before || got == after {
		t.Fatalf("CONFIG SET of the same paths did not reload the rotated files: serial %d", got)
	}
}

// TestRedisCLI: Debian's redis-cli --tls --cacert, and with a client
// certificate under tls-auth-clients yes.
func TestRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatal("redis-cli is not installed: this test checks the real client, it does not skip")
	}
	td := startTandem(t) // tls-auth-clients yes, Redis's default
	cert, key := td.pki.issue(t, "cli", false)
	run := func(args ...string) string {
		out, _ := exec.Command(cli, append([]string{"--tls", "--cacert", td.pki.CAFile, "-h", "127.0.0.1", "-p", strconv.Itoa(td.tlsPort)}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	if got := run("--cert", cert, "--key", key, "SET", "cli", "yes"); got != "OK" {
		t.Fatalf("redis-cli --tls SET: %q", got)
	}
	if got := run("--cert", cert, "--key", key, "GET", "cli"); got != "yes" {
		t.Fatalf("redis-cli --tls GET: %q", got)
	}
	if got := run("PING"); got == "PONG" {
		t.Fatal("redis-cli without a client certificate got in under tls-auth-clients yes")
	}
}

// TestStartFailsOnBadCertificate: a TLS port whose certificate cannot be
// loaded refuses start-up.
func TestStartFailsOnBadCertificate(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/bad.pem"
	_ = os.WriteFile(bad, []byte("not a certificate"), 0o600)
	expectStartFails(t, "a bad certificate", "--port", strconv.Itoa(freePort(t)), "--memcached-port", "0", "--tls-port", strconv.Itoa(freePort(t)),
		"--tls-cert-file", bad, "--tls-key-file", bad, "--tls-auth-clients", "no")
}

// TestReloadAuthClients: CONFIG SET tls-auth-clients applies to the next
// handshake.
func TestReloadAuthClients(t *testing.T) {
	td := startTandem(t) // yes
	ctx := context.Background()
	admin := td.redis(t, td.pki.clientConfig(t, "admin"))
	if err := tryTLS(ctx, td.tlsPort, false, td.pki.clientConfig(t, "")); err == nil {
		t.Fatal("a client without a certificate got in under tls-auth-clients yes")
	}
	if err := admin.ConfigSet(ctx, "tls-auth-clients", "no").Err(); err != nil {
		t.Fatal(err)
	}
	if err := tryTLS(ctx, td.tlsPort, false, td.pki.clientConfig(t, "")); err != nil {
		t.Fatalf("after CONFIG SET tls-auth-clients no: %v", err)
	}
	if err := tryTLS(ctx, td.mtlsPort, true, td.pki.clientConfig(t, "")); err != nil {
		t.Fatalf("memcached, after CONFIG SET tls-auth-clients no: %v", err)
	}
}

// TestTLSOnly: port 0 and memcached-port 0 with TLS ports serve TLS only,
// as Redis's "port 0" with tls-port; the node still stops cleanly.
func TestTLSOnly(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no", "--port", "0", "--memcached-port", "0")
	ctx := context.Background()
	if err := td.redis(t, td.pki.clientConfig(t, "")).Set(ctx, "only", "tls", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := tryTLS(ctx, td.mtlsPort, true, td.pki.clientConfig(t, "")); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.port)); err == nil {
		c.Close()
		t.Fatal("the plain port listens with port 0")
	}
}

// TestTLSCounts: the node's TLS connection counts (the metrics'
// tandem_tls_connections*) count a TLS client by its protocol, not a
// plain one, and the open count falls when it leaves.
func TestTLSCounts(t *testing.T) {
	td := startTandem(t, "--tls-auth-clients", "no")
	ctx := context.Background()
	plain := td.redis(t, nil)
	if err := plain.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rt := td.redis(t, td.pki.clientConfig(t, ""))
	if err := rt.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	r, m := td.n.TLSCounts()
	if r.Open != 1 || r.Accepted != 1 || m.Open != 0 || m.Accepted != 0 {
		t.Fatalf("with one TLS Redis client: redis %+v, memcached %+v", r, m)
	}
	rt.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if r, _ = td.n.TLSCounts(); r.Open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the client left: %+v", r)
		}
	}
	if r.Accepted != 1 {
		t.Errorf("accepted %d after the client left, want 1", r.Accepted)
	}
}
