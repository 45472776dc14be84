package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// stats are what one connection saw during one phase.
type stats struct {
	replies    uint64 // replies read, error replies included
	sets, gets uint64 // replies read, by kind
	hits       uint64 // GETs answered with the expected value
	misses     uint64 // GETs answered with a miss
	errors     uint64 // error replies, failed verifications, lost requests
	lost       uint64 // requests never answered (their connection failed)
	firstError string
	hist       histogram
}

func (s *stats) note(err error) {
	s.errors++
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
	s.errors += o.errors
	s.lost += o.lost
	if s.firstError == "" {
		s.firstError = o.firstError
	}
	s.hist.merge(&o.hist)
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

// worker is one connection and the goroutine that drives it.
type worker struct {
	o       *options
	codec   codec
	conn    net.Conn
	r       *bufio.Reader
	rng     *rand.Rand
	out     []byte // the pipeline being written
	keys    []byte // keyLen bytes per pipelined request
	isSet   []bool // per pipelined request
	value   []byte // the value of the SET being encoded
	expect  []byte // the value a GET hit must return
	scratch []byte // where replies' values are read
	dead    error  // set when the connection failed; it is not used again
	st      stats
}

func newWorker(o *options, c codec, conn net.Conn, id int) *worker {
	return &worker{
		o:      o,
		codec:  c,
		conn:   conn,
		r:      bufio.NewReaderSize(conn, 64<<10),
		rng:    rand.New(rand.NewPCG(o.seed+uint64(id), 0x7a6e64656d)),
		keys:   make([]byte, keyLen*o.pipeline),
		isSet:  make([]bool, o.pipeline),
		value:  make([]byte, o.valueLen),
		expect: make([]byte, o.valueLen),
	}
}

// run drives the connection through phase ph until b is spent.
func (w *worker) run(ph phase, b *budget) {
	o := w.o
	for {
		k := b.claim(o.pipeline)
		if k == 0 {
			return
		}
		w.out = w.out[:0]
		for i := range k {
			key := w.keys[i*keyLen : (i+1)*keyLen]
			putKey(key, w.rng.Int64N(o.keyspace))
			w.isSet[i] = ph.get == 0 || (ph.set > 0 && w.rng.IntN(ph.set+ph.get) < ph.set)
			if w.isSet[i] {
				fillValue(w.value, key)
				w.out = w.codec.appendSet(w.out, key, w.value)
			} else {
				w.out = w.codec.appendGet(w.out, key)
			}
		}
		start := time.Now()
		if err := w.conn.SetDeadline(start.Add(o.timeout)); err != nil {
			w.fail(err, k)
			return
		}
		if _, err := w.conn.Write(w.out); err != nil {
			w.fail(err, k)
			return
		}
		for i := range k {
			if err := w.readReply(i); err != nil {
				w.st.hist.record(time.Since(start))
				var re replyError
				if errors.As(err, &re) {
					w.st.note(err)
					continue
				}
				w.fail(err, k-i)
				return
			}
			w.st.hist.record(time.Since(start))
		}
	}
}

// readReply reads and checks the reply to pipelined request i.
func (w *worker) readReply(i int) error {
	key := w.keys[i*keyLen : (i+1)*keyLen]
	if w.isSet[i] {
		err := w.codec.readSet(w.r)
		if err == nil || errors.As(err, new(replyError)) {
			w.st.replies++
			w.st.sets++
		}
		return err
	}
	v, hit, err := w.codec.readGet(w.r, key, &w.scratch)
	if err == nil || errors.As(err, new(replyError)) {
		w.st.replies++
		w.st.gets++
	}
	switch {
	case err != nil:
		return err
	case !hit:
		w.st.misses++
		return nil
	}
	fillValue(w.expect, key)
	if !bytes.Equal(v, w.expect) {
		return replyError(fmt.Sprintf("GET %s: wrong value (%d bytes, want %d): %q", key, len(v), len(w.expect), clip(v)))
	}
	w.st.hits++
	return nil
}

// fail ends the connection: the error is noted and the n requests sent but
// not answered count as lost.
func (w *worker) fail(err error, n int) {
	w.dead = err
	w.st.note(fmt.Errorf("connection failed: %w", err))
	w.st.errors += uint64(n) - 1
	w.st.lost += uint64(n)
	w.conn.Close()
}

// runPhase runs one phase over every live worker and returns its totals
// and its wall-clock time.
func runPhase(ws []*worker, ph phase, o *options) (stats, time.Duration) {
	b := &budget{timed: o.duration > 0}
	b.left.Store(o.requests)
	var wg sync.WaitGroup
	start := time.Now()
	if b.timed {
		t := time.AfterFunc(o.duration, func() { b.stop.Store(true) })
		defer t.Stop()
	}
	for _, w := range ws {
		if w.dead != nil {
			continue
		}
		w.st = stats{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ph, b)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var total stats
	for _, w := range ws {
		total.merge(&w.st)
		w.st = stats{}
	}
	if left := b.left.Load(); !b.timed && left > 0 {
		// Every connection failed before the budget was spent.
		total.note(fmt.Errorf("%d requests not sent: no connection left", left))
		total.errors += uint64(left) - 1
		total.lost += uint64(left)
	}
	return total, elapsed
}

// dialAll opens the connections; on error it closes those it opened.
func dialAll(o *options, addr string) ([]*worker, error) {
	c := newCodec(o.proto)
	ws := make([]*worker, 0, o.conns)
	for i := range o.conns {
		conn, err := net.DialTimeout("tcp", addr, o.timeout)
		if err != nil {
			for _, w := range ws {
				w.conn.Close()
			}
			return nil, err
		}
		ws = append(ws, newWorker(o, c, conn, i))
	}
	return ws, nil
}

// flush empties the server over its own connection.
func flush(o *options, addr string) error {
	conn, err := net.DialTimeout("tcp", addr, o.timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(o.timeout)); err != nil {
		return err
	}
	c := newCodec(o.proto)
	if _, err := conn.Write(c.appendFlush(nil)); err != nil {
		return err
	}
	return c.readFlush(bufio.NewReader(conn))
}
