package compat

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// Randomized differential test of the list family: a seeded generator
// issues random list commands over a few keys and elements (so that they
// collide; some elements are large, so lists span several chunks) to
// redis-server and to Tandem, and compares every reply byte for byte, in
// RESP2 and RESP3. Blocking commands appear with data present or with a
// 1 ms timeout. A failure names the seed and the command.

const (
	listRandomCommands = 2000
	listRandomPipeline = 40
)

var listRandKeys = []string{"a", "b", "c", "d"}

func TestRandomList(t *testing.T) {
	var final [][]string
	for _, k := range listRandKeys {
		final = append(final, []string{"TYPE", k}, []string{"LRANGE", k, "0", "-1"}, []string{"OBJECT", "ENCODING", k})
	}
	runRandomStream(t, randomStream{
		name: "random-list", commands: listRandomCommands, pipeline: listRandomPipeline,
		gen: randomListCommand, final: final, quote: listQuote,
	})
}

func listQuote(args []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(shorten(a)))
	}
	return b.String() + "]"
}

func listPick(r *rand.Rand, xs ...string) string { return xs[r.Intn(len(xs))] }

func listRandKey(r *rand.Rand) string { return listRandKeys[r.Intn(len(listRandKeys))] }

// listRandElem is mostly one of a few short elements, sometimes a large one.
func listRandElem(r *rand.Rand) string {
	switch r.Intn(40) {
	case 0:
		return strings.Repeat(listPick(r, "x", "y"), 100+r.Intn(3000))
	case 1:
		return ""
	}
	return listPick(r, "x", "y", "z", "1", "2", "-3", "007")
}

func listRandIndex(r *rand.Rand) string {
	switch r.Intn(12) {
	case 0:
		return listPick(r, "9223372036854775807", "-9223372036854775808", "1000", "-1000", "x")
	case 1, 2, 3:
		return strconv.Itoa(-r.Intn(15))
	}
	return strconv.Itoa(r.Intn(15))
}

func listRandEnd(r *rand.Rand) string {
	if r.Intn(60) == 0 {
		return "UP"
	}
	return listPick(r, "LEFT", "RIGHT", "left")
}

func randomListCommand(r *rand.Rand) []string {
	k := listRandKey(r)
	switch n := r.Intn(100); {
	case n < 22:
		c := []string{listPick(r, "LPUSH", "RPUSH", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), k}
		for i := 1 + r.Intn(4); i > 0; i-- {
			c = append(c, listRandElem(r))
		}
		if r.Intn(15) == 0 { // a long run of small elements
			for i := 0; i < 300; i++ {
				c = append(c, listPick(r, "p", "q", strconv.Itoa(i)))
			}
		}
		return c
	case n < 34:
		c := []string{listPick(r, "LPOP", "RPOP"), k}
		if r.Intn(2) == 0 {
			c = append(c, listPick(r, "0", "1", "2", "5", "100", "-1"))
		}
		return c
	case n < 42:
		return []string{"LRANGE", k, listRandIndex(r), listRandIndex(r)}
	case n < 46:
		return []string{"LINDEX", k, listRandIndex(r)}
	case n < 50:
		return []string{"LSET", k, listRandIndex(r), listRandElem(r)}
	case n < 54:
		return []string{"LINSERT", k, listPick(r, "BEFORE", "AFTER", "after"), listRandElem(r), listRandElem(r)}
	case n < 58:
		return []string{"LREM", k, listPick(r, "0", "1", "-1", "2", "-2"), listRandElem(r)}
	case n < 61:
		return []string{"LTRIM", k, listRandIndex(r), listRandIndex(r)}
	case n < 66:
		c := []string{"LPOS", k, listRandElem(r)}
		for i := r.Intn(3); i > 0; i-- {
			switch r.Intn(3) {
			case 0:
				c = append(c, "RANK", listPick(r, "1", "2", "-1", "-2", "3"))
			case 1:
				c = append(c, "COUNT", listPick(r, "0", "1", "2"))
			default:
				c = append(c, "MAXLEN", listPick(r, "0", "1", "3", "10"))
			}
		}
		return c
	case n < 72:
		if r.Intn(3) == 0 {
			return []string{"RPOPLPUSH", k, listRandKey(r)}
		}
		return []string{"LMOVE", k, listRandKey(r), listRandEnd(r), listRandEnd(r)}
	case n < 76:
		c := []string{"LMPOP", "2", k, listRandKey(r), listRandEnd(r)}
		if r.Intn(2) == 0 {
			c = append(c, "COUNT", listPick(r, "1", "3", "10"))
		}
		return c
	case n < 84:
		// Blocking commands: with data they act at once; without, they
		// time out after 1 ms on both servers.
		switch r.Intn(4) {
		case 0:
			return []string{listPick(r, "BLPOP", "BRPOP"), k, listRandKey(r), "0.001"}
		case 1:
			return []string{"BLMOVE", k, listRandKey(r), listRandEnd(r), listRandEnd(r), "0.001"}
		case 2:
			return []string{"BRPOPLPUSH", k, listRandKey(r), "0.001"}
		default:
			return []string{"BLMPOP", "0.001", "2", k, listRandKey(r), listRandEnd(r), "COUNT", listPick(r, "1", "2", "7")}
		}
	case n < 90:
		return []string{"LLEN", k}
	case n < 93:
		return []string{"SET", k, "string"}
	case n < 96:
		return []string{"DEL", k}
	default:
		return []string{listPick(r, "TYPE", "EXISTS"), k}
	}
}
