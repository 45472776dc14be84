package repl

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// eofMarkSize is RDB_EOF_MARK_SIZE.
const eofMarkSize = 40

// rdbChunk is how much of an RDB is queued at once, and rdbInFlight the
// connection queue above which the transfer waits for the socket.
const (
	rdbChunk    = 256 << 10
	rdbInFlight = 4 << 20
)

var (
	errNoCut       = errors.New("repl: the snapshot never called cut")
	errNoReplicas  = errors.New("repl: every replica of the transfer went away")
	errReplicaGone = errors.New("repl: replica gone")
)

// startSyncLocked starts one snapshot for every replica waiting for a
// full sync, as startBgsaveForReplication: none while one runs (they wait
// for the next), and a diskless one only after repl-diskless-sync-delay
// of waiting (or repl-diskless-sync-max-replicas waiting), so replicas
// that arrive together share it. fromCron is true on the cron's check.
func (p *Primary) startSyncLocked(fromCron bool) {
	if p.syncing {
		return
	}
	var waiting []*Link
	allEOF := true
	var maxIdle time.Duration
	var filter Filter
	now := p.now()
	for _, l := range p.links {
		if l.state != stateWaitBgsaveStart {
			continue
		}
		// One RDB serves only replicas that asked for the same one: the
		// others wait for the next (startBgsaveForReplication's req).
		if len(waiting) == 0 {
			filter = l.filter
		} else if l.filter != filter {
			continue
		}
		waiting = append(waiting, l)
		allEOF = allEOF && l.capaEOF
		if idle := now.Sub(l.waitSince); idle > maxIdle {
			maxIdle = idle
		}
	}
	if len(waiting) == 0 {
		return
	}
	diskless := allEOF && (p.cfg.DisklessSync || filter.filtered())
	if diskless && p.cfg.DisklessSync && p.cfg.DisklessSyncDelay > 0 { // a filtered RDB, diskless by force, waits for nobody
		enough := p.cfg.DisklessSyncMaxReplicas > 0 && len(waiting) >= p.cfg.DisklessSyncMaxReplicas
		if !enough && (!fromCron || maxIdle < p.cfg.DisklessSyncDelay) {
			return
		}
	}
	select {
	case <-p.stop:
		return // closing: Close waits for the syncs running, starts no other
	default:
	}
	p.syncing = true
	p.syncs.Add(1)
	go func() {
		defer p.syncs.Done()
		p.fullSync(waiting, diskless, filter)
	}()
}

// fullSync makes one RDB for the replicas and sends it, diskless
// ($EOF:<mark>…<mark>) or spooled to a file and sent with its length.
// The stream fed after the cut is held for each and follows its RDB.
func (p *Primary) fullSync(links []*Link, diskless bool, filter Filter) {
	defer func() {
		p.mu.Lock()
		p.syncing = false
		p.startSyncLocked(false)
		p.mu.Unlock()
	}()
	p.mu.Lock()
	cfg := p.cfg
	proxying := p.replica != nil
	p.mu.Unlock()
	// On a replica the stream is applied by another goroutine outside the
	// log's lock: pause it between commands until the cut, so the RDB and
	// the proxied offset agree.
	var releaseOnce sync.Once
	if proxying {
		p.gate.Lock()
	}
	release := func() {
		releaseOnce.Do(func() {
			if proxying {
				p.gate.Unlock()
			}
		})
	}
	defer release()
	var mark string
	var w io.Writer
	var spool *os.File
	if diskless {
		var b [eofMarkSize / 2]byte
		_, _ = rand.Read(b[:])
		mark = hex.EncodeToString(b[:])
		w = &fanout{p: p, links: links}
	} else {
		f, err := os.CreateTemp(cfg.TempDir, "temp-repl-*.rdb")
		if err != nil {
			p.failSync(links, err)
			return
		}
		spool = f
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		w = &spoolWriter{f: f, p: p, links: links}
	}
	cutDone := false
	cut := func() Cut {
		p.mu.Lock()
		c := Cut{Offset: p.offset, ReplID: p.replid, StreamDB: p.streamDBLocked()}
		if !cutDone {
			cutDone = true
			// Every replica's stream must start by selecting its db.
			p.seldb = -1
			for _, l := range links {
				if l.closed {
					continue
				}
				l.initialOff = c.Offset
				l.state = stateWaitBgsaveEnd
				l.diskless = diskless
				l.held = nil
				if !l.prePSYNC {
					l.sendLocked([]byte("+FULLRESYNC " + c.ReplID + " " + strconv.FormatInt(c.Offset, 10) + "\r\n"))
				}
				if diskless {
					l.sendLocked([]byte("$EOF:" + mark + "\r\n"))
				}
			}
		}
		p.mu.Unlock()
		release()
		return c
	}
	var err error
	if cfg.Snapshot == nil {
		err = errors.New("repl: no snapshot function configured")
	} else {
		err = cfg.Snapshot(w, filter, cut)
	}
	release()
	if err == nil && !cutDone {
		err = errNoCut
	}
	if err != nil {
		p.failSync(links, err)
		return
	}
	if diskless {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range links {
			if l.sendLocked([]byte(mark)) {
				p.putOnlineLocked(l, true)
			}
		}
		return
	}
	size, err := spool.Seek(0, io.SeekCurrent)
	if err != nil {
		p.failSync(links, err)
		return
	}
	// Each replica reads the file at its own pace.
	var wg sync.WaitGroup
	for _, l := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.sendSpooled(l, spool, size)
		}()
	}
	wg.Wait()
}

// sendSpooled sends a spooled RDB as $<len> and its bytes, then the held
// stream.
func (p *Primary) sendSpooled(l *Link, spool *os.File, size int64) {
	p.mu.Lock()
	l.state = stateSendBulk
	ok := l.sendLocked([]byte("$" + strconv.FormatInt(size, 10) + "\r\n"))
	p.mu.Unlock()
	if !ok {
		return
	}
	lw := &linkWriter{l: l}
	if _, err := io.CopyBuffer(lw, io.NewSectionReader(spool, 0, size), make([]byte, rdbChunk)); err != nil {
		p.failSync([]*Link{l}, err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.putOnlineLocked(l, false)
}

func (p *Primary) failSync(links []*Link, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range links {
		if l.closed {
			continue
		}
		p.cfg.logf("Full sync of replica " + l.name() + " failed: " + err.Error())
		p.dropLocked(l, "full sync failed")
	}
}

// linkWriter sends RDB bytes to a replica, waiting while its
// connection's queue is long, so a slow replica makes the transfer wait
// instead of filling memory.
type linkWriter struct{ l *Link }

func (w *linkWriter) Write(b []byte) (int, error) {
	l, p := w.l, w.l.p
	total := len(b)
	for len(b) > 0 {
		for l.conn.Pending() > rdbInFlight {
			p.mu.Lock()
			closed := l.closed
			p.mu.Unlock()
			if closed {
				return 0, errReplicaGone
			}
			time.Sleep(time.Millisecond)
		}
		n := min(len(b), rdbChunk)
		p.mu.Lock()
		ok := l.sendLocked(b[:n])
		p.mu.Unlock()
		if !ok {
			return 0, errReplicaGone
		}
		b = b[n:]
	}
	return total, nil
}

// fanout is a diskless transfer to several replicas: each gets every
// byte, the slowest sets the pace (as Redis's rdb pipe), and one that goes
// away is left behind; with none left the snapshot is stopped.
// spoolWriter writes the RDB to the spool file while any replica of the
// transfer is still there: one that nobody waits for is abandoned.
type spoolWriter struct {
	f     *os.File
	p     *Primary
	links []*Link
}

func (w *spoolWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	alive := false
	for _, l := range w.links {
		alive = alive || !l.closed
	}
	w.p.mu.Unlock()
	if !alive {
		return 0, errNoReplicas
	}
	return w.f.Write(b)
}

type fanout struct {
	p     *Primary
	links []*Link
	gone  map[*Link]bool
}

func (f *fanout) Write(b []byte) (int, error) {
	alive := 0
	for _, l := range f.links {
		if f.gone[l] {
			continue
		}
		if _, err := (&linkWriter{l: l}).Write(b); err != nil {
			if f.gone == nil {
				f.gone = map[*Link]bool{}
			}
			f.gone[l] = true
			continue
		}
		alive++
	}
	if alive == 0 {
		return 0, errNoReplicas
	}
	return len(b), nil
}
