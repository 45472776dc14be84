package node

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/server"
)

// followLimits keeps the server's connection limits in step with
// maxclients, timeout, client-query-buffer-limit and
// client-output-buffer-limit: the one follower of those directives.
func followLimits(srv *server.Server, cfg *conf.Config) {
	for _, name := range []string{"maxclients", "timeout", "client-query-buffer-limit", "client-output-buffer-limit"} {
		cfg.OnChange(name, func(c *conf.Config) { srv.SetLimits(limitsOf(c)) })
	}
}

// limitsOf reads the connection limits from the configuration.
func limitsOf(cfg *conf.Config) server.Limits {
	return server.Limits{
		MaxClients:        cfg.MaxClients(),
		IdleTimeout:       cfg.Timeout(),
		QueryBufferLimit:  int(cfg.ClientQueryBufferLimit()),
		OutputBufferLimit: int(cfg.ClientOutputBufferLimit(conf.ClientNormal).Hard),
	}
}
