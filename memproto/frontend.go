package memproto

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/protect"
	"github.com/tandemkv/tandem/latency"
	"github.com/tandemkv/tandem/mclog"
	"github.com/tandemkv/tandem/monitor"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/services"
	"github.com/tandemkv/tandem/slowlog"
	"github.com/tandemkv/tandem/snapshot"
	"github.com/tandemkv/tandem/users"
)

// Options configure the memcached front-end.
type Options struct {
	// Services are the shared services the front-end serves (it uses the
	// keyspace, the configuration and the snapshot manager, which refuses
	// writes after a failed BGSAVE); the composition root builds them.
	Services *services.Services
	Version  string // what "version" and "stats" report, as given
	// Shutdown is what the "shutdown" command does when
	// memcached-enable-shutdown is set; graceful is "shutdown graceful".
	// nil raises SIGINT in the process, as memcached does.
	Shutdown func(graceful bool)
}

// Frontend serves the memcached protocol over database 0 of the engine. It
// implements server.Frontend.
type Frontend struct {
	eng      *engine.Engine
	db       engine.DB
	cfg      *conf.Config
	version  string
	shutdown func(graceful bool)
	clock    engine.Clock
	persist  *snapshot.Manager // WritesRefused after a failed BGSAVE (misconf.go)
	users    *users.Store      // who may log in (auth.go)
	slow     *slowlog.Log      // the shared slow log (slowlog.go)
	mon      *monitor.Feed     // MONITOR's feed (monitor.go)
	stream   *propagate.Log    // the write stream: AOF, replicas (effects.go)
	svc      *services.Services
	log      *mclog.Log // memcached's log stream, for watch (watch.go)

	startMs   int64 // engine clock when the front-end was made
	stats     counters
	sessions  sync.Map // id → *session, for "stats conns"
	marks     markTable
	binary    versionSet // item versions stored with a base64 key (ms b)
	prefixes  prefixStats
	verbosity atomic.Uint32
	crawler   crawlerSettings     // lru_crawler's switches (crawler.go)
	commands  map[string]*command // commandTable with memcached-rename-command applied (rename.go)
	// cmdLatency and hists: every command's latency histogram, by its
	// idx (latency.go).
	cmdLatency *latency.Commands
	hists      []*latency.Histogram
}

// New returns the memcached front-end, its command table built with the
// configured memcached-rename-command lines. It panics if one is refused:
// check them with CheckRenames first.
func New(o Options) *Frontend {
	cfg := o.Services.Config
	commands, err := commandTableRenamed(cfg.CommandRenames(conf.PortMemcached))
	if err != nil {
		panic(err) // the binary checks with CheckRenames before building a node
	}
	db := o.Services.Engine.DB(0)
	db.TrackCAS = true // every memcached item has a CAS unique
	f := &Frontend{
		eng:      o.Services.Engine,
		db:       db,
		cfg:      cfg,
		version:  o.Version,
		shutdown: o.Shutdown,
		clock:    o.Services.Engine.Clock(),
		persist:  o.Services.Persist,
		users:    o.Services.Users,
		slow:     o.Services.Slowlog,
		mon:      o.Services.Monitor,
		stream:   o.Services.Stream,
		svc:      o.Services,
		log:      o.Services.MCLog,
		commands: commands,
	}
	f.initLatency(o.Services.CommandLatency)
	if f.shutdown == nil {
		f.shutdown = raiseSIGINT
	}
	f.startMs = f.clock.NowMs()
	f.marks.init()
	f.users.Subscribe(f.followUsers)
	return f
}

// raiseSIGINT stops the process the way memcached's "shutdown" does; the
// binary's signal handler then shuts down cleanly.
func raiseSIGINT(bool) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(syscall.SIGINT)
	}
}

// RejectMessage implements server.Frontend: memcached's reply at maxconns.
func (f *Frontend) RejectMessage() []byte {
	f.stats.rejectedConns.Add(1)
	return []byte(errTooManyConns + "\r\n")
}

// NewSession implements server.Frontend.
func (f *Frontend) NewSession(p server.Peer) server.Session {
	if s := protect.Guard(f.cfg.ProtectedMode(), f.users.Default(), p, deniedProtected); s != nil {
		f.stats.rejectedConns.Add(1) // and neither curr_connections nor total_connections
		return s
	}
	s := &session{fe: f, peer: p, parser: Parser{lim: f.limits(), cmds: f.commands}, stripe: uint8(p.ID()), closeReason: mclog.CloseNormal}
	s.user.Store(f.userFor())
	s.lastCmd.Store(s.fe.clock.NowMs() / 1000)
	f.sessions.Store(p.ID(), s)
	f.stats.currConns.Add(1)
	f.stats.totalConns.Add(1)
	s.logConnNew()
	return s
}

// limits reads the request limits from the configuration (they are
// mutable at run time).
func (f *Frontend) limits() Limits {
	return Limits{MaxLine: f.cfg.MemcachedMaxLine(), ItemSizeMax: f.cfg.ItemSizeMax()}.withDefaults()
}

// deniedProtected is what a client protected mode refuses is sent.
var deniedProtected = []byte(errDeniedProtected + "\r\n")
