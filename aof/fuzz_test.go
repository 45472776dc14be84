package aof

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/propagate"
)

// FuzzAOFReader: any bytes either parse into commands whose re-encoding
// the reader reads back identically, or stop with a short read or format
// error; offsets only grow and never pass the input.
func FuzzAOFReader(f *testing.F) {
	f.Add([]byte(cmd("SET", "a", "1") + "#TS:1\r\n" + cmd("MULTI") + cmd("INCR", "n") + cmd("EXEC")))
	f.Add([]byte("*1\r\n$2147483647\r\nab"))
	f.Add([]byte("*99999999\r\n$1\r\na\r\n"))
	f.Add([]byte("*2\r\n$3\r\nGET\r\n$-1\r\n"))
	f.Add([]byte("#" + string(bytes.Repeat([]byte("x"), 1100)) + "\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), 0)
		var re []byte
		last := int64(0)
		for {
			args, note, err := r.Next()
			if r.Offset() < last || r.Offset() > int64(len(data)) {
				t.Fatalf("offset %d after %d of %d", r.Offset(), last, len(data))
			}
			last = r.Offset()
			if err == io.EOF || errors.Is(err, ErrShortRead) || errors.Is(err, ErrBadFormat) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if note != nil {
				continue
			}
			if len(args) == 0 {
				t.Fatal("a command without arguments")
			}
			strs := make([]string, len(args))
			for i, a := range args {
				strs[i] = string(a)
			}
			re = propagate.AppendCommand(re, strs...)
		}
		r2 := NewReader(bytes.NewReader(re), 0)
		for {
			args, _, err := r2.Next()
			if err == io.EOF {
				break
			}
			if err != nil || len(args) == 0 {
				t.Fatalf("re-encoded commands do not read back: %v", err)
			}
		}
	})
}

// FuzzManifest: whatever ParseManifest accepts, Format writes back as a
// manifest that parses to the same entries, or refuses because a quoted
// name grew past the line limit.
func FuzzManifest(f *testing.F) {
	f.Add([]byte("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"))
	f.Add([]byte("# c\nfile \"a b\\x00\" seq 3 type h k v\nFILE x SEQ 9 TYPE i\n"))
	f.Add([]byte("file a seq 1 type i newkey\n"))
	f.Add([]byte("file \"" + strings.Repeat("\x1e", 900) + "\" seq 1 type b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("m", data)
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		out, err := m.Format()
		if err != nil {
			if !strings.Contains(err.Error(), "longer than the") {
				t.Fatalf("Format: %v", err)
			}
			return
		}
		m2, err := ParseManifest("m", out)
		if len(out) == 0 {
			return // only comments: nothing to write
		}
		if err != nil {
			t.Fatalf("Format's output %q does not parse: %v", out, err)
		}
		if out2, err := m2.Format(); err != nil || !bytes.Equal(out2, out) {
			t.Fatalf("round trip %q -> %q %v", out, out2, err)
		}
	})
}
