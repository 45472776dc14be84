package server

import (
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/stripe"
)

// IOStats counts a front-end's socket work, as redis 7.0's INFO stats
// does (total_reads_processed, total_writes_processed,
// reply_buffer_expands, reply_buffer_shrinks). The server adds to the
// front-end's IOStats, each connection to the copy its id picks, so the
// hot path costs one uncontended atomic add per read and per write.
type IOStats struct {
	// Reads counts read events that returned bytes or the end of the
	// stream (as Redis counts each readQueryFromClient, the read that
	// sees the peer close included); a Wake that serves no new bytes is
	// not a read.
	Reads stripe.Count
	// Writes counts the writes the server hands the socket: one per
	// served batch of replies (a pipeline's replies are one write) and
	// one per AsyncWrite with bytes. gnet writes what the socket did not
	// take later on its own, which the server does not see.
	Writes stripe.Count
	// ReplyExpands and ReplyShrinks count resizes of a connection's
	// reused reply buffer: an event whose replies outgrew the buffer's
	// capacity, and a buffer let go after a reply larger than
	// maxKeptReply.
	ReplyExpands, ReplyShrinks stripe.Count
}

// Reset zeroes the counters (CONFIG RESETSTAT).
func (s *IOStats) Reset() {
	for _, c := range []*stripe.Count{&s.Reads, &s.Writes, &s.ReplyExpands, &s.ReplyShrinks} {
		c.Reset()
	}
}

// IOCounted is a Frontend whose connections' socket work the server
// counts in IOStats.
type IOCounted interface {
	IOStats() *IOStats
}

// IOStatsOf returns fe's IOStats, or nil when it keeps none.
func IOStatsOf(fe Frontend) *IOStats {
	if ic, ok := fe.(IOCounted); ok {
		return ic.IOStats()
	}
	return nil
}

// maxKeptReply is the largest reply buffer a connection keeps for reuse.
const maxKeptReply = 1 << 20

// replyPeakReset is how long a reply buffer's peak is kept, as Redis's
// reply-buffer-peak-reset-time (5000 ms by default).
const replyPeakReset = 5 * time.Second

// ConnBuffers is what one connection's buffers hold, as of the end of its
// last event (CLIENT LIST's qbuf, qbuf-free, rbs, rbp, omem).
type ConnBuffers struct {
	Query     int // unconsumed bytes of an incomplete request
	QueryFree int // free capacity of the buffer holding them
	Reply     int // capacity of the reply buffer kept for reuse
	ReplyPeak int // largest batch of replies since the peak was last reset
	Queued    int // replies written but not yet taken by the socket
}

// BufferReporter is a Peer that reports its buffers; from any goroutine.
type BufferReporter interface {
	Buffers() ConnBuffers
}

// BufferGauge is a connection's ConnBuffers, written by its serving
// goroutine (or event loop) and read by anyone. The zero value is ready.
type BufferGauge struct {
	query, queryCap, reply, replyPeak atomic.Int64
	peakAt                            time.Time // serving side only
}

// Note records the buffers after an event; now is the event's time. A
// value is stored only when it changed: a load costs the loop nothing, a
// store a locked instruction.
func (b *BufferGauge) Note(pending []byte, replyCap, replyLen int, now time.Time) {
	storeChanged(&b.query, int64(len(pending)))
	storeChanged(&b.queryCap, int64(cap(pending)))
	storeChanged(&b.reply, int64(replyCap))
	if now.Sub(b.peakAt) >= replyPeakReset {
		b.peakAt = now
		storeChanged(&b.replyPeak, int64(replyLen))
	} else if int64(replyLen) > b.replyPeak.Load() {
		b.replyPeak.Store(int64(replyLen))
	}
}

func storeChanged(a *atomic.Int64, v int64) {
	if a.Load() != v {
		a.Store(v)
	}
}

// Load returns the buffers, with queued output bytes.
func (b *BufferGauge) Load(queued int64) ConnBuffers {
	q, qc := b.query.Load(), b.queryCap.Load()
	return ConnBuffers{Query: int(q), QueryFree: int(max(qc-q, 0)), Reply: int(b.reply.Load()),
		ReplyPeak: int(b.replyPeak.Load()), Queued: int(queued)}
}

// CountReplyResize counts the change of a reused reply buffer across one
// event: grown past a capacity it had (capBefore, before the session
// wrote, capAfter after), and dropped for being over maxKeptReply. From
// the loops and from package tlsserver.
func (s *IOStats) CountReplyResize(st uint8, capBefore, capAfter int, dropped bool) {
	if capBefore > 0 && capAfter > capBefore {
		s.ReplyExpands.Add(st, 1)
	}
	if dropped {
		s.ReplyShrinks.Add(st, 1)
	}
}

// closedByRead tells whether a connection was closed because a read saw
// the end of the stream or an error (gnet wraps those as a "read"
// syscall error), which Redis counts as a read.
func closedByRead(err error) bool {
	var se *os.SyscallError
	return errors.As(err, &se) && se.Syscall == "read"
}
