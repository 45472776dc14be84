package conf

import (
	"crypto/tls"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTLSProtocols(t *testing.T) {
	for _, tc := range []struct {
		in     string
		lo, hi uint16
		bad    bool
	}{
		{"", tls.VersionTLS12, tls.VersionTLS13, false},
		{"TLSv1.2 TLSv1.3", tls.VersionTLS12, tls.VersionTLS13, false},
		{"tlsv1.3", tls.VersionTLS13, tls.VersionTLS13, false},
		{"TLSv1 TLSv1.1 TLSv1.2", tls.VersionTLS10, tls.VersionTLS12, false},
		{"TLSv1.1 TLSv1.3", 0, 0, true}, // Go could only enable 1.1 to 1.3: refused
		{"SSLv3", 0, 0, true},
	} {
		lo, hi, r := parseTLSProtocols(tc.in)
		if (r != "") != tc.bad || lo != tc.lo || hi != tc.hi {
			t.Errorf("%q: %x %x %q", tc.in, lo, hi, r)
		}
	}
}

func TestTLSCiphers(t *testing.T) {
	ids, r := parseTLSCiphers("ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:DEFAULT")
	if r != "" || !slices.Equal(ids, []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}) {
		t.Fatalf("%v %q", ids, r)
	}
	if ids, r := parseTLSCiphers(""); r != "" || ids != nil {
		t.Fatalf("empty: %v %q", ids, r)
	}
	for _, bad := range []string{"HIGH:!aNULL", "RC4-SHA", "TLS_AES_128_GCM_SHA256"} {
		if _, r := parseTLSCiphers(bad); r == "" {
			t.Errorf("%q accepted", bad)
		}
	}
	if r := checkTLSCiphersuites("TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256"); r != "" {
		t.Errorf("all three TLS 1.3 suites refused: %s", r)
	}
	if r := checkTLSCiphersuites("TLS_AES_256_GCM_SHA384"); r == "" {
		t.Error("a narrower TLS 1.3 list, which Go cannot honour, was accepted")
	}
}

// TestTLSDirectives: they load from flags, show in CONFIG GET, the files
// and policies are settable at run time, the ports are not, and a TLS
// port needs a certificate and distinct ports.
func TestTLSDirectives(t *testing.T) {
	c := mustLoad(t, []string{"--tls-port", "6380", "--memcached-tls-port", "11212", "--tls-cert-file", "s.pem", "--tls-key-file", "s.key",
		"--tls-auth-clients", "optional", "--tls-protocols", "TLSv1.3"}, nil)
	if c.TLSPort() != 6380 || c.MemcachedTLSPort() != 11212 || c.TLSAuthClients() != TLSAuthOptional || c.TLSFiles().Cert != "s.pem" {
		t.Fatalf("%d %d %d %+v", c.TLSPort(), c.MemcachedTLSPort(), c.TLSAuthClients(), c.TLSFiles())
	}
	if lo, hi := c.TLSVersions(); lo != tls.VersionTLS13 || hi != tls.VersionTLS13 {
		t.Fatalf("versions %x %x", lo, hi)
	}
	if err := c.Set([2]string{"tls-cert-file", "t.pem"}, [2]string{"tls-ca-cert-dir", "/etc/ca"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Set([2]string{"tls-port", "6390"}); err == nil || !strings.Contains(err.Error(), reasonImmutable) {
		t.Fatalf("tls-port set at run time: %v", err)
	}
	if err := c.Set([2]string{"tls-protocols", "TLSv1 TLSv1.3"}); err == nil {
		t.Fatal("a non-contiguous tls-protocols accepted by CONFIG SET")
	}
	d := mustLoad(t, nil, nil)
	if d.TLSPort() != 0 || d.TLSAuthClients() != TLSAuthYes || len(d.Get("tls-*")) == 0 {
		t.Fatal("TLS defaults")
	}
	for _, args := range [][]string{
		{"--tls-port", "6380"}, // no certificate
		{"--tls-port", "6379", "--tls-cert-file", "a", "--tls-key-file", "b"},
		{"--tls-port", "6380", "--memcached-tls-port", "6380", "--tls-cert-file", "a", "--tls-key-file", "b"},
	} {
		if _, err := Load(args, nil); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	// tls-port 0 in a redis.conf is as good as absent.
	mustLoad(t, []string{"--tls-port", "0"}, nil)
}

// TestOnApply: an applier runs once per Set that gives its directives a
// new value or names a volatile one; its refusal refuses the whole Set
// with redis's text naming the group's first directive given, leaving
// every value, the OnChange callbacks and the other appliers' commits
// untouched; its commit runs after the values are published.
func TestOnApply(t *testing.T) {
	c := mustLoad(t, []string{"--tls-cert-file", "a.pem", "--tls-key-file", "a.key"}, nil)
	var calls, commits, changes int
	var refuse error
	var sawNext, sawAtCommit string
	c.OnApply([]string{"tls-cert-file", "tls-key-file", "tls-protocols"}, func(next *Config) (func(), error) {
		calls++
		sawNext = next.TLSFiles().Cert
		if refuse != nil {
			return nil, refuse
		}
		return func() { commits++; sawAtCommit = c.TLSFiles().Cert }, nil
	})
	var otherCommits int
	c.OnApply([]string{"maxmemory"}, func(*Config) (func(), error) { return func() { otherCommits++ }, nil })
	c.OnChange("tls-cert-file", func(*Config) { changes++ })

	set := func(pairs ...[2]string) error { return c.Set(pairs...) }
	if err := set([2]string{"tls-cert-file", "b.pem"}, [2]string{"tls-key-file", "b.key"}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || commits != 1 || sawNext != "b.pem" || sawAtCommit != "b.pem" || changes != 1 {
		t.Fatalf("calls %d commits %d next %q at commit %q changes %d", calls, commits, sawNext, sawAtCommit, changes)
	}
	// Unchanged and not volatile: not applied. The same path of a file
	// (volatile): applied, as Redis reloads it.
	if err := set([2]string{"tls-protocols", ""}); err != nil || calls != 1 {
		t.Fatalf("unchanged tls-protocols: %v, %d calls", err, calls)
	}
	if err := set([2]string{"tls-cert-file", "b.pem"}); err != nil || calls != 2 || commits != 2 || changes != 1 {
		t.Fatalf("same tls-cert-file: %v, %d calls, %d commits, %d changes", err, calls, commits, changes)
	}

	refuse = ErrTLSUpdate
	err := set([2]string{"maxmemory", "1mb"}, [2]string{"tls-protocols", "TLSv1.3"}, [2]string{"tls-cert-file", "c.pem"})
	want := "ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to update TLS configuration. Check server logs."
	if err == nil || err.Error() != want {
		t.Fatalf("refused Set: %v, want %q", err, want)
	}
	if c.TLSFiles().Cert != "b.pem" || c.MaxMemory() != 0 || commits != 2 || otherCommits != 0 || changes != 1 {
		t.Fatalf("a refused Set left cert %q maxmemory %d, %d commits, %d other commits, %d changes",
			c.TLSFiles().Cert, c.MaxMemory(), commits, otherCommits, changes)
	}
	refuse = nil
	if err := set([2]string{"maxmemory", "1mb"}); err != nil || otherCommits != 1 || calls != 3 {
		t.Fatalf("another group's Set: %v, %d other commits, %d calls", err, otherCommits, calls)
	}
}

// TestTLSRedisDirectives: Redis 7.0's other TLS directives load, show in
// CONFIG GET with Redis's defaults, and check their values;
// tls-replication and tls-cluster make TLS configured, so they need the
// certificate as a TLS port does.
func TestTLSRedisDirectives(t *testing.T) {
	d := mustLoad(t, nil, nil)
	for name, want := range map[string]string{"tls-key-file-pass": "", "tls-client-cert-file": "", "tls-client-key-file": "",
		"tls-client-key-file-pass": "", "tls-dh-params-file": "", "tls-session-caching": "yes", "tls-session-cache-size": "20480",
		"tls-session-cache-timeout": "300", "tls-replication": "no", "tls-cluster": "no"} {
		if v, ok := d.Value(name); !ok || v != want {
			t.Errorf("%s: %q %v, want %q", name, v, ok, want)
		}
	}
	if on, size, ttl := d.TLSSessionCache(); !on || size != 20480 || ttl != 300*time.Second || d.TLSEnabled() || d.TLSPeers() {
		t.Errorf("defaults: %v %d %v enabled %v peers %v", on, size, ttl, d.TLSEnabled(), d.TLSPeers())
	}
	c := mustLoad(t, []string{"--tls-replication", "yes", "--tls-cert-file", "s.pem", "--tls-key-file", "s.key", "--tls-key-file-pass", "p",
		"--tls-client-cert-file", "c.pem", "--tls-client-key-file", "c.key", "--tls-client-key-file-pass", "q", "--tls-dh-params-file", "dh.pem",
		"--tls-session-caching", "no", "--tls-session-cache-size", "0", "--tls-session-cache-timeout", "60"}, nil)
	want := TLSFiles{Cert: "s.pem", Key: "s.key", KeyPass: "p", ClientCert: "c.pem", ClientKey: "c.key", ClientKeyPass: "q", DHParams: "dh.pem"}
	if got := c.TLSFiles(); got != want || !c.TLSEnabled() || !c.TLSPeers() {
		t.Fatalf("%+v enabled %v peers %v", got, c.TLSEnabled(), c.TLSPeers())
	}
	if on, size, ttl := c.TLSSessionCache(); on || size != 0 || ttl != time.Minute {
		t.Fatalf("session cache %v %d %v", on, size, ttl)
	}
	for _, args := range [][]string{
		{"--tls-replication", "yes"}, {"--tls-cluster", "yes"}, // no certificate
		{"--tls-session-cache-size", "-1"}, {"--tls-session-caching", "maybe"}, {"--tls-replication", "maybe"},
	} {
		if _, err := Load(args, nil); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	// Before, "tls-replication no" was ignored and "yes" refused as
	// unsupported; now both are directives.
	mustLoad(t, []string{"--tls-replication", "no", "--tls-cluster", "no"}, nil)
}
