package memproto

import (
	"strconv"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/propagate"
)

// Effects: while the write stream has a sink (the AOF, a replica; package
// propagate), every memcached request runs under the stream's order lock,
// as the Redis port's commands do, and a request that changed an item
// feeds the item's new state in Redis command form — a memcached write
// has no Redis command of its own (prepend, cas, incr's wrap-around):
//
//   - an item stored: SET key value, with PXAT <ms> when it expires, after
//     a note, PING "MC <flags> <cas>", carrying what Redis has no room
//     for (propagate.NoteOf): redis-server runs the PING without effect,
//     Tandem's loader and replicas give the item those flags and that CAS;
//   - an item gone (delete, an expiry in the past): DEL key;
//   - flush_all: FLUSHDB in database 0, or, with a delay, the note
//     PING "MC flush <unix ms>" alone (redis-server has no such flush; a
//     Tandem loader or replica applies it).
//
// A request changed an item when it appeared or went, its CAS unique
// moved (every memcached write gives a new one: TrackCAS) or its expiry
// did (touch keeps the CAS).

// orderRequest takes the order lock for a request when the stream is on.
func (s *session) orderRequest() bool {
	if !s.fe.stream.Active() {
		return false
	}
	s.fe.stream.Lock()
	return true
}

// beforeWrite records, when the stream is on and r may write, the items
// r names as they are before it runs: afterWrite feeds those it changed.
// flush_all feeds its own effect (flushAfter).
func (s *session) beforeWrite(r *Request) (keys [][]byte, before []itemState) {
	if r.Cmd == nil || !s.fe.stream.Active() || !r.Cmd.writes(r) {
		return nil, nil
	}
	keys = r.Keys
	if len(keys) == 0 {
		if len(r.Key) == 0 {
			return nil, nil
		}
		s.oneKey[0] = r.Key
		keys = s.oneKey[:]
	}
	return keys, s.statesOf(keys)
}

// afterWrite feeds the items beforeWrite recorded that r changed.
func (s *session) afterWrite(keys [][]byte, before []itemState) {
	if keys != nil {
		s.propagateItems(keys, before)
	}
}

// itemState is what an item was before a request: whether it existed
// and its CAS unique.
type itemState struct {
	found    bool
	cas      uint64
	expireAt int64
}

// statesOf records the items keys name before a write request.
func (s *session) statesOf(keys [][]byte) []itemState {
	s.states = s.states[:0]
	for _, k := range keys {
		info, found := s.fe.db.Info(k)
		s.states = append(s.states, itemState{found: found, cas: info.CAS, expireAt: info.ExpireAt})
	}
	return s.states
}

// propagateItems feeds the new state of every item of keys the request
// changed, given their states before.
func (s *session) propagateItems(keys [][]byte, before []itemState) {
	fe := s.fe
	now := fe.clock.NowMs()
	for i, k := range keys {
		var it engine.SnapItem
		found := fe.db.Peek(k, func(p *engine.SnapItem, _ engine.PeekInfo) {
			it = *p
			it.Value = append([]byte(nil), p.Value...)
		}) && (it.ExpireAt == 0 || it.ExpireAt > now)
		switch {
		case !found && !before[i].found:
		case !found:
			s.fx.Add(0, argDEL, k)
		case before[i].found && it.CAS == before[i].cas && it.ExpireAt == before[i].expireAt:
		case it.Type != engine.TypeString:
		default:
			s.note = propagate.AppendMemcachedNote(s.note[:0], it.Flags, it.CAS)
			if it.ExpireAt != 0 {
				s.fx.AddAnnotated(0, s.note, argSET, k, it.Value, argPXAT, strconv.AppendInt(nil, it.ExpireAt, 10))
			} else {
				s.fx.AddAnnotated(0, s.note, argSET, k, it.Value)
			}
		}
	}
	s.emitted = fe.stream.Emit(&s.fx) || s.emitted
}

// syncStream, at the end of a Serve that fed the stream, lets the AOF
// write those effects before the replies go out, holding the replies
// from from on until they are on disk under appendfsync always (as the
// Redis port's Client.syncStream).
func (s *session) syncStream(from int) {
	if !s.emitted {
		return
	}
	s.emitted = false
	if s.closing {
		s.fe.stream.SyncWait()
		return
	}
	if s.durable = s.fe.stream.Hold(s.out[from:], s.peer); s.durable != nil {
		s.out = s.out[:from]
	}
}

// propagateFlush feeds flush_all's effect: FLUSHDB now, or the delayed
// flush's annotation (at, unix ms).
func (s *session) propagateFlush(at int64) {
	if !s.fe.stream.Active() {
		return
	}
	if at == 0 {
		s.fx.Add(0, argFLUSHDB)
	} else {
		s.fx.AddNote(0, propagate.AppendMemcachedFlush(nil, at))
	}
	s.emitted = s.fe.stream.Emit(&s.fx) || s.emitted
}

var (
	argSET     = []byte("SET")
	argDEL     = []byte("DEL")
	argPXAT    = []byte("PXAT")
	argFLUSHDB = []byte("FLUSHDB")
)
