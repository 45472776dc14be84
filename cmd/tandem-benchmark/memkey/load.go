package memkey

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// appendKey appends key n's name, "key:<n>".
func appendKey(dst []byte, n int) []byte { return benchkit.AppendKey(dst, "key:", int64(n), 0) }

// fillValue writes key n's value into dst: incompressible, derived from
// n, so a reader can check a value without keeping the data set.
func fillValue(dst []byte, n int) { benchkit.FillIncompressible(dst, uint64(n)) }

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

// conn is one connection with a deadline per exchange.
type conn struct {
	c net.Conn
	r *bufio.Reader
}

func dial(addr string) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, time.Minute)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

func (c *conn) send(b []byte) error {
	c.c.SetDeadline(time.Now().Add(time.Minute))
	_, err := c.c.Write(b)
	return err
}

// load sets every key over one connection, pipeline commands a batch;
// every reply must be the protocol's success.
func load(addr string, codec benchkit.Codec, keys, size, pipeline int) (time.Duration, error) {
	c, err := dial(addr)
	if err != nil {
		return 0, err
	}
	defer c.c.Close()
	start := time.Now()
	var out, key []byte
	val := make([]byte, size)
	for from := 0; from < keys; from += pipeline {
		to := min(from+pipeline, keys)
		out = out[:0]
		for i := from; i < to; i++ {
			key = appendKey(key[:0], i)
			fillValue(val, i)
			out = codec.AppendSet(out, key, val)
		}
		if err := c.send(out); err != nil {
			return 0, err
		}
		for i := from; i < to; i++ {
			if err := codec.ReadSet(c.r); err != nil {
				return 0, fmt.Errorf("set key:%d: %w", i, err)
			}
		}
	}
	return time.Since(start), nil
}

// verifyBatch is the number of reads pipelined at once when reading back.
const verifyBatch = 100

// verify gets the keys idx and compares each value with the one written;
// a miss or any difference is an error.
func verify(addr string, codec benchkit.Codec, idx []int, size int) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.c.Close()
	var out, key, scratch []byte
	want := make([]byte, size)
	for from := 0; from < len(idx); from += verifyBatch {
		batch := idx[from:min(from+verifyBatch, len(idx))]
		out = out[:0]
		for _, i := range batch {
			key = appendKey(key[:0], i)
			out = codec.AppendGet(out, key)
		}
		if err := c.send(out); err != nil {
			return err
		}
		for _, i := range batch {
			key = appendKey(key[:0], i)
			v, hit, err := codec.ReadGet(c.r, key, &scratch)
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
