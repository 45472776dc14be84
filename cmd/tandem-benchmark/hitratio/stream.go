package hitratio

import (
	"fmt"

	"github.com/tandemkv/tandem/internal/benchkit"
	"hash/fnv"
	"math"
	"time"
)

// workload describes one key stream. Every stream draws from the same key
// space of keys ids 0..keys-1; key id i is named keyName(i).
type workload struct {
	name  string
	alpha float64 // Zipf exponent of the popularity of the key ids
	// Scans: after every scanEvery Zipf requests, scanLen requests read key
	// ids in sequence (key:..0, key:..1, …), each scan going on where the
	// previous one stopped. Ranks are mapped to ids by a random
	// permutation, so a scan reads keys of every popularity, mostly cold:
	// a batch job walking the table. 0 = no scans.
	scanEvery, scanLen int
	// TTLs: a fixed share of the key ids (chosen by a hash of the id and
	// the seed) is always written with SET … PX ttl; the others never
	// expire. rate paces the stream (requests per second, 0 = as fast as
	// the server answers) so that a TTL means the same number of requests
	// on every server, whatever its speed.
	ttlShare float64
	ttl      time.Duration
	rate     int
}

func (w *workload) hasTTL() bool { return w.ttlShare > 0 && w.ttl > 0 }

// request is one cache-aside access: GET the key, SET it on a miss.
type request struct {
	key  uint32
	scan bool // part of a sequential scan
}

// keyspace is what the streams of one run share: the number of keys and
// the random map from popularity rank to key id.
type keyspace struct {
	keys int
	seed uint64
	perm []uint32 // rank -> key id
}

func newKeyspace(keys int, seed uint64) *keyspace {
	perm := make([]uint32, keys)
	for i := range perm {
		perm[i] = uint32(i)
	}
	r := benchkit.NewRNG(seed ^ 0x7065726d) // "perm"
	for i := keys - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return &keyspace{keys: keys, seed: seed, perm: perm}
}

// ttlKey reports whether key id k is one of the workload's TTL keys: a
// fixed share of the ids, independent of popularity and of the stream.
func (ks *keyspace) ttlKey(w *workload, k uint32) bool {
	if !w.hasTTL() {
		return false
	}
	h := benchkit.Mix64(uint64(k) ^ benchkit.Mix64(ks.seed^0x74746c)) // "ttl"
	return float64(h>>11)/(1<<53) < w.ttlShare
}

// stream generates a workload's requests, deterministically from the seed.
type stream struct {
	w          *workload
	ks         *keyspace
	z          *benchkit.Zipf
	r          *benchkit.RNG
	sinceScan  int // Zipf requests since the last scan
	scanLeft   int // requests left in the current scan
	scanCursor int // next key id a scan reads
}

// streamSeed derives a workload's own seed, so that workloads differ while
// every server and policy replays exactly the same stream of a workload.
func streamSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return benchkit.Mix64(seed ^ h.Sum64())
}

func newStream(w *workload, ks *keyspace, z *benchkit.Zipf) *stream {
	if z.N() != ks.keys || z.Alpha() != w.alpha {
		panic(fmt.Sprintf("stream %s: zipf(%d, %v) for %d keys, alpha %v", w.name, z.N(), z.Alpha(), ks.keys, w.alpha))
	}
	r := benchkit.NewRNG(streamSeed(ks.seed, w.name))
	s := &stream{w: w, ks: ks, z: z, r: r}
	if w.scanEvery > 0 {
		s.scanCursor = r.IntN(ks.keys)
	}
	return s
}

func (s *stream) next() request {
	w := s.w
	if s.scanLeft == 0 && w.scanEvery > 0 && w.scanLen > 0 && s.sinceScan == w.scanEvery {
		s.sinceScan = 0
		s.scanLeft = w.scanLen
	}
	if s.scanLeft > 0 {
		s.scanLeft--
		k := uint32(s.scanCursor)
		s.scanCursor++
		if s.scanCursor == s.ks.keys {
			s.scanCursor = 0
		}
		return request{key: k, scan: true}
	}
	s.sinceScan++
	return request{key: s.ks.perm[s.z.Rank(s.r.Float64())]}
}

// keyWidth is the number of digits of a key name: "key:" and 12 digits,
// as the load generator and redis-benchmark name their keys, so every key
// has the same length (the per-key footprint does not depend on the id).
const keyWidth = 12

// appendKey appends the name of key id k.
func appendKey(dst []byte, k uint32) []byte {
	return benchkit.AppendKey(dst, "key:", int64(k), keyWidth)
}

// appendValue appends the value written for key id k: size bytes of the
// load generator's pattern of its name, so that a hit can be checked
// against its key.
func appendValue(dst []byte, k uint32, size int) []byte {
	start := len(dst)
	for range size {
		dst = append(dst, 0)
	}
	var kb [len("key:") + keyWidth]byte
	benchkit.FillPattern(dst[start:], appendKey(kb[:0], k))
	return dst
}

// zipfCache builds each (keys, alpha) table once per run.
type zipfCache map[[2]float64]*benchkit.Zipf

func (c zipfCache) get(keys int, alpha float64) (*benchkit.Zipf, error) {
	k := [2]float64{float64(keys), alpha}
	if z, ok := c[k]; ok {
		return z, nil
	}
	z, err := benchkit.NewZipf(keys, alpha)
	if err != nil {
		return nil, err
	}
	c[k] = z
	return z, nil
}

// formatAlpha prints an exponent as the workload names do: 0.8, 0.99, 1.2.
func formatAlpha(a float64) string {
	if a == math.Trunc(a) {
		return fmt.Sprintf("%.1f", a)
	}
	return fmt.Sprintf("%g", a)
}
