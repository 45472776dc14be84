package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// Bounds on a run: the tool measures on a shared machine; it is never a
// soak test left running by accident.
const (
	maxRequests    = 1_000_000_000
	maxDuration    = time.Hour
	maxConnections = 10_000
	maxPipeline    = 10_000
	maxKeyspace    = 1_000_000_000_000
	maxKeySize     = 250 // memcached's KEY_MAX_LENGTH
	maxValueSize   = 16 << 20
	maxMultiGet    = 100
)

// Range is a size in bytes, fixed (Min == Max) or drawn per key from
// [Min, Max].
type Range struct{ Min, Max int }

func (r Range) String() string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Min)
	}
	return fmt.Sprintf("%d-%d", r.Min, r.Max)
}

// parseRange parses "100" or "100-2000"; sizes may end in k (1024).
func parseRange(s string) (Range, error) {
	lo, hi, ranged := strings.Cut(s, "-")
	a, err1 := parseSize(lo)
	b, err2 := a, error(nil)
	if ranged {
		b, err2 = parseSize(hi)
	}
	if err1 != nil || err2 != nil || a < 1 || b < a {
		return Range{}, fmt.Errorf("size %q: want N or MIN-MAX bytes (k = 1024), MIN <= MAX", s)
	}
	return Range{a, b}, nil
}

func parseSize(s string) (int, error) {
	mult := 1
	if t, ok := strings.CutSuffix(strings.ToLower(s), "k"); ok {
		s, mult = t, 1024
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxValueSize/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// pick returns the size of key index i: fixed, or a hash of i spread over
// the range, so a key always has the same size and a value read back can
// be checked. salt tells key sizes from value sizes.
func (r Range) pick(i int64, salt uint64) int {
	if r.Min == r.Max {
		return r.Min
	}
	return r.Min + int(benchkit.Mix64(uint64(i)^salt)%uint64(r.Max-r.Min+1))
}

// Phase is one measured stretch of traffic: all SETs, all GETs, or a mix
// by weight.
type Phase struct {
	Name     string
	Set, Get int
}

// parseRatio parses "set:get", e.g. "1:10", into one mixed phase.
func parseRatio(s string) ([]Phase, error) {
	a, b, ok := strings.Cut(s, ":")
	set, err1 := strconv.Atoi(a)
	get, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || set < 0 || get < 0 || set+get == 0 || set > 1e6 || get > 1e6 {
		return nil, fmt.Errorf("--ratio %q: want set:get, two non-negative integers, e.g. 1:10", s)
	}
	return []Phase{{Name: "SET:GET " + s, Set: set, Get: get}}, nil
}

// parseTests parses redis-benchmark's -t: a comma-separated list of
// phases run one after the other (set, get).
func parseTests(s string) ([]Phase, error) {
	var out []Phase
	for _, t := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "set":
			out = append(out, Phase{Name: "SET", Set: 1})
		case "get":
			out = append(out, Phase{Name: "GET", Get: 1})
		default:
			return nil, fmt.Errorf("-t %q: unknown test %q (want set, get)", s, t)
		}
	}
	return out, nil
}

// Key distributions.
const (
	distUniform = "uniform" // every key index equally likely
	distZipf    = "zipf"    // index k with probability ∝ (k+1)^-alpha
	distSeq     = "seq"     // 0, 1, 2, … shared by all connections: each key once
)

// Workload is how one phase drives a server.
type Workload struct {
	Protocol  string
	Conns     int
	Pipeline  int
	Requests  int64         // per phase; 0 when Duration is set
	Duration  time.Duration // per phase; 0 when Requests is set
	Keyspace  int64
	KeySize   Range
	ValueSize Range
	Dist      string
	ZipfAlpha float64
	// Rate paces the phase: requests per second, all connections
	// together, sent on schedule whatever the replies (open loop); 0 is a
	// closed loop (each connection sends its next pipeline when the last
	// one is answered).
	Rate     float64
	MultiGet int // keys per get request (1: GET; more: MGET, get k1 k2 …)
	Seed     uint64
	Timeout  time.Duration
	// ExpectHits makes a GET miss an error: the phase before wrote every
	// key, so a miss is a key the server lost.
	ExpectHits bool
	// Verify compares every value read with the one written for its key.
	Verify bool
}

// check validates a workload's fields.
func (w *Workload) check() error {
	if _, err := benchkit.CodecFor(w.Protocol); err != nil {
		return err
	}
	switch {
	case w.Requests != 0 && w.Duration != 0:
		return errors.New("-n and --duration exclude each other")
	case w.Requests < 0 || w.Requests > maxRequests:
		return fmt.Errorf("-n %d: want 1..%d", w.Requests, maxRequests)
	case w.Duration < 0 || w.Duration > maxDuration:
		return fmt.Errorf("--duration %v: want up to %v", w.Duration, maxDuration)
	case w.Conns < 1 || w.Conns > maxConnections:
		return fmt.Errorf("-c %d: want 1..%d", w.Conns, maxConnections)
	case w.Pipeline < 1 || w.Pipeline > maxPipeline:
		return fmt.Errorf("-P %d: want 1..%d", w.Pipeline, maxPipeline)
	case w.Keyspace < 1 || w.Keyspace > maxKeyspace:
		return fmt.Errorf("-r %d: want 1..%d", w.Keyspace, maxKeyspace)
	case w.KeySize.Min < minKeySize(w.Keyspace) || w.KeySize.Max > maxKeySize:
		return fmt.Errorf("--key-size %s: want %d..%d bytes for -r %d (\"key:\" and the index)", w.KeySize, minKeySize(w.Keyspace), maxKeySize, w.Keyspace)
	case w.ValueSize.Min < 1 || w.ValueSize.Max > maxValueSize:
		return fmt.Errorf("-d %s: want 1..%d bytes", w.ValueSize, maxValueSize)
	case w.Rate < 0:
		return fmt.Errorf("--rate %v: want >= 0", w.Rate)
	case w.MultiGet < 1 || w.MultiGet > maxMultiGet:
		return fmt.Errorf("--multiget %d: want 1..%d", w.MultiGet, maxMultiGet)
	case w.Timeout <= 0:
		return fmt.Errorf("--timeout %v: want > 0", w.Timeout)
	}
	switch w.Dist {
	case distUniform, distSeq:
	case distZipf:
		if w.ZipfAlpha < 0 || w.ZipfAlpha > 10 {
			return fmt.Errorf("--zipf %v: want 0..10", w.ZipfAlpha)
		}
		if w.Keyspace > 100_000_000 {
			return fmt.Errorf("--dist zipf: -r %d is over 100M keys (12 bytes of table per key)", w.Keyspace)
		}
	default:
		return fmt.Errorf("--dist %q: want uniform, zipf or seq", w.Dist)
	}
	return nil
}

// minKeySize is the shortest key that holds every index of the
// keyspace: "key:" and its digits.
func minKeySize(keyspace int64) int {
	return len("key:") + len(strconv.FormatInt(max(keyspace-1, 0), 10))
}
