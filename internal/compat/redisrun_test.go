package compat

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// redisCase is one differential case: raw commands, each answered by
// exactly one reply, compared byte for byte unless loosened.
type redisCase struct {
	name  string
	proto int      // 2 or 3 runs in that protocol only; 0 runs both
	cmds  []string // raw bytes of one command each (see cmd, mbs), or pause markers
	loose map[int]loosening
	// closes: the server answers the last command and closes the
	// connection; everything it sends for that command, up to EOF, is
	// compared raw.
	closes     bool
	noPipeline bool // one-by-one mode only
	noSplit    bool // skip the 1..7-byte split mode (large payloads)
}

// writeMode is how a case's bytes are cut into writes.
type writeMode int

const (
	oneByOne  writeMode = iota // write a command, read its reply, next
	pipelined                  // everything in one write, then read all replies
	split                      // everything in writes of 1..7 bytes with tiny sleeps
)

func (m writeMode) String() string {
	return [...]string{"one-by-one", "pipelined", "split"}[m]
}

// splitPause separates the small writes of split mode so that the server
// sees partial frames. Go rounds tiny sleeps up to the timer's resolution
// (~20µs here); 20µs would already become ~1ms, making the suite slow.
const splitPause = time.Microsecond

// cmd encodes args as a RESP multibulk.
func cmd(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

// mbs encodes each line, split on white space, as a multibulk: mbs("SET k v",
// "GET k"). Use cmd for arguments with spaces or empty arguments.
func mbs(lines ...string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = cmd(strings.Fields(l)...)
	}
	return out
}

// cmds concatenates command lists and single commands into one list.
func cmds(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("cmds: %T", p))
		}
	}
	return out
}

const pausePrefix = "\x00pause:"

// pause is a marker in a command list: flush what was written so far, then
// sleep d. It has no reply. Use it (once, ~60ms) to observe expiry.
func pause(d time.Duration) string { return pausePrefix + d.String() }

func isPause(c string) (time.Duration, bool) {
	if !strings.HasPrefix(c, pausePrefix) {
		return 0, false
	}
	d, err := time.ParseDuration(c[len(pausePrefix):])
	if err != nil {
		panic(err)
	}
	return d, true
}

func (c redisCase) protos() []int {
	if c.proto != 0 {
		return []int{c.proto}
	}
	return []int{2, 3}
}

func (c redisCase) modes() []writeMode {
	if c.noPipeline {
		return []writeMode{oneByOne}
	}
	if c.noSplit {
		return []writeMode{oneByOne, pipelined}
	}
	return []writeMode{oneByOne, pipelined, split}
}

// runRedisCases runs every case in each of its protocols and write modes.
func runRedisCases(t *testing.T, cases []redisCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			for _, proto := range c.protos() {
				for _, mode := range c.modes() {
					t.Run(fmt.Sprintf("resp%d/%s", proto, mode), func(t *testing.T) {
						runRedisCase(t, c, proto, mode)
					})
				}
			}
		})
	}
}

// sideResult is what one server answered to a case.
type sideResult struct {
	replies []reply // aligned with the case's cmds; pauses and the closing command stay empty
	errs    []error // per command: why no reply could be read
	tail    []byte  // closes: the bytes from the last command to EOF
	tailErr error   // closes: why EOF was not reached
	// trailer is what came back for the sentinel sent after the case: any
	// other bytes are replies nobody asked for.
	trailer    []byte
	trailerErr error
}

// sentinel is sent after every case that keeps its connection open; its
// reply must come next.
var (
	sentinel      = cmd("ECHO", "__compat_end__")
	sentinelReply = "$14\r\n__compat_end__\r\n"
)

func runRedisCase(t *testing.T, c redisCase, proto int, mode writeMode) {
	t.Helper()
	if err := flushRedis(refRedis); err != nil {
		t.Fatal(err)
	}
	if err := flushRedis(sutRedis); err != nil {
		t.Fatal(err)
	}
	seed := seedOf(c.name, proto, mode)
	ref, sut := both(func(addr string) sideResult {
		return playRedis(addr, c, proto, mode, seed)
	}, refRedis, sutRedis)

	sutFailed := false
	for i, command := range c.cmds {
		if _, ok := isPause(command); ok {
			continue
		}
		if c.closes && i == len(c.cmds)-1 {
			break
		}
		if ref.errs[i] != nil {
			t.Fatalf("reference redis-server gave no reply to cmd %d %s: %v (the case is wrong)", i, describe(command), ref.errs[i])
		}
		if dumpRefs && mode == oneByOne {
			t.Logf("resp%d %d %s -> %q", proto, i, describe(command), ref.replies[i].raw)
		}
		if sut.errs[i] != nil {
			sutFailed = true
			t.Errorf("cmd %d %s: %s gave no reply: %v\n  redis:  %q", i, describe(command), sideName(), sut.errs[i], ref.replies[i].raw)
			continue
		}
		l := c.loose[i]
		if ok, why := matchReply(ref.replies[i], sut.replies[i], l); !ok {
			if why != "" {
				why = " (" + l.String() + ": " + why + ")"
			}
			t.Errorf("cmd %d %s: reply differs%s\n  redis:  %q\n  %s: %q", i, describe(command), why, ref.replies[i].raw, sideName(), sut.replies[i].raw)
		}
	}
	if c.closes {
		last := c.cmds[len(c.cmds)-1]
		if ref.tailErr != nil {
			t.Fatalf("reference redis-server did not close after %s: %v, got %q (the case is wrong)", describe(last), ref.tailErr, ref.tail)
		}
		if dumpRefs && mode == oneByOne {
			t.Logf("resp%d last %s -> %q then EOF", proto, describe(last), ref.tail)
		}
		if sut.tailErr != nil || string(ref.tail) != string(sut.tail) {
			t.Errorf("last cmd %s: want %q then EOF\n  %s: %q, %v", describe(last), ref.tail, sideName(), sut.tail, sut.tailErr)
		}
		return
	}
	if ref.trailerErr != nil {
		t.Fatalf("reference redis-server did not answer ECHO after the case: %v (the case is wrong)", ref.trailerErr)
	}
	if string(ref.trailer) != sentinelReply {
		t.Fatalf("reference redis-server sent more replies than the case has commands: %q (the case is wrong)", ref.trailer)
	}
	switch {
	case sutFailed: // already reported
	case sut.trailerErr != nil:
		t.Errorf("%s did not answer ECHO after the case (connection closed or hung?): %v", sideName(), sut.trailerErr)
	case string(sut.trailer) != sentinelReply:
		t.Errorf("%s sent a reply nobody asked for after the case's last command: %q", sideName(), sut.trailer)
	}
}

// describe renders a command for messages: a well-formed multibulk as its
// arguments ([SET "k" "v"]), anything else as a quoted raw string.
func describe(c string) string {
	r := bufio.NewReader(strings.NewReader(c))
	rep, err := readReply(r)
	if err != nil || rep.kind != '*' || r.Buffered() > 0 || len(rep.elems) == 0 {
		return fmt.Sprintf("raw %q", shorten(c))
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range rep.elems {
		if e.kind != '$' {
			return fmt.Sprintf("raw %q", shorten(c))
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == 0 {
			b.WriteString(e.text)
		} else {
			b.WriteString(strconv.Quote(shorten(e.text)))
		}
	}
	b.WriteByte(']')
	return b.String()
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:40] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

func seedOf(name string, proto int, mode writeMode) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", name, proto, mode)
	return int64(h.Sum64())
}

// playRedis runs case c on a fresh connection to addr.
func playRedis(addr string, c redisCase, proto int, mode writeMode, seed int64) sideResult {
	res := sideResult{replies: make([]reply, len(c.cmds)), errs: make([]error, len(c.cmds))}
	fail := func(err error) sideResult {
		for i := range res.errs {
			if res.errs[i] == nil && len(res.replies[i].raw) == 0 {
				res.errs[i] = err
			}
		}
		res.tailErr = err
		return res
	}
	if err := sutGaveUp(addr); err != nil {
		return fail(err)
	}
	timeout := timeoutFor(addr)
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	if proto == 3 {
		conn.SetDeadline(time.Now().Add(timeout))
		if _, err := conn.Write([]byte(cmd("HELLO", "3"))); err != nil {
			return fail(err)
		}
		if _, err := readReply(r); err != nil {
			noteErr(addr, err)
			return fail(fmt.Errorf("HELLO 3: %v", err))
		}
	}
	w := &chunkWriter{conn: conn, rng: rand.New(rand.NewSource(seed)), split: mode == split, timeout: timeout}
	lastIdx := len(c.cmds) - 1

	var broken error // after one failed read, later replies cannot be aligned
	readOne := func(i int) {
		if broken != nil {
			res.errs[i], res.tailErr = broken, broken
			return
		}
		conn.SetReadDeadline(time.Now().Add(timeout))
		if c.closes && i == lastIdx {
			res.tail, res.tailErr = readToEOF(r)
			noteErr(addr, res.tailErr)
			return
		}
		res.replies[i], res.errs[i] = readReply(r)
		noteErr(addr, res.errs[i])
		if res.errs[i] != nil {
			broken = fmt.Errorf("not read after an earlier failure: %v", res.errs[i])
		}
	}
	switch mode {
	case oneByOne:
		for i, command := range c.cmds {
			if d, ok := isPause(command); ok {
				time.Sleep(d)
				continue
			}
			if err := w.write(command); err != nil && !(c.closes && i == lastIdx) {
				return fail(err)
			}
			readOne(i)
		}
	default:
		// A pause is a sync point: the replies to everything sent before it
		// are read first, so the pause is measured from when the server
		// ran those commands, not from when they were sent (a loaded
		// server may read them late).
		read := 0
		readUpTo := func(end int) {
			for ; read < end; read++ {
				if _, ok := isPause(c.cmds[read]); !ok {
					readOne(read)
				}
			}
		}
		for i, command := range c.cmds {
			if d, ok := isPause(command); ok {
				if err := w.flush(); err != nil {
					return fail(err)
				}
				readUpTo(i)
				time.Sleep(d)
				continue
			}
			w.buf = append(w.buf, command...)
		}
		if err := w.flush(); err != nil && !c.closes {
			return fail(err)
		}
		readUpTo(len(c.cmds))
	}
	if c.closes {
		return res
	}
	if broken != nil {
		res.trailerErr = broken
		return res
	}
	res.trailerErr = errors.New("not read")
	conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write([]byte(sentinel)); err != nil {
		res.trailerErr = err
		return res
	}
	rep, err := readReply(r)
	noteErr(addr, err)
	res.trailer, res.trailerErr = rep.raw, err
	if err != nil {
		res.trailer = []byte(err.Error())
	}
	return res
}

// chunkWriter writes either everything at once or, in split mode, in
// random chunks of 1..7 bytes separated by tiny sleeps.
type chunkWriter struct {
	conn    net.Conn
	rng     *rand.Rand
	split   bool
	buf     []byte
	timeout time.Duration
}

func (w *chunkWriter) write(s string) error {
	w.buf = append(w.buf, s...)
	return w.flush()
}

func (w *chunkWriter) flush() error {
	defer func() { w.buf = w.buf[:0] }()
	w.conn.SetWriteDeadline(time.Now().Add(w.timeout))
	if !w.split {
		_, err := w.conn.Write(w.buf)
		return err
	}
	for b := w.buf; len(b) > 0; {
		n := 1 + w.rng.Intn(7)
		if n > len(b) {
			n = len(b)
		}
		if _, err := w.conn.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
		if len(b) > 0 {
			time.Sleep(splitPause)
		}
	}
	return nil
}

// readToEOF reads until the server closes the connection. A reset after
// the server closed counts as a close.
func readToEOF(r *bufio.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF || closedByPeer(err) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("connection not closed: %v", err)
		}
	}
}

// closedByPeer reports whether err means the server closed the connection
// (a reset, or a write to a closed socket).
func closedByPeer(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
