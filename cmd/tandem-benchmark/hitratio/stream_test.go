package hitratio

import (
	"hash/fnv"
	"testing"
	"time"
)

func testOptions() *options {
	return &options{scanEvery: 600_000, scanLen: 150_000, ttl: time.Second, ttlShare: 0.5, rate: 0}
}

var (
	testZipfs     = zipfCache{}
	testKeyspaces = map[[2]uint64]*keyspace{}
)

// newTestStream builds a workload's stream over keys ids from seed; the
// tables are built once per test binary.
func newTestStream(t testing.TB, name string, keys int, seed uint64, o *options) *stream {
	t.Helper()
	w, err := o.workload(name)
	if err != nil {
		t.Fatal(err)
	}
	z, err := testZipfs.get(keys, w.alpha)
	if err != nil {
		t.Fatal(err)
	}
	ks := testKeyspaces[[2]uint64{uint64(keys), seed}]
	if ks == nil {
		ks = newKeyspace(keys, seed)
		testKeyspaces[[2]uint64{uint64(keys), seed}] = ks
	}
	return newStream(w, ks, z)
}

// fingerprint hashes the first n requests of a stream.
func fingerprint(s *stream, n int) uint64 {
	h := fnv.New64a()
	var b [5]byte
	for i := 0; i < n; i++ {
		r := s.next()
		b[0], b[1], b[2], b[3] = byte(r.key), byte(r.key>>8), byte(r.key>>16), byte(r.key>>24)
		b[4] = 0
		if r.scan {
			b[4] = 1
		}
		if s.ks.ttlKey(s.w, r.key) {
			b[4] |= 2
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// The same seed gives the same stream, request for request; another seed
// another stream; and each workload its own.
func TestStreamDeterminism(t *testing.T) {
	o := testOptions()
	for _, name := range []string{"zipf-0.8", "zipf-0.99", "zipf-1.2", "scan", "ttl"} {
		a := newTestStream(t, name, 100_000, 1, o)
		b := newTestStream(t, name, 100_000, 1, o)
		for i := 0; i < 200_000; i++ {
			if ra, rb := a.next(), b.next(); ra != rb {
				t.Fatalf("%s: request %d differs between two streams of seed 1: %+v, %+v", name, i, ra, rb)
			}
		}
		if fingerprint(newTestStream(t, name, 100_000, 1, o), 10_000) == fingerprint(newTestStream(t, name, 100_000, 2, o), 10_000) {
			t.Errorf("%s: seeds 1 and 2 give the same stream", name)
		}
	}
	if fingerprint(newTestStream(t, "zipf-0.99", 100_000, 1, o), 10_000) == fingerprint(newTestStream(t, "ttl", 100_000, 1, o), 10_000) {
		t.Error("zipf-0.99 and ttl share their stream")
	}
}

// The streams are pinned: a change to the generator, the Zipf sampler, the
// permutation or the seeding changes these fingerprints, and with them
// every published figure. Change them only on purpose.
func TestStreamGolden(t *testing.T) {
	o := testOptions()
	want := map[string]uint64{
		"zipf-0.8":  0x755ce5ddbcb4b8,
		"zipf-0.99": 0xa0eca1fab83f7138,
		"zipf-1.2":  0x349927934407d7a6,
		"scan":      0x7d53008128a89431,
		"ttl":       0x7ddac087c06bec43,
	}
	for name, w := range want {
		n := 200_000
		if name == "scan" {
			n = 800_000 // past the first scan
		}
		if got := fingerprint(newTestStream(t, name, 1_000_000, 1, o), n); got != w {
			t.Errorf("%s: fingerprint of the first %d requests of seed 1 = %#x, want %#x", name, n, got, w)
		}
	}
}

// Scans come every scanEvery Zipf requests, read scanLen consecutive ids,
// and each goes on where the last stopped, wrapping at the last id.
func TestStreamScans(t *testing.T) {
	o := testOptions()
	o.scanEvery, o.scanLen = 10, 7
	s := newTestStream(t, "scan", 50, 3, o)
	next := -1
	for cycle := 0; cycle < 20; cycle++ {
		for i := 0; i < 10; i++ {
			if r := s.next(); r.scan {
				t.Fatalf("cycle %d: request %d is a scan", cycle, i)
			}
		}
		for i := 0; i < 7; i++ {
			r := s.next()
			if !r.scan {
				t.Fatalf("cycle %d: scan request %d is not a scan", cycle, i)
			}
			if next >= 0 && int(r.key) != next {
				t.Fatalf("cycle %d: scan reads id %d, want %d", cycle, r.key, next)
			}
			next = (int(r.key) + 1) % 50
		}
	}
}

// A fixed share of the ids carries a TTL, independent of popularity.
func TestTTLKeysShare(t *testing.T) {
	o := testOptions()
	w, _ := o.workload("ttl")
	ks := newKeyspace(100_000, 1)
	n := 0
	for k := uint32(0); k < 100_000; k++ {
		if ks.ttlKey(w, k) {
			n++
		}
	}
	if n < 49_000 || n > 51_000 {
		t.Errorf("%d of 100000 ids have a TTL, want about half", n)
	}
	z, _ := o.workload("zipf-0.99")
	if ks.ttlKey(z, 1) || ks.ttlKey(z, 2) {
		t.Error("a workload without TTLs has TTL keys")
	}
}

// Ranks map to ids by a permutation: every id once.
func TestKeyspacePermutation(t *testing.T) {
	ks := newKeyspace(10_000, 9)
	seen := make([]bool, 10_000)
	for _, id := range ks.perm {
		if seen[id] {
			t.Fatalf("id %d twice in the permutation", id)
		}
		seen[id] = true
	}
	if ks.perm[0] == 0 && ks.perm[1] == 1 && ks.perm[2] == 2 {
		t.Error("permutation looks like the identity")
	}
}

func TestKeyAndValueFormat(t *testing.T) {
	if got := string(appendKey(nil, 42)); got != "key:000000000042" {
		t.Errorf("appendKey(42) = %q", got)
	}
	if got := string(appendValue(nil, 42, 20)); got != "key:000000000042|key" {
		t.Errorf("appendValue(42, 20) = %q", got)
	}
	if got := string(appendValue(nil, 42, 5)); got != "key:0" {
		t.Errorf("appendValue(42, 5) = %q", got)
	}
}
