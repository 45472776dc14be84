package resp

import (
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/protect"
	"github.com/tandemkv/tandem/internal/stripe"
	"github.com/tandemkv/tandem/latency"
	"github.com/tandemkv/tandem/monitor"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/pubsub"
	"github.com/tandemkv/tandem/scripting"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/services"
	"github.com/tandemkv/tandem/slowlog"
	"github.com/tandemkv/tandem/snapshot"
	"github.com/tandemkv/tandem/tracking"
	"github.com/tandemkv/tandem/users"
)

// Version is the Redis version Tandem reports (INFO, HELLO): the one whose
// behaviour it reproduces, so clients enable the right features.
const Version = "7.0.15"

// ServerFacts are the process facts INFO server reports; the binary fills
// them in.
type ServerFacts struct {
	TandemVersion  string
	ProcessID      int
	Executable     string
	ConfigFile     string
	TCPPort        int
	MemcachedPort  int
	RunID          string
	StartTime      time.Time
	ClientsCounter func() int // connected clients of both protocols
}

// Options configure the Redis front-end.
type Options struct {
	// Services are the shared services the front-end serves: the
	// keyspace, pub/sub, scripting, persistence and the configuration.
	// The composition root builds them; the front-end owns none.
	Services *services.Services
	Facts    ServerFacts
	// ClientBuffers returns what the connections' buffers hold, both
	// protocols together (INFO memory mem_clients_normal, INFO clients
	// client_recent_max_*_buffer); nil: reported as 0.
	ClientBuffers func() server.ClientBuffers
	// Shutdown stops the server without saving (SHUTDOWN has saved
	// already); nil: SHUTDOWN only closes its connection (tests).
	Shutdown func()
	// NewClientID returns an id from the connections' sequence, for a
	// client without a connection of its own (a replica's master client);
	// nil: the front-end counts its own from 1<<62 (tests).
	NewClientID func() uint64
}

// Frontend serves the Redis protocol: it implements server.Frontend.
type Frontend struct {
	eng     *engine.Engine
	cfg     *conf.Config
	facts   ServerFacts
	table   *Table
	clients sync.Map // id → *Client
	waiting sync.Map // *Client → struct{}: parked in WAIT (UnblockForReplica)
	stats   frontendStats

	started time.Time    // uptime and rdb_last_save_time count from here
	memPeak atomic.Int64 // INFO used_memory_peak, sampled every 100 ms and by INFO (info_memory.go)
	// startupMem is the Go heap's live objects once the server was
	// built, before any data was loaded (used_memory_startup; 0 until
	// MeasureStartupMemory).
	startupMem atomic.Int64
	rates      rateSampler // INFO instantaneous_*

	debug debugState // what DEBUG sets (cmd_debug.go)

	persist      *snapshot.Manager // SAVE, BGSAVE, save rules (cmd_persistence.go)
	stream       *propagate.Log    // the write stream: AOF, replicas (effects.go)
	svc          *services.Services
	scriptEngine *scripting.Engine // EVAL, FUNCTION (cmd_scripting.go)
	shutdown     func()

	// busyText is the BUSY reply while a busy script runs (busy.go); the
	// script sets it before marking the gate busy.
	busyText atomic.Pointer[string]

	errMu      sync.Mutex
	errorCodes map[string]int64 // INFO errorstats: error code → replies

	crossProtocolWarned atomic.Int64 // unix ns of the last POST/Host: warning (crossproto.go)

	hub *pubsub.Hub // pub/sub registry (cmd_pubsub.go, pubsub_client.go)
	log *slog.Logger

	users *users.Store // AUTH, HELLO AUTH, RESET (cmd_connection.go)

	tracking *tracking.Table // client-side caching (tracking_client.go)

	slow    *slowlog.Log     // SLOWLOG (cmd_slowlog.go), shared with the memcached port
	latency *latency.Monitor // LATENCY (cmd_latency.go)
	// cmdLatency holds every command's latency histogram
	// (latency-tracking: INFO latencystats, LATENCY HISTOGRAM).
	cmdLatency *latency.Commands

	mon *monitor.Feed // MONITOR (cmd_monitor.go), shared with the memcached port

	clientBuffers func() server.ClientBuffers // Options.ClientBuffers
	newID         func() uint64               // Options.NewClientID
	ownIDs        atomic.Uint64               // newClientID's without one

	io server.IOStats // the server counts this port's reads, writes and reply buffer resizes here
}

// IOStats implements server.IOCounted: INFO stats' total_reads_processed,
// total_writes_processed and reply_buffer_expands/shrinks.
func (f *Frontend) IOStats() *server.IOStats { return &f.io }

// frontendStats feed INFO stats.
type frontendStats struct {
	connections, rejectedConns atomic.Int64
	errorReplies               atomic.Int64
	// added to by every command or read, in copies (stats.go)
	commands, netInput, netOutput stripe.Count
}

// New returns the Redis front-end over o.Services, its command table built
// with the configured rename-command lines. It panics if one is refused:
// check them with CheckRenames first.
func New(o Options) *Frontend {
	svc := o.Services
	f := &Frontend{eng: svc.Engine, cfg: svc.Config, facts: o.Facts, clientBuffers: o.ClientBuffers, newID: o.NewClientID,
		hub: svc.Hub, scriptEngine: svc.Scripts, persist: svc.Persist, log: svc.Log, users: svc.Users,
		tracking: svc.Tracking, slow: svc.Slowlog, latency: svc.Latency,
		cmdLatency: svc.CommandLatency}
	f.mon = svc.Monitor
	f.stream = svc.Stream
	f.svc = svc
	f.tracking.SetLookup(f.lookupTrackingConn) // REDIRECT targets are Redis connections
	table, err := NewTableRenamed(svc.Config.CommandRenames(conf.PortRedis), commandFamilies()...)
	if err != nil {
		panic(err) // the binary checks with CheckRenames before building a node
	}
	f.table = table
	table.forEachCommand(func(cmd *Command) { cmd.hist = f.cmdLatency.Histogram(latency.ProtocolRESP, cmd.Name) })
	f.initACL() // the users store learns this table; config users and aclfile (acl_config.go)
	f.started = o.Facts.StartTime
	if f.started.IsZero() {
		f.started = time.Now()
	}
	if f.facts.RunID == "" {
		f.facts.RunID = randomHex40()
	}
	f.errorCodes = map[string]int64{}
	f.shutdown = o.Shutdown
	if f.shutdown == nil {
		f.shutdown = func() {}
	}
	return f
}

// Table returns the command table.
func (f *Frontend) Table() *Table { return f.table }

// RejectMessage implements server.Frontend.
func (f *Frontend) RejectMessage() []byte {
	f.stats.rejectedConns.Add(1)
	return []byte("-ERR max number of clients reached\r\n")
}

// NewSession implements server.Frontend.
func (f *Frontend) NewSession(p server.Peer) server.Session {
	if s := protect.Guard(f.cfg.ProtectedMode(), f.users.Default(), p, deniedProtected); s != nil {
		f.stats.rejectedConns.Add(1) // and not a connection received, as Redis
		return s
	}
	c := newClient(f, p)
	f.clients.Store(c.id, c)
	f.stats.connections.Add(1)
	return c
}

// newClientID is a client id no connection has (Options.NewClientID).
func (f *Frontend) newClientID() uint64 {
	if f.newID != nil {
		return f.newID()
	}
	return 1<<62 + f.ownIDs.Add(1)
}

// forEachClient visits connected clients in id order.
func (f *Frontend) forEachClient(fn func(c *Client)) {
	var all []*Client
	f.clients.Range(func(_, v any) bool {
		all = append(all, v.(*Client))
		return true
	})
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	for _, c := range all {
		fn(c)
	}
}

// lastSave is when the keyspace was last saved to disk; until the first
// save, the start time.
func (f *Frontend) lastSave() time.Time { return f.persist.LastSave() }

// deniedProtected is what a client protected mode refuses is sent.
var deniedProtected = []byte("-" + ErrDeniedProtected + "\r\n")
