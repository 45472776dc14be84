// Command tandem runs the Tandem cache server: the Redis protocol and the
// memcached protocol over one keyspace.
//
//	tandem [config-file] [--directive value ...]
//
// Directives are redis.conf's (plus memcached-port and Tandem's own), from a
// file, from TANDEM_<DIRECTIVE> environment variables and from flags.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/server"
)

// version is Tandem's own version, set at build time with -ldflags.
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Environ()))
}

func run(args, environ []string) int {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthcheck(args[1:], environ)
	}
	cfg, err := conf.Load(args, environ)
	switch {
	case errors.Is(err, conf.ErrHelp):
		fmt.Println("Usage: tandem [/path/to/tandem.conf] [--directive value ...]\n" +
			"Directives are redis.conf's plus memcached-port; environment TANDEM_<DIRECTIVE> works too.")
		return 0
	case errors.Is(err, conf.ErrVersion):
		fmt.Printf("Tandem v=%s (Redis protocol %s, memcached protocol 1.6)\n", version, resp.Version)
		return 0
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	log := newLogger(cfg)
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}

	mem := setupMemory(cfg, log, environ, "/")
	eng := engine.New(engine.Options{Databases: cfg.Databases(), MaxMemory: cfg.MaxMemory()})
	cfg.OnChange("maxmemory", func(c *conf.Config) {
		eng.SetMaxMemory(c.MaxMemory())
		mem.apply(c.MaxMemory())
	})

	srv := server.New(server.Options{Logger: log, Multicore: true, Limits: limitsOf(cfg)})
	for _, name := range []string{"maxclients", "timeout", "client-query-buffer-limit", "client-output-buffer-limit"} {
		cfg.OnChange(name, func(c *conf.Config) { srv.SetLimits(limitsOf(c)) })
	}

	facts := resp.ServerFacts{
		TandemVersion:  version,
		ProcessID:      os.Getpid(),
		ConfigFile:     cfg.ConfigFile(),
		TCPPort:        cfg.Port(),
		MemcachedPort:  cfg.MemcachedPort(),
		RunID:          runID(),
		StartTime:      time.Now(),
		ClientsCounter: srv.Clients,
	}
	facts.Executable, _ = os.Executable()
	stopNoSave := make(chan struct{})
	var stopOnce sync.Once
	redisFE := resp.New(resp.Options{Engine: eng, Config: cfg, Facts: facts, Logger: log, ClientBuffers: srv.ClientBuffers,
		Shutdown: func() { stopOnce.Do(func() { close(stopNoSave) }) }})
	persist := redisFE.Persistence()
	if err := os.MkdirAll(cfg.Dir(), 0o755); err != nil {
		log.Error("cannot create the data directory (dir)", "dir", cfg.Dir(), "err", err)
		return 1
	}
	if _, err := persist.Load(); err != nil {
		// Never start half loaded, nor empty over a dump that exists,
		// unless told to: then the bad file is kept aside, not overwritten.
		if !cfg.StartEmptyOnBadDump() {
			log.Error("cannot load the dump; refusing to start (set start-empty-on-bad-dump yes, or move the file away, to start empty)", "err", err)
			return 1
		}
		aside := persist.Path() + ".bad-" + time.Now().UTC().Format("20060102T150405")
		if rerr := os.Rename(persist.Path(), aside); rerr != nil {
			log.Error("cannot load the dump nor set it aside; refusing to start", "err", err, "rename", rerr)
			return 1
		}
		log.Warn("cannot load the dump; set it aside and starting empty (start-empty-on-bad-dump)", "err", err, "kept", aside)
	}
	listeners := []server.Listener{{Addrs: addrs(cfg, cfg.Port()), Frontend: redisFE}}
	if p := cfg.MemcachedPort(); p > 0 {
		listeners = append(listeners, server.Listener{Addrs: addrs(cfg, p), Frontend: memproto.New(memproto.Options{Engine: eng, Config: cfg, Version: memcachedVersion()})})
	}
	srv.Listeners(listeners)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.RunActiveExpiry(ctx, cfg.Hz())
	go redisFE.SampleMemoryEvery(ctx, 100*time.Millisecond) // used_memory_peak
	go persist.Run(ctx)                                     // save rules

	errc := make(chan error, 1)
	go func() { errc <- srv.Run() }()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)

	select {
	case <-srv.Ready():
		if err := srv.StartErr(); err != nil {
			log.Error("cannot start", "err", err)
			return 1
		}
	case err := <-errc:
		log.Error("cannot start", "err", err)
		return 1
	}
	log.Info("Tandem ready to accept connections", "version", version, "redis", cfg.Port(), "memcached", cfg.MemcachedPort(), "bind", cfg.Bind(), "pid", os.Getpid())

	select {
	case sig := <-sigs:
		log.Info("received signal, shutting down", "signal", sig.String())
		if persist.HasRules() {
			// As Redis on SIGTERM: with save rules, save before exiting.
			persist.Wait()
			if err := persist.Save(); err != nil {
				log.Error("error saving the DB before exiting", "err", err)
			}
		}
	case <-stopNoSave: // SHUTDOWN saved (or was told not to)
	case err := <-errc:
		if err != nil {
			log.Error("server stopped", "err", err)
			return 1
		}
	}
	stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if err := srv.Stop(stopCtx); err != nil {
		log.Warn("stopping the server", "err", err)
	}
	log.Info("Tandem is now ready to exit, bye bye...")
	return 0
}

// addrs joins every bind address with port.
func addrs(cfg *conf.Config, port int) []string {
	var out []string
	for _, b := range cfg.BindAddrs() {
		host := b.Host
		if host == "*" {
			host = "0.0.0.0"
		}
		out = append(out, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	return out
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

func newLogger(cfg *conf.Config) *slog.Logger {
	level := slog.LevelInfo
	switch cfg.LogLevel() {
	case conf.LogDebug, conf.LogVerbose:
		level = slog.LevelDebug
	case conf.LogWarning:
		level = slog.LevelWarn
	}
	out := os.Stdout
	if f := cfg.LogFile(); f != "" {
		if fh, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			out = fh
		}
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
}

// runID is a random 40-hex-character id, as Redis's run_id.
func runID() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// memcachedVersion is what `version` answers on the memcached port: the
// memcached release whose protocol Tandem speaks first, so clients that
// read it to decide whether meta commands exist decide right.
func memcachedVersion() string { return "1.6.18-tandem-" + version }
