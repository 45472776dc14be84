package scripting

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// respWriter renders a script's reply as RESP bytes, RESP2 or RESP3, the
// way the front-end's writer does.
type respWriter struct {
	b     strings.Builder
	proto int
}

func (w *respWriter) line(prefix byte, s string) {
	w.b.WriteByte(prefix)
	w.b.WriteString(s)
	w.b.WriteString("\r\n")
}

func (w *respWriter) Status(s string) { w.line('+', mapNewlines(s)) }
func (w *respWriter) Error(m string)  { w.line('-', mapNewlines(m)) }
func (w *respWriter) Int(n int64)     { w.line(':', strconv.FormatInt(n, 10)) }
func (w *respWriter) Bulk(b []byte) {
	w.line('$', strconv.Itoa(len(b)))
	w.b.Write(b)
	w.b.WriteString("\r\n")
}
func (w *respWriter) Null() {
	if w.proto == 3 {
		w.b.WriteString("_\r\n")
	} else {
		w.b.WriteString("$-1\r\n")
	}
}
func (w *respWriter) Array(n int) { w.line('*', strconv.Itoa(n)) }
func (w *respWriter) Map(n int) {
	if w.proto == 3 {
		w.line('%', strconv.Itoa(n))
	} else {
		w.line('*', strconv.Itoa(2*n))
	}
}
func (w *respWriter) Set(n int) {
	if w.proto == 3 {
		w.line('~', strconv.Itoa(n))
	} else {
		w.line('*', strconv.Itoa(n))
	}
}
func (w *respWriter) Double(f float64) {
	s := strconv.FormatFloat(f, 'g', 17, 64)
	if math.IsInf(f, 1) {
		s = "inf"
	} else if math.IsInf(f, -1) {
		s = "-inf"
	}
	if w.proto == 3 {
		w.line(',', s)
	} else {
		w.Bulk([]byte(s))
	}
}
func (w *respWriter) Bool(b bool) {
	switch {
	case w.proto == 3 && b:
		w.b.WriteString("#t\r\n")
	case w.proto == 3:
		w.b.WriteString("#f\r\n")
	case b:
		w.b.WriteString(":1\r\n")
	default:
		w.b.WriteString(":0\r\n")
	}
}
func (w *respWriter) BigNumber(s string) {
	if w.proto == 3 {
		w.line('(', s)
	} else {
		w.Bulk([]byte(s))
	}
}
func (w *respWriter) Verbatim(format, s string) {
	if w.proto != 3 {
		w.Bulk([]byte(s))
		return
	}
	f := []byte("   ")
	copy(f, format)
	w.line('=', strconv.Itoa(len(s)+4))
	w.b.Write(f)
	w.b.WriteString(":" + s + "\r\n")
}

// fakeHost answers redis.call from a table of canned replies keyed by the
// command line joined with spaces; an unknown command is refused.
type fakeHost struct {
	replies map[string]string
	calls   []string
	logs    []string
}

func (h *fakeHost) Call(args [][]byte, proto int) ([]byte, string) {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = string(a)
	}
	line := strings.Join(parts, " ")
	h.calls = append(h.calls, line)
	if r, ok := h.replies[line+"@"+strconv.Itoa(proto)]; ok {
		return []byte(r), ""
	}
	if r, ok := h.replies[line]; ok {
		return []byte(r), ""
	}
	if r, ok := h.replies[strings.ToLower(parts[0])+"@"+strconv.Itoa(proto)]; ok {
		return []byte(r), ""
	}
	return nil, "Unknown Redis command called from script"
}

func (h *fakeHost) Log(level int, msg string) {
	h.logs = append(h.logs, strconv.Itoa(level)+" "+msg)
}

func (h *fakeHost) ACLCheck(args [][]byte) (bool, bool) {
	_, ok := h.replies[string(args[0])]
	return ok, ok
}

// evalOn runs body as EVAL on e with keys and args, replying in proto.
func evalOn(t *testing.T, e *Engine, h Host, proto int, body string, keys, args []string) string {
	t.Helper()
	s, msg := e.Cache.Load([]byte(body))
	w := &respWriter{proto: proto}
	if s == nil {
		w.Error(msg)
		return w.b.String()
	}
	toBytes := func(ss []string) [][]byte {
		out := make([][]byte, len(ss))
		for i, x := range ss {
			out[i] = []byte(x)
		}
		return out
	}
	e.RunScript(s, &Run{Host: h, Keys: toBytes(keys), Args: toBytes(args)}, w, nil)
	return w.b.String()
}

// evalCase is one script and the reply redis-server 7.0.15 gives for it
// (captured from a real server, RESP2 unless proto says otherwise).
type evalCase struct {
	body  string
	want  string
	proto int
	keys  []string
	args  []string
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	e := NewEngine()
	h := &fakeHost{replies: map[string]string{}}
	for _, c := range cases {
		proto := c.proto
		if proto == 0 {
			proto = 2
		}
		got := evalOn(t, e, h, proto, c.body, c.keys, c.args)
		// The error suffix names the script's SHA1; the cases spell it <sha>.
		want := strings.ReplaceAll(c.want, "<sha>", SHA1Hex([]byte(c.body)))
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", c.body, got, want)
		}
	}
}

func stringsReplaceAll(s, old, new string) string { return strings.ReplaceAll(s, old, new) }
