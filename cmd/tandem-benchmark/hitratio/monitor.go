package hitratio

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// monitor watches a measured server over its own connection while the
// stream plays: it samples DBSIZE, and steers maxmemory so that the server
// holds the cache's number of keys.
//
// Why steer: the calibrated bound is right for the keys, but Redis also
// counts its clients' query and reply buffers in used_memory, and those
// grow and shrink by tens of KB with the traffic's shape and timing —
// 2-4 % of a 10,000-key cache (~2 MB) — and a policy that evicts in steps
// may stop short of the bound. So, once the server has begun evicting,
// every interval the monitor moves maxmemory by half of (cache keys −
// keys held) × the calibrated bytes per key, when they differ by more than
// 0.25 %, within ±20 % of the keys' share of the bound. A server whose
// accounting counts only keys (Tandem's) settles at once and is left
// alone. Samples taken during the counted requests give the keys held
// (mean, min, max) that the tables report.
//
// With TTLs the key count also falls when keys expire and memory is freed,
// and resident keys differ from the calibration's mix of TTL and plain
// keys: the count says nothing about the bound, and the monitor only
// samples (steer false); the run starts instead from the offset a plain
// workload's steering found for the same server, policy and size.
type monitor struct {
	c        *benchkit.Conn
	target   int64   // keys the cache should hold
	bytesPer float64 // calibrated bytes per key
	lo, hi   int64   // bounds of maxmemory
	steer    bool

	maxmemory atomic.Int64
	counting  atomic.Bool // the counted requests have begun

	mu                  sync.Mutex
	samples             int64
	sum, minHeld, maxHd int64
	adjustments         int
	err                 error

	stop chan struct{}
	done chan struct{}
}

const monitorInterval = 200 * time.Millisecond

func startMonitor(addr string, timeout time.Duration, cacheKeys int, cal calibration, maxmemory int64, steer bool) (*monitor, error) {
	c, err := benchkit.Dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	share := cal.MaxMemory - cal.Baseline
	m := &monitor{c: c, target: int64(cacheKeys), bytesPer: cal.BytesPer,
		lo: cal.MaxMemory - share/5, hi: cal.MaxMemory + share/5, steer: steer,
		stop: make(chan struct{}), done: make(chan struct{})}
	m.maxmemory.Store(maxmemory)
	go m.run()
	return m, nil
}

func (m *monitor) run() {
	defer close(m.done)
	defer m.c.Close()
	t := time.NewTicker(monitorInterval)
	defer t.Stop()
	evicting := false
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		r, err := m.c.Do("DBSIZE")
		if err != nil {
			m.fail(err)
			return
		}
		held := r.Int
		if m.counting.Load() {
			m.mu.Lock()
			if m.samples == 0 || held < m.minHeld {
				m.minHeld = held
			}
			if m.samples == 0 || held > m.maxHd {
				m.maxHd = held
			}
			m.samples++
			m.sum += held
			m.mu.Unlock()
		}
		if !m.steer {
			continue
		}
		if !evicting {
			n, err := m.c.InfoInt("stats", "evicted_keys")
			if err != nil {
				m.fail(err)
				return
			}
			if evicting = n > 0; !evicting {
				continue
			}
		}
		diff := m.target - held
		if diff*400 <= m.target && -diff*400 <= m.target {
			continue
		}
		cur := m.maxmemory.Load()
		next := max(m.lo, min(m.hi, cur+int64(0.5*float64(diff)*m.bytesPer)))
		if next == cur {
			continue
		}
		if _, err := m.c.Do("CONFIG", "SET", "maxmemory", strconv.FormatInt(next, 10)); err != nil {
			m.fail(err)
			return
		}
		m.maxmemory.Store(next)
		m.mu.Lock()
		m.adjustments++
		m.mu.Unlock()
	}
}

func (m *monitor) fail(err error) {
	m.mu.Lock()
	m.err = err
	m.mu.Unlock()
}

// finish stops the monitor and returns what it saw.
func (m *monitor) finish() (held heldStats, maxmemory int64, err error) {
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	held = heldStats{Samples: m.samples, Min: m.minHeld, Max: m.maxHd, Adjustments: m.adjustments}
	if m.samples > 0 {
		held.Mean = float64(m.sum) / float64(m.samples)
	}
	return held, m.maxmemory.Load(), m.err
}

// heldStats are the keys a server held while the counted requests played.
type heldStats struct {
	Samples     int64
	Mean        float64
	Min, Max    int64
	Adjustments int // maxmemory changes over the whole run
}
