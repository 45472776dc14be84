// Package propagate is the write stream: every change to the keyspace, in
// Redis command form and in the order the changes were made, handed to
// the sinks that keep or ship it — the append-only file and the replicas.
//
// Redis is single-threaded, so its order is the order commands ran.
// Tandem runs commands on several event loops; while the stream has a
// sink, every command of either protocol runs under the Log's order lock
// (Lock), which the front-end holds across the command and the feeding of
// its effects, and the engine holds across the active expiry cycle's
// removals. Commands then change the keyspace one at a time, as in Redis,
// while reading, parsing and writing replies stay parallel. Without a
// sink nothing is locked: the cost is one atomic load per command.
//
// A command's effects are collected in an Ops (a write command's own
// arguments, or the form Redis propagates it in: EXPIRE as PEXPIREAT,
// SPOP as SREM…) and fed at its end: one op alone, several wrapped in
// MULTI … EXEC, as Redis 7.0's propagatePendingCommands. Keys the engine
// removes on its own (expired, evicted) are fed at once as DEL, or UNLINK
// under lazyfree-lazy-expire / lazyfree-lazy-eviction.
package propagate

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tandemkv/tandem/engine"
)

// Sink receives the write stream. Feed is called in stream order, under
// the log's lock: it must copy cmd and never block. db is the database
// the command applies to; cmd is one command encoded as a RESP multibulk,
// possibly preceded by its note (a PING: see NoteOf), or a note alone.
// A sink inserts SELECT itself when db differs from the last database it
// wrote.
type Sink interface{ Feed(db int, cmd []byte) }

// ReplicaSink is a Sink that ships the stream to replicas (the
// replication's master role). Only such sinks are fed the ops recorded
// for replicas alone (Ops.AddReplicasOnly: PUBLISH, which Redis
// propagates with PROPAGATE_REPL, never to the AOF).
type ReplicaSink interface {
	Sink
	FeedsReplicas()
}

// Log orders the write stream and feeds it to its sinks.
type Log struct {
	order sync.Mutex // held across a command and the feeding of its effects
	mu    sync.Mutex // leaf: feeding; taken under shard locks (Removed)
	sinks atomic.Pointer[[]Sink]

	lazyExpire, lazyEvict atomic.Bool // UNLINK rather than DEL

	scratch []byte // under mu
}

// New returns a log with no sink.
func New() *Log { return &Log{} }

// Active reports whether the stream has a sink: only then do commands
// collect and feed their effects.
func (l *Log) Active() bool {
	p := l.sinks.Load()
	return p != nil && len(*p) > 0
}

// Add attaches a sink. The caller holds the order lock when the sink must
// see the stream from a point consistent with a capture (a rewrite's or a
// full sync's snapshot taken under the same lock).
func (l *Log) Add(s Sink) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var next []Sink
	if p := l.sinks.Load(); p != nil {
		next = append(next, *p...)
	}
	next = append(next, s)
	l.sinks.Store(&next)
}

// Remove detaches a sink.
func (l *Log) Remove(s Sink) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.sinks.Load()
	if p == nil {
		return
	}
	var next []Sink
	for _, x := range *p {
		if x != s {
			next = append(next, x)
		}
	}
	l.sinks.Store(&next)
}

// Lock takes the order lock: the caller's changes and their feeding come
// before or after every other command's, never between.
func (l *Log) Lock() { l.order.Lock() }

// Unlock releases the order lock.
func (l *Log) Unlock() { l.order.Unlock() }

// SetLazy sets whether removals by expiry and by eviction are fed as
// UNLINK (lazyfree-lazy-expire, lazyfree-lazy-eviction) rather than DEL.
func (l *Log) SetLazy(expire, evict bool) {
	l.lazyExpire.Store(expire)
	l.lazyEvict.Store(evict)
}

// Removed implements engine.EffectHook: a key expired or evicted is fed
// at once, as Redis's propagateDeletion.
func (l *Log) Removed(db int, key []byte, evicted bool) {
	if !l.Active() {
		return
	}
	name := "DEL"
	if evicted && l.lazyEvict.Load() || !evicted && l.lazyExpire.Load() {
		name = "UNLINK"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.scratch = AppendCommand(l.scratch[:0], []byte(name), key)
	l.feed(db, l.scratch, false)
}

// Served implements engine.EffectHook: a hand-off to a blocked client
// that no command collected is fed at once, as its pop.
func (l *Log) Served(h engine.Handoff) {
	if !l.Active() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.Group != nil {
		for _, cmd := range HandoffCommands(h) {
			l.feed(h.DB, cmd, false)
		}
		return
	}
	l.scratch = AppendHandoff(l.scratch[:0], h)
	l.feed(h.DB, l.scratch, false)
}

// HandoffCommands returns the commands a hand-off is propagated as: its
// pop (AppendHandoff), or what a blocked XREADGROUP did to its group
// (StreamGroupForms) wrapped in MULTI … EXEC when there are several, as
// Redis propagates each client it served as one execution unit.
func HandoffCommands(h engine.Handoff) [][]byte {
	if h.Group == nil {
		return [][]byte{AppendHandoff(nil, h)}
	}
	forms := StreamGroupForms(h.Key, h.Group, nil)
	var cmds [][]byte
	if len(forms) > 1 {
		cmds = append(cmds, multi)
	}
	for _, f := range forms {
		cmds = append(cmds, AppendCommand(nil, f...))
	}
	if len(forms) > 1 {
		cmds = append(cmds, exec)
	}
	return cmds
}

// StreamGroupForms returns the commands (each its arguments) a group
// command's effects on stream key are propagated as, as Redis 7.0's
// consumer group code does (t_stream.c): XGROUP CREATECONSUMER for a
// consumer an XREADGROUP NOACK created; per pending entry given to a
// consumer, or dropped because its message was gone, an XCLAIM that sets
// it whole (JUSTID, FORCE, its time, count and the group's last ID then),
// which also drops it on the replica when the message is gone there; and
// XGROUP SETID with the read counter when the last delivered ID moved
// and no XCLAIM carried it. idArgs are XCLAIM's ID arguments, which its
// XCLAIMs repeat as the client typed them (nil for the others).
func StreamGroupForms(key []byte, fx *engine.StreamGroupEffects, idArgs [][]byte) [][][]byte {
	group := []byte(fx.Group)
	var forms [][][]byte
	if fx.NoAck && fx.ConsumerCreated {
		forms = append(forms, [][]byte{[]byte("XGROUP"), []byte("CREATECONSUMER"), key, group, []byte(fx.Consumer)})
	}
	for _, c := range fx.Claims {
		id := c.ID.AppendTo(nil)
		if idArgs != nil {
			id = idArgs[c.Arg]
		}
		forms = append(forms, [][]byte{[]byte("XCLAIM"), key, group, []byte(c.Consumer), []byte("0"), id,
			[]byte("TIME"), strconv.AppendInt(nil, c.Delivered, 10), []byte("RETRYCOUNT"), strconv.AppendUint(nil, c.Count, 10),
			[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), c.LastID.AppendTo(nil)})
	}
	if fx.LastIDMoved && len(fx.Claims) == 0 {
		forms = append(forms, [][]byte{[]byte("XGROUP"), []byte("SETID"), key, group, fx.LastID.AppendTo(nil),
			[]byte("ENTRIESREAD"), strconv.AppendInt(nil, fx.EntriesRead, 10)})
	}
	return forms
}

// AppendHandoff appends the command a hand-off is propagated as: LPOP,
// RPOP, ZPOPMIN or ZPOPMAX of its key, with its count unless it took one
// element (BLPOP's form), as Redis's serveClientBlockedOnList.
func AppendHandoff(b []byte, h engine.Handoff) []byte {
	name := []byte(strings.ToUpper(h.Event))
	if h.Count < 0 {
		return AppendCommand(b, name, h.Key)
	}
	return AppendCommand(b, name, h.Key, strconv.AppendInt(nil, int64(h.Count), 10))
}

// Emit feeds ops — one command's effects — and empties it: several are
// wrapped in MULTI … EXEC, the MULTI in the first op's database. An op
// for replicas only reaches the ReplicaSinks; the MULTI and EXEC reach
// every sink all the same, as Redis's propagatePendingCommands sends
// them to both targets. It
// reports whether it fed anything, so the caller calls Sync before the
// replies go out.
func (l *Log) Emit(ops *Ops) bool {
	if len(ops.ends) == 0 && len(ops.afterEnds) == 0 {
		return false
	}
	defer ops.Reset()
	if !l.Active() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	wrap := len(ops.ends) > 1
	if wrap {
		l.feed(ops.dbs[0], multi, false)
	}
	ops.seal()
	start := 0
	for i, end := range ops.ends {
		l.feed(ops.dbs[i], ops.buf[start:end], ops.replicasOnly[i])
		start = end
	}
	if wrap {
		l.feed(ops.dbs[len(ops.dbs)-1], exec, false)
	}
	for i, end := range ops.afterEnds {
		l.feed(ops.afterDBs[i], ops.buf[start:end], false)
		start = end
	}
	return true
}

// Syncer is a sink that holds replies back: the AOF, which writes (and
// under appendfsync always fsyncs) what it was fed before the replies of
// those writes are sent.
type Syncer interface {
	// Flush is called before the replies of writes fed so far go out. It
	// reports whether they must wait (always: until on disk) or may go now
	// (everysec, no: the sink writes them soon).
	Flush() (wait bool)
	// WhenSafe calls done, from another goroutine, once the writes fed so
	// far are on disk.
	WhenSafe(done func())
}

// Hold is what a front-end calls at the end of a batch that fed the
// stream, outside the order lock. When every sink lets the replies go
// now it returns nil. Else it copies replies and returns them held; once
// every waiting sink has the batch's writes on disk, conn.Wake makes the
// connection's loop serve it again, to send them. Meanwhile the loop
// serves other connections, whose writes join the same write and sync
// (group commit).
func (l *Log) Hold(replies []byte, conn Waker) *Held {
	var waiting [2]Syncer
	holders := l.flush(waiting[:0])
	if len(holders) == 0 {
		return nil
	}
	h := &Held{replies: append([]byte(nil), replies...), done: make(chan struct{})}
	whenSafe(holders, func() {
		close(h.done)
		_ = conn.Wake()
	})
	return h
}

// Waker is a connection whose event loop can be made to serve it again.
type Waker interface{ Wake() error }

// SyncWait is Hold that waits, for a caller off the event loops (a
// script's goroutine, a connection about to close).
func (l *Log) SyncWait() {
	var waiting [2]Syncer
	holders := l.flush(waiting[:0])
	if len(holders) == 0 {
		return
	}
	ch := make(chan struct{})
	whenSafe(holders, func() { close(ch) })
	<-ch
}

// flush flushes every Syncer sink, appending those the replies must wait
// for to out.
func (l *Log) flush(out []Syncer) []Syncer {
	p := l.sinks.Load()
	if p == nil {
		return out
	}
	for _, s := range *p {
		if sy, ok := s.(Syncer); ok && sy.Flush() {
			out = append(out, sy)
		}
	}
	return out
}

// whenSafe calls done once every one of holders has its writes on disk.
func whenSafe(holders []Syncer, done func()) {
	if len(holders) == 1 {
		holders[0].WhenSafe(done)
		return
	}
	var pending atomic.Int32
	pending.Store(int32(len(holders)))
	for _, sy := range holders {
		sy.WhenSafe(func() {
			if pending.Add(-1) == 0 {
				done()
			}
		})
	}
}

// Feed feeds one encoded command as it is, outside any Ops (a replica's
// stream from its primary, proxied unchanged).
func (l *Log) Feed(db int, cmd []byte) {
	if !l.Active() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.feed(db, cmd, false)
}

// feed feeds cmd to every sink, or to the ReplicaSinks alone.
func (l *Log) feed(db int, cmd []byte, replicasOnly bool) {
	for _, s := range *l.sinks.Load() {
		if replicasOnly {
			if _, ok := s.(ReplicaSink); !ok {
				continue
			}
		}
		s.Feed(db, cmd)
	}
}

var (
	multi = AppendCommand(nil, []byte("MULTI"))
	exec  = AppendCommand(nil, []byte("EXEC"))
)

// Ops collects one command's effects until Emit. The zero value is ready;
// a connection keeps one and reuses its buffers.
type Ops struct {
	buf  []byte
	ends []int
	dbs  []int
	// replicasOnly[i]: op i is fed to the ReplicaSinks alone.
	replicasOnly []bool
	// after are ops fed after the others, outside their MULTI: the pops
	// of blocked clients the command served, as Redis feeds them (AddAfter).
	after               []byte
	afterEnds, afterDBs []int
}

// AddAfter records an encoded command fed after the others and outside
// their MULTI … EXEC.
func (o *Ops) AddAfter(db int, cmd []byte) {
	o.after = append(o.after, cmd...)
	o.afterEnds = append(o.afterEnds, len(o.after))
	o.afterDBs = append(o.afterDBs, db)
}

// seal moves the after ops to the end of buf, their ends with them, so
// Emit reads every op from one buffer.
func (o *Ops) seal() {
	base := 0
	if len(o.ends) > 0 {
		base = o.ends[len(o.ends)-1]
	}
	o.buf = append(o.buf[:base], o.after...)
	for i := range o.afterEnds {
		o.afterEnds[i] += base
	}
	o.after = o.after[:0]
}

// Add records the command args applying to database db.
func (o *Ops) Add(db int, args ...[]byte) {
	o.buf = AppendCommand(o.buf, args...)
	o.end(db, false)
}

// AddReplicasOnly records the command args, fed to the replicas and not
// to the AOF: Redis's PROPAGATE_REPL target (PUBLISH, SPUBLISH).
func (o *Ops) AddReplicasOnly(db int, args ...[]byte) {
	o.buf = AppendCommand(o.buf, args...)
	o.end(db, true)
}

// end closes the op whose bytes were just appended to buf.
func (o *Ops) end(db int, replicasOnly bool) {
	o.ends = append(o.ends, len(o.buf))
	o.dbs = append(o.dbs, db)
	o.replicasOnly = append(o.replicasOnly, replicasOnly)
}

// AddEncoded records a command already encoded (AppendCommand).
func (o *Ops) AddEncoded(db int, cmd []byte) {
	o.buf = append(o.buf, cmd...)
	o.end(db, false)
}

// AddAnnotated records a command preceded by its note (see NoteOf): one
// op, the note's PING and the command fed together.
func (o *Ops) AddAnnotated(db int, note []byte, args ...[]byte) {
	o.buf = AppendCommand(o.buf, argPING, note)
	o.Add(db, args...)
}

var argPING = []byte("PING")

// Len is the number of ops recorded.
func (o *Ops) Len() int { return len(o.ends) + len(o.afterEnds) }

// Reset forgets the ops, keeping small buffers.
func (o *Ops) Reset() {
	if cap(o.buf) > 64<<10 {
		o.buf = nil
	}
	o.buf, o.ends, o.dbs, o.replicasOnly = o.buf[:0], o.ends[:0], o.dbs[:0], o.replicasOnly[:0]
	o.after, o.afterEnds, o.afterDBs = o.after[:0], o.afterEnds[:0], o.afterDBs[:0]
}

// AppendCommand appends args as a RESP multibulk, the form of the AOF
// and of the replication stream.
func AppendCommand[S ~string | ~[]byte](b []byte, args ...S) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// Select is the SELECT command for db, which a sink writes before a
// command for another database than its last one.
func Select(b []byte, db int) []byte {
	return AppendCommand(b, []byte("SELECT"), strconv.AppendInt(nil, int64(db), 10))
}

// Notes carry what Redis commands cannot: memcached's flags and CAS
// unique of an item a memcached write stored, and a delayed flush_all.
// A note is the argument of a PING, which redis-server runs without
// effect in an AOF and from a master's stream alike (a master's stream
// holds PINGs anyway), and which no client's PING puts in the stream (it
// is no write). Tandem's loader and replicas apply them:
//
//	PING "MC <flags> <cas>"   the next command, a SET, stores an item with these
//	PING "MC flush <ms>"      every item of database 0 expires at unix ms

// AppendMemcachedNote appends the item note.
func AppendMemcachedNote(b []byte, flags uint32, cas uint64) []byte {
	b = append(b, "MC "...)
	b = strconv.AppendUint(b, uint64(flags), 10)
	b = append(b, ' ')
	return strconv.AppendUint(b, cas, 10)
}

// AppendMemcachedFlush appends the delayed flush note.
func AppendMemcachedFlush(b []byte, atMs int64) []byte {
	b = append(b, "MC flush "...)
	return strconv.AppendInt(b, atMs, 10)
}

// Note is a parsed note.
type Note struct {
	Item      bool // #MC <flags> <cas>
	Flags     uint32
	CAS       uint64
	Flush     bool // #MC flush <ms>
	FlushAtMs int64
}

// NoteOf parses the note a command is, if it is one: PING with a
// Tandem note as its argument.
func NoteOf(args [][]byte) (n Note, ok bool) {
	if len(args) != 2 || !strings.EqualFold(string(args[0]), "PING") {
		return Note{}, false
	}
	f := strings.Fields(string(args[1]))
	if len(f) != 3 || f[0] != "MC" {
		return Note{}, false
	}
	if f[1] == "flush" {
		at, err := strconv.ParseInt(f[2], 10, 64)
		return Note{Flush: true, FlushAtMs: at}, err == nil
	}
	flags, err1 := strconv.ParseUint(f[1], 10, 32)
	cas, err2 := strconv.ParseUint(f[2], 10, 64)
	return Note{Item: true, Flags: uint32(flags), CAS: cas}, err1 == nil && err2 == nil
}

// AddNote records a note alone (a delayed flush_all).
func (o *Ops) AddNote(db int, note []byte) {
	o.buf = AppendCommand(o.buf, argPING, note)
	o.end(db, false)
}

// Held is a batch's replies held back until the batch's writes are
// durable (Sync's wait), while the event loop serves other connections.
type Held struct {
	replies []byte
	done    chan struct{}
}

// Released reports whether the writes are durable.
func (h *Held) Released() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// Replies are the held replies.
func (h *Held) Replies() []byte { return h.replies }
