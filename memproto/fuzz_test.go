package memproto

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// fuzzSeeds are inputs both fuzz targets start from: every command, split
// frames, negative and huge lengths, long lines, bad base64.
var fuzzSeeds = []string{
	"get k\r\n",
	"get a b c\r\ngets a\r\n",
	"set k 0 0 5\r\nhello\r\n",
	"set k 0 0 5\r\nhel",
	"set k 0 0 5\r\nhello\r\nget k\r\n",
	"set k 1 2 3 noreply\r\nabc\r\n",
	"cas k 0 0 1 99\r\nx\r\n",
	"add k 0 0 -1\r\n",
	"set k 0 0 2147483647\r\n",
	"set k 0 0 99999999999999999999\r\n",
	"set k 0 0 2000000\r\nxx",
	"append k 0 0 1\r\nx\r\nprepend k 0 0 1\r\ny\r\n",
	"incr k 1\r\ndecr k 18446744073709551615\r\nincr k -1\r\n",
	"delete k 0 noreply\r\ndelete k x\r\n",
	"touch k 10\r\ngat 10 k\r\ngats -1 k\r\n",
	"flush_all 10 noreply\r\nflush_all\r\n",
	"version\r\nverbosity 1\r\nquit\r\n",
	"stats\r\nstats settings\r\nstats items\r\nstats slabs\r\nstats detail on\r\nstats detail dump\r\nstats cachedump 1 0\r\n",
	"set a%20b 5 0 1\r\nx\r\nget a%20b\r\nlru_crawler metadump all\r\nlru_crawler metadump hash\r\nlru_crawler metadump 1,2\r\n",
	"lru_crawler metadump 99\r\nlru_crawler metadump ,\r\nlru_crawler crawl 0,1\r\nlru_crawler crawl hash\r\nlru_crawler tocrawl 4294967296\r\nlru_crawler sleep 1000001\r\n",
	"lru_crawler disable\r\nlru_crawler metadump all\r\nlru_crawler enable\r\nlru_crawler enable\r\nlru_crawler metadump all noreply\r\n",
	"mg k v t c f s k O123 q h l\r\n",
	"mg a2V5 b k v\r\nmg !!!! b\r\nmg a2V b\r\n",
	"ms k 2 T10 F5 c k b I C1 MA q\r\nhi\r\n",
	"ms k -1\r\nms k 3 MX\r\nabc\r\n",
	"md k I T30 q k O1\r\nmd k C0\r\n",
	"ma k N0 J5 D2 MD v t c\r\nma k Mx\r\n",
	"mn\r\nme k\r\nme a2V5 b\r\n",
	"mg k N30 R10 T5 v\r\nmg k v\r\n",
	"GET / HTTP/1.1\r\n",
	strings.Repeat("a", 3000),
	"get " + strings.Repeat("k ", 1200) + "\r\n",
	"\r\n\n\x00get k\r\n",
	"set k\x00 0 0 1\r\nx\r\n",
	"cache_memlimit 8\r\nslabs automove 1\r\nlru tune 10 20 0.5 2\r\nlru_crawler crawl all\r\n",
}

func FuzzParser(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := Limits{MaxLine: 2048, ItemSizeMax: 4096}
		p := NewParser(lim)
		var r Request
		pos := 0
		for pos < len(in) {
			n, st := p.Next(in[pos:], &r)
			if n < 0 || n > len(in)-pos {
				t.Fatalf("consumed %d of %d", n, len(in)-pos)
			}
			if st == Incomplete {
				rest := in[pos:]
				if n != 0 {
					t.Fatalf("incomplete consumed %d", n)
				}
				if bytes.IndexByte(rest, '\n') < 0 && len(rest) > lim.MaxLine && !isMultigetLine(rest) {
					t.Fatalf("waits on a %d-byte line", len(rest))
				}
				return
			}
			if st == Close {
				return
			}
			if n == 0 {
				t.Fatal("parsed a request without consuming")
			}
			checkLimits(t, &r, lim)
			if r.Err == "" && r.Cmd != nil {
				roundTrip(t, &r, lim)
			}
			pos += n + r.Swallow
		}
	})
}

// checkLimits: what a parsed request may hold.
func checkLimits(t *testing.T, r *Request, lim Limits) {
	t.Helper()
	if r.Err != "" {
		return
	}
	if len(r.Key) > MaxKeyLen {
		t.Fatalf("key of %d bytes", len(r.Key))
	}
	for i, k := range r.Keys {
		if len(k) > MaxKeyLen && i != r.BadKey {
			t.Fatalf("key %d of %d bytes", i, len(k))
		}
	}
	if int64(len(r.Data)) > lim.ItemSizeMax {
		t.Fatalf("data of %d bytes", len(r.Data))
	}
	if r.Meta.opaqueTooLong() {
		t.Fatal("long opaque accepted")
	}
}

// summary is what a request means, for comparing two parses.
func summary(r *Request) string {
	var b strings.Builder
	name := ""
	if r.Cmd != nil {
		name = r.Cmd.name
	}
	fmt.Fprintf(&b, "%s keys=%q bad=%d key=%q flags=%d exp=%d cas=%d delta=%d noreply=%v data=%q",
		name, r.Keys, r.BadKey, r.Key, r.Flags, r.Exptime, r.CAS, r.Delta, r.NoReply, r.Data)
	m := &r.Meta
	fmt.Fprintf(&b, " meta=%q b=%v v=%v q=%v T=%v/%d N=%v/%d R=%v/%d C=%v/%d M=%d J=%d D=%v/%d F=%d",
		m.Tokens, m.Base64, m.Value, m.NoReply, m.HasTTL, m.TTL, m.HasVivify, m.VivifyTTL,
		m.HasRecache, m.RecacheTTL, m.HasCAS, m.CompareCAS, m.Mode, m.Initial, m.HasDelta, m.Delta, m.ClientFlags)
	if r.Cmd != nil && r.Cmd.shape == shapeOther {
		fmt.Fprintf(&b, " args=%q", r.Args())
	}
	return b.String()
}

// encodeRequest writes r back in canonical form.
func encodeRequest(r *Request) []byte {
	var b []byte
	num := func(v int64) { b = append(append(b, ' '), strconv.FormatInt(v, 10)...) }
	unum := func(v uint64) { b = append(append(b, ' '), strconv.FormatUint(v, 10)...) }
	noreply := func() {
		if r.NoReply {
			b = append(b, " noreply"...)
		}
	}
	b = append(b, r.Cmd.name...)
	switch r.Cmd.shape {
	case shapeRetrieve, shapeRetrieveTouch:
		if r.Cmd.shape == shapeRetrieveTouch {
			num(int64(r.Exptime))
		}
		for _, k := range r.Keys {
			b = append(append(b, ' '), k...)
		}
	case shapeStore, shapeStoreCAS:
		b = append(append(b, ' '), r.Key...)
		unum(uint64(r.Flags))
		num(int64(r.Exptime))
		num(int64(len(r.Data)))
		if r.Cmd.shape == shapeStoreCAS {
			unum(r.CAS)
		}
		noreply()
		b = append(b, "\r\n"...)
		b = append(b, r.Data...)
	case shapeArith:
		b = append(append(b, ' '), r.Key...)
		unum(r.Delta)
		noreply()
	case shapeDelete:
		b = append(append(b, ' '), r.Key...)
		noreply()
	case shapeTouch:
		b = append(append(b, ' '), r.Key...)
		num(int64(r.Exptime))
		noreply()
	case shapeMetaGet, shapeMetaDelete, shapeMetaArith, shapeMetaSet, shapeMetaDebug:
		b = append(b, ' ')
		if r.Meta.Base64 {
			b = appendKeyBase64(b, r.Key)
		} else {
			b = append(b, r.Key...)
		}
		if r.Cmd.shape == shapeMetaSet {
			num(int64(len(r.Data)))
		}
		if r.Cmd.shape == shapeMetaDebug && r.Meta.Base64 {
			b = append(b, " b"...)
		}
		for _, tok := range r.Meta.Tokens {
			b = append(append(b, ' '), tok...)
		}
		if r.Cmd.shape == shapeMetaSet {
			b = append(b, "\r\n"...)
			b = append(b, r.Data...)
		}
	default:
		for _, a := range r.Args() {
			b = append(append(b, ' '), a...)
		}
	}
	return append(b, "\r\n"...)
}

func roundTrip(t *testing.T, r *Request, lim Limits) {
	t.Helper()
	want := summary(r)
	enc := encodeRequest(r)
	p := NewParser(lim)
	var r2 Request
	n, st := p.Next(enc, &r2)
	if st != Parsed || n != len(enc) || r2.Err != "" {
		t.Fatalf("re-parse of %q: %v n=%d/%d err=%q (first: %s)", enc, st, n, len(enc), r2.Err, want)
	}
	if got := summary(&r2); got != want {
		t.Fatalf("round trip of %q:\n got  %s\n want %s", enc, got, want)
	}
}

func FuzzSession(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		if len(in) > 1<<16 {
			return
		}
		env := newBareEnv(t, "--item-size-max", "4096")
		c := env.client()
		var out []byte
		step := int(cut%16) + 1
		if cut == 0 {
			step = len(in) + 1
		}
		for i := 0; i < len(in) && !c.closed; i += step {
			out = append(out, c.feed(in[i:min(i+step, len(in))])...)
		}
		if len(in) > 0 && in[0] == binReqMagic { // a binary connection (binary_fuzz_test.go)
			checkBinReplies(t, out)
		} else {
			checkReplies(t, out)
		}
	})
}

// replyWords start every line the front-end may send.
var replyWords = []string{
	"STORED", "NOT_STORED", "EXISTS", "NOT_FOUND", "DELETED", "TOUCHED", "OK", "END", "RESET",
	"ERROR", "CLIENT_ERROR ", "SERVER_ERROR ", "VERSION ", "STAT ", "ITEM ", "PREFIX ",
	"HD", "NS", "EX", "NF", "EN", "MN", "ME ", "MEMLIMIT_", "BADCLASS ", "NOTSTARTED ", "Error TLS",
}

// checkReplies: the output is a sequence of CRLF lines, each a known reply
// (or an incr result), VALUE and VA lines followed by their data block.
func checkReplies(t *testing.T, out []byte) {
	t.Helper()
	for len(out) > 0 {
		i := bytes.Index(out, []byte("\r\n"))
		if i < 0 {
			t.Fatalf("unterminated reply %q", out)
		}
		line := string(out[:i])
		out = out[i+2:]
		data := -1
		switch {
		case strings.HasPrefix(line, "VALUE "):
			f := strings.Fields(line)
			if len(f) < 4 {
				t.Fatalf("bad VALUE line %q", line)
			}
			data, _ = strconv.Atoi(f[3])
		case strings.HasPrefix(line, "VA "):
			f := strings.Fields(line)
			data, _ = strconv.Atoi(f[1])
		case isDigitsLine(line):
		case strings.HasPrefix(line, "key="):
			// a metadump: its lines end in a bare \n, END in \r\n
			items := strings.Split(line, "\n")
			for _, it := range items[:len(items)-1] {
				if !strings.HasPrefix(it, "key=") || !strings.Contains(it, " cls=1 size=") {
					t.Fatalf("bad metadump line %q", it)
				}
			}
			if items[len(items)-1] != "END" {
				t.Fatalf("metadump not ended by END: %q", line)
			}
		default:
			ok := false
			for _, w := range replyWords {
				if strings.HasPrefix(line, w) {
					ok = true
					break
				}
			}
			if !ok {
				t.Fatalf("unknown reply line %q", line)
			}
		}
		if data >= 0 {
			if len(out) < data+2 || string(out[data:data+2]) != "\r\n" {
				t.Fatalf("data block of %d bytes missing after %q", data, line)
			}
			out = out[data+2:]
		}
	}
}

func isDigitsLine(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
