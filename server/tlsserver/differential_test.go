package tlsserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
)

// fixture is the absolute path of a file of testdata (gen.sh), so that
// redis-server and Tandem read the same files.
func fixture(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureClient trusts testdata/ca.crt, which signed testdata/server.crt.
func fixtureClient(t testing.TB) *tls.Config {
	pool := x509.NewCertPool()
	b, err := os.ReadFile(fixture(t, "ca.crt"))
	if err != nil || !pool.AppendCertsFromPEM(b) {
		t.Fatalf("testdata/ca.crt: %v", err)
	}
	return &tls.Config{RootCAs: pool, ServerName: "localhost"}
}

// startRedisTLS runs Debian's redis-server (built with TLS) on a TLS
// port only, with the fixtures, and returns a client over TLS.
func startRedisTLS(t *testing.T) (*redis.Client, string) {
	t.Helper()
	bin := realserver.Path(t, realserver.Redis)
	port, dir := freePort(t), t.TempDir()
	cmd := exec.Command(bin, "--port", "0", "--tls-port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--tls-cert-file", fixture(t, "server.crt"), "--tls-key-file", fixture(t, "server.key"),
		"--tls-ca-cert-file", fixture(t, "ca.crt"), "--tls-auth-clients", "no",
		"--save", "", "--dir", dir, "--logfile", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: fixtureClient(t), MaxRetries: -1, Protocol: 2,
		DialTimeout: 20 * time.Second, ReadTimeout: 20 * time.Second})
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatal("redis-server with TLS did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c, addr
}

// TestDifferentialTLSConfigSet sends the same CONFIG SETs of the TLS
// directives, with real certificate, key and DH files, to redis-server
// 7.0 over TLS and to a Tandem node over TLS, and compares each reply
// and CONFIG GET of every name set. Both run TLS only, with the same
// files; only tls-port's value differs.
func TestDifferentialTLSConfigSet(t *testing.T) {
	ctx := context.Background()
	rc, raddr := startRedisTLS(t)
	td := startTandem(t, "--tls-cert-file", fixture(t, "server.crt"), "--tls-key-file", fixture(t, "server.key"),
		"--tls-ca-cert-file", fixture(t, "ca.crt"), "--tls-auth-clients", "no")
	tc := td.redis(t, fixtureClient(t))
	f := func(name string) string { return fixture(t, name) }
	cases := [][]string{
		{"tls-cert-file", "/nonexistent"},
		{"tls-cert-file", f("server.crt"), "tls-key-file", "/nonexistent"},
		{"tls-cert-file", f("client.crt")}, // does not match the key
		{"tls-key-file", f("server-pkcs8-aes256.key")},
		{"tls-key-file-pass", "wrong", "tls-key-file", f("server-pkcs8-aes256.key")},
		{"tls-key-file", f("server-pkcs8-aes256.key"), "tls-key-file-pass", "tandem"},
		{"tls-key-file-pass", "wrong"},
		{"tls-key-file", f("server-legacy-aes128.key")},
		{"tls-key-file", f("server-pkcs8-des3.key")},
		{"tls-key-file", f("server.key"), "tls-key-file-pass", ""},
		{"tls-key-file-pass", "ignored"}, {"tls-key-file-pass", ""},
		{"tls-cert-file", f("server.crt")}, // the same path: reloaded, and fine
		{"tls-dh-params-file", "/nonexistent"}, {"tls-dh-params-file", f("dh1024.pem")},
		{"tls-dh-params-file", f("dh-x942.pem")}, {"tls-dh-params-file", f("server.crt")},
		{"tls-dh-params-file", f("dh2048.pem")}, {"tls-dh-params-file", ""},
		{"tls-client-cert-file", "/nonexistent"}, // one of the pair: not loaded
		{"tls-client-key-file", "/nonexistent"},
		{"tls-client-cert-file", f("client.crt"), "tls-client-key-file", f("client.key")},
		{"tls-client-key-file", f("client-pkcs8-aes128.key")},
		{"tls-client-key-file", f("client-pkcs8-aes128.key"), "tls-client-key-file-pass", "tandem"},
		{"tls-client-key-file", f("server.key")}, // does not match the client certificate
		{"tls-client-cert-file", "", "tls-client-key-file", "", "tls-client-key-file-pass", ""},
		{"tls-session-caching", "maybe"}, {"tls-session-caching", "no"}, {"tls-session-cache-size", "-1"},
		{"tls-session-cache-size", "0"}, {"tls-session-cache-size", "100"}, {"tls-session-cache-timeout", "abc"},
		{"tls-session-cache-timeout", "60"}, {"tls-session-caching", "yes"},
		{"tls-replication", "yes"}, {"tls-cluster", "maybe"}, {"tls-cluster", "yes"},
		{"tls-ca-cert-file", "/nonexistent"}, {"tls-ca-cert-file", ""}, // CAs required by tls-replication
		{"tls-replication", "no", "tls-cluster", "no"},
		{"tls-auth-clients", "optional"}, {"tls-auth-clients", "no"},
		{"tls-protocols", "TLSv1.2"}, {"tls-protocols", ""},
	}
	reply := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return "OK"
	}
	for _, args := range cases {
		cmd := []any{"CONFIG", "SET"}
		for _, a := range args {
			cmd = append(cmd, a)
		}
		want := reply(rc.Do(ctx, cmd...).Err())
		if got := reply(tc.Do(ctx, cmd...).Err()); got != want {
			t.Errorf("CONFIG SET %q:\n  tandem %s\n  redis  %s", args, got, want)
		}
		for i := 0; i < len(args); i += 2 {
			w, err1 := rc.ConfigGet(ctx, args[i]).Result()
			g, err2 := tc.ConfigGet(ctx, args[i]).Result()
			if fmt.Sprint(g, err2) != fmt.Sprint(w, err1) {
				t.Errorf("after CONFIG SET %q: CONFIG GET %s: tandem %v %v, redis %v %v", args, args[i], g, err2, w, err1)
			}
		}
	}
	w, _ := rc.ConfigGet(ctx, "tls-*").Result()
	g, _ := tc.ConfigGet(ctx, "tls-*").Result()
	delete(w, "tls-port")
	delete(g, "tls-port")
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Errorf("CONFIG GET tls-*:\n  tandem %v\n  redis  %v", g, w)
	}
	// Both still serve with what they kept.
	if err := tc.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}

	// Resumption after a CONFIG SET of tls-session-caching, TLS 1.2 and
	// 1.3: the first connection of a new configuration handshakes in full,
	// the next resumes by ticket, under yes and no alike.
	taddr := "127.0.0.1:" + strconv.Itoa(td.tlsPort)
	for _, caching := range []string{"no", "yes"} {
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			var got, want [2]bool
			for _, side := range []struct {
				c    *redis.Client
				addr string
				out  *[2]bool
			}{{rc, raddr, &want}, {tc, taddr, &got}} {
				if err := side.c.ConfigSet(ctx, "tls-session-caching", caching).Err(); err != nil {
					t.Fatal(err)
				}
				cfg := fixtureClient(t)
				cfg.MaxVersion, cfg.ClientSessionCache = v, tls.NewLRUClientSessionCache(4)
				side.out[0], side.out[1] = pingResumed(t, side.addr, cfg), pingResumed(t, side.addr, cfg)
			}
			if want != [2]bool{false, true} {
				t.Errorf("tls-session-caching %s, TLS %x: redis resumed (first, second) %v; this test expects a full handshake, then a resumption", caching, v, want)
			}
			if got != want {
				t.Errorf("tls-session-caching %s, TLS %x: resumed (first, second) tandem %v, redis %v", caching, v, got, want)
			}
		}
	}
}
