package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Salts of the per-key size hashes: a key's length and its value's
// length are drawn independently.
const (
	keySalt   = 0x6b6579 // "key"
	valueSalt = 0x76616c // "val"
)

// stats are what one connection saw during one phase.
type stats struct {
	replies      uint64 // requests answered (a multi-get counts its keys)
	sets, gets   uint64
	hits, misses uint64
	errorReplies uint64 // well-formed refusals and error replies
	wrongValues  uint64 // values that are not the ones written for their keys
	missing      uint64 // misses on keys the phase before wrote (ExpectHits)
	lost         uint64 // requests never answered (their connection failed)
	firstError   string
	hist         benchkit.Histogram
}

func (s *stats) errors() uint64 { return s.errorReplies + s.wrongValues + s.missing + s.lost }

func (s *stats) note(err error) {
	if s.firstError == "" {
		s.firstError = err.Error()
	}
}

func (s *stats) merge(o *stats) {
	s.replies += o.replies
	s.sets += o.sets
	s.gets += o.gets
	s.hits += o.hits
	s.misses += o.misses
	s.errorReplies += o.errorReplies
	s.wrongValues += o.wrongValues
	s.missing += o.missing
	s.lost += o.lost
	if s.firstError == "" {
		s.firstError = o.firstError
	}
	s.hist.Merge(&o.hist)
}

// budget hands out the requests of a phase: a count shared by all
// connections, or, in a timed phase, as many as fit before stop is set.
type budget struct {
	left  atomic.Int64
	timed bool
	stop  atomic.Bool
}

// claim returns how many requests (at most p) the caller may send next; 0
// means the phase is over.
func (b *budget) claim(p int) int {
	if b.timed {
		if b.stop.Load() {
			return 0
		}
		return p
	}
	n := b.left.Add(-int64(p))
	switch {
	case n >= 0:
		return p
	case n > -int64(p):
		return p + int(n)
	}
	return 0
}

// keyChooser draws key indices for one phase; one per phase, shared by
// its connections (the sequence and the Zipf table are shared; each
// connection has its own random stream).
type keyChooser struct {
	dist     string
	keyspace int64
	zipf     *benchkit.Zipf
	next     atomic.Int64 // distSeq
}

func newKeyChooser(w *Workload, zipfs map[[2]float64]*benchkit.Zipf) (*keyChooser, error) {
	k := &keyChooser{dist: w.Dist, keyspace: w.Keyspace}
	if w.Dist == distZipf {
		id := [2]float64{float64(w.Keyspace), w.ZipfAlpha}
		if k.zipf = zipfs[id]; k.zipf == nil {
			z, err := benchkit.NewZipf(int(w.Keyspace), w.ZipfAlpha)
			if err != nil {
				return nil, err
			}
			zipfs[id], k.zipf = z, z
		}
	}
	return k, nil
}

func (k *keyChooser) pick(r *rand.Rand) int64 {
	switch k.dist {
	case distSeq:
		return (k.next.Add(1) - 1) % k.keyspace
	case distZipf:
		return int64(k.zipf.Rank(r.Float64()))
	}
	return r.Int64N(k.keyspace)
}

// slot is one request of a pipeline: a SET of keys[0], or a get of keys.
type slot struct {
	set  bool
	keys [][]byte // len 1, or MultiGet for a get
	idx  []int64
}

// batch is one pipeline: its requests, and when it was due (paced runs)
// or written.
type batch struct {
	slots []slot
	n     int // slots in use
	due   time.Time
}

func newBatch(w *Workload) *batch {
	b := &batch{slots: make([]slot, w.Pipeline)}
	for i := range b.slots {
		b.slots[i].keys = make([][]byte, w.MultiGet)
		b.slots[i].idx = make([]int64, w.MultiGet)
		for j := range b.slots[i].keys {
			b.slots[i].keys[j] = make([]byte, 0, w.KeySize.Max)
		}
	}
	return b
}

// worker is one connection and the goroutine(s) that drive it.
type worker struct {
	codec   benchkit.Codec
	conn    net.Conn
	r       *bufio.Reader
	rng     *rand.Rand
	out     []byte // the pipeline being written
	value   []byte // the value of the SET being encoded
	expect  []byte // the value a hit must return
	scratch []byte // where replies' values are read
	dead    error  // set when the connection failed; it is not used again
	st      stats
	verify  bool
}

func newWorker(c benchkit.Codec, conn net.Conn, seed uint64, id int, verify bool) *worker {
	return &worker{
		codec:  c,
		conn:   conn,
		r:      bufio.NewReaderSize(conn, 64<<10),
		rng:    rand.New(rand.NewPCG(seed+uint64(id), 0x7a6e64656d)),
		verify: verify,
	}
}

// fill draws the next k requests of phase ph into b and encodes them.
func (w *worker) fill(b *batch, k int, ph Phase, wl *Workload, keys *keyChooser) {
	w.out = w.out[:0]
	b.n = k
	for i := range k {
		s := &b.slots[i]
		s.set = ph.Get == 0 || (ph.Set > 0 && w.rng.IntN(ph.Set+ph.Get) < ph.Set)
		n := wl.MultiGet
		if s.set {
			n = 1
		}
		s.keys = s.keys[:n]
		s.idx = s.idx[:n]
		for j := range n {
			idx := keys.pick(w.rng)
			s.idx[j] = idx
			s.keys[j] = benchkit.AppendKey(s.keys[j][:0], "key:", idx, wl.KeySize.pick(idx, keySalt)-len("key:"))
		}
		switch {
		case s.set:
			size := wl.ValueSize.pick(s.idx[0], valueSalt)
			if cap(w.value) < size {
				w.value = make([]byte, size)
			}
			v := w.value[:size]
			benchkit.FillPattern(v, s.keys[0])
			w.out = w.codec.AppendSet(w.out, s.keys[0], v)
		case n == 1:
			w.out = w.codec.AppendGet(w.out, s.keys[0])
		default:
			w.out = w.codec.AppendMultiGet(w.out, s.keys)
		}
	}
}

// read reads and checks the replies of b, recording each one's latency
// from since. It returns the number of slots read and a broken stream's
// error.
func (w *worker) read(b *batch, wl *Workload, since time.Time) (int, error) {
	for i := range b.n {
		if err := w.readSlot(&b.slots[i], wl); err != nil {
			return i, err
		}
		w.st.hist.Record(time.Since(since))
	}
	return b.n, nil
}

// readSlot reads one reply; a ReplyErr is counted here and is not
// returned.
func (w *worker) readSlot(s *slot, wl *Workload) error {
	var err error
	switch {
	case s.set:
		err = w.codec.ReadSet(w.r)
		if err == nil || benchkit.InStep(err) {
			w.st.replies++
			w.st.sets++
		}
	case len(s.keys) == 1:
		var v []byte
		var hit bool
		v, hit, err = w.codec.ReadGet(w.r, s.keys[0], &w.scratch)
		if err == nil {
			w.check(s, 0, v, hit, wl)
		}
	default:
		err = w.codec.ReadMultiGet(w.r, s.keys, &w.scratch, func(j int, v []byte, hit bool) { w.check(s, j, v, hit, wl) })
	}
	if err != nil && benchkit.InStep(err) {
		if !s.set {
			w.st.replies++
			w.st.gets++
		}
		w.st.errorReplies++
		w.st.note(err)
		return nil
	}
	return err
}

// check counts one key of a get's reply and verifies its value.
func (w *worker) check(s *slot, j int, v []byte, hit bool, wl *Workload) {
	w.st.replies++
	w.st.gets++
	key := s.keys[j]
	if !hit {
		w.st.misses++
		if wl.ExpectHits && w.verify {
			w.st.missing++
			w.st.note(fmt.Errorf("GET %s: missing, though the set phase wrote it", key))
		}
		return
	}
	w.st.hits++
	if !w.verify {
		return
	}
	size := wl.ValueSize.pick(s.idx[j], valueSalt)
	if cap(w.expect) < size {
		w.expect = make([]byte, size)
	}
	want := w.expect[:size]
	benchkit.FillPattern(want, key)
	if !bytes.Equal(v, want) {
		w.st.wrongValues++
		w.st.note(fmt.Errorf("GET %s: wrong value (%d bytes, want %d): %q", key, len(v), len(want), benchkit.Clip(v)))
	}
}

// fail ends the connection: the error is noted and the n requests sent
// but not answered count as lost.
func (w *worker) fail(err error, n int) {
	w.dead = err
	w.st.note(fmt.Errorf("connection failed: %w", err))
	w.st.lost += uint64(n)
	w.conn.Close()
}

// runClosed drives the connection through a phase in a closed loop: write
// a pipeline, read its replies, repeat. The latency of a request is the
// time from the write to the parse of its reply, as redis-benchmark
// measures it.
func (w *worker) runClosed(ph Phase, wl *Workload, b *budget, keys *keyChooser, done *atomic.Int64) {
	bt := newBatch(wl)
	for {
		k := b.claim(wl.Pipeline)
		if k == 0 {
			return
		}
		w.fill(bt, k, ph, wl, keys)
		start := time.Now()
		if err := w.conn.SetDeadline(start.Add(wl.Timeout)); err != nil {
			w.fail(err, k)
			return
		}
		if _, err := w.conn.Write(w.out); err != nil {
			w.fail(err, k)
			return
		}
		n, err := w.read(bt, wl, start)
		done.Add(int64(n))
		if err != nil {
			w.fail(err, k-n)
			return
		}
	}
}

// pacedBatches is how many pipelines a paced connection may have in
// flight: past it the writer waits for the reader, and the wait shows in
// the latencies, which are measured from the schedule.
const pacedBatches = 1024

// runPaced drives the connection through a phase in an open loop: its
// pipelines are due every interval from first on, and sent when due
// whatever the replies, by this goroutine, while another reads the
// replies. A request's latency is measured from when it was due, not
// when it could be sent, so a server that stalls is charged for every
// request that waited behind the stall (no coordinated omission).
func (w *worker) runPaced(ph Phase, wl *Workload, b *budget, keys *keyChooser, done *atomic.Int64, first time.Time, interval time.Duration) {
	free := make(chan *batch, pacedBatches)
	inflight := make(chan *batch, pacedBatches)
	for range pacedBatches {
		free <- newBatch(wl)
	}
	var readErr atomic.Pointer[error]
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for bt := range inflight {
			if readErr.Load() != nil {
				w.st.lost += uint64(bt.n)
				continue
			}
			w.conn.SetReadDeadline(time.Now().Add(wl.Timeout))
			n, err := w.read(bt, wl, bt.due)
			done.Add(int64(n))
			if err != nil {
				readErr.Store(&err)
				w.st.lost += uint64(bt.n - n)
				w.conn.Close()
			}
			free <- bt
		}
	}()
	due := first
	var werr error
	var unsent uint64 // counted after the reader is done: it owns w.st
	for readErr.Load() == nil {
		k := b.claim(wl.Pipeline)
		if k == 0 {
			break
		}
		bt := <-free
		w.fill(bt, k, ph, wl, keys)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		bt.due = due
		due = due.Add(interval)
		w.conn.SetWriteDeadline(time.Now().Add(wl.Timeout))
		if _, werr = w.conn.Write(w.out); werr != nil {
			unsent += uint64(k)
			break
		}
		inflight <- bt
	}
	close(inflight)
	wg.Wait()
	w.st.lost += unsent
	if e := readErr.Load(); e != nil {
		werr = *e
	}
	if werr != nil {
		w.dead = werr
		w.st.note(fmt.Errorf("connection failed: %w", werr))
		w.conn.Close()
	}
}

// phaseOutcome is one phase's totals on one target.
type phaseOutcome struct {
	st      stats
	elapsed time.Duration
}

// runPhase runs one phase over every live worker. done counts replies
// as they come, for the progress line.
func runPhase(ws []*worker, ph Phase, wl *Workload, zipfs map[[2]float64]*benchkit.Zipf, done *atomic.Int64) (phaseOutcome, error) {
	keys, err := newKeyChooser(wl, zipfs)
	if err != nil {
		return phaseOutcome{}, err
	}
	b := &budget{timed: wl.Duration > 0}
	b.left.Store(wl.Requests)
	live := 0
	for _, w := range ws {
		if w.dead == nil {
			live++
		}
	}
	var interval time.Duration
	if wl.Rate > 0 && live > 0 {
		// Each connection sends a pipeline every interval: rate/live
		// requests a second, P at a time.
		interval = time.Duration(float64(time.Second) * float64(live*wl.Pipeline) / wl.Rate)
	}
	var wg sync.WaitGroup
	start := time.Now()
	if b.timed {
		t := time.AfterFunc(wl.Duration, func() { b.stop.Store(true) })
		defer t.Stop()
	}
	i := 0
	for _, w := range ws {
		if w.dead != nil {
			continue
		}
		w.st = stats{}
		wg.Add(1)
		// Paced connections are staggered over one interval.
		first := start.Add(interval * time.Duration(i) / time.Duration(live))
		i++
		go func() {
			defer wg.Done()
			if interval > 0 {
				w.runPaced(ph, wl, b, keys, done, first, interval)
			} else {
				w.runClosed(ph, wl, b, keys, done)
			}
		}()
	}
	wg.Wait()
	out := phaseOutcome{elapsed: time.Since(start)}
	for _, w := range ws {
		out.st.merge(&w.st)
		w.st = stats{}
	}
	if left := b.left.Load(); !b.timed && left > 0 {
		// Every connection failed before the budget was spent.
		out.st.note(fmt.Errorf("%d requests not sent: no connection left", left))
		out.st.lost += uint64(left)
	}
	return out, nil
}

// dialAll opens n connections to t; on error it closes those it opened.
func dialAll(t Target, wl *Workload) ([]*worker, error) {
	c, err := benchkit.CodecFor(t.Protocol)
	if err != nil {
		return nil, err
	}
	ws := make([]*worker, 0, wl.Conns)
	for i := range wl.Conns {
		conn, err := net.DialTimeout("tcp", t.Addr, wl.Timeout)
		if err != nil {
			closeAll(ws)
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		ws = append(ws, newWorker(c, conn, wl.Seed, i, !t.NoVerify))
	}
	return ws, nil
}

func closeAll(ws []*worker) {
	for _, w := range ws {
		w.conn.Close()
	}
}

// flush empties a target (FLUSHALL, flush_all) so that values written by
// an earlier run neither fail verification nor fill its memory.
func flush(t Target, timeout time.Duration) error {
	c, err := benchkit.CodecFor(t.Protocol)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", t.Addr, timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write(c.AppendFlush(nil)); err != nil {
		return err
	}
	return c.ReadFlush(bufio.NewReader(conn))
}
