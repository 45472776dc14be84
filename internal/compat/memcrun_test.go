package compat

import (
	"bufio"
	"fmt"
	"math/rand"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memcCase is one differential memcached case. The send strings are written
// back to back; the runner then sends "mn\r\n" and reads everything up to the
// "MN\r\n" it answers with (meta no-op replies in order), and compares that
// output with memcached's, byte for byte unless loosened.
//
// "$CAS" in a send string is replaced by the last CAS unique that server
// returned (from a gets VALUE line or a meta c flag): the runner first
// flushes and reads everything sent before it.
type memcCase struct {
	name      string
	send      []string
	loose     []memcLoosening
	closes    bool // the server closes the connection: no mn, read to EOF
	wholeOnly bool // skip split mode (large payloads)
}

type memcMode int

const (
	memcWhole memcMode = iota // all bytes in one write
	memcSplit                 // writes of 1..7 bytes with tiny sleeps
)

func (m memcMode) String() string { return [...]string{"whole", "split"}[m] }

const casPlaceholder = "$CAS"

// memcLoosening names one allowed difference in memcached output. Each is
// applied to both outputs before they are compared.
type memcLoosening int

const (
	// maskCAS: CAS uniques are server-specific counters. Masks the cas
	// field of VALUE lines and the c<digits> tokens of meta replies; they
	// must still be present.
	maskCAS memcLoosening = iota + 1
	// metaSecondsApprox: the t (TTL) and l (seconds since last access)
	// tokens of meta replies within ±1, since memcached's clock ticks once
	// a second; t-1 stays exact.
	metaSecondsApprox
	// versionAny: "VERSION <anything>".
	versionAny
	// statsShape: a run of "STAT <name> <value>" lines then END; names and
	// values are server-specific.
	statsShape
	// debugShape: "ME <key> <anything>" (me's fields are memcached internals).
	debugShape
)

func (l memcLoosening) String() string {
	return [...]string{"exact", "maskCAS", "metaSecondsApprox", "versionAny", "statsShape", "debugShape"}[l]
}

func (c memcCase) modes() []memcMode {
	if c.wholeOnly {
		return []memcMode{memcWhole}
	}
	return []memcMode{memcWhole, memcSplit}
}

func runMemcCases(t *testing.T, cases []memcCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range c.modes() {
				t.Run(mode.String(), func(t *testing.T) { runMemcCase(t, c, mode) })
			}
		})
	}
}

type memcResult struct {
	out []byte
	err error
}

func runMemcCase(t *testing.T, c memcCase, mode memcMode) {
	t.Helper()
	if err := flushMemc(refMemc); err != nil {
		t.Fatal(err)
	}
	if err := flushMemc(sutMemc); err != nil {
		t.Fatal(err)
	}
	seed := seedOf(c.name, 0, writeMode(mode))
	ref, sut := both(func(addr string) memcResult {
		return playMemc(addr, c, mode, seed)
	}, refMemc, sutMemc)
	if ref.err != nil {
		t.Fatalf("reference memcached: %v after %q (the case is wrong)", ref.err, ref.out)
	}
	if dumpRefs && mode == memcWhole {
		t.Logf("send %s\n    -> %q", describeSends(c.send), clip(ref.out))
	}
	if sut.err != nil {
		t.Errorf("%s: %v\n  sent:      %s\n  memcached: %q\n  %s: %q", sideName(), sut.err, describeSends(c.send), clip(ref.out), sideName(), clip(sut.out))
		return
	}
	// CAS uniques are each server's own counter: a case that reads one
	// (gets, gats, $CAS, meta c) compares them masked, never by value.
	loose := c.loose
	if usesCAS(c.send) && !slices.Contains(loose, maskCAS) {
		loose = append(slices.Clone(loose), maskCAS)
	}
	if ok, why := matchMemc(ref.out, sut.out, loose); !ok {
		t.Errorf("output differs%s\n  sent:      %s\n  memcached: %q\n  %s: %q\n  %s", why, describeSends(c.send), clip(ref.out), sideName(), clip(sut.out), firstDiff(ref.out, sut.out))
	}
}

// describeSends renders a case's sends for messages, shortening big ones.
func describeSends(send []string) string {
	parts := make([]string, len(send))
	for i, s := range send {
		parts[i] = strconv.Quote(shorten(s))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// clip keeps messages about large outputs readable.
func clip(b []byte) string {
	if len(b) > 2048 {
		return string(b[:2048]) + fmt.Sprintf("…(%d bytes in all)", len(b))
	}
	return string(b)
}

// firstDiff locates the first differing byte of two outputs.
func firstDiff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-20)
	return fmt.Sprintf("first difference at byte %d: memcached %q, %s %q", i, want[from:min(len(want), i+40)], sideName(), got[from:min(len(got), i+40)])
}

// playMemc runs case c on a fresh connection to addr.
func playMemc(addr string, c memcCase, mode memcMode, seed int64) memcResult {
	var res memcResult
	if res.err = sutGaveUp(addr); res.err != nil {
		return res
	}
	timeout := timeoutFor(addr)
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		res.err = err
		return res
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	w := &chunkWriter{conn: conn, rng: rand.New(rand.NewSource(seed)), split: mode == memcSplit, timeout: timeout}
	lastCAS := ""

	// Cut the case into segments ending before each send that needs a CAS.
	var segments [][]string
	var cur []string
	for _, s := range c.send {
		if strings.Contains(s, casPlaceholder) && len(cur) > 0 {
			segments = append(segments, cur)
			cur = nil
		}
		cur = append(cur, s)
	}
	segments = append(segments, cur)

	for si, seg := range segments {
		for _, s := range seg {
			if strings.Contains(s, casPlaceholder) {
				if lastCAS == "" {
					res.err = fmt.Errorf("%q needs a CAS unique but none was returned before", s)
					return res
				}
				s = strings.ReplaceAll(s, casPlaceholder, lastCAS)
			}
			w.buf = append(w.buf, s...)
		}
		final := si == len(segments)-1
		if final && c.closes {
			err := w.flush()
			conn.SetReadDeadline(time.Now().Add(timeout))
			out, rerr := readToEOF(r)
			noteErr(addr, rerr)
			res.out = append(res.out, out...)
			if rerr != nil {
				res.err = rerr
			} else if err != nil && len(out) == 0 && !closedByPeer(err) {
				res.err = err
			}
			return res
		}
		w.buf = append(w.buf, "mn\r\n"...)
		if err := w.flush(); err != nil {
			res.err = err
			return res
		}
		conn.SetReadDeadline(time.Now().Add(timeout))
		out, err := readUntilMN(r)
		noteErr(addr, err)
		res.out = append(res.out, out...)
		if err != nil {
			res.err = fmt.Errorf("reading up to MN: %v", err)
			return res
		}
		if cas := lastCASIn(out); cas != "" {
			lastCAS = cas
		}
	}
	return res
}

// readUntilMN reads reply lines, with the data blocks of VALUE and VA, up
// to the MN line, and returns what came before it.
func readUntilMN(r *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return append(out, line...), err
		}
		if line == "MN\r\n" {
			return out, nil
		}
		out = append(out, line...)
		n := dataLength(line)
		if n < 0 {
			continue
		}
		buf := make([]byte, n+2)
		for got := 0; got < len(buf); {
			k, err := r.Read(buf[got:])
			got += k
			if err != nil {
				return append(out, buf[:got]...), err
			}
		}
		out = append(out, buf...)
	}
}

// dataLength is the length of the data block following a VALUE or VA line,
// or -1 when the line has none.
func dataLength(line string) int {
	f := strings.Fields(line)
	switch {
	case len(f) >= 4 && f[0] == "VALUE":
		if n, err := strconv.Atoi(f[3]); err == nil {
			return n
		}
	case len(f) >= 2 && f[0] == "VA":
		if n, err := strconv.Atoi(f[1]); err == nil {
			return n
		}
	}
	return -1
}

// metaReplyCodes start the lines of meta command replies.
var metaReplyCodes = map[string]bool{"HD": true, "VA": true, "EN": true, "NF": true, "NS": true, "EX": true}

// usesCAS reports whether a case's requests read CAS uniques.
func usesCAS(sends []string) bool {
	for _, s := range sends {
		if strings.Contains(s, casPlaceholder) || strings.HasPrefix(s, "gets ") || strings.HasPrefix(s, "gats ") ||
			(strings.HasPrefix(s, "m") && strings.Contains(s, " c")) {
			return true
		}
	}
	return false
}

// lastCASIn returns the last CAS unique in out: the fifth field of a VALUE
// line or the c flag of a meta reply.
func lastCASIn(out []byte) string {
	cas := ""
	for _, line := range replyLines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "VALUE" && len(f) == 5 {
			cas = f[4]
		}
		if metaReplyCodes[f[0]] {
			for _, tok := range f[1:] {
				if len(tok) > 1 && tok[0] == 'c' && isDigits(tok[1:]) {
					cas = tok[1:]
				}
			}
		}
	}
	return cas
}

// replyLines splits memcached output into lines, skipping data blocks.
func replyLines(out []byte) []string {
	var lines []string
	s := string(out)
	for s != "" {
		i := strings.Index(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			break
		}
		line := s[:i]
		s = s[i+2:]
		lines = append(lines, line)
		if n := dataLength(line); n >= 0 && n+2 <= len(s) {
			s = s[n+2:]
		}
	}
	return lines
}

func isDigits(s string) bool {
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

var (
	statRun     = regexp.MustCompile(`(?:STAT [^ \r\n]+ [^\r\n]*\r\n)+`)
	versionLine = regexp.MustCompile(`(?m)^VERSION [^\r\n]+\r$`)
	debugLine   = regexp.MustCompile(`(?m)^ME ([^ \r\n]+) [^\r\n]+\r$`)
	// CAS masks hide real uniques only: a 0, which memcached never gives
	// an item, stays visible, so a reply that lost its CAS still differs.
	casField   = regexp.MustCompile(`(?m)^(VALUE [^ \r\n]+ \d+ \d+) [1-9]\d*\r$`)
	metaLine   = regexp.MustCompile(`(?m)^(?:HD|VA|EN|NF|NS|EX)(?: [^\r\n]*)?\r$`)
	casToken   = regexp.MustCompile(` c[1-9]\d*\b`)
	secondsTok = regexp.MustCompile(` ([tl])(\d+)\b`)
)

// normalizeMemc applies the loosenings to out, returning the masked text
// and the seconds that metaSecondsApprox took out of it.
func normalizeMemc(out []byte, loose []memcLoosening) (string, []int) {
	s := string(out)
	var secs []int
	for _, l := range loose {
		switch l {
		case maskCAS:
			s = casField.ReplaceAllString(s, "$1 <cas>\r")
			s = metaLine.ReplaceAllStringFunc(s, func(line string) string {
				return casToken.ReplaceAllString(line, " c<cas>")
			})
		case metaSecondsApprox:
			s = metaLine.ReplaceAllStringFunc(s, func(line string) string {
				for _, m := range secondsTok.FindAllStringSubmatch(line, -1) {
					n, _ := strconv.Atoi(m[2])
					secs = append(secs, n)
				}
				return secondsTok.ReplaceAllString(line, " $1<seconds>")
			})
		case versionAny:
			s = versionLine.ReplaceAllString(s, "VERSION <version>\r")
		case statsShape:
			s = statRun.ReplaceAllString(s, "STAT <stats>\r\n")
		case debugShape:
			s = debugLine.ReplaceAllString(s, "ME $1 <debug>\r")
		}
	}
	return s, secs
}

func matchMemc(want, got []byte, loose []memcLoosening) (bool, string) {
	if string(want) == string(got) {
		return true, ""
	}
	if len(loose) == 0 {
		return false, ""
	}
	ws, wt := normalizeMemc(want, loose)
	gs, gt := normalizeMemc(got, loose)
	names := fmt.Sprint(loose)
	if ws != gs {
		return false, fmt.Sprintf(" (after %s: %q vs %q)", names, ws, gs)
	}
	for i := range wt {
		if d := wt[i] - gt[i]; d > 1 || d < -1 {
			return false, fmt.Sprintf(" (metaSecondsApprox: %d vs %d seconds)", wt[i], gt[i])
		}
	}
	return true, ""
}
