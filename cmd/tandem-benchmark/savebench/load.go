package savebench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Keys are key:%012d over [0, keys); a key's value is a slice of one
// random (incompressible) buffer, so values cost nothing to make and
// neither server's compression flatters it.
type values struct {
	buf  []byte
	size int
}

const valueWindow = 1 << 20

func newValues(size int, seed uint64) *values {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	buf := make([]byte, valueWindow+size)
	for i := 0; i+8 <= len(buf); i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			buf[i+j] = byte(v >> (8 * j))
		}
	}
	return &values{buf: buf, size: size}
}

func (v *values) of(i int) []byte {
	off := int((uint64(i) * 2654435761) % valueWindow)
	return v.buf[off : off+v.size]
}

func appendKey(b []byte, i int) []byte { return benchkit.AppendKey(b, "key:", int64(i), 12) }

var setCmd, getCmd = []byte("SET"), []byte("GET")

// fill writes every key once, conns connections each pipelining batches
// of pipeline SETs.
func fill(addr string, keys int, vals *values, conns, pipeline int) (time.Duration, error) {
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for g := 0; g < conns; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(addr, 60*time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			var key []byte
			for {
				from := int(next.Add(int64(pipeline))) - pipeline
				if from >= keys {
					return
				}
				to := min(from+pipeline, keys)
				for i := from; i < to; i++ {
					key = appendKey(key[:0], i)
					c.WriteCmd(setCmd, key, vals.of(i))
				}
				if err := c.Flush(); err != nil {
					errs <- err
					return
				}
				for i := from; i < to; i++ {
					r, err := c.ReadReplyDiscard()
					if err == nil {
						err = r.Err()
					}
					if err != nil {
						errs <- fmt.Errorf("SET key %d: %w", i, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// op is one request of the steady load.
type op struct {
	sched time.Time     // when it was due (paced load); the send time otherwise
	sent  time.Time     // when it was written
	lat   time.Duration // write to reply parsed
}

// load is a steady GET/SET load: conns connections, no pipelining, each
// paced to rate/conns requests a second (rate 0: back to back).
type load struct {
	ops    [][]op
	errors atomic.Int64
	first  atomic.Pointer[string]
	quit   chan struct{}
	wg     sync.WaitGroup
}

// maxLoad bounds a load that is never stopped (it always is).
const maxLoad = 15 * time.Minute

func startLoad(addr string, conns, rate, keys, setPct int, vals *values, seed uint64) (*load, error) {
	l := &load{ops: make([][]op, conns), quit: make(chan struct{})}
	cs := make([]*benchkit.Conn, conns)
	for i := range cs {
		c, err := dial(addr, 30*time.Second)
		if err != nil {
			for _, c := range cs[:i] {
				c.Close()
			}
			return nil, err
		}
		cs[i] = c
	}
	var interval time.Duration
	if rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(conns) / float64(rate))
	}
	for i, c := range cs {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer c.Close()
			r := rand.New(rand.NewPCG(seed+uint64(i), 0x10ad))
			var key []byte
			start := time.Now()
			// Stagger the connections over one interval.
			due := start.Add(interval * time.Duration(i) / time.Duration(conns))
			ops := make([]op, 0, 1<<16)
			defer func() { l.ops[i] = ops }()
			for {
				select {
				case <-l.quit:
					return
				default:
				}
				now := time.Now()
				if now.Sub(start) > maxLoad {
					return
				}
				if interval > 0 {
					if d := due.Sub(now); d > 0 {
						time.Sleep(d)
					}
				} else {
					due = now
				}
				k := r.IntN(keys)
				key = appendKey(key[:0], k)
				if r.IntN(100) < setPct {
					c.WriteCmd(setCmd, key, vals.of(k))
				} else {
					c.WriteCmd(getCmd, key)
				}
				sent := time.Now()
				err := c.Flush()
				var rep benchkit.Reply
				if err == nil {
					rep, err = c.ReadReplyDiscard()
				}
				if err == nil {
					err = rep.Err()
				}
				if err == nil && rep.Kind == '$' && rep.Null {
					err = fmt.Errorf("GET %s: a key of the data set is missing", key)
				}
				if err != nil {
					l.errors.Add(1)
					msg := err.Error()
					l.first.CompareAndSwap(nil, &msg)
					if rep.Kind != '-' && rep.Kind != '$' {
						return // the connection is broken
					}
				}
				ops = append(ops, op{sched: due, sent: sent, lat: time.Since(sent)})
				due = due.Add(interval)
			}
		}()
	}
	return l, nil
}

// stop ends the load and returns every request it made.
func (l *load) stop() []op {
	close(l.quit)
	l.wg.Wait()
	var all []op
	for _, o := range l.ops {
		all = append(all, o...)
	}
	return all
}

// latency summarises the requests sent in [from, to).
type latency struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
	// P99Sched is the p99 measured from when each request was due rather
	// than sent: a stall also delays the requests queued behind it
	// (coordinated omission corrected).
	P99Sched float64 `json:"p99_from_schedule_ms"`
}

func latencyOf(ops []op, from, to time.Time) latency {
	var lats, sched []float64
	for _, o := range ops {
		if o.sent.Before(from) || !o.sent.Before(to) {
			continue
		}
		lats = append(lats, ms(o.lat))
		sched = append(sched, ms(o.sent.Add(o.lat).Sub(o.sched)))
	}
	if len(lats) == 0 {
		return latency{}
	}
	sort.Float64s(lats)
	sort.Float64s(sched)
	return latency{N: len(lats), P50: pct(lats, 50), P99: pct(lats, 99), P999: pct(lats, 99.9), Max: lats[len(lats)-1],
		P99Sched: pct(sched, 99)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pct is the nearest-rank percentile of sorted xs.
func pct(xs []float64, p float64) float64 { return benchkit.Percentile(xs, p) }
