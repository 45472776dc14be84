package compat

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// Randomized differential tests of the bitmap and HyperLogLog families: a
// seeded generator issues random commands over a few keys (so that they
// collide) to redis-server and to Tandem and compares every reply byte for
// byte, in RESP2 and RESP3. A failure names the seed and the command; rerun
// with the same seed to reproduce.

const bitRandomCommands = 2000

// bitRandomPipeline is how many commands go out in one write.
const bitRandomPipeline = 50

func TestRandomBitmap(t *testing.T) {
	runRandomBits(t, "bitmap", randomBitmapCommand)
}

func TestRandomHyperLogLog(t *testing.T) {
	runRandomBits(t, "hll", randomHLLCommand)
}

// runRandomBits plays bitRandomCommands commands from gen against both
// servers, in each protocol, and compares the replies and the end state.
func runRandomBits(t *testing.T, family string, gen func(r *rand.Rand) []string) {
	var final [][]string
	for _, k := range bitRandKeys {
		final = append(final, []string{"GET", k}, []string{"TYPE", k}, []string{"OBJECT", "ENCODING", k})
	}
	runRandomStream(t, randomStream{
		name: "random-" + family, commands: bitRandomCommands, pipeline: bitRandomPipeline,
		gen: gen, final: final, quote: bitQuoteArgs,
	})
}

// randomStream is a seeded random command stream for runRandomStream.
type randomStream struct {
	name     string // seeds the generator (with the protocol)
	commands int    // how many commands gen makes
	pipeline int    // commands sent per round trip
	gen      func(r *rand.Rand) []string
	final    [][]string // commands that compare the end state
	quote    func(args []string) string
}

// runRandomStream sends the same seeded stream to redis-server and to
// Tandem, in RESP2 and RESP3, pipelined in batches, and fails at the first
// reply that differs, naming the seed and the command.
func runRandomStream(t *testing.T, s randomStream) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			seed := seedOf(s.name, proto, oneByOne)
			r := rand.New(rand.NewSource(seed))
			for _, a := range []string{refRedis, sutRedis} {
				if err := flushRedis(a); err != nil {
					t.Fatal(err)
				}
			}
			ref, sut := dialRESP(t, refRedis), dialRESP(t, sutRedis)
			if proto == 3 {
				ref.do("HELLO", "3")
				sut.do("HELLO", "3")
			}
			var batch [][]string
			flush := func() {
				enc := make([]string, len(batch))
				for i, c := range batch {
					enc[i] = cmd(c...)
				}
				rr, sr := both(func(addr string) []reply {
					if addr == refRedis {
						return ref.pipeline(enc)
					}
					return sut.pipeline(enc)
				}, refRedis, sutRedis)
				for i := range batch {
					if string(rr[i].raw) != string(sr[i].raw) {
						t.Fatalf("seed %d, %s: reply differs\n  redis:  %q\n  %s: %q", seed, s.quote(batch[i]), shorten(string(rr[i].raw)), sideName(), shorten(string(sr[i].raw)))
					}
				}
				batch = batch[:0]
			}
			for i := 0; i < s.commands; i++ {
				batch = append(batch, s.gen(r))
				if len(batch) == s.pipeline {
					flush()
				}
			}
			flush()
			batch = append(batch, s.final...)
			flush()
		})
	}
}

func bitQuoteArgs(args []string) string {
	out := "["
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += strconv.Quote(shorten(a))
	}
	return out + "]"
}

var bitRandKeys = []string{"a", "b", "c", "d"}

func bitPick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

func bitRandKey(r *rand.Rand) string { return bitRandKeys[r.Intn(len(bitRandKeys))] }

// bitRandIndex is a start or end index: mostly small, sometimes negative,
// sometimes far out.
func bitRandIndex(r *rand.Rand) string {
	switch r.Intn(10) {
	case 0:
		return strconv.Itoa(-r.Intn(40))
	case 1:
		return bitPick(r, "9223372036854775807", "-9223372036854775808", "1000", "-1000")
	}
	return strconv.Itoa(r.Intn(40))
}

func bitRandBytes(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = bitPick(r, byte(0), 0xff, 0x0f, 0xf0, 0x55, 0xaa, byte(r.Intn(256)))
	}
	return string(b)
}

// randomBitfieldType is a BITFIELD type, now and then an invalid one.
func randomBitfieldType(r *rand.Rand) string {
	if r.Intn(40) == 0 {
		return bitPick(r, "u64", "i65", "x8", "i0", "U8")
	}
	if r.Intn(2) == 0 {
		return "i" + strconv.Itoa(1+r.Intn(64))
	}
	return "u" + strconv.Itoa(1+r.Intn(63))
}

func randomBitfieldValue(r *rand.Rand) string {
	switch r.Intn(6) {
	case 0:
		return bitPick(r, "9223372036854775807", "-9223372036854775808", "-1", "0", "1")
	case 1:
		return strconv.FormatInt(r.Int63()-r.Int63(), 10)
	}
	return strconv.Itoa(r.Intn(600) - 300)
}

func randomBitmapCommand(r *rand.Rand) []string {
	k := bitRandKey(r)
	switch n := r.Intn(100); {
	case n < 20:
		off := r.Intn(200)
		if r.Intn(20) == 0 {
			off = r.Intn(4000)
		}
		return []string{"SETBIT", k, strconv.Itoa(off), bitPick(r, "0", "1", "1", "0", "2")}
	case n < 28:
		return []string{"GETBIT", k, strconv.Itoa(r.Intn(250))}
	case n < 40:
		c := []string{"BITCOUNT", k}
		switch r.Intn(3) {
		case 1:
			c = append(c, bitRandIndex(r), bitRandIndex(r))
		case 2:
			c = append(c, bitRandIndex(r), bitRandIndex(r), bitPick(r, "BIT", "BYTE", "bit"))
		}
		return c
	case n < 55:
		c := []string{"BITPOS", k, bitPick(r, "0", "1")}
		switch r.Intn(4) {
		case 1:
			c = append(c, bitRandIndex(r))
		case 2:
			c = append(c, bitRandIndex(r), bitRandIndex(r))
		case 3:
			c = append(c, bitRandIndex(r), bitRandIndex(r), bitPick(r, "BIT", "BYTE"))
		}
		return c
	case n < 63:
		op := bitPick(r, "AND", "OR", "XOR", "NOT", "and")
		c := []string{"BITOP", op, bitRandKey(r), bitRandKey(r)}
		if op != "NOT" {
			for i := r.Intn(3); i > 0; i-- {
				c = append(c, bitPick(r, bitRandKey(r), "nosuch"))
			}
		}
		return c
	case n < 80:
		name, readOnly := "BITFIELD", false
		if r.Intn(5) == 0 {
			name, readOnly = "BITFIELD_RO", r.Intn(4) > 0
		}
		c := []string{name, k}
		for i := r.Intn(4); i >= 0; i-- {
			if r.Intn(6) == 0 {
				c = append(c, "OVERFLOW", bitPick(r, "WRAP", "SAT", "FAIL"))
			}
			off := strconv.Itoa(r.Intn(150))
			if r.Intn(5) == 0 {
				off = "#" + strconv.Itoa(r.Intn(6))
			}
			kind := r.Intn(3)
			if readOnly {
				kind = 0
			}
			switch kind {
			case 0:
				c = append(c, "GET", randomBitfieldType(r), off)
			case 1:
				c = append(c, "SET", randomBitfieldType(r), off, randomBitfieldValue(r))
			default:
				c = append(c, "INCRBY", randomBitfieldType(r), off, randomBitfieldValue(r))
			}
		}
		return c
	case n < 88:
		return []string{"SET", k, bitRandBytes(r, r.Intn(40))}
	case n < 91:
		return []string{"SET", k, strconv.Itoa(r.Intn(100000))}
	case n < 94:
		return []string{"APPEND", k, bitRandBytes(r, r.Intn(5))}
	case n < 96:
		return []string{"DEL", k}
	}
	return []string{"GET", k}
}

func randomHLLCommand(r *rand.Rand) []string {
	k := bitRandKey(r)
	element := func() string {
		if r.Intn(4) == 0 {
			return bitRandBytes(r, r.Intn(12))
		}
		// A universe large enough to push some keys to dense.
		return "e" + strconv.Itoa(r.Intn(20000))
	}
	switch n := r.Intn(100); {
	case n < 55:
		c := []string{"PFADD", k}
		for i := r.Intn(60); i > 0; i-- {
			c = append(c, element())
		}
		return c
	case n < 70:
		return []string{"PFCOUNT", k}
	case n < 78:
		c := []string{"PFCOUNT", k}
		for i := 1 + r.Intn(3); i > 0; i-- {
			c = append(c, bitPick(r, bitRandKey(r), "nosuch"))
		}
		return c
	case n < 86:
		c := []string{"PFMERGE", k}
		for i := r.Intn(3); i > 0; i-- {
			c = append(c, bitPick(r, bitRandKey(r), "nosuch"))
		}
		return c
	case n < 87:
		return []string{"SET", k, bitPick(r, "abc", "HYLL")}
	case n < 90:
		return []string{"DEL", k}
	case n < 93:
		return []string{"STRLEN", k}
	}
	return []string{"GET", k}
}
