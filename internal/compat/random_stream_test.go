package compat

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestRandomStreams sends the same seeded random sequence of stream
// commands — XADD in all its forms, XDEL, XTRIM, XRANGE/XREVRANGE, XLEN,
// XSETID, the XGROUP subcommands, XREADGROUP (not blocking), XACK,
// XPENDING, XCLAIM, XAUTOCLAIM and XINFO — to redis-server and to Tandem,
// in RESP2 and RESP3, and compares every reply. Small key, ID, group and
// consumer spaces make commands collide, and stream-node-max-entries 4
// makes XTRIM ~ and XINFO's radix tree depend on the nodes.
//
// Replies are compared byte for byte, but for the servers' clocks: the
// idle times of XPENDING's extended form, and the seen, idle and delivery
// times of XINFO, are masked (streamTimesMasked). IDs are always explicit
// ("ms-seq", "ms", "ms-*"), never "*"; XCLAIM's and XAUTOCLAIM's
// min-idle-time and XPENDING's IDLE are 0 or far beyond any idle time, so
// which entries qualify does not depend on the clock either. Every 50
// commands each stream's XINFO STREAM FULL is compared too.
//
// redisNodeBug: redis-server 7.0.15's streamAppendItem loses a new node
// when stream-node-max-bytes is below its 4096-byte preallocation and the
// node's first entry outgrows it: the node's listpack is reallocated
// while the previous node, shrunk to fit, has moved; when the new
// listpack lands where the previous one was, its pointer is never
// written back to the radix tree, which keeps the freed one, and the
// stream then reads another key's entries (found by seed 7 with
// stream-node-max-bytes 60 and 300-byte values). Tandem keeps the
// entries; the sequence avoids the case: stream-node-max-bytes is 0,
// 200 or 4096, and short values go with 200.
//
// COMPAT_SEED=n replays another sequence; the seeds below are kept
// because they found differences.
func TestRandomStreams(t *testing.T) {
	seeds := []uint64{20261201, 7, 1234567}
	if s := envSeed(t, 0); s != 0 {
		seeds = []uint64{s}
	}
	for _, seed := range seeds {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("seed%d/resp%d", seed, proto), func(t *testing.T) {
				f := newStreamFuzz(t, proto, seed+uint64(proto))
				f.run(3000)
			})
		}
	}
}

type streamFuzz struct {
	t        *testing.T
	rng      *rand.Rand
	seed     uint64
	ref, sut *respClient
	history  []string
	n        int
	last     map[string]uint64   // per key, the ms part of the last ID the reference gave
	ids      map[string][]string // per key, IDs XADD gave (maybe deleted since)
	// smallNodes: stream-node-max-bytes is below Redis's 4096-byte
	// preallocation, so values stay short (see redisNodeBug).
	smallNodes bool
	// What the run covered, logged at the end.
	errors, added, claimed, read int
}

var (
	sfuzzKeys      = []string{"s1", "s2", "s3"}
	sfuzzGroups    = []string{"g1", "g2"}
	sfuzzConsumers = []string{"c1", "c2", "c3"}
	sfuzzFields    = []string{"f", "g", "h", "a"}
)

func newStreamFuzz(t *testing.T, proto int, seed uint64) *streamFuzz {
	for _, addr := range []string{refRedis, sutRedis} {
		if err := flushRedis(addr); err != nil {
			t.Fatal(err)
		}
	}
	f := &streamFuzz{t: t, rng: rand.New(rand.NewPCG(seed, 0x57e4)), seed: seed, ref: dialRESP(t, refRedis), sut: dialRESP(t, sutRedis), last: map[string]uint64{}, ids: map[string][]string{}}
	if proto == 3 {
		f.ref.do("HELLO", "3")
		f.sut.do("HELLO", "3")
	}
	f.exact("CONFIG", "SET", "stream-node-max-entries", "4")
	t.Cleanup(func() {
		for _, addr := range []string{refRedis, sutRedis} {
			controlFor(addr).roundTrip(cmd("CONFIG", "SET", "stream-node-max-entries", "100"))
			controlFor(addr).roundTrip(cmd("CONFIG", "SET", "stream-node-max-bytes", "4096"))
		}
	})
	f.exact("SET", "str", "v")
	return f
}

func (f *streamFuzz) fail(format string, args ...any) {
	f.t.Helper()
	f.t.Fatalf("seed %d, command %d: %s\nlast commands:\n  %s", f.seed, f.n, fmt.Sprintf(format, args...), strings.Join(f.history, "\n  "))
}

func (f *streamFuzz) both(args ...string) (reply, reply) {
	f.t.Helper()
	f.n++
	f.history = append(f.history, fmt.Sprintf("%d: %q", f.n, args))
	if len(f.history) > 40 {
		f.history = f.history[1:]
	}
	r, s := f.ref.do(args...), f.sut.do(args...)
	if r.isError() {
		f.errors++
	}
	return r, s
}

// exact compares the replies byte for byte, but for masked times.
func (f *streamFuzz) exact(args ...string) reply {
	f.t.Helper()
	r, s := f.both(args...)
	name := strings.ToUpper(args[0])
	if name != "XINFO" && name != "XPENDING" {
		if string(r.raw) != string(s.raw) {
			f.fail("%q:\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
		}
		return r
	}
	if streamTimesMasked(r, name == "XPENDING") != streamTimesMasked(s, name == "XPENDING") {
		f.fail("%q (times masked):\n  redis:  %q\n  %s: %q", args, r.raw, sideName(), s.raw)
	}
	return r
}

// streamTimeKeys name the XINFO fields that hold a clock's time.
var streamTimeKeys = map[string]bool{"seen-time": true, "idle": true, "active-time": true, "inactive": true}

// streamTimesMasked renders r with the clock's times replaced: the value
// after a time key of a map or flat key-value array, the delivery time
// of every entry of XINFO STREAM FULL's "pending" lists, and with xpending the
// idle time (third element) of each entry of an extended XPENDING.
func streamTimesMasked(r reply, xpending bool) string {
	var b strings.Builder
	var walk func(r reply, mask bool)
	walk = func(r reply, mask bool) {
		if mask && r.kind == ':' {
			b.WriteString(":<time>")
			return
		}
		b.WriteByte(r.kind)
		if r.null {
			b.WriteString("<null>")
		}
		b.WriteString(strconv.Quote(r.text))
		b.WriteByte('[')
		for i, e := range r.elems {
			var key string
			if i%2 == 1 && (r.elems[i-1].kind == '$' || r.elems[i-1].kind == '+') {
				key = r.elems[i-1].text
			}
			if key == "pending" && e.isAggregate() {
				// XINFO STREAM FULL's PELs: [id, (consumer,) delivery
				// time, count] entries.
				b.WriteByte('[')
				for _, entry := range e.elems {
					b.WriteByte('(')
					for j, x := range entry.elems {
						walk(x, j > 0 && j < len(entry.elems)-1)
					}
					b.WriteByte(')')
				}
				b.WriteByte(']')
				continue
			}
			walk(e, streamTimeKeys[key])
		}
		b.WriteByte(']')
	}
	if xpending && r.kind == '*' && len(r.elems) > 0 && r.elems[0].kind == '*' {
		// Extended form: [id, consumer, idle, count] entries.
		b.WriteString("xpending[")
		for _, e := range r.elems {
			b.WriteByte('(')
			for j, x := range e.elems {
				walk(x, j == 2)
			}
			b.WriteByte(')')
		}
		b.WriteByte(']')
		return b.String()
	}
	walk(r, false)
	return b.String()
}

func (f *streamFuzz) pick(list []string) string { return list[f.rng.IntN(len(list))] }

func (f *streamFuzz) key() string {
	switch f.rng.IntN(40) {
	case 0:
		return "str"
	case 1:
		return "nosuch"
	}
	return f.pick(sfuzzKeys)
}

// newID is an ID for XADD near the key's last one: mostly above it,
// sometimes equal or below (an error), in the three explicit forms.
func (f *streamFuzz) newID(key string) string {
	ms := f.last[key] + uint64(f.rng.IntN(4))
	if f.rng.IntN(15) == 0 && ms > 2 {
		ms -= 2
	}
	switch f.rng.IntN(6) {
	case 0:
		return strconv.FormatUint(ms, 10)
	case 1, 2:
		return strconv.FormatUint(ms, 10) + "-*"
	}
	return fmt.Sprintf("%d-%d", ms, f.rng.IntN(4))
}

// id is an existing-ish ID, for deletes, ranges and claims.
func (f *streamFuzz) id(key string) string {
	top := f.last[key] + 2
	if f.rng.IntN(25) == 0 {
		return f.pick([]string{"abc", "1-x", "18446744073709551615-18446744073709551615"})
	}
	if ids := f.ids[key]; len(ids) > 0 && f.rng.IntN(3) > 0 {
		return ids[len(ids)-1-f.rng.IntN(min(len(ids), 12))] // a recent entry's
	}
	if f.rng.IntN(4) == 0 {
		return strconv.FormatUint(uint64(f.rng.IntN(int(top))), 10)
	}
	return fmt.Sprintf("%d-%d", f.rng.IntN(int(top)), f.rng.IntN(4))
}

func (f *streamFuzz) bound(key string, low bool) string {
	switch f.rng.IntN(8) {
	case 0:
		if low {
			return "-"
		}
		return "+"
	case 1:
		return "(" + f.id(key)
	}
	return f.id(key)
}

func (f *streamFuzz) fields() []string {
	var out []string
	if f.rng.IntN(3) == 0 { // the fields of the node's master entry, mostly
		return []string{"f", strconv.Itoa(f.rng.IntN(100)), "g", "x"}
	}
	for n := 1 + f.rng.IntN(3); n > 0; n-- {
		v := strconv.Itoa(f.rng.IntN(1000) - 500)
		switch f.rng.IntN(12) {
		case 0, 1:
			v = strings.Repeat("v", f.rng.IntN(40))
			if f.smallNodes {
				v = v[:min(len(v), 12)]
			}
		case 2:
			if f.smallNodes {
				break
			}
			v = strings.Repeat("w", 50+f.rng.IntN(250))
		case 3:
			v = strconv.FormatInt(f.rng.Int64N(1<<62)-1<<61, 10) // listpack integers of every width
		}
		out = append(out, f.pick(sfuzzFields), v)
	}
	return out
}

// trim is XADD's and XTRIM's trimming clause.
func (f *streamFuzz) trim(key string) []string {
	var out []string
	if f.rng.IntN(2) == 0 {
		out = append(out, "MAXLEN")
	} else {
		out = append(out, "MINID")
	}
	approx := false
	switch f.rng.IntN(3) {
	case 0:
		out = append(out, "~")
		approx = true
	case 1:
		out = append(out, "=")
	}
	if out[0] == "MAXLEN" {
		out = append(out, strconv.Itoa(f.rng.IntN(14)))
	} else {
		out = append(out, f.id(key))
	}
	if (approx || f.rng.IntN(20) == 0) && f.rng.IntN(3) == 0 { // LIMIT without ~ is an error
		out = append(out, "LIMIT", strconv.Itoa(f.rng.IntN(10)))
	}
	return out
}

func (f *streamFuzz) run(steps int) {
	for i := 0; i < steps; i++ {
		f.step()
		if i%50 == 49 {
			for _, k := range sfuzzKeys {
				f.exact("XINFO", "STREAM", k, "FULL")
			}
		}
	}
	f.t.Logf("%d commands, %d errors, %d entries added, %d read by groups, %d claimed", f.n, f.errors, f.added, f.read, f.claimed)
}

func (f *streamFuzz) step() {
	f.t.Helper()
	key := f.key()
	switch op := f.rng.IntN(40); {
	case op < 9: // XADD
		args := []string{"XADD", key}
		if f.rng.IntN(8) == 0 {
			args = append(args, "NOMKSTREAM")
		}
		if f.rng.IntN(4) == 0 {
			args = append(args, f.trim(key)...)
		}
		args = append(args, f.newID(key))
		args = append(args, f.fields()...)
		r := f.exact(args...)
		if r.kind == '$' && !r.null {
			f.added++
			f.ids[key] = append(f.ids[key], r.text)
			if ms, _, ok := strings.Cut(r.text, "-"); ok {
				f.last[key], _ = strconv.ParseUint(ms, 10, 64)
			}
		}
	case op < 11:
		args := []string{"XDEL", key}
		for n := 1 + f.rng.IntN(3); n > 0; n-- {
			args = append(args, f.id(key))
		}
		f.exact(args...)
	case op < 12:
		f.exact(append([]string{"XTRIM", key}, f.trim(key)...)...)
	case op < 15:
		name, lo, hi := "XRANGE", f.bound(key, true), f.bound(key, false)
		if f.rng.IntN(2) == 0 {
			name, lo, hi = "XREVRANGE", hi, lo
		}
		args := []string{name, key, lo, hi}
		if f.rng.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(f.rng.IntN(6)-1))
		}
		f.exact(args...)
	case op < 16:
		if f.rng.IntN(6) == 0 && key != "str" {
			f.exact("DEL", key)
			delete(f.last, key)
			delete(f.ids, key)
			return
		}
		f.exact("XLEN", key)
	case op < 17 && f.rng.IntN(8) == 0: // the node limits, for the next XADDs
		if f.rng.IntN(2) == 0 {
			f.exact("CONFIG", "SET", "stream-node-max-entries", f.pick([]string{"0", "1", "2", "4", "4", "10", "100"}))
		} else {
			// Not below 200: see redisNodeBug.
			v := f.pick([]string{"0", "200", "4096", "4096"})
			f.exact("CONFIG", "SET", "stream-node-max-bytes", v)
			f.smallNodes = v == "200"
		}
	case op < 17: // XSETID
		id := fmt.Sprintf("%d-%d", f.last[key]+uint64(f.rng.IntN(3)), f.rng.IntN(4))
		args := []string{"XSETID", key, id}
		if f.rng.IntN(2) == 0 {
			args = append(args, "ENTRIESADDED", strconv.Itoa(f.rng.IntN(60)))
		}
		if f.rng.IntN(2) == 0 {
			args = append(args, "MAXDELETEDID", f.id(key))
		}
		if r := f.exact(args...); r.kind == '+' {
			ms, _, _ := strings.Cut(id, "-")
			f.last[key], _ = strconv.ParseUint(ms, 10, 64)
		}
	case op < 20:
		f.xgroup(key)
	case op < 26: // XREADGROUP, not blocking
		args := []string{"XREADGROUP", "GROUP", f.pick(sfuzzGroups), f.pick(sfuzzConsumers)}
		if f.rng.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(f.rng.IntN(5)))
		}
		if f.rng.IntN(6) == 0 {
			args = append(args, "NOACK")
		}
		keys := []string{key}
		if f.rng.IntN(4) == 0 {
			keys = append(keys, f.pick(sfuzzKeys))
		}
		args = append(args, "STREAMS")
		args = append(args, keys...)
		for _, k := range keys {
			switch f.rng.IntN(5) {
			case 0:
				args = append(args, "0")
			case 1:
				args = append(args, f.id(k))
			default:
				args = append(args, ">")
			}
		}
		if r := f.exact(args...); r.isAggregate() {
			f.read++
		}
	case op < 29:
		args := []string{"XACK", key, f.pick(sfuzzGroups)}
		for n := 1 + f.rng.IntN(3); n > 0; n-- {
			args = append(args, f.id(key))
		}
		f.exact(args...)
	case op < 32:
		args := []string{"XPENDING", key, f.pick(sfuzzGroups)}
		if f.rng.IntN(3) > 0 {
			if f.rng.IntN(3) == 0 {
				args = append(args, "IDLE", f.minIdle())
			}
			args = append(args, f.bound(key, true), f.bound(key, false), strconv.Itoa(f.rng.IntN(8)))
			if f.rng.IntN(2) == 0 {
				args = append(args, f.pick(sfuzzConsumers))
			}
		}
		f.exact(args...)
	case op < 35:
		args := []string{"XCLAIM", key, f.pick(sfuzzGroups), f.pick(sfuzzConsumers), f.minIdle()}
		for n := 1 + f.rng.IntN(3); n > 0; n-- {
			args = append(args, f.id(key))
		}
		for _, o := range []string{"JUSTID", "FORCE", "RETRYCOUNT", "IDLE", "LASTID"} {
			if f.rng.IntN(6) != 0 {
				continue
			}
			switch o {
			case "RETRYCOUNT":
				args = append(args, o, strconv.Itoa(f.rng.IntN(5)))
			case "IDLE":
				args = append(args, o, strconv.Itoa(f.rng.IntN(5000)))
			case "LASTID":
				args = append(args, o, f.id(key))
			default:
				args = append(args, o)
			}
		}
		if r := f.exact(args...); r.kind == '*' {
			f.claimed += len(r.elems)
		}
	case op < 37:
		args := []string{"XAUTOCLAIM", key, f.pick(sfuzzGroups), f.pick(sfuzzConsumers), f.minIdle(), f.pick([]string{"0", "0-0", "-", f.id(key), "(" + f.id(key)})}
		if f.rng.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(f.rng.IntN(6)))
		}
		if f.rng.IntN(3) == 0 {
			args = append(args, "JUSTID")
		}
		f.exact(args...)
	default:
		switch f.rng.IntN(4) {
		case 0:
			f.exact("XINFO", "STREAM", key)
		case 1:
			args := []string{"XINFO", "STREAM", key, "FULL"}
			if f.rng.IntN(2) == 0 {
				args = append(args, "COUNT", strconv.Itoa(f.rng.IntN(4)))
			}
			f.exact(args...)
		case 2:
			f.exact("XINFO", "GROUPS", key)
		case 3:
			f.exact("XINFO", "CONSUMERS", key, f.pick(sfuzzGroups))
		}
	}
}

// minIdle is a min-idle-time that every or no pending entry meets,
// whatever the clocks.
func (f *streamFuzz) minIdle() string {
	if f.rng.IntN(3) == 0 {
		return "100000000000000"
	}
	return "0"
}

func (f *streamFuzz) xgroup(key string) {
	g := f.pick(sfuzzGroups)
	switch f.rng.IntN(6) {
	case 0, 1:
		args := []string{"XGROUP", "CREATE", key, g, f.pick([]string{"$", "0", f.id(key)})}
		if f.rng.IntN(2) == 0 {
			args = append(args, "MKSTREAM")
		}
		if f.rng.IntN(3) == 0 {
			args = append(args, "ENTRIESREAD", strconv.Itoa(f.rng.IntN(20)))
		}
		f.exact(args...)
	case 2:
		args := []string{"XGROUP", "SETID", key, g, f.pick([]string{"$", "0", f.id(key)})}
		if f.rng.IntN(3) == 0 {
			args = append(args, "ENTRIESREAD", strconv.Itoa(f.rng.IntN(20)))
		}
		f.exact(args...)
	case 3:
		if f.rng.IntN(3) == 0 {
			f.exact("XGROUP", "DESTROY", key, g)
		}
	case 4:
		f.exact("XGROUP", "CREATECONSUMER", key, g, f.pick(sfuzzConsumers))
	case 5:
		f.exact("XGROUP", "DELCONSUMER", key, g, f.pick(sfuzzConsumers))
	}
}

// TestStreamSmallNodesKeepEntries is the case redisNodeBug keeps out of
// TestRandomStreams, on Tandem alone: with stream-node-max-bytes 60,
// entries larger than a node, between writes to another stream, every
// stream reads back exactly what was added to it.
func TestStreamSmallNodesKeepEntries(t *testing.T) {
	mustNotSelfTest(t) // redis-server may lose the entries
	if err := flushRedis(sutRedis); err != nil {
		t.Fatal(err)
	}
	c := dialRESP(t, sutRedis)
	c.do("CONFIG", "SET", "stream-node-max-bytes", "60")
	defer c.do("CONFIG", "SET", "stream-node-max-bytes", "4096")
	want := map[string][]string{}
	for i := 1; i <= 60; i++ {
		key := []string{"s1", "s2"}[i%3/2]
		v := strconv.Itoa(i)
		if i%4 == 0 {
			v = strings.Repeat("w", 50+i*5)
		}
		id := fmt.Sprintf("%d-%d", i, i%3)
		if r := c.do("XADD", key, "MINID", "=", "1", id, "a", v, "g", "300"); r.text != id {
			t.Fatalf("XADD %s %s: %q", key, id, r.raw)
		}
		want[key] = append(want[key], id+" a "+v+" g 300")
	}
	for key, entries := range want {
		r := c.do("XRANGE", key, "-", "+")
		var got []string
		for _, e := range r.elems {
			parts := []string{e.elems[0].text}
			for _, x := range e.elems[1].elems {
				parts = append(parts, x.text)
			}
			got = append(got, strings.Join(parts, " "))
		}
		if strings.Join(got, "\n") != strings.Join(entries, "\n") {
			t.Errorf("%s reads back\n  %q\nnot\n  %q", key, got, entries)
		}
	}
}
