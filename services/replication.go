package services

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/repl"
	"github.com/tandemkv/tandem/snapshot"
)

// Replication is PSYNC2 replication (package repl) wired to the write
// stream and the keyspace: the Primary is a sink of Stream from the
// first replica's sync (before it, as Redis without a backlog, nothing
// is kept), full syncs stream the engine's point-in-time RDB, and a
// replica loads its master's RDB and applies its stream through a
// Replayer (resp.Replay), whose writes feed this server's own stream:
// its AOF keeps them, and the Primary proxies the master's bytes to
// sub-replicas unchanged.
type Replication struct {
	s       *Services
	Primary *repl.Primary

	attached atomic.Bool // Primary is a sink of Stream
	replica  atomic.Bool // this server replicates a master (cheap for every write's check)

	mu      sync.Mutex // guards link
	link    *repl.Replica
	replay  func() MasterReplayer
	ownPort int
	// dialTLS dials a master over TLS (tls-replication), with the
	// configuration the composition root's TLS ports use.
	dialTLS func(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error)

	fo failoverState // FAILOVER (failover.go)

	// onReplica runs when this server turns replica of a master (or
	// switches masters): the front-end's blocked clients are let go.
	onReplica func()
}

// OnReplica sets what runs each time this server becomes a replica of a
// master, as Redis's replicationSetMaster disconnects its blocked
// clients (SetReplayer's caller: the composition root).
func (r *Replication) OnReplica(fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onReplica = fn
}

// SetTLSDialer gives the replication the TLS dialer tls-replication
// reaches masters with (the composition root's certificates).
func (r *Replication) SetTLSDialer(dial func(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dialTLS = dial
}

func newReplication(s *Services) *Replication {
	r := &Replication{s: s}
	r.Primary = repl.NewPrimary(r.config(s.Config))
	return r
}

// config is repl's configuration from the directives.
func (r *Replication) config(c *conf.Config) repl.Config {
	rc := repl.DefaultConfig()
	rc.BacklogSize = c.ReplBacklogSize()
	rc.BacklogTTL = time.Duration(c.ReplBacklogTTL()) * time.Second
	rc.PingPeriod = time.Duration(c.ReplPingReplicaPeriod()) * time.Second
	rc.Timeout = time.Duration(c.ReplTimeout()) * time.Second
	rc.DisklessSync = c.ReplDisklessSync()
	rc.DisklessSyncDelay = time.Duration(c.ReplDisklessSyncDelay()) * time.Second
	rc.DisklessSyncMaxReplicas = c.ReplDisklessSyncMaxReplicas()
	rc.MinReplicas = c.MinReplicasToWrite()
	rc.MinReplicasMaxLag = time.Duration(c.MinReplicasMaxLag()) * time.Second
	l := c.ClientOutputBufferLimit(conf.ClientReplica)
	rc.OutputHard, rc.OutputSoft, rc.OutputSoftTime = l.Hard, l.Soft, time.Duration(l.SoftSeconds)*time.Second
	rc.TempDir = c.Dir()
	rc.Snapshot = r.snapshot
	rc.Log = func(msg string) { r.s.Log.Info(msg) }
	return rc
}

// follow applies CONFIG SET of the replication directives.
func (r *Replication) follow(cfg *conf.Config) {
	apply := func(c *conf.Config) { r.Primary.SetConfig(r.config(c)) }
	for _, name := range []string{"repl-backlog-size", "repl-backlog-ttl", "repl-ping-replica-period", "repl-timeout",
		"repl-diskless-sync", "repl-diskless-sync-delay", "repl-diskless-sync-max-replicas", "min-replicas-to-write", "min-replicas-max-lag", "client-output-buffer-limit"} {
		cfg.OnChange(name, apply)
	}
}

// followExpiry lets a replica's keys expire only by its master's DELs, as
// Redis's (engine.SetExpiryByMaster says why), but for those a writable
// replica's clients gave a TTL themselves; a master expires them all.
func (r *Replication) followExpiry() {
	r.s.Engine.SetExpiryByMaster(r.replica.Load())
}

// attach makes the Primary a sink of the stream, once.
func (r *Replication) attach() {
	if r.attached.CompareAndSwap(false, true) {
		r.s.Stream.Add(r.Primary)
	}
}

// NewLink is the replication side of a client connection that sent
// REPLCONF or (P)SYNC; from its sync on, the stream is kept for replicas.
func (r *Replication) NewLink(conn repl.ReplicaConn) *repl.Link {
	r.attach()
	return r.Primary.NewLink(conn)
}

// snapshot is the full sync's RDB: the keyspace at the cut, no byte
// written before it (the dump's header waits in memory), so every write
// fed before the cut is in the RDB and none after.
// Its AUX fields record the cut's position, as Redis's: a redis-server
// sub-replica of this replica learns from repl-stream-db which database
// the proxied stream goes on in.
func (r *Replication) snapshot(w io.Writer, filter repl.Filter, cut func() repl.Cut) error {
	dw := &deferredWriter{}
	_, err := r.s.Persist.WriteSyncRDB(dw, filter.NoKeys, filter.NoFunctions, func() snapshot.ReplInfo {
		c := cut()
		dw.target(w)
		return replInfo(c)
	})
	return err
}

func replInfo(c repl.Cut) snapshot.ReplInfo {
	return snapshot.ReplInfo{StreamDB: c.StreamDB, ID: c.ReplID, Offset: c.Offset}
}

// SaveCut implements snapshot.Replication: a dump this server saves
// records its replication position (rdbPopulateSaveInfo), so a restart
// from it can continue with a partial resync.
func (r *Replication) SaveCut() (at func() (snapshot.ReplInfo, bool), release func()) {
	cutAt, release := r.Primary.SaveCut()
	return func() (snapshot.ReplInfo, bool) {
		c, ok := cutAt()
		return replInfo(c), ok
	}, release
}

// Restore implements snapshot.Replication: the position the dump loaded
// at start recorded becomes the history the replicaof directive's first
// PSYNC offers, or, on a master, its secondary history with a backlog
// after it (loadDataFromDisk). A master's stream then feeds the backlog
// from the start, as Redis's, so replicas continuing after the restart
// get every write made since — first the deletion of the keys that
// expired while it was down, which they still hold.
func (r *Replication) Restore(info snapshot.ReplInfo, expired []snapshot.DroppedKey) {
	_, _, asReplica := r.s.Config.ReplicaOf()
	if !r.Primary.RestoreHistory(repl.Cut{Offset: info.Offset, ReplID: info.ID, StreamDB: info.StreamDB}, asReplica) {
		return
	}
	if !asReplica {
		del := []byte("DEL")
		if r.s.Config.LazyfreeLazyExpire() {
			del = []byte("UNLINK")
		}
		for _, k := range expired {
			r.Primary.Feed(k.DB, propagate.AppendCommand(nil, del, k.Key))
		}
	}
	r.attach()
}

// IsReplica reports whether this server replicates a master.
func (r *Replication) IsReplica() bool { return r.replica.Load() }

// Stale reports whether this server is a replica whose link to its
// master is not up (Redis's masterhost && repl_state !=
// REPL_STATE_CONNECTED): what replica-serve-stale-data no refuses on.
func (r *Replication) Stale() bool {
	if !r.IsReplica() {
		return false
	}
	role := r.Primary.Role()
	return !role.Master && role.State != "connected"
}

// SetReplayer gives the replication the replaying client it applies a
// master's stream with (the composition root's: the Redis front-end's),
// and the port this server listens on, for REPLCONF listening-port.
func (r *Replication) SetReplayer(newReplay func() MasterReplayer, port int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.replay, r.ownPort = newReplay, port
}

// MasterReplayer is a replica's master client: it applies the master's
// stream and, while the stream runs, is listed and killable as Redis's
// master client (CLIENT LIST flags=M, CLIENT KILL TYPE master; resp's
// NewMasterReplay).
type MasterReplayer interface {
	Replayer
	// Linked: the stream from remote (our end local) is being applied;
	// drop closes its connection.
	Linked(remote, local string, drop func())
	// Unlinked: that stream ended.
	Unlinked()
}

// ErrNoTLSDialer: tls-replication without the TLS configuration to dial
// with.
var ErrNoTLSDialer = errors.New("ERR tls-replication is set but TLS is not configured")

// ErrNoReplayer: replication was asked for before the composition root
// gave a Replayer.
var ErrNoReplayer = errors.New("ERR replication is not wired to a front-end")

// ReplicaOf makes this server a replica of host:port (REPLICAOF, the
// replicaof directive at start: atStartup).
func (r *Replication) ReplicaOf(host string, port int, atStartup bool) error {
	return r.replicaOf(host, port, atStartup, nil)
}

// replicaOf is ReplicaOf; a failover (non-nil) makes the first PSYNC a
// PSYNC … FAILOVER and hears its outcome (repl.Callbacks.FailoverPSYNC).
func (r *Replication) replicaOf(host string, port int, atStartup bool, failover func(accepted bool)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.replay == nil {
		return ErrNoReplayer
	}
	// A link to another master is not stopped as REPLICAOF NO ONE stops
	// it (a new ID of our own, the replicas dropped): StartReplica halts
	// it and continues its history, as Redis's replicationSetMaster, so a
	// replica moved to a fellow replica of its master (after a failover)
	// asks to continue with the master's ID and offset.
	r.attach()
	c := r.s.Config
	listen := c.ReplicaAnnouncePort()
	if listen == 0 {
		listen = r.ownPort
	}
	replay := r.replay()
	r.replica.Store(true)
	r.followExpiry() // before the master's RDB arrives: its expired keys stay
	dialTLS := r.dialTLS
	if c.TLSReplication() && dialTLS == nil {
		return ErrNoTLSDialer
	}
	// tls-replication is read at each connection attempt, as Redis's
	// connectToMaster: a CONFIG SET of it applies from the next one.
	dial := func(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
		if dialTLS != nil && c.TLSReplication() {
			return dialTLS(ctx, addr, timeout)
		}
		return (&net.Dialer{Timeout: timeout}).DialContext(ctx, "tcp", addr)
	}
	r.link = r.Primary.StartReplica(repl.ReplicaOptions{Host: host, Port: port, User: c.MasterUser(), Pass: c.MasterAuth(),
		ListeningPort: listen, AnnounceIP: c.ReplicaAnnounceIP(), AtStartup: atStartup, Dial: dial,
		Failover: failover != nil},
		repl.Callbacks{
			Load: func(rd io.Reader) (int, error) {
				r.s.Engine.FlushAll()
				r.s.Scripts.Functions.Flush()
				res, err := r.s.Persist.ReadRDB(rd, snapshot.OntoEmpty)
				if res.HasRepl {
					return res.Repl.StreamDB, err
				}
				return 0, err
			},
			Apply:         func(_ int, args [][]byte) error { return replay.Apply(args) },
			Log:           func(msg string) { r.s.Log.Info(msg) },
			FailoverPSYNC: failover,
			Linked:        replay.Linked,
			Unlinked:      replay.Unlinked,
		})
	if r.onReplica != nil {
		r.onReplica()
	}
	return nil
}

// NoOne stops replicating (REPLICAOF NO ONE): this server becomes a
// master continuing its master's history, as Redis's.
func (r *Replication) NoOne() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.link != nil {
		r.link.Stop()
		r.link = nil
	}
	r.replica.Store(false)
	r.followExpiry()
}

// PromoteForFailover is the target's side of FAILOVER (PSYNC … FAILOVER):
// the stream bytes its master already sent are applied (Drain), then it
// becomes a master as NoOne. It waits for the link's goroutine: call it
// off the event loop, holding no gate.
func (r *Replication) PromoteForFailover() {
	r.mu.Lock()
	link := r.link
	r.mu.Unlock()
	if link != nil {
		link.Drain(failoverDrain)
	}
	r.NoOne()
}

// failoverDrain is how long a promoted target waits for its master's
// stream to go quiet.
const failoverDrain = 5 * time.Millisecond

// Master is the master this server replicates, if any.
func (r *Replication) Master() (addr string, ok bool) {
	role := r.Primary.Role()
	if role.Master {
		return "", false
	}
	return net.JoinHostPort(role.Host, strconv.Itoa(role.Port)), true
}

// Close ends the link and the replicas' connections at shutdown.
func (r *Replication) Close() {
	r.stopFailover()
	r.NoOne()
	r.Primary.Close()
}
