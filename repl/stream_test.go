package repl

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tandemkv/tandem/propagate"
)

func TestParseCommand(t *testing.T) {
	cases := []struct {
		in   string
		args []string
		n    int
		err  bool
	}{
		{"*1\r\n$4\r\nPING\r\n", []string{"PING"}, 14, false},
		{"*2\r\n$3\r\nGET\r\n$0\r\n\r\nrest", []string{"GET", ""}, 19, false},
		{"*2\r\n$3\r\nGET\r\n$1\r\n", nil, 0, false}, // incomplete
		{"*2\r\n$3\r\nGET\r\n$1\r\nab\r\n", nil, 0, true},
		{"*1\r", nil, 0, false},
		{"*0\r\n", nil, 4, false},
		{"*-1\r\n", nil, 5, false},
		{"*01\r\n", nil, 0, true},
		{"*1\r\n:4\r\n", nil, 0, true},
		{"*1\r\n$-1\r\n", nil, 0, true},
		{"*1\r\n$536870913\r\n", nil, 0, true},
		{"*1048577\r\n", nil, 0, true},
		{"\n", nil, 1, false},
		{"\r\n", nil, 2, false},
		{"set a \"b c\"\r\n", []string{"set", "a", "b c"}, 13, false},
		{"set a \"b\r\n", nil, 0, true},
		{"set a", nil, 0, false},
	}
	for _, c := range cases {
		args, n, err := ParseCommand([]byte(c.in))
		if (err != nil) != c.err || (err != nil && !errors.Is(err, ErrProtocol)) {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if n != c.n || len(args) != len(c.args) {
			t.Errorf("%q: n %d args %q, want %d %q", c.in, n, args, c.n, c.args)
			continue
		}
		for i := range args {
			if string(args[i]) != c.args[i] {
				t.Errorf("%q: arg %d %q", c.in, i, args[i])
			}
		}
	}
}

// A hostile count allocates by what was sent, not by what it claims.
func TestParseCommandHugeCountAllocatesLittle(t *testing.T) {
	in := []byte("*1048576\r\n$1\r\na\r\n")
	allocs := testing.AllocsPerRun(10, func() { ParseCommand(in) })
	if allocs > 1 {
		t.Fatalf("%v allocations", allocs)
	}
	_, n, err := ParseCommand(in)
	if n != 0 || err != nil {
		t.Fatalf("n %d err %v", n, err)
	}
}

// FuzzReplStream: parsing never panics or over-consumes; a parsed
// multibulk re-encodes to exactly the bytes it consumed (so offsets
// counted from parsed commands are the master's byte counts); and the
// stream parses the same whole as when it arrives cut at any point.
func FuzzReplStream(f *testing.F) {
	f.Add([]byte("*1\r\n$4\r\nPING\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"), 7)
	f.Add([]byte("\n\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"), 3)
	f.Add([]byte("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"), 20)
	f.Add([]byte("set a \"b\\x41\"\n*0\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		whole := parseAll(t, data, len(data))
		if cut < 0 {
			cut = -(cut + 1)
		}
		cut %= len(data) + 1
		if pieces := parseAll(t, data, cut); pieces != whole {
			t.Fatalf("cut at %d: %q, whole: %q", cut, pieces, whole)
		}
	})
}

// parseAll parses data as a replica would when it arrives as data[:cut]
// then the rest, and returns a description of the commands and where
// parsing stopped.
func parseAll(t *testing.T, data []byte, cut int) string {
	var out bytes.Buffer
	var buf []byte
	feeds := [][]byte{data[:cut], data[cut:]}
	for _, chunk := range feeds {
		buf = append(buf, chunk...)
		for {
			args, n, err := ParseCommand(buf)
			if err != nil {
				if n != 0 || args != nil {
					t.Fatalf("error with n %d", n)
				}
				// An error in a prefix must be the whole's error too.
				return out.String() + "E"
			}
			if n == 0 {
				break
			}
			if n > len(buf) {
				t.Fatalf("consumed %d of %d", n, len(buf))
			}
			if buf[0] == '*' && len(args) > 0 {
				if enc := propagate.AppendCommand(nil, args...); !bytes.Equal(enc, buf[:n]) {
					t.Fatalf("re-encoded %q, consumed %q", enc, buf[:n])
				}
			}
			for _, a := range args {
				out.WriteString(string(a))
				out.WriteByte(0)
			}
			out.WriteString("\n")
			buf = buf[n:]
		}
	}
	return out.String() + "|" + string(buf)
}
