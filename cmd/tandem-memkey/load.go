package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// appendKey appends key n's name, "key:<n>".
func appendKey(dst []byte, n int) []byte {
	return strconv.AppendInt(append(dst, "key:"...), int64(n), 10)
}

// fillValue writes key n's value into dst: a splitmix64 stream whose
// start is n scrambled, so every byte varies, no two keys share a value
// nor a stretch of one, and nothing compresses; a reader can check a value
// without keeping the data set.
func fillValue(dst []byte, n int) {
	x := mix64(uint64(n))
	var w uint64
	for i := range dst {
		if i%8 == 0 {
			x += 0x9E3779B97F4A7C15
			w = mix64(x)
		}
		dst[i] = byte(w >> (8 * (i % 8)))
	}
}

// mix64 is splitmix64's output function.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// pickKeys returns n keys to read back out of [0, keys): the first and
// the last, the rest at random (seeded, so a run can be repeated).
func pickKeys(keys, n int, seed uint64) []int {
	if n <= 0 {
		return nil
	}
	out := []int{0}
	if n > 1 && keys > 1 {
		out = append(out, keys-1)
	}
	r := rand.New(rand.NewPCG(seed, 0x3e3))
	for len(out) < n {
		out = append(out, r.IntN(keys))
	}
	return out
}

var setCmd, getCmd = []byte("SET"), []byte("GET")

// loadRESP SETs every key over one connection, pipeline commands a batch;
// every reply must be +OK.
func loadRESP(addr string, keys, size, pipeline int) (time.Duration, error) {
	c, err := benchkit.Dial(addr, time.Minute)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.DeadlinePerRead()
	start := time.Now()
	key, val := []byte{}, make([]byte, size)
	for from := 0; from < keys; from += pipeline {
		to := min(from+pipeline, keys)
		for i := from; i < to; i++ {
			key = appendKey(key[:0], i)
			fillValue(val, i)
			c.WriteCmd(setCmd, key, val)
		}
		if err := c.Flush(); err != nil {
			return 0, err
		}
		for i := from; i < to; i++ {
			if err := c.SetReply(); err != nil {
				return 0, fmt.Errorf("SET key:%d: %w", i, err)
			}
		}
	}
	return time.Since(start), nil
}

// loadMemcached sets every key (flags 0, no expiry) over one connection,
// pipeline commands a batch; every reply must be STORED.
func loadMemcached(addr string, keys, size, pipeline int) (time.Duration, error) {
	c, err := benchkit.DialMemcached(addr, time.Minute)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	start := time.Now()
	key, val := []byte{}, make([]byte, size)
	for from := 0; from < keys; from += pipeline {
		to := min(from+pipeline, keys)
		for i := from; i < to; i++ {
			key = appendKey(key[:0], i)
			fillValue(val, i)
			c.WriteSet(key, val)
		}
		if err := c.Flush(); err != nil {
			return 0, err
		}
		for i := from; i < to; i++ {
			if err := c.SetReply(); err != nil {
				return 0, fmt.Errorf("set key:%d: %w", i, err)
			}
		}
	}
	return time.Since(start), nil
}

// verifyBatch is the number of reads pipelined at once when reading back.
const verifyBatch = 100

// verifyRESP GETs the keys idx and compares each value with the one
// written; a miss or any difference is an error.
func verifyRESP(addr string, idx []int, size int) error {
	c, err := benchkit.Dial(addr, time.Minute)
	if err != nil {
		return err
	}
	defer c.Close()
	c.DeadlinePerRead()
	var key []byte
	want := make([]byte, size)
	for from := 0; from < len(idx); from += verifyBatch {
		batch := idx[from:min(from+verifyBatch, len(idx))]
		for _, i := range batch {
			key = appendKey(key[:0], i)
			c.WriteCmd(getCmd, key)
		}
		if err := c.Flush(); err != nil {
			return err
		}
		for _, i := range batch {
			v, hit, err := c.GetReply()
			if err != nil {
				return fmt.Errorf("GET key:%d: %w", i, err)
			}
			fillValue(want, i)
			if err := compare(i, v, hit, want); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifyMemcached is verifyRESP through memcached's get.
func verifyMemcached(addr string, idx []int, size int) error {
	c, err := benchkit.DialMemcached(addr, time.Minute)
	if err != nil {
		return err
	}
	defer c.Close()
	var key []byte
	want := make([]byte, size)
	for from := 0; from < len(idx); from += verifyBatch {
		batch := idx[from:min(from+verifyBatch, len(idx))]
		for _, i := range batch {
			key = appendKey(key[:0], i)
			c.WriteGet(key)
		}
		if err := c.Flush(); err != nil {
			return err
		}
		for _, i := range batch {
			key = appendKey(key[:0], i)
			v, hit, err := c.GetReply(key)
			if err != nil {
				return fmt.Errorf("get key:%d: %w", i, err)
			}
			fillValue(want, i)
			if err := compare(i, v, hit, want); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare checks one value read back against the one written.
func compare(i int, got []byte, hit bool, want []byte) error {
	switch {
	case !hit:
		return fmt.Errorf("key:%d is missing", i)
	case len(got) != len(want):
		return fmt.Errorf("key:%d: value of %d bytes, want %d", i, len(got), len(want))
	case !bytes.Equal(got, want):
		at := 0
		for at < len(got) && got[at] == want[at] {
			at++
		}
		return fmt.Errorf("key:%d: the value differs from byte %d on", i, at)
	}
	return nil
}
