package hitratio

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// replayConfig is how one stream is played against one server.
type replayConfig struct {
	warmup    int // requests played first and not counted
	measure   int // requests counted after the warm-up
	depth     int // most GETs per pipelined batch
	valueSize int
}

// counts are the measured figures of one run (the warm-up excluded).
type counts struct {
	Requests      int64 // GETs counted
	Misses        int64 // GETs that missed (then SET)
	ScanRequests  int64 // of Requests, those of a sequential scan
	ScanMisses    int64
	ColdMisses    int64 // misses on the first request of a key in the whole run: any cache misses these
	ExpiredMisses int64 // misses on a key whose last SET's TTL had passed: a miss in any cache
	Sets          int64 // SETs sent for counted misses
	OOM           int64 // of them, refused with -OOM (not stored)
	SetErrors     int64 // other error replies to SET
	GetErrors     int64 // error replies to GET (counted as misses, not SET)
	BadValues     int64 // hits whose value is not the one written for the key
}

func (c counts) missRatio() float64 { return ratio(c.Misses, c.Requests) }

// zipfMissRatio is the miss ratio of the requests outside scans.
func (c counts) zipfMissRatio() float64 {
	return ratio(c.Misses-c.ScanMisses, c.Requests-c.ScanRequests)
}

// liveMissRatio leaves out the misses on expired keys: what remains are
// cold misses and keys evicted while still alive.
func (c counts) liveMissRatio() float64 {
	return ratio(c.Misses-c.ExpiredMisses, c.Requests)
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// replayResult is counts plus how the run went.
type replayResult struct {
	counts
	Elapsed time.Duration // the whole run, warm-up included
	Played  int64         // requests played, warm-up included
	Batches int64
	Resent  int64         // speculative GETs sent again after their key's fill
	MaxLag  time.Duration // paced streams: the furthest behind schedule a batch was sent
}

// replay plays the cache-aside pattern for the stream's requests over one
// connection: GET key; on a miss, SET key value (with PX ttl for the
// workload's TTL keys). It plays the warm-up, calls afterWarmup (if not
// nil), then plays the counted requests.
//
// Order. Requests go out in stream order, in pipelined batches of depth
// GETs; the SETs that fill a batch's misses go at the head of the next
// batch's write, ahead of its GETs. For every key the server sees the
// sequential order — GET, the SET if it missed, then the key's next GET —
// including a hot key asked twice in one batch: its second GET is sent
// speculatively and its reply counts only if the key's first GET in the
// batch hit (then nothing changed the key in between: the batch's GETs
// store nothing). If the first GET missed, the second's reply (a miss with
// no effect on the cache) is ignored and the request is sent again at the
// head of the next batch, after the fill, where its reply counts. The only
// difference from a strictly sequential client is across keys: a fill,
// and such a repeated request, land at most one batch later, as fills
// from a backing store do. With depth 1 the run is exactly sequential.
//
// Pace. With a rate, batch i is not sent before the time its last request
// is due at that rate: the run takes requests/rate seconds on every server
// (unless the server cannot keep up: MaxLag says by how much it fell
// behind), so time-based mechanisms — TTLs, the one-second LRU clock of
// Redis and Tandem, LFU decay — see the same requests per second on every
// server.
func replay(c *benchkit.Conn, s *stream, cfg replayConfig, afterWarmup func() error) (replayResult, error) {
	p := newPlayer(c, s, cfg)
	if err := p.play(cfg.warmup); err != nil {
		return p.res, err
	}
	if afterWarmup != nil {
		if err := afterWarmup(); err != nil {
			return p.res, err
		}
	}
	err := p.play(cfg.warmup + cfg.measure)
	p.res.Elapsed = time.Since(p.start)
	p.res.Played = int64(p.issued)
	return p.res, err
}

type fill struct {
	key      uint32
	ttl      bool
	measured bool
}

type pending struct {
	request
	index int   // position in the stream
	dupOf int32 // position in the batch of the key's first GET, -1 if this is it
}

// player is replay's state.
type player struct {
	c        *benchkit.Conn
	s        *stream
	cfg      replayConfig
	first    []uint64 // first[k] = batch<<32 | position of key k's first GET in that batch
	seen     []uint64 // keys requested so far (bitmap)
	expireAt []time.Duration
	ttlMs    []byte
	fills    []fill    // misses of the previous batch
	again    []pending // speculative GETs to send again, in stream order
	batch    []pending
	hit      []bool
	issued   int
	gen      uint64
	out      []byte
	key      []byte
	want     []byte
	start    time.Time
	res      replayResult
}

func newPlayer(c *benchkit.Conn, s *stream, cfg replayConfig) *player {
	if cfg.depth < 1 {
		cfg.depth = 1
	}
	n := s.ks.keys
	p := &player{c: c, s: s, cfg: cfg, first: make([]uint64, n), seen: make([]uint64, (n+63)/64),
		ttlMs: []byte(strconv.FormatInt(s.w.ttl.Milliseconds(), 10)), start: time.Now()}
	if s.w.hasTTL() {
		p.expireAt = make([]time.Duration, n) // since start; 0 = never expires (or never set)
	}
	return p
}

// play issues requests until until of them are, and every fill and
// repeated GET is settled.
func (p *player) play(until int) error {
	w, ks, cfg, res := p.s.w, p.s.ks, p.cfg, &p.res
	for p.issued < until || len(p.fills) > 0 || len(p.again) > 0 {
		p.gen++
		p.batch = p.batch[:0]
		for _, q := range p.again {
			p.add(q)
		}
		p.again = p.again[:0]
		for len(p.batch) < cfg.depth && p.issued < until {
			p.add(pending{request: p.s.next(), index: p.issued})
			p.issued++
		}
		if w.rate > 0 && len(p.batch) > 0 {
			due := time.Duration(float64(p.batch[len(p.batch)-1].index) / float64(w.rate) * float64(time.Second))
			if d := due - time.Since(p.start); d > 0 {
				time.Sleep(d)
			} else if -d > res.MaxLag {
				res.MaxLag = -d
			}
		}

		out := p.out[:0]
		for _, f := range p.fills {
			p.key = appendKey(p.key[:0], f.key)
			p.want = appendValue(p.want[:0], f.key, cfg.valueSize)
			if f.ttl {
				out = benchkit.AppendCommand(out, []byte("SET"), p.key, p.want, []byte("PX"), p.ttlMs)
			} else {
				out = benchkit.AppendCommand(out, []byte("SET"), p.key, p.want)
			}
		}
		for _, q := range p.batch {
			p.key = appendKey(p.key[:0], q.key)
			out = benchkit.AppendCommand(out, []byte("GET"), p.key)
		}
		p.out = out
		sent := time.Since(p.start)
		if err := p.c.Send(out); err != nil {
			return err
		}
		res.Batches++

		for _, f := range p.fills {
			err := p.c.SetReply()
			var re benchkit.ReplyErr
			switch {
			case err == nil:
				if p.expireAt != nil {
					p.expireAt[f.key] = 0
					if f.ttl {
						p.expireAt[f.key] = sent + w.ttl
					}
				}
			case errors.As(err, &re):
				if f.measured {
					if re.IsOOM() {
						res.OOM++
					} else {
						res.SetErrors++
					}
				}
			default:
				return fmt.Errorf("reading SET replies: %w", err)
			}
		}
		p.fills = p.fills[:0]

		p.hit = p.hit[:0]
		for _, q := range p.batch {
			v, ok, err := p.c.GetReply()
			var re benchkit.ReplyErr
			if err != nil && !errors.As(err, &re) {
				return fmt.Errorf("reading GET replies: %w", err)
			}
			p.hit = append(p.hit, ok)
			if q.dupOf >= 0 && !p.hit[q.dupOf] {
				// Sent before the fill of the key's first GET: not the
				// sequential outcome. Again, after the fill.
				p.again = append(p.again, q)
				res.Resent++
				continue
			}
			k := q.key
			measured := q.index >= cfg.warmup
			wasSeen := p.seen[k/64]&(1<<(k%64)) != 0
			p.seen[k/64] |= 1 << (k % 64)
			if measured {
				res.Requests++
				if q.scan {
					res.ScanRequests++
				}
			}
			switch {
			case err != nil:
				if measured {
					res.GetErrors++
					res.Misses++
				}
				continue
			case ok:
				p.want = appendValue(p.want[:0], k, cfg.valueSize)
				if measured && !bytes.Equal(v, p.want) {
					res.BadValues++
				}
				continue
			}
			p.fills = append(p.fills, fill{key: k, ttl: ks.ttlKey(w, k), measured: measured})
			if !measured {
				continue
			}
			res.Misses++
			res.Sets++
			if q.scan {
				res.ScanMisses++
			}
			switch {
			case !wasSeen:
				res.ColdMisses++
			case p.expireAt != nil && p.expireAt[k] != 0 && p.expireAt[k] <= sent:
				res.ExpiredMisses++
			}
		}
	}
	return nil
}

// add puts a GET in the batch, noting whether its key is already in it.
func (p *player) add(q pending) {
	k := q.key
	if f := p.first[k]; f>>32 == p.gen {
		q.dupOf = int32(uint32(f))
	} else {
		q.dupOf = -1
		p.first[k] = p.gen<<32 | uint64(len(p.batch))
	}
	p.batch = append(p.batch, q)
}

// lruSim is an exact LRU cache of capacity keys over key ids, the
// reference a sampled LRU approximates: a doubly linked list threaded
// through arrays, with node n as the sentinel.
type lruSim struct {
	capacity, size int
	prev, next     []int32
	in             []bool
}

func newLRUSim(keys, capacity int) *lruSim {
	l := &lruSim{capacity: capacity, prev: make([]int32, keys+1), next: make([]int32, keys+1), in: make([]bool, keys)}
	l.prev[keys], l.next[keys] = int32(keys), int32(keys)
	return l
}

func (l *lruSim) unlink(k int32) {
	l.next[l.prev[k]] = l.next[k]
	l.prev[l.next[k]] = l.prev[k]
}

func (l *lruSim) pushFront(k int32) {
	s := int32(len(l.in))
	l.next[k], l.prev[k] = l.next[s], s
	l.prev[l.next[s]] = k
	l.next[s] = k
}

// access returns whether k was cached, and caches it as most recent.
func (l *lruSim) access(k uint32) bool {
	if l.touch(k) {
		return true
	}
	l.insert(k)
	return false
}

// touch makes a cached k the most recent and reports whether it was cached.
func (l *lruSim) touch(k uint32) bool {
	if !l.in[k] {
		return false
	}
	l.unlink(int32(k))
	l.pushFront(int32(k))
	return true
}

// insert caches k as most recent, evicting the least recent key if full.
func (l *lruSim) insert(k uint32) {
	if l.touch(k) || l.capacity <= 0 {
		return
	}
	if l.size == l.capacity {
		l.evict()
	}
	l.in[k] = true
	l.pushFront(int32(k))
	l.size++
}

// evict drops the least recent key.
func (l *lruSim) evict() {
	s := int32(len(l.in))
	victim := l.prev[s]
	if victim == s {
		return
	}
	l.unlink(victim)
	l.in[victim] = false
	l.size--
}

// simulateLRU plays a stream (without TTLs) against an exact LRU of
// capacity keys, strictly sequentially.
func simulateLRU(s *stream, capacity int, cfg replayConfig) counts {
	var c counts
	l := newLRUSim(s.ks.keys, capacity)
	seen := make([]bool, s.ks.keys)
	for i := 0; i < cfg.warmup+cfg.measure; i++ {
		rq := s.next()
		hit := l.access(rq.key)
		wasSeen := seen[rq.key]
		seen[rq.key] = true
		if i < cfg.warmup {
			continue
		}
		c.Requests++
		if rq.scan {
			c.ScanRequests++
		}
		if !hit {
			c.Misses++
			c.Sets++
			if rq.scan {
				c.ScanMisses++
			}
			if !wasSeen {
				c.ColdMisses++
			}
		}
	}
	return c
}
