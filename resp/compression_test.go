package resp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/internal/sampledata"
)

// compressionScript is a command sequence touching every command that
// reads a string value, on values large enough to be compressed. Its
// replies must not depend on the compression setting.
func compressionScript() [][]string {
	doc := string(sampledata.Make(sampledata.JSON, 3000, 7))
	page := string(sampledata.Make(sampledata.HTML, 5000, 7))
	rnd := string(sampledata.Make(sampledata.Random, 2000, 7))
	return [][]string{
		{"SET", "doc", doc},
		{"SET", "page", page},
		{"SET", "rnd", rnd},
		{"GET", "doc"},
		{"STRLEN", "doc"},
		{"STRLEN", "page"},
		{"GETRANGE", "doc", "100", "199"},
		{"GETRANGE", "page", "-50", "-1"},
		{"SUBSTR", "doc", "0", "10"},
		{"OBJECT", "ENCODING", "doc"},
		{"MGET", "doc", "nope", "page"},
		{"APPEND", "doc", "-appended"},
		{"GET", "doc"},
		{"SETRANGE", "doc", "10", "XYZ"},
		{"SETRANGE", "page", "6000", "far"},
		{"GET", "page"},
		{"STRLEN", "page"},
		{"BITCOUNT", "doc"},
		{"BITCOUNT", "doc", "5", "500"},
		{"BITCOUNT", "doc", "7", "900", "BIT"},
		{"BITPOS", "doc", "0"},
		{"BITPOS", "page", "1", "100"},
		{"GETBIT", "doc", "1001"},
		{"BITFIELD_RO", "doc", "GET", "u8", "800", "GET", "i16", "1234"},
		{"SETBIT", "doc", "1001", "1"},
		{"BITFIELD", "page", "INCRBY", "u8", "80", "3", "GET", "i32", "64"},
		{"GET", "doc"},
		{"BITOP", "XOR", "x", "doc", "page"},
		{"GET", "x"},
		{"LCS", "doc", "page", "LEN"},
		{"INCR", "doc"},
		{"GETSET", "doc", doc},
		{"SET", "doc", page, "GET"},
		{"GETEX", "doc", "EX", "100"},
		{"GETDEL", "doc"},
		{"EXISTS", "doc"},
		{"SET", "doc", doc},
		{"COPY", "page", "page2"},
		{"RENAME", "page2", "page3"},
		{"GET", "page3"},
		{"OBJECT", "ENCODING", "page3"},
		{"SET", "w_1", doc},
		{"SET", "w_2", page},
		{"SET", "o_1", strings.Repeat(" ", 2000) + "2"}, // strtod skips leading spaces
		{"SET", "o_2", strings.Repeat(" ", 2000) + "1"},
		{"RPUSH", "ids", "2", "1"},
		{"SORT", "ids", "BY", "o_*", "GET", "w_*", "GET", "#"},
		{"SORT", "ids", "BY", "nosort", "GET", "w_*"},
		{"GET", "rnd"},
		{"STRLEN", "rnd"},
		{"APPEND", "rnd", "!"},
		{"GETRANGE", "rnd", "1990", "-1"},
		{"DEL", "doc", "page", "page3", "rnd", "x"},
		{"DBSIZE"},
	}
}

// TestCompressionSameReplies runs compressionScript with compression none,
// s2 and zstd and compares every reply with the uncompressed run's.
func TestCompressionSameReplies(t *testing.T) {
	script := compressionScript()
	var want []string
	for _, codec := range []string{"none", "s2", "zstd"} {
		env := newTestEnv(t)
		c := env.client()
		c.expect("+OK\r\n", "CONFIG", "SET", "compression", codec, "compression-min-size", "512")
		var got []string
		for i, cmd := range script {
			got = append(got, c.do(cmd...))
			if codec != "none" && i == 2 {
				// doc and page are stored compressed, rnd is not.
				st := env.eng.CompressionStats()
				if st.Keys != 2 || st.PlainBytes != 8000 || st.StoredBytes >= 6000 {
					t.Errorf("%s: stats after loading %+v", codec, st)
				}
			}
		}
		if want == nil {
			want = got
			continue
		}
		for i := range script {
			if got[i] != want[i] {
				g, w := got[i], want[i]
				if len(g) > 200 {
					g = g[:200] + "..."
				}
				if len(w) > 200 {
					w = w[:200] + "..."
				}
				t.Errorf("%s: %q: got %q, want %q", codec, script[i][:min(len(script[i]), 2)], g, w)
			}
		}
	}
}

// TestCompressionConfigSet: CONFIG SET changes new writes only; values
// written under another codec, or before compression was turned off,
// stay readable. INFO compression follows the keyspace.
func TestCompressionConfigSet(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	doc := string(sampledata.Make(sampledata.JSON, 4000, 9))
	c.expect("+OK\r\n", "CONFIG", "SET", "compression", "s2")
	c.expect("+OK\r\n", "SET", "a", doc)
	c.expect("+OK\r\n", "CONFIG", "SET", "compression", "zstd", "compression-min-saving", "10")
	c.expect("+OK\r\n", "SET", "b", doc)
	c.expect("*2\r\n$22\r\ncompression-min-saving\r\n$2\r\n10\r\n", "CONFIG", "GET", "compression-min-saving")
	info := infoFieldMap(bulkText(t, c.do("INFO", "compression")))
	if info["compression"] != "zstd" || info["compressed_keys"] != "2" || info["compressed_bytes_plain"] != "8000" ||
		info["compression_min_size"] != "1024" || info["compression_min_saving"] != "10" {
		t.Errorf("INFO compression: %q", info)
	}
	if r, _ := strconv.ParseFloat(info["compression_ratio"], 64); r < 1.5 {
		t.Errorf("compression_ratio %q", info["compression_ratio"])
	}
	c.expect("+OK\r\n", "CONFIG", "SET", "compression", "none")
	c.expect("+OK\r\n", "SET", "c", doc)
	bulk := "$4000\r\n" + doc + "\r\n"
	for _, k := range []string{"a", "b", "c"} {
		c.expect(bulk, "GET", k)
		c.expect(":4000\r\n", "STRLEN", k)
		c.expect("$3\r\nraw\r\n", "OBJECT", "ENCODING", k)
	}
	if st := env.eng.CompressionStats(); st.Keys != 2 {
		t.Errorf("stats %+v: a and b stay compressed", st)
	}
	c.expect(":2\r\n", "DEL", "a", "b")
	info = infoFieldMap(bulkText(t, c.do("INFO", "compression")))
	if info["compressed_keys"] != "0" || info["compressed_bytes_stored"] != "0" || info["compression_ratio"] != "1.00" {
		t.Errorf("INFO compression after DEL: %q", info)
	}
	// INFO and INFO all stay Redis's sections only.
	if strings.Contains(bulkText(t, c.do("INFO", "all")), "# Compression") {
		t.Error("INFO all shows Tandem's Compression section")
	}
}

// BenchmarkCompressionRESP is GET and SET of a 16 KB JSON document over
// the whole request path, with compression none, s2 and zstd.
//
//	go test -run '^$' -bench 'CompressionRESP' -benchmem ./resp/
func BenchmarkCompressionRESP(b *testing.B) {
	doc := string(sampledata.Make(sampledata.JSON, 16<<10, 1))
	for _, codec := range []string{"none", "s2", "zstd"} {
		setup := []string{
			encodeCommand("CONFIG", "SET", "compression", codec),
			encodeCommand("SET", "key:000001", doc),
		}
		b.Run("GET/"+codec, func(b *testing.B) {
			benchServe(b, setup, encodeCommand("GET", "key:000001"), 1)
		})
		b.Run("SET/"+codec, func(b *testing.B) {
			benchServe(b, setup, encodeCommand("SET", "key:000001", doc), 1)
		})
	}
}
