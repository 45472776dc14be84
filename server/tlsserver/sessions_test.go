package tlsserver

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"testing"
	"time"
)

// fixtureSettings serves testdata/server.crt, verifying clients with
// testdata/ca.crt when asked.
func fixtureSettings() Settings {
	return Settings{CertFile: "testdata/server.crt", KeyFile: "testdata/server.key", CAFile: "testdata/ca.crt",
		SessionCaching: true, SessionCacheTimeout: 300 * time.Second}
}

// serveEcho serves b's server side on loopback: each connection echoes
// one byte, which makes a TLS 1.3 client read its session ticket.
func serveEcho(t *testing.T, b *Bundle) string {
	t.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", b.server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 1)
				if _, err := io.ReadFull(c, buf); err == nil {
					_, _ = c.Write(buf)
				}
			}()
		}
	}()
	return l.Addr().String()
}

// resumed dials addr with cfg, exchanges a byte, and reports whether the
// handshake resumed a session.
func resumed(t *testing.T, addr string, cfg *tls.Config) bool {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := []byte{'x'}
	if _, err := c.Write(buf); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	return c.ConnectionState().DidResume
}

func caPool(t *testing.T) *x509.CertPool {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(mustRead(t, "testdata/ca.crt")) {
		t.Fatal("testdata/ca.crt")
	}
	return pool
}

// Session tickets, as Redis 7.0 with OpenSSL 3: a client resumes (TLS
// 1.2 and 1.3) under tls-session-caching yes and no alike; a ticket lives
// tls-session-cache-timeout under yes, OpenSSL's two hours under no or
// with a timeout of 0; a new configuration does not take the old one's
// tickets. The clock is the test's.
func TestSessionTickets(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	build := func(caching bool, timeout time.Duration) (*Bundle, string) {
		s := fixtureSettings()
		s.SessionCaching, s.SessionCacheTimeout = caching, timeout
		b, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		b.tickets.now = func() time.Time { return now }
		return b, serveEcho(t, b)
	}
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, tc := range []struct {
			caching  bool
			timeout  time.Duration
			lifetime time.Duration
		}{
			{true, 300 * time.Second, 300 * time.Second},
			{true, 0, 2 * time.Hour},
			{false, 300 * time.Second, 2 * time.Hour},
		} {
			_, addr := build(tc.caching, tc.timeout)
			cfg := &tls.Config{RootCAs: caPool(t), ServerName: "localhost", MaxVersion: v, ClientSessionCache: tls.NewLRUClientSessionCache(8)}
			if resumed(t, addr, cfg) {
				t.Fatalf("%x %+v: the first handshake resumed", v, tc)
			}
			now = now.Add(tc.lifetime - time.Second)
			if !resumed(t, addr, cfg) {
				t.Errorf("%x %+v: a ticket 1 s short of its lifetime did not resume", v, tc)
			}
			// The resumption issued a fresh ticket (TLS 1.3) or kept the
			// old one (1.2): past the lifetime of either, no resumption.
			now = now.Add(tc.lifetime + time.Second)
			if resumed(t, addr, cfg) {
				t.Errorf("%x %+v: a ticket past its lifetime resumed", v, tc)
			}
		}
		// Another configuration, the same files: its own ticket keys.
		_, addr := build(true, 300*time.Second)
		cfg := &tls.Config{RootCAs: caPool(t), ServerName: "localhost", MaxVersion: v, ClientSessionCache: tls.NewLRUClientSessionCache(8)}
		resumed(t, addr, cfg)
		_, other := build(true, 300*time.Second)
		if resumed(t, other, cfg) {
			t.Errorf("%x: a new configuration took the old one's ticket", v)
		}
	}
}

// A ticket's stamp is replaced, not appended, when its session is
// wrapped again, and a ticket without one, or a forged one, makes a full
// handshake rather than an error.
func TestTicketStamp(t *testing.T) {
	b, err := Build(fixtureSettings())
	if err != nil {
		t.Fatal(err)
	}
	var got *tls.SessionState
	wrap := b.server.WrapSession
	b.server.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		got = ss
		return wrap(cs, ss)
	}
	resumed(t, serveEcho(t, b), &tls.Config{RootCAs: caPool(t), ServerName: "localhost", ClientSessionCache: tls.NewLRUClientSessionCache(1)})
	if got == nil {
		t.Fatal("no session was wrapped")
	}
	got.Extra = append(got.Extra, []byte("another layer's"))
	for i := 0; i < 3; i++ {
		if _, err := b.tickets.wrap(tls.ConnectionState{}, got); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.Extra) != 2 {
		t.Errorf("Extra after three wraps: %q", got.Extra)
	}
	for _, ticket := range [][]byte{nil, []byte("forged"), make([]byte, 200)} {
		if ss, err := b.tickets.unwrap(ticket, tls.ConnectionState{}); ss != nil || err != nil {
			t.Errorf("ticket %q: %v %v", ticket, ss, err)
		}
	}
	unstamped, err := b.server.EncryptTicket(tls.ConnectionState{}, &tls.SessionState{})
	if err == nil {
		if ss, err := b.tickets.unwrap(unstamped, tls.ConnectionState{}); ss != nil || err != nil {
			t.Errorf("an unstamped ticket: %v %v", ss, err)
		}
	}
}

// ClientConfig shows tls-client-cert-file when both client files are
// set (decrypted with tls-client-key-file-pass), else the server's
// certificate; the CAs are its roots.
func TestClientConfig(t *testing.T) {
	s := fixtureSettings()
	s.ClientAuth = tls.RequireAndVerifyClientCert
	s.ClientCertFile, s.ClientKeyFile, s.ClientKeyFilePass = "testdata/client.crt", "testdata/client-pkcs8-aes128.key", "tandem"
	b, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	certs := &Certs{}
	certs.Use(b)
	addr := serveEcho(t, b)
	cfg := certs.ClientConfig()
	cfg.ServerName = "localhost"
	if resumed(t, addr, cfg) {
		t.Fatal("resumed at once")
	}
	leaf, _ := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if leaf.Subject.CommonName != "tandem-test-client" {
		t.Errorf("client certificate %q", leaf.Subject.CommonName)
	}
	// Only one of the pair: the server's certificate is shown, as Redis.
	s.ClientKeyFile = ""
	if b, err = Build(s); err != nil {
		t.Fatal(err)
	}
	certs.Use(b)
	if leaf, _ := x509.ParseCertificate(certs.ClientConfig().Certificates[0].Certificate[0]); leaf.Subject.CommonName != "localhost" {
		t.Errorf("without tls-client-key-file: client certificate %q, want the server's", leaf.Subject.CommonName)
	}
	for name, bad := range map[string]func(*Settings){
		"wrong client pass":  func(s *Settings) { s.ClientKeyFile, s.ClientKeyFilePass = "testdata/client-pkcs8-aes128.key", "wrong" },
		"missing client key": func(s *Settings) { s.ClientKeyFile = "testdata/missing.key" },
		"mismatched pair":    func(s *Settings) { s.ClientKeyFile = "testdata/server.key" },
		"peers without CAs": func(s *Settings) {
			s.ClientKeyFile, s.CAFile, s.ClientAuth, s.Peers = "testdata/client.key", "", tls.NoClientCert, true
		},
		"bad DH params": func(s *Settings) { s.ClientKeyFile, s.DHParamsFile = "testdata/client.key", "testdata/dh1024.pem" },
	} {
		s := fixtureSettings()
		s.ClientCertFile = "testdata/client.crt"
		bad(&s)
		if _, err := Build(s); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}
