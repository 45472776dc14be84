package memproto

import (
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/mclog"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/users"
)

// session is one memcached connection. Its methods run on the connection's
// event loop, one at a time.
type session struct {
	fe      *Frontend
	peer    server.Peer
	parser  Parser
	req     Request
	out     []byte
	swallow int // bytes of a refused data block still to discard
	// held are replies not yet sent because a swallow is under way:
	// memcached writes nothing in its swallow state, so a refusal and the
	// replies queued before it go out once the refused bytes have all
	// arrived (and are lost if the connection closes first).
	held    []byte
	closing bool  // quit or shutdown: close after the replies so far
	stripe  uint8 // which copy of the latency counters this session adds to (latency.go)

	// pauseAt is the length of out at which serving stops because the
	// replies are not read; resume and suspended let a multiget stop
	// there and go on later (pacing.go).
	pauseAt   int
	resume    multigetResume
	suspended bool

	// flushed is how much of out memcached would already have written:
	// it writes its queued replies after each get-family command and mn,
	// every reqsPerEvent requests, and when it runs out of input. A reply
	// still queued is lost when memcached closes the connection, or when a
	// get with an over-long key culls the queue.
	flushed int
	nreq    int
	// pins are the keys of mg hits whose replies are still queued:
	// memcached's queued reply holds a reference to the item, and a
	// referenced item is not rewritten in place (see Frontend.incr).
	pins []int // end offsets in pinBuf

	// The write stream (effects.go): the items' states before a write,
	// the effects to feed, an annotation's bytes, a one-key list.
	states []itemState
	fx     propagate.Ops
	note   []byte
	oneKey [1][]byte
	// emitted: this Serve fed the stream; durable: replies held until
	// the AOF has its writes on disk.
	emitted bool
	durable *propagate.Held
	pinBuf  []byte

	lastCmd atomic.Int64 // unix seconds of the last request, for stats conns

	// binary: the connection speaks the binary protocol (binary.go),
	// decided by its first byte; decided is set once that byte is read.
	binary, decided bool
	bin             binRequest
	// saslPending: a SASL PLAIN Auth was answered "continue", its Step
	// is due (sasl.go).
	saslPending bool

	// user is who the session is logged in as: the default user when no
	// login is required, nil until login (auth.go) succeeds otherwise.
	// Atomic: the users store's follower (acl.go) reads it from the loop
	// of the client that deleted a user.
	user atomic.Pointer[users.User]
	// loginNeed is the length of the login's data block once its line is
	// read (auth.go).
	loginNeed int

	// pauseParked: CLIENT PAUSE holds back a request and the session's
	// wake-up is parked (pause.go).
	pauseParked atomic.Bool
	// loadParked: the same while the data loads at start (pause.go).
	loadParked atomic.Bool

	// watcher is set once the session watches the log (watch.go); then
	// it serves nothing else. watchTimer and watchDelay look again at a
	// socket that has not taken the last lines yet.
	watcher    *mclog.Watcher
	watchTimer *time.Timer
	watchDelay time.Duration
	// closeReason is what conn_close shows when the connection goes.
	closeReason mclog.CloseReason
}

// Serve implements server.Session: it runs every complete request in in,
// pipelined requests included, and appends their replies to out.
func (s *session) Serve(in, out []byte) (int, []byte, bool) {
	if s.watcher != nil {
		return s.serveWatch(in, out)
	}
	// Inside the engine's gate, so an EXEC or a script of a Redis client
	// never sees a memcached write in its middle. memcached has no BUSY
	// reply: while a busy script holds the keyspace, requests wait unread
	// and the loop comes back when it ends.
	if len(in) > 0 && s.loadingParked() {
		return 0, out, false
	}
	gate := s.fe.eng.Gate()
	if len(in) > 0 && !gate.Enter() {
		peer := s.peer
		gate.WhenOpen(func() { _ = peer.Wake() })
		return 0, out, false
	}
	if len(in) > 0 {
		defer gate.Leave()
	}
	s.out = out
	if s.durable != nil { // replies waiting for the AOF (effects.go)
		if !s.durable.Released() {
			return 0, out, false
		}
		s.out = append(s.out, s.durable.Replies()...)
		s.durable = nil
	}
	s.flushed, s.nreq = len(out), 0
	if len(s.held) > 0 {
		s.out = append(s.out, s.held...)
		s.held = s.held[:0]
	}
	s.unpin()
	s.parser.lim = s.fe.limits()
	s.pauseAt = s.pauseLimit(len(out)) // replies not read: stop there (pacing.go)
	if !s.decided && len(in) > 0 {
		s.decided = true
		switch s.fe.cfg.MemcachedBindingProtocol() {
		case conf.BindAuto:
			s.binary = in[0] == binReqMagic
		case conf.BindBinary:
			s.binary = true // text is a bad magic: closed, as memcached -B binary
		}
	}
	var pos int
	var parsed bool
	if s.binary {
		pos, parsed = s.serveBinary(in)
	} else {
		pos, parsed = s.serveText(in)
	}
	if s.swallow > 0 && !s.closing {
		s.held = append(s.held, s.out[s.flushed:]...)
		s.out = s.out[:s.flushed]
	}
	s.syncStream(len(out)) // the AOF has the writes before their replies go (effects.go)
	if parsed {
		s.lastCmd.Store(s.fe.clock.NowMs() / 1000)
	}
	s.fe.stats.bytesRead.Add(int64(pos))
	s.fe.stats.bytesWritten.Add(int64(len(s.out) - len(out)))
	reply := s.out
	s.out = nil // the buffer is the server's
	return pos, reply, s.closing
}

// serveText runs every complete text or meta request in in and returns how
// many bytes it consumed and whether it ran any.
func (s *session) serveText(in []byte) (int, bool) {
	pos := 0
	parsed := false
	for !s.closing {
		var done bool
		if pos, done = s.swallowInput(in, pos); !done {
			break
		}
		if pos == len(in) {
			break
		}
		if s.atBound() {
			break
		}
		if s.user.Load() == nil { // not logged in: memcached's auth-file login first (auth.go)
			n, more := s.login(in[pos:])
			if pos += n; !more {
				break
			}
			continue
		}
		n, st := s.parser.Next(in[pos:], &s.req)
		if st == Incomplete {
			break
		}
		if st == Close {
			// memcached closes at once: replies not yet written are lost.
			s.cull()
			s.closing = true
			s.closeReason = mclog.CloseError
			pos = len(in)
			break
		}
		if s.req.Err == "" && s.paused(s.req.Cmd, &s.req) {
			break // CLIENT PAUSE: served once it ends (pause.go)
		}
		parsed = true
		s.exec(&s.req)
		if s.suspended {
			// A multiget stopped at the bound: its line stays unconsumed,
			// to be parsed again and go on from s.resume (pacing.go).
			s.suspended = false
			break
		}
		s.resume = multigetResume{}
		pos += n
		if s.watcher != nil {
			pos = len(in) // what follows watch is never run (watch.go)
			break
		}
	}
	return pos, parsed
}

// swallowInput discards what is left of a refused data block from in at
// pos; done is false while the block goes on past in.
func (s *session) swallowInput(in []byte, pos int) (int, bool) {
	if s.swallow == 0 {
		return pos, true
	}
	n := min(s.swallow, len(in)-pos)
	s.swallow -= n
	return pos + n, s.swallow == 0
}

// Closed implements server.Session.
func (s *session) Closed() {
	s.stopWatching()
	s.logConnClose()
	s.fe.sessions.Delete(s.peer.ID())
	s.fe.stats.currConns.Add(-1)
}

// exec runs one parsed request.
func (s *session) exec(r *Request) {
	defer s.slowlogRecord(r, slowlogStart()) // SLOWLOG (slowlog.go)
	defer s.monitorFeed(r)                   // MONITOR (monitor.go)
	if s.orderRequest() {                    // the write stream's order (effects.go)
		defer s.fe.stream.Unlock()
	}
	flushes := false
	if r.Err != "" {
		s.refuse(r)
	} else if s.aclRefused(r) {
		// refused by the user's ACL rules, and answered (acl.go)
	} else if msg := s.fe.writeRefusal(r); msg != "" {
		s.refuseWrite(msg) // a failed BGSAVE, the AOF, a read-only replica (misconf.go)
	} else {
		if r.Cmd.grows() {
			// Make room first; under noeviction (or with nothing to evict)
			// the engine's write then refuses with ErrOOM.
			s.fe.eng.FreeMemory()
		}
		keys, before := s.beforeWrite(r) // the write stream (effects.go)
		s.logLookup(r)                   // watch fetchers (watch.go)
		r.Cmd.run(s, r)
		s.afterWrite(keys, before)
		flushes = r.Cmd.flushes
	}
	if s.nreq++; flushes || s.nreq%reqsPerEvent == 0 {
		s.flush()
	}
}

// pin records that a queued reply holds key's item.
func (s *session) pin(key []byte) {
	s.pinBuf = append(s.pinBuf, key...)
	s.pins = append(s.pins, len(s.pinBuf))
}

// pinned reports whether a queued reply holds key's item.
func (s *session) pinned(key []byte) bool {
	start := 0
	for _, end := range s.pins {
		if string(s.pinBuf[start:end]) == string(key) {
			return true
		}
		start = end
	}
	return false
}

// unpin forgets the pins: memcached has written its queued replies.
func (s *session) unpin() {
	s.pins, s.pinBuf = s.pins[:0], s.pinBuf[:0]
	if cap(s.pinBuf) > 64<<10 {
		s.pins, s.pinBuf = nil, nil
	}
}

// reqsPerEvent: memcached writes its queued replies after this many
// requests (its -R 20, plus the one that exhausts the count).
const reqsPerEvent = 21

// cull drops the replies memcached would not have written yet.
func (s *session) cull() { s.out = s.out[:s.flushed] }

// refuse answers a malformed request, with the side effects memcached has
// for some of them.
func (s *session) refuse(r *Request) {
	switch {
	case r.TooLarge:
		s.logTooLarge(r)
		s.fe.stats.storeTooLarge.Add(1)
		if r.Cmd.name == "set" || r.Cmd.shape == shapeMetaSet {
			if s.fe.log.Wants(mclog.Fetchers) { // memcached looks the old item up to drop it
				info, ok := s.fe.db.Info(r.Key)
				s.logGet(r.Key, ok && info.Type == engine.TypeString, info.Len)
			}
			s.fe.dropStale(r.Key)
		}
	case r.Err == errBadDataChunk:
		s.fe.stats.cmdSet.Add(1)
	}
	s.line(r, r.Err)
	s.swallow = r.Swallow
}

// line appends a reply line unless the request asked for no reply.
func (s *session) line(r *Request, text string) {
	if r.NoReply {
		return
	}
	s.out = append(s.out, text...)
	s.out = append(s.out, '\r', '\n')
}

// crlf ends a line.
func (s *session) crlf() { s.out = append(s.out, '\r', '\n') }
