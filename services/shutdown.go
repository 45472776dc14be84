package services

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tandemkv/tandem/engine"
)

// ShutdownOptions are SHUTDOWN's flags; SIGTERM is the zero value.
type ShutdownOptions struct {
	Save, NoSave bool // save the dump even without save rules; never save it
	Now          bool // do not wait for the replicas
	Force        bool // exit even when the save fails
}

// ErrShutdown is the reply to a SHUTDOWN that did not happen (the save
// failed, or SHUTDOWN ABORT came while it waited for the replicas).
var ErrShutdown = errors.New("ERR Errors trying to SHUTDOWN. Check logs.")

// shutdownState is the shutdown in progress, if any.
type shutdownState struct {
	mu sync.Mutex
	// abort is closed by AbortShutdown; nil when no shutdown runs. Every
	// SHUTDOWN running meanwhile (users of them) shares it, as Redis's
	// clients blocked in one shutdown: an abort fails them all.
	abort    chan struct{}
	users    int
	deadline time.Time // while it waits for replicas: when it stops waiting
}

// ShutdownDeadline is, while a shutdown waits for its replicas, when it
// stops waiting (INFO server's shutdown_in_milliseconds).
func (s *Services) ShutdownDeadline() (at time.Time, waiting bool) {
	s.shutdown.mu.Lock()
	defer s.shutdown.mu.Unlock()
	return s.shutdown.deadline, !s.shutdown.deadline.IsZero()
}

// PrepareShutdown is Redis 7.0's prepareForShutdown and finishShutdown,
// for the SHUTDOWN command and SIGTERM alike. Writes of both ports stop
// first (PauseWritesForShutdown): Tandem serves other connections while
// this runs, and a write acknowledged after the save would be lost. Then
// FinishShutdown waits for the replicas and saves. The caller must not
// hold the engine's gate; a Redis command, which does, calls the two
// halves itself.
func (s *Services) PrepareShutdown(o ShutdownOptions) error {
	s.Engine.Gate().Exclusive(s.PauseWritesForShutdown)
	return s.FinishShutdown(o)
}

// PauseWritesForShutdown pauses the writes of both ports with a pause
// that only the exit (or a failed FinishShutdown) ends. The caller runs
// it in an exclusive section of the engine's gate, so that no write is
// half done.
func (s *Services) PauseWritesForShutdown() {
	s.Engine.Gate().PauseFor(engine.PauseDuringShutdown, engine.PauseWrite, math.MaxInt64)
}

// FinishShutdown runs once writes are paused: unless o.Now, the replicas
// get up to shutdown-timeout to acknowledge every write (a REPLCONF
// GETACK asks them at once), a replica still behind being logged; then
// the dump is saved when o or the save rules ask for it. On success the
// caller stops the server, the pause still in force; on failure (the
// save failed without Force, or AbortShutdown) the pause is lifted and
// ErrShutdown returned.
func (s *Services) FinishShutdown(o ShutdownOptions) error {
	s.shutdown.mu.Lock()
	if s.shutdown.abort == nil {
		s.shutdown.abort = make(chan struct{})
	}
	abort := s.shutdown.abort
	s.shutdown.users++
	s.shutdown.mu.Unlock()
	defer func() {
		s.shutdown.mu.Lock()
		if s.shutdown.abort == abort { // not aborted, nor a later one's
			if s.shutdown.users--; s.shutdown.users == 0 {
				s.shutdown.abort = nil
			}
		}
		s.shutdown.mu.Unlock()
	}()
	fail := func(msg string, args ...any) error {
		s.Log.Warn(msg, args...)
		s.Log.Warn("Errors trying to shut down the server. Check the logs for more information.")
		s.Engine.Gate().UnpauseFor(engine.PauseDuringShutdown)
		return ErrShutdown
	}
	if s.Loading.Active() { // as Redis: the data is not all there, so the dump stays as it is
		o.Save, o.NoSave = false, true
	}
	writes := s.Replication.Primary.Offset() // writes are paused: the last one's offset
	if !s.waitForReplicas(o, abort) {
		return fail("Shutdown was aborted while waiting for replicas")
	}
	s.logReplicasAtShutdown(writes)
	if s.AppendOnly.WritingInitial() { // Redis's AOF_WAIT_REWRITE: no AOF of the dataset yet
		if !o.Force {
			return fail("Writing initial AOF, can't exit.")
		}
		s.Log.Warn("Writing initial AOF. Exit anyway.")
	}
	if o.Save || !o.NoSave && s.Persist.HasRules() {
		s.Persist.Wait()
		if err := s.Persist.Save(); err != nil {
			if !o.Force {
				return fail("Error trying to save the DB, can't exit.", "err", err)
			}
			s.Log.Warn("Error trying to save the DB. Exit anyway.", "err", err)
		}
	}
	return nil
}

// ShutdownWaits reports whether FinishShutdown(o) would wait for
// replicas now: a caller on an event loop then runs it off the loop, which
// must go on serving the replicas' links (their GETACK and ACK).
func (s *Services) ShutdownWaits(o ShutdownOptions) bool {
	p := s.Replication.Primary
	n := p.Info().ConnectedSlaves
	return !o.Now && s.Config.ShutdownTimeout() > 0 && n > 0 && p.CountAcks(p.Offset()) < n
}

// waitForReplicas waits, unless o.Now or shutdown-timeout is 0, until
// every replica acknowledged the stream's offset, for at most
// shutdown-timeout; it reports false if abort came meanwhile.
func (s *Services) waitForReplicas(o ShutdownOptions, abort chan struct{}) bool {
	p := s.Replication.Primary
	timeout := s.Config.ShutdownTimeout()
	n, offset := p.Info().ConnectedSlaves, p.Offset()
	if o.Now || timeout <= 0 || n == 0 || p.CountAcks(offset) == n {
		return true
	}
	s.Log.Info("Waiting for replicas before shutting down.")
	s.shutdown.mu.Lock()
	s.shutdown.deadline = time.Now().Add(timeout)
	s.shutdown.mu.Unlock()
	defer func() {
		s.shutdown.mu.Lock()
		s.shutdown.deadline = time.Time{}
		s.shutdown.mu.Unlock()
	}()
	done := make(chan int, 1)
	cancel := p.WaitAsync(n, offset, timeout, func(acked int) { done <- acked })
	defer cancel()
	select {
	case <-done: // logReplicasAtShutdown names the replicas still lagging
		return true
	case <-abort:
		return false
	case <-time.After(timeout + time.Second): // WaitAsync's own timer answers first
		return true
	}
}

// logReplicasAtShutdown says, as Redis's finishShutdown, which replicas
// lag behind writes (the offset of the last write) and how many are in
// sync. Redis compares with its offset now, which the REPLCONF GETACK it
// sent includes, and waits for that too; Tandem's wait ends once the
// writes are acknowledged, so the GETACK is not counted against them.
func (s *Services) logReplicasAtShutdown(writes int64) {
	in := s.Replication.Primary.Info()
	if len(in.Slaves) == 0 {
		return
	}
	lagging := 0
	for _, r := range in.Slaves {
		if r.Offset < writes {
			lagging++
			s.Log.Warn(fmt.Sprintf("Lagging replica %s:%d reported offset %d behind master, lag=%d, state=%s.",
				r.IP, r.Port, writes-r.Offset, r.Lag, r.State))
		}
	}
	s.Log.Info(fmt.Sprintf("%d of %d replicas are in sync when shutting down.", len(in.Slaves)-lagging, len(in.Slaves)))
}

// AbortShutdown is SHUTDOWN ABORT: it stops a shutdown waiting for its
// replicas, and reports whether one was.
func (s *Services) AbortShutdown() bool {
	s.shutdown.mu.Lock()
	defer s.shutdown.mu.Unlock()
	if s.shutdown.abort == nil {
		return false
	}
	close(s.shutdown.abort)
	s.shutdown.abort, s.shutdown.users = nil, 0
	s.Log.Info("Shutdown manually aborted.")
	return true
}
