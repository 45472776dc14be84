// Package services builds what both front-ends share — the keyspace
// engine, the pub/sub hub, the Lua scripting engine, persistence, the
// user store and the client-side caching table — and
// keeps each in step with its configuration directives.
//
// Neither front-end owns any of these: resp and memproto receive them, so
// a memcached write publishes keyspace notifications and is saved to the
// dump whether or not a Redis listener exists. Every directive that
// changes a shared service at run time has exactly one follower, in this
// package (follow.go); a front-end only reads the configuration.
//
// The composition root (package node) builds one Services for the
// process; front-end tests build their own, so they run with the same
// wiring as the server.
package services

import (
	"errors"
	"log/slog"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/latency"
	"github.com/tandemkv/tandem/mclog"
	"github.com/tandemkv/tandem/monitor"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/pubsub"
	"github.com/tandemkv/tandem/scripting"
	"github.com/tandemkv/tandem/slowlog"
	"github.com/tandemkv/tandem/snapshot"
	"github.com/tandemkv/tandem/tracking"
	"github.com/tandemkv/tandem/users"
)

// Options configure New.
type Options struct {
	Config *conf.Config // nil: conf.Default()
	Logger *slog.Logger // nil: slog.Default()
	// Engine is the keyspace to use; nil builds one from the
	// configuration (databases, maxmemory). Tests pass an engine with a
	// manual clock.
	Engine *engine.Engine
	// ProcessMemory, when set, is told every new maxmemory (CONFIG SET),
	// after the engine: the binary keeps GOMEMLIMIT in step with it. Tests
	// leave it nil so they never change the test process's runtime
	// settings.
	ProcessMemory func(maxMemory int64)
}

// Services are the shared services of one Tandem process.
type Services struct {
	Config  *conf.Config
	Log     *slog.Logger
	Engine  *engine.Engine
	Hub     *pubsub.Hub       // PUBLISH, SUBSCRIBE and keyspace notifications
	Scripts *scripting.Engine // EVAL's script cache and FUNCTION's libraries
	Persist *snapshot.Manager // SAVE, BGSAVE, save rules, the dump at start
	Users   *users.Store      // who may log in, on either port (requirepass: the default user)
	// Tracking is client-side caching's table (CLIENT TRACKING): the
	// engine's change hook, so writes of both protocols, expiry and
	// eviction invalidate the keys Redis clients cache.
	Tracking *tracking.Table
	// Slowlog is the slow log both ports record into (SLOWLOG).
	Slowlog *slowlog.Log
	// Monitor is the MONITOR feed both ports publish into.
	Monitor *monitor.Feed
	// MCLog is memcached's log stream ("watch" on the memcached port):
	// the memcached front-end publishes its fetches, stores and
	// connections, the engine the evictions from database 0.
	MCLog *mclog.Log
	// Latency is the latency monitor (LATENCY).
	Latency *latency.Monitor
	// Stream is the write stream both front-ends and the engine feed and
	// the AOF and replicas read (package propagate).
	Stream *propagate.Log
	// Replication is PSYNC2 replication, both roles (replication.go).
	Replication *Replication
	// AppendOnly is the append-only file, a sink of Stream while
	// appendonly is yes (appendonly.go).
	AppendOnly *AppendOnly
	// CommandLatency is every command's latency histogram, both
	// protocols' (latency-tracking: INFO latencystats, LATENCY HISTOGRAM,
	// exporters through EachCommand).
	CommandLatency *latency.Commands
	// Loading is the load at start, while the listeners are open
	// (loading.go).
	Loading *Loading

	shutdown shutdownState // PrepareShutdown in progress (shutdown.go)
}

// New builds the services and starts following the configuration.
func New(o Options) *Services {
	s := &Services{Config: o.Config, Log: o.Logger, Engine: o.Engine, Loading: &Loading{}}
	if s.Config == nil {
		s.Config = conf.Default()
	}
	s.Config.SetLoadingCheck(s.Loading.Active)
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.Engine == nil {
		s.Engine = engine.New(engine.Options{Databases: s.Config.Databases(), MaxMemory: s.Config.MaxMemory()})
	}
	s.Hub = pubsub.New()
	s.Stream = propagate.New()
	s.Engine.SetEffectHook(s.Stream)
	followLazyfree(s.Stream, s.Config)
	s.AppendOnly = newAppendOnly(s)
	s.Replication = newReplication(s)
	s.Replication.follow(s.Config)
	followAppendOnly(s.AppendOnly, s.Config)
	s.Scripts = scripting.NewEngine()
	s.Scripts.SetMemoryCharge(s.Engine.ChargeMemory) // counted in used memory and against maxmemory, as Redis's
	s.Persist = snapshot.New(snapshot.Options{Engine: s.Engine, Config: s.Config, Logger: s.Log,
		Functions: s.functionSources, Function: s.loadFunction,
		Limits:      func() engine.RestoreLimits { return EncodingLimits(s.Config) },
		Replication: s.Replication, LoadProgress: s.Loading})

	followMemory(s.Engine, s.Config, o.ProcessMemory)
	followCompression(s.Engine, s.Config)
	s.Engine.SetNotifySink(NotifySink(s.Hub.Publish))
	followNotify(s.Engine, s.Config)
	s.Users = users.New()
	followRequirePass(s.Users, s.Config)
	followACL(s.Users, s.Config)
	s.Tracking = tracking.New(s.Config.TrackingTableMaxKeys())
	s.Engine.SetChangeHook(s.Tracking)
	followTracking(s.Tracking, s.Config)
	s.Monitor = monitor.New()
	s.MCLog = newMCLog(s.Engine, s.Config)
	s.Slowlog = slowlog.New()
	followSlowlog(s.Slowlog, s.Config)
	s.Latency = latency.New()
	followLatency(s.Latency, s.Config)
	lm := s.Latency
	s.Engine.OnExpireCycle(func(d time.Duration) { lm.Add("expire-cycle", d.Milliseconds()) })
	s.CommandLatency = latency.NewCommands()
	followLatencyTracking(s.CommandLatency, s.Config)
	return s
}

// functionSources are the FUNCTION libraries' sources, for a dump.
func (s *Services) functionSources() [][]byte {
	libs := s.Scripts.Functions.Libraries()
	out := make([][]byte, len(libs))
	for i, l := range libs {
		out[i] = []byte(l.Code)
	}
	return out
}

// loadFunction loads a library from a dump, replacing one of the same
// name. A library's body sees only the loading API, so the only thing it
// can ask of the server is redis.log.
func (s *Services) loadFunction(code []byte, replace bool) error {
	if _, msg := s.Scripts.Functions.Load(code, replace, scripting.LogHost(s.Log)); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// DiskError says why writes are refused while persistence cannot write:
// rdb after a failed BGSAVE with stop-writes-on-bgsave-error (each
// front-end words it), or the AOF's MISCONF reply; neither: none.
func (s *Services) DiskError() (rdb bool, aofMsg string) {
	if s.Persist.WritesRefused() {
		return true, ""
	}
	return false, s.AppendOnly.WritesRefused()
}

// newMCLog builds memcached's log stream and hooks it to the engine's
// evictions of database 0, the keyspace memcached sees, whichever
// protocol's write made room. Items carry no slab class: evictions show
// clsid=1, the one class "stats items" and "me" report.
func newMCLog(eng *engine.Engine, cfg *conf.Config) *mclog.Log {
	l := mclog.New()
	l.SetBufferSize(int(cfg.MemcachedWatcherLogbufSize()))
	eng.SetEvictHook(func(ev *engine.Evicted) {
		if ev.DB != 0 || !l.Wants(mclog.Evictions) {
			return
		}
		ttl := int64(-1)
		if ev.ExpireAt > 0 {
			ttl = (ev.ExpireAt - ev.NowMs) / 1000
		}
		l.Evicted(&mclog.Eviction{Key: ev.Key, Fetched: ev.Fetched, TTL: ttl, Idle: ev.IdleSec, ClsID: 1, Size: ev.Size})
	})
	return l
}
