package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/internal/realserver"
)

// ---- independent encoders for the compact formats (test side) ----

// lpEntry encodes one listpack entry; v is an int64 or a string.
func lpEntry(v any) []byte {
	var e []byte
	switch x := v.(type) {
	case int64:
		switch {
		case x >= 0 && x <= 127:
			e = []byte{byte(x)}
		case x >= -4096 && x <= 4095:
			u := uint16(x) & 0x1FFF
			e = []byte{0xC0 | byte(u>>8), byte(u)}
		case x >= math.MinInt16 && x <= math.MaxInt16:
			e = binary.LittleEndian.AppendUint16([]byte{0xF1}, uint16(x))
		case x >= -(1<<23) && x < 1<<23:
			u := uint32(x)
			e = []byte{0xF2, byte(u), byte(u >> 8), byte(u >> 16)}
		case x >= math.MinInt32 && x <= math.MaxInt32:
			e = binary.LittleEndian.AppendUint32([]byte{0xF3}, uint32(x))
		default:
			e = binary.LittleEndian.AppendUint64([]byte{0xF4}, uint64(x))
		}
	case string:
		n := len(x)
		switch {
		case n < 64:
			e = []byte{0x80 | byte(n)}
		case n < 4096:
			e = []byte{0xE0 | byte(n>>8), byte(n)}
		default:
			e = binary.LittleEndian.AppendUint32([]byte{0xF0}, uint32(n))
		}
		e = append(e, x...)
	}
	l := len(e)
	// backlen: most significant 7-bit group first; every byte after the
	// first carries the 0x80 bit.
	var groups []byte
	for {
		groups = append([]byte{byte(l & 127)}, groups...)
		l >>= 7
		if l == 0 {
			break
		}
	}
	for i := 1; i < len(groups); i++ {
		groups[i] |= 0x80
	}
	return append(e, groups...)
}

func listpack(vals ...any) []byte {
	b := make([]byte, 6)
	for _, v := range vals {
		b = append(b, lpEntry(v)...)
	}
	b = append(b, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	n := len(vals)
	if n > 65535 {
		n = 65535
	}
	binary.LittleEndian.PutUint16(b[4:], uint16(n))
	return b
}

// zlEntry encodes one ziplist entry after a previous entry of prev bytes.
func zlEntry(prev int, v any) []byte {
	var e []byte
	if prev < 254 {
		e = []byte{byte(prev)}
	} else {
		e = binary.LittleEndian.AppendUint32([]byte{0xFE}, uint32(prev))
	}
	switch x := v.(type) {
	case int64:
		switch {
		case x >= 0 && x <= 12:
			e = append(e, 0xF1+byte(x))
		case x >= math.MinInt8 && x <= math.MaxInt8:
			e = append(e, 0xFE, byte(x))
		case x >= math.MinInt16 && x <= math.MaxInt16:
			e = binary.LittleEndian.AppendUint16(append(e, 0xC0), uint16(x))
		case x >= -(1<<23) && x < 1<<23:
			u := uint32(x)
			e = append(e, 0xF0, byte(u), byte(u>>8), byte(u>>16))
		case x >= math.MinInt32 && x <= math.MaxInt32:
			e = binary.LittleEndian.AppendUint32(append(e, 0xD0), uint32(x))
		default:
			e = binary.LittleEndian.AppendUint64(append(e, 0xE0), uint64(x))
		}
	case string:
		n := len(x)
		switch {
		case n < 64:
			e = append(e, byte(n))
		case n < 16384:
			e = append(e, 0x40|byte(n>>8), byte(n))
		default:
			e = binary.BigEndian.AppendUint32(append(e, 0x80), uint32(n))
		}
		e = append(e, x...)
	}
	return e
}

func ziplist(vals ...any) []byte {
	b := make([]byte, 10)
	prev, tail := 0, 10
	for _, v := range vals {
		e := zlEntry(prev, v)
		tail = len(b)
		b = append(b, e...)
		prev = len(e)
	}
	b = append(b, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(tail))
	n := len(vals)
	if n > 65535 {
		n = 65535
	}
	binary.LittleEndian.PutUint16(b[8:], uint16(n))
	return b
}

func intset(enc int, vals ...int64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(enc))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vals)))
	for _, v := range vals {
		switch enc {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

func zmLen(b []byte, n int) []byte {
	if n < 254 {
		return append(b, byte(n))
	}
	return binary.LittleEndian.AppendUint32(append(b, 254), uint32(n))
}

// zipmap encodes field/value pairs, giving each value `free` spare bytes.
func zipmap(free int, kv ...string) []byte {
	n := len(kv) / 2
	if n > 253 {
		n = 254
	}
	b := []byte{byte(n)}
	for i := 0; i < len(kv); i += 2 {
		b = zmLen(b, len(kv[i]))
		b = append(b, kv[i]...)
		b = zmLen(b, len(kv[i+1]))
		b = append(b, byte(free))
		b = append(b, kv[i+1]...)
		b = append(b, make([]byte, free)...)
	}
	return append(b, 0xFF)
}

// ---- a raw RDB builder (test side, independent of Writer) ----

type rawFile struct{ bytes.Buffer }

func (f *rawFile) op(b ...byte) *rawFile { f.Write(b); return f }

func (f *rawFile) length(n uint64) *rawFile {
	switch {
	case n < 64:
		f.WriteByte(byte(n))
	case n < 16384:
		f.WriteByte(0x40 | byte(n>>8))
		f.WriteByte(byte(n))
	case n <= math.MaxUint32:
		f.WriteByte(0x80)
		f.Write(binary.BigEndian.AppendUint32(nil, uint32(n)))
	default:
		f.WriteByte(0x81)
		f.Write(binary.BigEndian.AppendUint64(nil, n))
	}
	return f
}

// str writes a raw (unencoded) string.
func (f *rawFile) str(s string) *rawFile { f.length(uint64(len(s))); f.WriteString(s); return f }

func (f *rawFile) lzfStr(s string) *rawFile {
	c := lzfCompress([]byte(s), len(s)+64)
	f.WriteByte(0xC3)
	f.length(uint64(len(c)))
	f.length(uint64(len(s)))
	f.Write(c)
	return f
}

// finish appends EOF and, for version >= 5, the checksum (zero when !sum).
func (f *rawFile) finish(version int, sum bool) []byte {
	f.WriteByte(opEOF)
	b := append([]byte(nil), f.Bytes()...)
	if version >= 5 {
		var c uint64
		if sum {
			c = CRC64(b)
		}
		b = binary.LittleEndian.AppendUint64(b, c)
	}
	return b
}

func newRaw(version int) *rawFile {
	f := &rawFile{}
	fmt.Fprintf(f, "REDIS%04d", version)
	return f
}

// dumpPayload builds a DUMP/RESTORE payload: type, value, RDB version 10,
// CRC-64.
func dumpPayload(t byte, value []byte) []byte {
	b := append([]byte{t}, value...)
	b = append(b, 10, 0)
	return binary.LittleEndian.AppendUint64(b, CRC64(b))
}

// ---- real redis-server ----

type redisProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	addr string
	dir  string
	log  string
	conn net.Conn
	br   *bufio.Reader
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis runs redis-server in dir with args added to a test baseline.
func startRedis(t *testing.T, dir string, args ...string) *redisProc {
	t.Helper()
	bin := realserver.Path(t, realserver.Redis)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := freePort(t)
		logf := filepath.Join(dir, fmt.Sprintf("redis-%d.log", port))
		full := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--enable-debug-command", "yes",
			"--logfile", logf, "--daemonize", "no"}, args...)
		cmd := exec.Command(bin, full...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &redisProc{t: t, cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, log: logf}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				lastErr = fmt.Errorf("redis-server exited early; log:\n%s", readFile(logf))
				goto next
			default:
			}
			if c, err := net.Dial("tcp", p.addr); err == nil {
				p.conn, p.br = c, bufio.NewReader(c)
				if r, err := p.try("PING"); err == nil && r == "PONG" {
					t.Cleanup(func() {
						p.conn.Close()
						cmd.Process.Kill()
						<-exited
					})
					return p
				} else if err != nil && strings.Contains(err.Error(), "LOADING") {
					c.Close()
					time.Sleep(20 * time.Millisecond)
					continue
				}
				c.Close()
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Kill()
		<-exited
		lastErr = fmt.Errorf("redis-server did not answer; log:\n%s", readFile(logf))
	next:
	}
	t.Fatal(lastErr)
	return nil
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

type respErr string

func (e respErr) Error() string { return string(e) }

// try sends a command and reads one reply: string, int64, nil, []any or
// an error for a RESP error.
func (p *redisProc) try(args ...any) (any, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		var s []byte
		switch x := a.(type) {
		case string:
			s = []byte(x)
		case []byte:
			s = x
		case int:
			s = []byte(strconv.Itoa(x))
		case int64:
			s = []byte(strconv.FormatInt(x, 10))
		case float64:
			s = []byte(strconv.FormatFloat(x, 'g', 17, 64))
		default:
			panic(fmt.Sprintf("bad arg %T", a))
		}
		fmt.Fprintf(&b, "$%d\r\n", len(s))
		b.Write(s)
		b.WriteString("\r\n")
	}
	p.conn.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := p.conn.Write(b.Bytes()); err != nil {
		return nil, err
	}
	return p.reply()
}

func (p *redisProc) reply() (any, error) {
	line, err := p.br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, fmt.Errorf("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return nil, respErr(line[1:])
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(p.br, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			v, err := p.reply()
			if err != nil {
				if _, ok := err.(respErr); !ok {
					return nil, err
				}
				v = err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad reply line %q", line)
}

// do runs a command and fails the test on an error reply.
func (p *redisProc) do(args ...any) any {
	p.t.Helper()
	r, err := p.try(args...)
	if err != nil {
		p.t.Fatalf("%v: %v", args, err)
	}
	return r
}

func (p *redisProc) str(args ...any) string {
	p.t.Helper()
	r := p.do(args...)
	s, _ := r.(string)
	return s
}

func (p *redisProc) int(args ...any) int64 {
	p.t.Helper()
	r := p.do(args...)
	n, ok := r.(int64)
	if !ok {
		p.t.Fatalf("%v: want integer, got %#v", args, r)
	}
	return n
}

func (p *redisProc) strs(args ...any) []string {
	p.t.Helper()
	r := p.do(args...)
	a, _ := r.([]any)
	out := make([]string, len(a))
	for i, v := range a {
		out[i], _ = v.(string)
	}
	return out
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func bufioWriter(w io.Writer) *bufio.Writer { return bufio.NewWriter(w) }
func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

func strconvAppendInt(b []byte, i int64) []byte { return strconv.AppendInt(b, i, 10) }

// statsOf reads a whole file and returns the Reader's encoding counters.
func statsOf(t *testing.T, b []byte) readStats {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); err == io.EOF {
			return r.stats
		} else if err != nil {
			t.Fatal(err)
		}
	}
}
