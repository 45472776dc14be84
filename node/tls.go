package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/server/tlsserver"
)

// tlsPorts are the TLS listeners (tls-port, memcached-tls-port), served
// by package server/tlsserver next to the plain ports, with the same
// front-ends and the plain server's limits and client count.
type tlsPorts struct {
	certs   *tlsserver.Certs
	err     error // why the certificates could not be loaded at start
	pending []tlsserver.Options
	running []*tlsserver.Listener
}

// setupTLS loads the certificates when a TLS port is set and keeps them in
// step with the tls-* directives: a CONFIG SET of a file reloads them for
// new connections; one that cannot be loaded keeps the previous ones.
func (n *Node) setupTLS() {
	cfg := n.cfg
	type port struct {
		port int
		fe   server.Frontend
	}
	ports := []port{{cfg.TLSPort(), n.Redis}}
	if n.Memcached != nil {
		ports = append(ports, port{cfg.MemcachedTLSPort(), n.Memcached})
	}
	if cfg.TLSPort() == 0 && cfg.MemcachedTLSPort() == 0 {
		return
	}
	certs, err := tlsserver.NewCerts(tlsSettings(cfg))
	if err != nil {
		n.tls.err = err
		return
	}
	n.tls.certs = certs
	for _, p := range ports {
		if p.port > 0 {
			n.tls.pending = append(n.tls.pending, tlsserver.Options{Addrs: addrs(cfg, p.port), Frontend: p.fe, Server: n.Server, Certs: certs, Logger: n.log})
		}
	}
	for _, name := range conf.TLSDirectives {
		cfg.OnChange(name, func(c *conf.Config) {
			if err := certs.Load(tlsSettings(c)); err != nil {
				n.log.Warn("TLS configuration not reloaded; the previous one stays in force", "err", err)
				return
			}
			n.log.Info("TLS configuration reloaded for new connections", "changed", name)
		})
	}
}

// startTLS binds and serves the TLS ports.
func (n *Node) startTLS() error {
	if n.tls.err != nil {
		return n.tls.err
	}
	for _, o := range n.tls.pending {
		l, err := tlsserver.Listen(o)
		if err != nil {
			n.stopTLS(context.Background())
			return err
		}
		l.Serve()
		n.tls.running = append(n.tls.running, l)
	}
	n.tls.pending = nil
	return nil
}

// stopTLS closes the TLS listeners and their connections.
func (n *Node) stopTLS(ctx context.Context) error {
	var errs []error
	for _, l := range n.tls.running {
		if err := l.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stopping TLS listener: %w", err))
		}
	}
	n.tls.running = nil
	return errors.Join(errs...)
}

// tlsSettings reads the TLS configuration from the directives.
func tlsSettings(cfg *conf.Config) tlsserver.Settings {
	f := cfg.TLSFiles()
	s := tlsserver.Settings{CertFile: f.Cert, KeyFile: f.Key, CAFile: f.CAFile, CADir: f.CADir, CipherSuites: cfg.TLSCipherSuites()}
	s.MinVersion, s.MaxVersion = cfg.TLSVersions()
	switch cfg.TLSAuthClients() {
	case conf.TLSAuthYes:
		s.ClientAuth = tls.RequireAndVerifyClientCert
	case conf.TLSAuthOptional:
		s.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		s.ClientAuth = tls.NoClientCert
	}
	return s
}
