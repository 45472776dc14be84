package tlsserver

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Settings are what a TLS configuration is built from (node reads them
// from the tls-* directives).
type Settings struct {
	CertFile, KeyFile string // the server's certificate chain and key, PEM
	CAFile, CADir     string // the CAs client certificates are verified with
	// ClientAuth: tls.NoClientCert (tls-auth-clients no),
	// tls.RequireAndVerifyClientCert (yes) or tls.VerifyClientCertIfGiven
	// (optional).
	ClientAuth             tls.ClientAuthType
	MinVersion, MaxVersion uint16   // 0: Go's defaults
	CipherSuites           []uint16 // TLS 1.2 suites; nil: Go's defaults
}

// Certs is the TLS configuration in force, swapped whole by Load.
type Certs struct {
	cur atomic.Pointer[tls.Config]
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
	cfg, err := build(s)
	if err != nil {
		return err
	}
	c.cur.Store(cfg)
	return nil
}

// Config is the configuration to give tls.NewListener: it asks Certs for
// the current configuration at each handshake.
func (c *Certs) Config() *tls.Config {
	return &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return c.cur.Load(), nil
	}}
}

func build(s Settings) (*tls.Config, error) {
	if s.CertFile == "" || s.KeyFile == "" {
		return nil, errors.New("TLS needs tls-cert-file and tls-key-file")
	}
	cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate (tls-cert-file %s, tls-key-file %s): %w", s.CertFile, s.KeyFile, err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   s.ClientAuth,
		MinVersion:   s.MinVersion,
		MaxVersion:   s.MaxVersion,
		CipherSuites: s.CipherSuites,
	}
	if s.CAFile != "" || s.CADir != "" {
		if cfg.ClientCAs, err = loadCAs(s.CAFile, s.CADir); err != nil {
			return nil, err
		}
	} else if s.ClientAuth != tls.NoClientCert {
		// As Redis: verifying clients needs the CAs to verify them with.
		return nil, errors.New("tls-auth-clients yes or optional needs tls-ca-cert-file or tls-ca-cert-dir")
	}
	return cfg, nil
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
