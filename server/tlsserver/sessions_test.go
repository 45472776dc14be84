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
		SessionCaching: true, SessionCacheSize: 20480, SessionCacheTimeout: 300 * time.Second}
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

// tls-session-caching: a client resumes its session (TLS 1.2 and 1.3)
// through the server's cache; with "no" it never does; a new
// configuration starts with an empty cache.
func TestSessionResumption(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		b, err := Build(fixtureSettings())
		if err != nil {
			t.Fatal(err)
		}
		addr := serveEcho(t, b)
		cfg := &tls.Config{RootCAs: caPool(t), ServerName: "localhost", MaxVersion: v, ClientSessionCache: tls.NewLRUClientSessionCache(8)}
		if resumed(t, addr, cfg) {
			t.Fatalf("%x: the first handshake resumed", v)
		}
		if !resumed(t, addr, cfg) {
			t.Errorf("%x: the second handshake did not resume", v)
		}
		if n := b.sessions.len(); n == 0 {
			t.Errorf("%x: nothing cached", v)
		}

		s := fixtureSettings()
		s.SessionCaching = false
		off, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		addr = serveEcho(t, off)
		cfg = &tls.Config{RootCAs: caPool(t), ServerName: "localhost", MaxVersion: v, ClientSessionCache: tls.NewLRUClientSessionCache(8)}
		resumed(t, addr, cfg)
		if resumed(t, addr, cfg) {
			t.Errorf("%x: resumed under tls-session-caching no", v)
		}
	}
}

// The cache keeps at most size sessions, the newest, each for the
// timeout; a ticket not in it (another server's, forged, expired) makes
// a full handshake, not an error.
func TestSessionCacheBounds(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newSessionCache(2, 10*time.Second)
	c.now = func() time.Time { return now }
	state := func() *tls.SessionState {
		b, err := Build(fixtureSettings())
		if err != nil {
			t.Fatal(err)
		}
		// A real session state, made by a handshake.
		var got *tls.SessionState
		b.server.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
			got = ss
			return []byte("ticket"), nil
		}
		addr := serveEcho(t, b)
		resumed(t, addr, &tls.Config{RootCAs: caPool(t), ServerName: "localhost", ClientSessionCache: tls.NewLRUClientSessionCache(1)})
		if got == nil {
			t.Fatal("no session was wrapped")
		}
		return got
	}()
	var keys [][]byte
	for i := 0; i < 3; i++ {
		k, err := c.wrap(tls.ConnectionState{}, state)
		if err != nil || len(k) != sessionKeyLen {
			t.Fatalf("wrap: %x %v", k, err)
		}
		keys = append(keys, k)
		now = now.Add(time.Second)
	}
	if c.len() != 2 {
		t.Fatalf("%d sessions cached, size 2", c.len())
	}
	if ss, err := c.unwrap(keys[0], tls.ConnectionState{}); ss != nil || err != nil {
		t.Errorf("the oldest session, evicted, resumed: %v %v", ss, err)
	}
	if ss, err := c.unwrap(keys[2], tls.ConnectionState{}); ss == nil || err != nil {
		t.Errorf("the newest session: %v %v", ss, err)
	}
	if ss, err := c.unwrap([]byte("forged"), tls.ConnectionState{}); ss != nil || err != nil {
		t.Errorf("a forged ticket: %v %v", ss, err)
	}
	now = now.Add(9 * time.Second) // keys[1] issued 11 s ago, keys[2] 10 s ago
	if ss, _ := c.unwrap(keys[2], tls.ConnectionState{}); ss != nil || c.len() != 0 {
		t.Errorf("sessions past the timeout: resumed %v, %d cached", ss != nil, c.len())
	}
	// Size 0 is no bound, as OpenSSL's; timeout 0 keeps nothing.
	unbounded := newSessionCache(0, time.Hour)
	for i := 0; i < 100; i++ {
		_, _ = unbounded.wrap(tls.ConnectionState{}, state)
	}
	if unbounded.len() != 100 {
		t.Errorf("size 0 kept %d of 100", unbounded.len())
	}
	none := newSessionCache(10, 0)
	k, _ := none.wrap(tls.ConnectionState{}, state)
	if ss, _ := none.unwrap(k, tls.ConnectionState{}); ss != nil {
		t.Error("timeout 0 resumed a session")
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
