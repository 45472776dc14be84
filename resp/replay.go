package resp

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/services"
)

// Replay runs commands read from the write stream's keepers — the AOF at
// start, a replica's master link — as Redis's AOF loader and master
// client do: a client with no connection whose commands are obeyed (no
// authentication, ACL, OOM, MISCONF or pause refusal: they were accepted
// once already), replies dropped. Its writes feed this server's own
// stream like any client's, so a replica's AOF keeps what it applied.
// Tandem's notes (propagate.NoteOf) give the next SET's item its
// memcached flags and CAS, or flush database 0 with a delay.
//
// One goroutine uses a Replay at a time; it enters the keyspace's gate
// around each command, as an event loop does around a batch.
type Replay struct {
	c    *Client
	note propagate.Note // an item annotation waiting for its SET
	// inSection: the caller holds the keyspace exclusively
	// (NewSectionReplay).
	inSection bool
}

// ErrReplayUnknown is Apply's error for a command the table lacks.
var ErrReplayUnknown = errors.New("unknown command")

// NewReplay returns a replaying client.
func (f *Frontend) NewReplay() *Replay { return f.newReplayOn(replayPeer{}) }

// newReplayOn returns a replaying client on peer.
func (f *Frontend) newReplayOn(peer server.Peer) *Replay {
	c := newClient(f, peer)
	c.obeys, c.authenticated, c.user = true, true, nil
	c.parser.SetAuthRequired(false)
	c.db.MayOvershoot = true // the writes were accepted once: no OOM refusal
	c.db.FromMaster = true
	// No key is expired for the replayed commands, as for Redis's master
	// client and its AOF loading: their keys expire by the DELs the stream
	// holds (engine.SetExpiryByMaster), and a command that found a key
	// there finds it here, however late it runs.
	c.expiryAt = 1
	c.db = c.db.At(c.expiryAt)
	return &Replay{c: c}
}

// NewSectionReplay returns a replaying client for a caller that holds
// the keyspace exclusively (DEBUG LOADAOF): its commands run without
// entering the gate — a transaction or a script the file holds runs as it
// would inside EXEC — and their effects feed no sink, as Redis's loading
// propagates nothing (server.dirty = 0).
func (f *Frontend) NewSectionReplay() *Replay {
	r := f.NewReplay()
	r.inSection, r.c.inExclusive = true, true
	return r
}

// Apply runs one command; its error is a command the table lacks or one
// with the wrong number of arguments. A command's own error reply (a
// WRONGTYPE the stream holds) is no error here, as in Redis's loader.
func (r *Replay) Apply(args [][]byte) error {
	c := r.c
	if len(args) == 0 {
		return nil
	}
	cmd := c.lookup.find(c.fe.table, args[0], c.scratch[:])
	if cmd == nil {
		return ErrReplayUnknown
	}
	if cmd.sub == nil && !cmd.arityOK(len(args)) {
		return errors.New("wrong number of arguments for '" + strings.ToLower(string(args[0])) + "' command")
	}
	if n, ok := propagate.NoteOf(args); ok { // a memcached item's flags and CAS, a delayed flush
		r.takeNote(n)
		return nil
	}
	if note := r.note; note.Item {
		r.note = propagate.Note{}
		if item, ok := memcachedItem(args, note); ok && c.tx == nil {
			r.apply(func(c *Client) {
				if _, err := c.db.Restore(item, services.EncodingLimits(c.fe.cfg)); err == nil {
					c.fx.ops.AddAnnotated(c.db.Num(), propagate.AppendMemcachedNote(nil, note.Flags, note.CAS), args...)
				}
			})
			return nil
		}
	}
	if p, ok := c.peer.(*masterPeer); ok {
		p.touch()
	}
	r.apply(func(c *Client) { c.exec(args) })
	return nil
}

// takeNote keeps an item note for the SET that follows, or applies a
// delayed flush.
func (r *Replay) takeNote(n propagate.Note) {
	if !n.Flush {
		r.note = n
		return
	}
	r.apply(func(c *Client) {
		c.fe.eng.DB(0).FlushExpiring(n.FlushAtMs)
		c.fx.ops.AddNote(0, propagate.AppendMemcachedFlush(nil, n.FlushAtMs))
	})
}

// DB is the database the replayed commands are in (after their SELECTs).
func (r *Replay) DB() int { return r.c.db.Num() }

// apply runs fn as a command of the client: inside the gate, under the
// stream's order, its effects fed, its reply dropped.
func (r *Replay) apply(fn func(c *Client)) {
	c := r.c
	if r.inSection {
		fn(c)
		c.fx.ops.Reset()
		c.events.Flush()
		c.w.Buf = c.w.Buf[:0]
		return
	}
	gate := c.fe.eng.Gate()
	gate.EnterWait()
	c.gateHeld = true
	if c.orderCommand() {
		fn(c)
		c.endOrdered()
	} else {
		fn(c)
		c.fe.stream.Emit(&c.fx.ops)
	}
	c.gateHeld = false
	gate.Leave()
	c.events.Flush()
	c.w.Buf = c.w.Buf[:0]
}

// memcachedItem is the item a "SET key value [PXAT ms]" after an item
// annotation stores.
func memcachedItem(args [][]byte, n propagate.Note) (*engine.SnapItem, bool) {
	if !argIsC(args[0], "SET") || (len(args) != 3 && len(args) != 5) {
		return nil, false
	}
	it := &engine.SnapItem{Key: args[1], Type: engine.TypeString, Value: args[2], Flags: n.Flags, CAS: n.CAS}
	if len(args) == 5 {
		at, err := strconv.ParseInt(string(args[4]), 10, 64)
		if !argIsC(args[3], "PXAT") || err != nil {
			return nil, false
		}
		it.ExpireAt = at
	}
	return it, true
}

// replayPeer is the connection a Replay does not have.
type replayPeer struct{}

func (replayPeer) ID() uint64                { return 0 }
func (replayPeer) RemoteAddr() string        { return "" }
func (replayPeer) LocalAddr() string         { return "" }
func (replayPeer) AsyncWrite(b []byte) error { return nil }
func (replayPeer) Wake() error               { return nil }
func (replayPeer) Close()                    {}
func (replayPeer) Idle() time.Duration       { return 0 }
func (replayPeer) FD() int                   { return -1 }
func (replayPeer) OutboundBuffered() int     { return 0 }
