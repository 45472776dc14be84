package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/server/tlsserver"
)

// tlsPorts are the TLS listeners (tls-port, memcached-tls-port), served
// by package server/tlsserver next to the plain ports, with the same
// front-ends and the plain server's limits and client count.
type tlsPorts struct {
	// certs is the configuration in force; nil while TLS is not
	// configured (no TLS port, tls-replication or tls-cluster). Set at
	// setup or by the first applyTLS commit that configures TLS (conf
	// serialises commits), read by a replica's dial from its own
	// goroutine: hence atomic.
	certs   atomic.Pointer[tlsserver.Certs]
	err     error // why the certificates could not be loaded at start
	pending []tlsserver.Options
	running []*tlsserver.Listener
	// served is running as the metrics collector reads it, from its own
	// goroutine: published once the listeners serve, cleared at stop.
	served atomic.Pointer[[]*tlsserver.Listener]
}

// TLSCounts adds up the TLS listeners' connection counts by protocol,
// for the metrics collector: the Redis port's and the memcached port's.
func (n *Node) TLSCounts() (redis, memcached tlsserver.Counts) {
	p := n.tls.served.Load()
	if p == nil {
		return
	}
	for _, l := range *p {
		c := l.Counts()
		to := &redis
		if n.Memcached != nil && l.Frontend() == server.Frontend(n.Memcached) {
			to = &memcached
		}
		to.Open += c.Open
		to.Accepted += c.Accepted
		to.Rejected += c.Rejected
	}
	return
}

// setupTLS loads the certificates when TLS is configured (a TLS port,
// tls-replication or tls-cluster, as Redis) and registers applyTLS, the
// one follower of the tls-* directives.
func (n *Node) setupTLS() {
	cfg := n.cfg
	cfg.OnApply(conf.TLSDirectives, n.applyTLS)
	if !cfg.TLSEnabled() {
		return
	}
	certs, err := tlsserver.NewCerts(tlsSettings(cfg))
	if err != nil {
		n.tls.err = err
		return
	}
	n.tls.certs.Store(certs)
	type port struct {
		port int
		fe   server.Frontend
	}
	ports := []port{{cfg.TLSPort(), n.Redis}}
	if n.Memcached != nil {
		ports = append(ports, port{cfg.MemcachedTLSPort(), n.Memcached})
	}
	for _, p := range ports {
		if p.port > 0 {
			n.tls.pending = append(n.tls.pending, tlsserver.Options{Addrs: addrs(cfg, p.port), Frontend: p.fe, Server: n.Server, Certs: certs, Logger: n.log})
		}
	}
}

// applyTLS is the applier (conf.OnApply) of the tls-* directives, as
// Redis's applyTlsCfg: a CONFIG SET of any of them builds the whole TLS
// configuration from the values it would publish, files read anew. If it
// cannot be built the Set is refused with Redis's text, the cause is
// logged, and the old values and certificates stay in force; otherwise
// new handshakes use it once the Set is published. While TLS is not
// configured nothing is loaded and the Set is accepted, as in Redis.
func (n *Node) applyTLS(next *conf.Config) (commit func(), err error) {
	if !next.TLSEnabled() {
		return nil, nil
	}
	b, err := tlsserver.Build(tlsSettings(next))
	if err != nil {
		n.log.Warn("Failed applying new TLS configuration; the previous one stays in force", "err", err)
		return nil, conf.ErrTLSUpdate
	}
	return func() {
		certs := n.tls.certs.Load()
		if certs == nil {
			certs = &tlsserver.Certs{} // configured at run time (tls-replication yes): no listener
		}
		certs.Use(b)
		n.tls.certs.Store(certs)
		n.log.Info("TLS configuration reloaded for new connections")
	}, nil
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
	running := n.tls.running
	n.tls.served.Store(&running)
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
	n.tls.served.Store(nil)
	return errors.Join(errs...)
}

// tlsSettings reads the TLS configuration from the directives.
func tlsSettings(cfg *conf.Config) tlsserver.Settings {
	f := cfg.TLSFiles()
	s := tlsserver.Settings{CertFile: f.Cert, KeyFile: f.Key, KeyFilePass: f.KeyPass,
		ClientCertFile: f.ClientCert, ClientKeyFile: f.ClientKey, ClientKeyFilePass: f.ClientKeyPass,
		CAFile: f.CAFile, CADir: f.CADir, DHParamsFile: f.DHParams, Peers: cfg.TLSPeers(), CipherSuites: cfg.TLSCipherSuites()}
	s.MinVersion, s.MaxVersion = cfg.TLSVersions()
	s.SessionCaching, _, s.SessionCacheTimeout = cfg.TLSSessionCache() // the size bounds a cache Go has not (tlsserver/sessions.go)
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

// dialTLSPeer dials a master over TLS (tls-replication) with the
// configuration in force.
func (n *Node) dialTLSPeer(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	certs := n.tls.certs.Load()
	if certs == nil {
		return nil, errors.New("tls-replication: TLS is not configured")
	}
	return certs.DialPeer(ctx, addr, timeout)
}
