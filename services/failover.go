package services

import (
	"errors"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/repl"
)

// FAILOVER, Redis 7.0's coordinated failover from this master to one of
// its replicas: the writes of both ports pause (the pause CLIENT PAUSE
// WRITE makes), a goroutine waits off the event loops until the target
// (or, without TO, any replica) has acknowledged the whole stream, then
// this server becomes the target's replica with a PSYNC … FAILOVER that
// makes the target a master; once the target accepts, the pause ends and
// the writes it held back meet a read-only replica. A TIMEOUT without
// FORCE gives up (writes resume here); with FORCE the switch happens
// anyway. FAILOVER ABORT gives up at any point, a switch under way
// included (this server is a master again).

// FailoverOptions are FAILOVER's arguments.
type FailoverOptions struct {
	HasTarget bool // TO host port
	Host      string
	Port      int
	Force     bool
	Timeout   time.Duration // 0: wait until ABORT
}

// FAILOVER's refusals, Redis 7.0's texts.
var (
	ErrFailoverInProgress = errors.New("ERR FAILOVER already in progress.")
	ErrFailoverReplica    = errors.New("ERR FAILOVER is not valid when server is a replica.")
	ErrFailoverNoReplicas = errors.New("ERR FAILOVER requires connected replicas.")
	ErrFailoverForce      = errors.New("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
	ErrFailoverNotReplica = errors.New("ERR FAILOVER target HOST and PORT is not a replica.")
	ErrFailoverNotOnline  = errors.New("ERR FAILOVER target replica is not online.")
	ErrNoFailover         = errors.New("ERR No failover in progress.")
)

// failoverPoll is how often the wait looks at the replicas' ACKs
// (Redis looks before every sleep of its event loop).
const failoverPoll = 5 * time.Millisecond

// failoverState is the failover in progress, if any.
type failoverState struct {
	// op serializes the steps that start or stop the master link (the
	// switch, an abort, the end), so an ABORT never races a switch.
	op sync.Mutex

	mu    sync.Mutex // guards what follows
	state repl.FailoverState
	host  string // target_replica_host: TO's, or the replica found synced
	port  int
	force bool
	end   time.Time // zero: no timeout
	gen   uint64    // tells a failover's callbacks from a later one's
	stop  chan struct{}
}

// FailingOver reports whether a failover is in progress (REPLICAOF and
// (P)SYNC are refused meanwhile).
func (r *Replication) FailingOver() bool {
	f := &r.fo
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state != repl.NoFailover
}

// Failover starts FAILOVER (failoverCommand), after its checks in
// Redis's order. The caller runs it in an exclusive section of the
// engine's gate: the write pause must find no write half done.
func (r *Replication) Failover(o FailoverOptions) error {
	f := &r.fo
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.state != repl.NoFailover:
		return ErrFailoverInProgress
	case r.IsReplica():
		return ErrFailoverReplica
	case r.Primary.Replicas() == 0:
		return ErrFailoverNoReplicas
	case o.Force && (o.Timeout == 0 || !o.HasTarget):
		return ErrFailoverForce
	}
	f.host, f.port = "", 0
	if o.HasTarget {
		st := r.Primary.FindReplica(o.Host, o.Port)
		if !st.Found {
			return ErrFailoverNotReplica
		}
		if !st.Online {
			return ErrFailoverNotOnline
		}
		f.host, f.port = o.Host, o.Port
		r.s.Log.Info("FAILOVER requested to " + o.Host + ":" + strconv.Itoa(o.Port) + ".")
	} else {
		r.s.Log.Info("FAILOVER requested to any replica.")
	}
	f.end = time.Time{}
	if o.Timeout > 0 {
		f.end = time.Now().Add(o.Timeout)
	}
	f.force = o.Force
	f.state = repl.FailoverWaitSync
	f.gen++
	f.stop = make(chan struct{})
	r.s.Engine.Gate().PauseFor(engine.PauseDuringFailover, engine.PauseWrite, math.MaxInt64)
	r.Primary.SetFailover(repl.FailoverWaitSync, o.Timeout > 0)
	go r.watchFailover(f.gen, f.stop)
	return nil
}

// watchFailover is updateFailoverStatus, run off the event loops until
// the failover leaves waiting-for-sync.
func (r *Replication) watchFailover(gen uint64, stop chan struct{}) {
	t := time.NewTicker(failoverPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if !r.stepFailover(gen) {
			return
		}
	}
}

// stepFailover looks once: past the timeout it switches (FORCE) or gives
// up; a synced target starts the switch. It reports whether to look
// again.
func (r *Replication) stepFailover(gen uint64) bool {
	f := &r.fo
	f.op.Lock()
	defer f.op.Unlock()
	f.mu.Lock()
	if f.gen != gen || f.state != repl.FailoverWaitSync {
		f.mu.Unlock()
		return false
	}
	if !f.end.IsZero() && !time.Now().Before(f.end) {
		if !f.force {
			f.mu.Unlock()
			r.abortFailoverOp("Replica never caught up before timeout")
			return false
		}
		r.s.Log.Info("FAILOVER to " + f.host + ":" + strconv.Itoa(f.port) + " time out exceeded, failing over.")
	} else {
		host, port, ok := r.Primary.SyncedReplica(f.host, f.port)
		if !ok {
			f.mu.Unlock()
			return true
		}
		f.host, f.port = host, port
		r.s.Log.Info("Failover target " + host + ":" + strconv.Itoa(port) + " is synced, failing over.")
	}
	f.state = repl.FailoverInProgress
	host, port, hold := f.host, f.port, !f.end.IsZero()
	f.mu.Unlock()
	r.Primary.SetFailover(repl.FailoverInProgress, hold)
	// replicationSetMaster: this server becomes the target's replica, its
	// first PSYNC saying FAILOVER. Its outcome comes on the link's
	// goroutine, which must not wait for op: it hands it on.
	err := r.replicaOf(host, port, false, func(accepted bool) {
		go r.failoverPSYNCDone(gen, accepted)
	})
	if err != nil {
		r.abortFailoverOp("Failed to connect to the failover target: " + err.Error())
	}
	return false
}

// failoverPSYNCDone ends the failover as the target answered: accepted,
// the pause ends with this server its replica; refused, it aborts.
func (r *Replication) failoverPSYNCDone(gen uint64, accepted bool) {
	f := &r.fo
	f.op.Lock()
	defer f.op.Unlock()
	f.mu.Lock()
	current := f.gen == gen && f.state == repl.FailoverInProgress
	f.mu.Unlock()
	if !current {
		return
	}
	if !accepted {
		r.abortFailoverOp("Failover target rejected psync request")
		return
	}
	r.clearFailover()
}

// AbortFailover is FAILOVER ABORT. It may stop the master link the
// switch started: call it without holding the engine's gate.
func (r *Replication) AbortFailover() error {
	f := &r.fo
	f.op.Lock()
	defer f.op.Unlock()
	if !r.FailingOver() {
		return ErrNoFailover
	}
	r.abortFailoverOp("Failover manually aborted")
	return nil
}

// abortFailoverOp is abortFailover, the caller holding op: a switch
// under way is undone (REPLICAOF NO ONE), then the state cleared.
func (r *Replication) abortFailoverOp(why string) {
	f := &r.fo
	f.mu.Lock()
	state, host, port := f.state, f.host, f.port
	f.mu.Unlock()
	if state == repl.NoFailover {
		return
	}
	if host != "" {
		r.s.Log.Info("FAILOVER to " + host + ":" + strconv.Itoa(port) + " aborted: " + why)
	} else {
		r.s.Log.Info("FAILOVER to any replica aborted: " + why)
	}
	if state == repl.FailoverInProgress {
		r.NoOne()
	}
	r.clearFailover()
}

// clearFailover is clearFailoverState: no failover, writes resume.
func (r *Replication) clearFailover() {
	f := &r.fo
	f.mu.Lock()
	f.state = repl.NoFailover
	f.host, f.port, f.force, f.end = "", 0, false, time.Time{}
	f.gen++
	if f.stop != nil {
		close(f.stop)
		f.stop = nil
	}
	f.mu.Unlock()
	r.Primary.SetFailover(repl.NoFailover, false)
	r.s.Engine.Gate().UnpauseFor(engine.PauseDuringFailover)
}

// stopFailover ends the wait's goroutine at shutdown.
func (r *Replication) stopFailover() {
	f := &r.fo
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stop != nil {
		close(f.stop)
		f.stop = nil
	}
}
