package node

import (
	"context"
	"net"
	"strconv"

	"github.com/tandemkv/tandem/metrics"
)

// startMetrics starts the Prometheus endpoint when metrics-port is set,
// under metrics.CheckExposure's rule; the data ports count as protected
// while the default user has a password or protected mode is on.
func (n *Node) startMetrics() error {
	cfg := n.cfg
	if cfg.MetricsPort() == 0 {
		return nil
	}
	bind := cfg.MetricsBind()
	protected := !n.Services.Users.Default().NoPass() || cfg.ProtectedMode()
	if err := metrics.CheckExposure(bind, cfg.MetricsPassword(), protected); err != nil {
		return err
	}
	if bind == "*" {
		bind = "0.0.0.0"
	}
	reg := metrics.NewRegistry(metrics.Sources{Services: n.Services, Redis: n.Redis, Memcached: n.Memcached, Version: n.version, TLS: n.TLSCounts})
	srv, err := metrics.Listen(net.JoinHostPort(bind, strconv.Itoa(cfg.MetricsPort())), cfg.MetricsPassword(), reg, n.Healthy)
	if err != nil {
		return err
	}
	n.metrics = srv
	n.log.Info("Prometheus metrics endpoint listening", "addr", srv.Addr(), "paths", "/metrics /healthz", "auth", cfg.MetricsPassword() != "")
	return nil
}

// stopMetrics stops the endpoint, if it runs.
func (n *Node) stopMetrics(ctx context.Context) {
	if n.metrics == nil {
		return
	}
	if err := n.metrics.Close(ctx); err != nil {
		n.log.Warn("stopping the metrics endpoint", "err", err)
	}
}

// MetricsAddr is the address the metrics endpoint listens on, "" when
// it does not run.
func (n *Node) MetricsAddr() string {
	if n.metrics == nil {
		return ""
	}
	return n.metrics.Addr()
}
