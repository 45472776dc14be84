package conf

import (
	"crypto/tls"
	"slices"
	"strings"
	"testing"
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
