package tlsserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// Settings are what a TLS configuration is built from (node reads them
// from the tls-* directives).
type Settings struct {
	CertFile, KeyFile string // the server's certificate chain and key, PEM
	KeyFilePass       string // tls-key-file-pass: decrypts an encrypted KeyFile (keys.go)
	// ClientCertFile and ClientKeyFile (tls-client-cert-file,
	// tls-client-key-file; ClientKeyFilePass decrypts the key) are the
	// certificate Tandem shows when it dials (ClientConfig); as in Redis
	// they count only when both are set, else the server's is shown.
	ClientCertFile, ClientKeyFile, ClientKeyFilePass string
	CAFile, CADir                                    string // the CAs client and peer certificates are verified with
	DHParamsFile                                     string // tls-dh-params-file: checked, unused (dhparams.go)
	// ClientAuth: tls.NoClientCert (tls-auth-clients no),
	// tls.RequireAndVerifyClientCert (yes) or tls.VerifyClientCertIfGiven
	// (optional).
	ClientAuth tls.ClientAuthType
	// Peers: tls-replication or tls-cluster; as Redis, the CAs are then
	// required, to verify the peers dialled.
	Peers                  bool
	MinVersion, MaxVersion uint16   // 0: Go's defaults
	CipherSuites           []uint16 // TLS 1.2 suites; nil: Go's defaults
	// SessionCaching and SessionCacheTimeout: tls-session-caching and
	// tls-session-cache-timeout, how long a session ticket resumes
	// (sessions.go). tls-session-cache-size has no counterpart: it bounds
	// OpenSSL's session-ID cache, and Go resumes by ticket only.
	SessionCaching      bool
	SessionCacheTimeout time.Duration
}

// Bundle is one built TLS configuration, its server side and the
// client side Tandem dials with. Nothing in it changes once built.
type Bundle struct {
	server, client *tls.Config
	tickets        *tickets // the server's session tickets (sessions.go)
}

// Certs is the TLS configuration in force, swapped whole by Use.
type Certs struct {
	cur atomic.Pointer[Bundle]
}

// NewCerts loads s; an error leaves nothing usable.
func NewCerts(s Settings) (*Certs, error) {
	c := &Certs{}
	if err := c.Load(s); err != nil {
		return nil, err
	}
	return c, nil
}

// Load builds a configuration from s and makes it the one new
// handshakes use. On error the previous one stays in force.
func (c *Certs) Load(s Settings) error {
	b, err := Build(s)
	if err != nil {
		return err
	}
	c.Use(b)
	return nil
}

// Use makes b the configuration new handshakes use (after a Build that
// a CONFIG SET's other checks agreed with).
func (c *Certs) Use(b *Bundle) { c.cur.Store(b) }

// Config is the configuration to give tls.NewListener: it asks Certs for
// the current configuration at each handshake.
func (c *Certs) Config() *tls.Config {
	return &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return c.cur.Load().server, nil
	}}
}

// ClientConfig is a copy of the configuration Tandem dials its peers
// with (replication, when it comes): the client certificate (or the
// server's), the CAs as roots, the same versions and suites. The caller
// sets ServerName.
func (c *Certs) ClientConfig() *tls.Config { return c.cur.Load().client.Clone() }

// Build loads the files s names and builds the configuration, changing
// nothing: the error says what could not be loaded.
func Build(s Settings) (*Bundle, error) {
	if s.CertFile == "" {
		return nil, errors.New("No tls-cert-file configured!")
	}
	if s.KeyFile == "" {
		return nil, errors.New("No tls-key-file configured!")
	}
	cert, err := loadKeyPair(s.CertFile, s.KeyFile, s.KeyFilePass)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate (tls-cert-file %s, tls-key-file %s): %w", s.CertFile, s.KeyFile, err)
	}
	clientCert := cert
	if s.ClientCertFile != "" && s.ClientKeyFile != "" {
		if clientCert, err = loadKeyPair(s.ClientCertFile, s.ClientKeyFile, s.ClientKeyFilePass); err != nil {
			return nil, fmt.Errorf("loading the TLS client certificate (tls-client-cert-file %s, tls-client-key-file %s): %w", s.ClientCertFile, s.ClientKeyFile, err)
		}
	}
	if s.DHParamsFile != "" {
		if err := checkDHParams(s.DHParamsFile); err != nil {
			return nil, fmt.Errorf("tls-dh-params-file: %w", err)
		}
	}
	b := &Bundle{
		server: &tls.Config{
			Certificates: []tls.Certificate{cert},
			ClientAuth:   s.ClientAuth,
			MinVersion:   s.MinVersion,
			MaxVersion:   s.MaxVersion,
			CipherSuites: s.CipherSuites,
		},
		client: &tls.Config{
			Certificates: []tls.Certificate{clientCert},
			MinVersion:   s.MinVersion,
			MaxVersion:   s.MaxVersion,
			CipherSuites: s.CipherSuites,
		},
	}
	if s.CAFile != "" || s.CADir != "" {
		pool, err := loadCAs(s.CAFile, s.CADir)
		if err != nil {
			return nil, err
		}
		b.server.ClientCAs, b.client.RootCAs = pool, pool
	} else if s.ClientAuth != tls.NoClientCert || s.Peers {
		// As Redis: verifying clients and peers needs the CAs to verify
		// them with.
		return nil, errors.New("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")
	}
	b.tickets = &tickets{cfg: b.server, lifetime: ticketLifetime(s.SessionCaching, s.SessionCacheTimeout), now: time.Now}
	b.tickets.install()
	return b, nil
}

// loadCAs reads the PEM certificates of file and of every regular file
// in dir (an OpenSSL hashed directory holds them under their hash names).
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	var files []string
	if file != "" {
		files = append(files, file)
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("reading tls-ca-cert-dir: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	found := false
	for _, f := range files {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading CA certificates: %w", err)
		}
		if pool.AppendCertsFromPEM(pem) {
			found = true
		} else if f == file {
			return nil, fmt.Errorf("tls-ca-cert-file %s holds no PEM certificate", f)
		}
	}
	if !found {
		return nil, errors.New("no CA certificate found in tls-ca-cert-file / tls-ca-cert-dir")
	}
	return pool, nil
}

// DialPeer dials addr over TLS as Redis dials its master under
// tls-replication: the peer's chain must verify against the CAs, its
// name is not checked (Redis's OpenSSL context verifies the chain only,
// so masters are reached by address whatever names their certificates
// carry), and Tandem shows its client certificate.
func (c *Certs) DialPeer(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	cfg := c.ClientConfig()
	roots := cfg.RootCAs
	cfg.InsecureSkipVerify = true // the chain is verified below, without a name
	cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("the peer showed no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, r := range raw {
			cert, err := x509.ParseCertificate(r)
			if err != nil {
				return err
			}
			certs[i] = cert
		}
		inter := x509.NewCertPool()
		for _, ic := range certs[1:] {
			inter.AddCert(ic)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		return err
	}
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: cfg}
	return d.DialContext(ctx, "tcp", addr) // the handshake within timeout too, as DialWithDialer's
}
