// Package node is Tandem's composition root: the one place that builds
// every part of a server and hands each what it needs.
//
// New builds, in this order:
//
//  1. the memory bound: maxmemory's default from the cgroup or RAM, GOGC
//     and GOMEMLIMIT (memory.go);
//  2. the shared services (package services): the engine, the pub/sub
//     hub, scripting and the snapshot manager, each following its
//     directives;
//  3. the network server (package server), whose limits follow
//     maxclients, timeout and the buffer limits (limits.go);
//  4. the front-ends, resp and memproto, each given the services;
//  5. the listeners: which front-end serves which addresses; the TLS
//     ports (tls-port, memcached-tls-port) are served by package
//     server/tlsserver with the same front-ends (tls.go), started by Run
//     once the plain ports listen.
//
// Run first opens the Prometheus endpoint when metrics-port is set
// (metrics.go, package metrics), then loads the dump, starts the background loops (active expiry,
// save rules, used_memory_peak) and serves until a signal or SHUTDOWN.
// Once it listens it warns if protected mode will refuse clients from
// other hosts (protected.go) and, while it serves, keeps the health file
// in dir that tandem healthcheck reads (health.go).
//
// Where a new part plugs in: a new shared service (users and ACL, an
// append-only file, replication, metrics) is built in package services so
// both front-ends and their tests receive it; a new listener for a
// front-end is one more entry in listeners below; a new background loop starts in Run next to the others.
package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/metrics"
	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/services"
)

// Options configure New.
type Options struct {
	Config  *conf.Config
	Logger  *slog.Logger
	Version string // Tandem's own version (INFO server, memcached "version")
	Commit  string // the source revision (-ldflags); "" reads the build's vcs.revision
	// Environ is the process environment: a GOGC or GOMEMLIMIT set there
	// is kept instead of the values derived from maxmemory.
	Environ []string
	// MemoryRoot is the file system root where the cgroup limit and
	// /proc/meminfo are read; "" is "/" (tests pass a fake tree).
	MemoryRoot string
}

// Node is one Tandem server: its services, its network server and both
// front-ends.
type Node struct {
	cfg     *conf.Config
	log     *slog.Logger
	version string
	commit  string // the start-up banner's (banner.go)

	Services  *services.Services
	Server    *server.Server
	Redis     *resp.Frontend
	Memcached *memproto.Frontend // nil when memcached-port is 0

	stopNoSave chan struct{} // closed by SHUTDOWN (which saved, or was told not to)
	tls        tlsPorts      // tls-port, memcached-tls-port (tls.go)
	mem        *memoryTuner  // GOMEMLIMIT and GOGC (memory.go)
	stopOnce   sync.Once

	metrics *metrics.Server // the Prometheus endpoint, nil when metrics-port is 0 (metrics.go)
	// loaded and serving are what Healthy (/healthz) reads: the dump is
	// loaded; the listeners accept connections.
	loaded, serving atomic.Bool
}

// New builds a node from its configuration; nothing listens yet.
func New(o Options) *Node {
	cfg, log := o.Config, o.Logger
	if log == nil {
		log = slog.Default()
	}
	root := o.MemoryRoot
	if root == "" {
		root = "/"
	}
	n := &Node{cfg: cfg, log: log, version: o.Version, commit: commitOf(o.Commit), stopNoSave: make(chan struct{})}

	mem := setupMemory(cfg, log, o.Environ, root)
	n.mem = mem
	n.Services = services.New(services.Options{Config: cfg, Logger: log, ProcessMemory: mem.apply})

	n.Server = server.New(server.Options{Logger: log, Multicore: true, Limits: limitsOf(cfg),
		NoPlainListeners: cfg.Port() == 0 && cfg.MemcachedPort() == 0 && (cfg.TLSPort() > 0 || cfg.MemcachedTLSPort() > 0)}) // TLS ports only
	followLimits(n.Server, cfg)

	facts := resp.ServerFacts{
		TandemVersion:  o.Version,
		ProcessID:      os.Getpid(),
		ConfigFile:     cfg.ConfigFile(),
		TCPPort:        cfg.Port(),
		MemcachedPort:  cfg.MemcachedPort(),
		RunID:          runID(),
		StartTime:      time.Now(),
		ClientsCounter: n.Server.Clients,
	}
	facts.Executable, _ = os.Executable()
	n.Redis = resp.New(resp.Options{Services: n.Services, Facts: facts, ClientBuffers: n.Server.ClientBuffers, NewClientID: n.Server.NewClientID,
		Shutdown: func() { n.stopOnce.Do(func() { close(n.stopNoSave) }) }})

	var listeners []server.Listener
	if cfg.Port() > 0 { // port 0: TLS only, as Redis
		listeners = append(listeners, server.Listener{Addrs: addrs(cfg, cfg.Port()), Frontend: n.Redis})
	}
	if p := cfg.MemcachedPort(); p > 0 || cfg.MemcachedTLSPort() > 0 {
		n.Memcached = memproto.New(memproto.Options{Services: n.Services, Version: memcachedVersion(o.Version)})
		if p > 0 {
			listeners = append(listeners, server.Listener{Addrs: addrs(cfg, p), Frontend: n.Memcached})
		}
	}
	n.Server.Listeners(listeners)
	n.setupTLS()
	return n
}

// Run loads the dump, serves until a signal arrives on sigs or a client
// runs SHUTDOWN, then stops: the process's exit code.
func (n *Node) Run(sigs <-chan os.Signal) int {
	cfg, log, persist := n.cfg, n.log, n.Services.Persist
	n.logBanner()
	// The metrics port opens first, so /healthz says "loading" while a
	// large dump loads.
	if err := n.startMetrics(); err != nil {
		log.Error("cannot start the metrics endpoint", "err", err)
		return 1
	}
	defer func() {
		ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		defer stop()
		n.stopMetrics(ctx)
	}()
	n.Redis.MeasureStartupMemory() // built, nothing loaded yet: used_memory_startup
	// As Redis, the listeners open before the load: while it runs, Redis
	// clients get LOADING (and retry) instead of a refused connection,
	// and memcached requests wait for the data (services.Loading).
	loading := n.Services.Loading
	loading.Begin()
	errc := make(chan error, 1)
	if !n.listen(errc) {
		loading.Done()
		return 1
	}
	loaded := make(chan error, 1)
	go func() { loaded <- n.loadDump() }()
	select {
	case err := <-loaded:
		loading.Done()
		if err != nil {
			n.stopListening()
			log.Error(err.Error()) // the last line, as Redis's exit on a bad file
			return 1
		}
	case sig := <-sigs: // as Redis: exit at once, nothing saved over the dump half loaded
		log.Info("received signal while loading, exiting without saving", "signal", sig.String())
		n.stopListening()
		return 0
	case <-n.stopNoSave: // SHUTDOWN, which saves nothing while loading (FinishShutdown)
		n.stopListening()
		return 0
	}
	n.loaded.Store(true)
	rep := n.Services.Replication
	rep.SetReplayer(func() services.MasterReplayer { return n.Redis.NewMasterReplay() }, cfg.Port())
	rep.SetTLSDialer(n.dialTLSPeer)
	rep.OnReplica(n.Redis.UnblockForReplica)
	defer rep.Close()
	if host, port, ok := cfg.ReplicaOf(); ok { // the replicaof directive
		if err := rep.ReplicaOf(host, port, true); err != nil {
			log.Error("cannot start replicating", "err", err)
			n.stopListening()
			return 1
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Services.Engine.RunActiveExpiry(ctx, cfg.Hz())
	go n.Redis.SampleMemoryEvery(ctx, 100*time.Millisecond) // used_memory_peak
	go persist.Run(ctx)                                     // save rules
	go n.Services.AppendOnly.Run(ctx)                       // scheduled and automatic AOF rewrites
	go n.mem.followHeap(ctx)                                // GOGC's floor of headroom

	log.Info("Ready to accept connections", "version", n.version, "redis", cfg.Port(), "memcached", cfg.MemcachedPort(), "tls", cfg.TLSPort(), "memcached-tls", cfg.MemcachedTLSPort(), "bind", cfg.Bind(), "pid", os.Getpid())
	n.serving.Store(true)
	n.warnProtected()
	defer n.writeHealth()() // for tandem healthcheck; removed on a clean stop

	select {
	case sig := <-sigs:
		log.Info("received signal, shutting down", "signal", sig.String())
		// As Redis on SIGTERM: writes stop, the replicas get
		// shutdown-timeout to catch up, the dump is saved with save rules;
		// a failed save is logged and the server exits all the same (Redis
		// would stay up, which a supervisor's SIGTERM does not expect).
		if err := n.Services.PrepareShutdown(services.ShutdownOptions{Force: true}); err != nil {
			log.Error("preparing to shut down", "err", err)
		}
	case <-n.stopNoSave:
	case err := <-errc:
		if err != nil {
			log.Error("server stopped", "err", err)
			return 1
		}
	}
	n.serving.Store(false)
	n.stopListening()
	n.Services.AppendOnly.Close() // every write in it, synced
	log.Info("Tandem is now ready to exit, bye bye...")
	return 0
}

// listen opens every listener, plain and TLS, serving until Stop; the
// plain server's end is sent on errc. It reports whether they opened
// (else it has logged why and closed what had opened).
func (n *Node) listen(errc chan error) bool {
	log := n.log
	go func() { errc <- n.Server.Run() }()
	select {
	case <-n.Server.Ready():
		if err := n.Server.StartErr(); err != nil {
			log.Error("cannot start", "err", err)
			return false
		}
	case err := <-errc:
		log.Error("cannot start", "err", err)
		return false
	}
	if err := n.startTLS(); err != nil {
		log.Error("cannot start", "err", err)
		_ = n.Server.Stop(context.Background())
		return false
	}
	return true
}

// stopListening closes the listeners and the connections, TLS first.
func (n *Node) stopListening() {
	stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if err := n.stopTLS(stopCtx); err != nil {
		n.log.Warn("stopping the server", "err", err)
	}
	if err := n.Server.Stop(stopCtx); err != nil {
		n.log.Warn("stopping the server", "err", err)
	}
}

// loadDump creates the data directory, removes the temporary dumps an
// interrupted save left there, and loads dir/dbfilename if there is one. It never starts half loaded, nor empty over a dump that exists,
// unless start-empty-on-bad-dump says so: then the bad file is kept
// aside, not overwritten.
func (n *Node) loadDump() error {
	cfg, persist := n.cfg, n.Services.Persist
	if err := os.MkdirAll(cfg.Dir(), 0o755); err != nil {
		return fmt.Errorf("cannot create the data directory (dir) %s: %w", cfg.Dir(), err)
	}
	// With appendonly yes the AOF is the data, as in Redis: the dump is
	// not read.
	if loaded, err := n.Services.AppendOnly.LoadAtStart(n.Redis.NewReplay()); loaded || err != nil {
		if err != nil {
			return fmt.Errorf("cannot load the append only file; refusing to start: %w", err)
		}
		return nil
	}
	_, err := persist.LoadAtStart()
	if err == nil {
		return nil
	}
	if !cfg.StartEmptyOnBadDump() {
		return fmt.Errorf("cannot load the dump; refusing to start (set start-empty-on-bad-dump yes, or move the file away, to start empty): %w", err)
	}
	aside := persist.Path() + ".bad-" + time.Now().UTC().Format("20060102T150405")
	if rerr := os.Rename(persist.Path(), aside); rerr != nil {
		return fmt.Errorf("cannot load the dump nor set it aside; refusing to start: %w (rename: %v)", err, rerr)
	}
	n.log.Warn("cannot load the dump; set it aside and starting empty (start-empty-on-bad-dump)", "err", err, "kept", aside)
	return nil
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

// runID is a random 40-hex-character id, as Redis's run_id.
func runID() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// memcachedVersion is what `version` answers on the memcached port: the
// memcached release whose protocol Tandem speaks first, so clients that
// read it to decide whether meta commands exist decide right.
func memcachedVersion(tandem string) string { return "1.6.18-tandem-" + tandem }
