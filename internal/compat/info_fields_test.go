package compat

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// INFO against redis-server: every section Redis prints has the same
// field names in Tandem, in the same order, with values of the same form
// (an integer, a "%.2f", a percentage, a human byte count…). The values
// themselves differ between two servers; the I/O counters, whose moves are
// deterministic, are compared as moves.

// infoNotCompared are the sections whose fields this test does not
// compare, and why.
var infoNotCompared = map[string]string{}

// infoTandemExtra are the fields and sections Tandem prints and Redis
// does not, and why.
var infoTandemExtra = map[string]string{
	"Server/tandem_version": "Tandem's own version, next to the Redis version it speaks",
	"Server/memcached_port": "the memcached port, which Redis has not",
	"Server/go_version":     "the Go runtime Tandem was built with",
	"Compression":           "Tandem's own section, as a module's: only with INFO everything or by name",
}

// infoUnordered are the sections whose lines Redis prints in the order of
// a hash table (the command table), compared as sets.
var infoUnordered = map[string]bool{"Commandstats": true, "Latencystats": true}

// infoSection is one section's field names, in order, and values.
type infoSectionText struct {
	name   string
	fields []string
	values map[string]string
}

func parseInfoSections(text string) []infoSectionText {
	var out []infoSectionText
	for _, line := range strings.Split(text, "\r\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			out = append(out, infoSectionText{name: line[2:], values: map[string]string{}})
		case line == "" || len(out) == 0:
		default:
			k, v, _ := strings.Cut(line, ":")
			s := &out[len(out)-1]
			s.fields = append(s.fields, k)
			s.values[k] = v
		}
	}
	return out
}

// infoValueForms are the forms of INFO values, tried in order; a value
// of none of them is "text".
var infoValueForms = []struct {
	name string
	re   *regexp.Regexp
}{
	{"hex", regexp.MustCompile(`^[0-9]*[a-f][0-9a-f]{7,}$|^[0-9a-f]{7,}[a-f][0-9]*$`)}, // ids (run_id, redis_build_id): with a letter
	{"integer", regexp.MustCompile(`^-?[0-9]+$`)},
	{"cpu seconds", regexp.MustCompile(`^[0-9]+\.[0-9]{6}$`)},
	{"%.2f", regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)},
	{"percentage", regexp.MustCompile(`^[0-9]+\.[0-9]{2}%$`)},
	{"human bytes", regexp.MustCompile(`^[0-9]+(\.[0-9]{2})?[BKMGTPE]$`)},
}

// infoValueForm names the form of an INFO value; a list of k=v pairs
// (commandstats, keyspace) is the list of its keys, each with its form.
func infoValueForm(v string) string {
	if strings.Contains(v, "=") {
		var parts []string
		for _, kv := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(kv, "=")
			parts = append(parts, k+"="+infoValueForm(val))
		}
		return strings.Join(parts, ",")
	}
	for _, f := range infoValueForms {
		if f.re.MatchString(v) {
			return f.name
		}
	}
	return "text"
}

func TestInfoValueForm(t *testing.T) {
	for v, want := range map[string]string{
		"0": "integer", "-1": "integer", "0.004234": "cpu seconds", "1.25": "%.2f", "100.00%": "percentage",
		"868.50K": "human bytes", "0B": "human bytes", "ee2251d27acb78566b17d5aba65d04f5e2b5be29": "hex", "ae4d7c971a948f0": "hex", "00000000": "integer",
		"standalone": "text", "Linux 6.1.0 x86_64": "text", "": "text",
		"calls=1,usec=5,usec_per_call=5.00": "calls=integer,usec=integer,usec_per_call=%.2f",
	} {
		if got := infoValueForm(v); got != want {
			t.Errorf("infoValueForm(%q) = %q, want %q", v, got, want)
		}
	}
}

// infoEverything resets the statistics, runs the same commands on addr as
// on the other side (so that commandstats, errorstats and keyspace name
// the same things) and returns INFO everything.
func infoEverything(t *testing.T, addr string) string {
	c := dialRESP(t, addr)
	c.do("FLUSHALL")
	c.do("CONFIG", "RESETSTAT")
	c.do("SET", "infokey", "1")
	c.do("SET", "infottl", "1", "EX", "1000")
	c.do("GET", "infokey")
	c.do("HSET", "infokey", "f", "v") // WRONGTYPE: an errorstat
	c.do("SELECT", "2")
	c.do("SET", "k2", "v")
	return c.do("INFO", "everything").text
}

func TestInfoFieldNames(t *testing.T) {
	refText, sutText := both(func(addr string) string { return infoEverything(t, addr) }, refRedis, sutRedis)
	ref, sut := parseInfoSections(refText), parseInfoSections(sutText)
	var refNames, sutNames []string
	for _, s := range ref {
		refNames = append(refNames, s.name)
	}
	for _, s := range sut {
		if _, extra := infoTandemExtra[s.name]; !extra || selfTest {
			sutNames = append(sutNames, s.name)
		}
	}
	if !slices.Equal(refNames, sutNames) {
		t.Fatalf("sections differ:\n  redis:  %v\n  %s: %v", refNames, sideName(), sutNames)
	}
	for i, rs := range ref {
		ss := sut[i]
		if rs.name != ss.name {
			t.Fatalf("section %d is %q, want %q", i, ss.name, rs.name) // a Tandem section in the middle
		}
		if _, skip := infoNotCompared[rs.name]; skip {
			continue
		}
		want, got := rs.fields, ss.fields
		if !selfTest {
			got = slices.DeleteFunc(slices.Clone(got), func(f string) bool {
				_, extra := infoTandemExtra[rs.name+"/"+f]
				return extra
			})
		}
		if infoUnordered[rs.name] {
			want, got = slices.Clone(want), slices.Clone(got)
			sort.Strings(want)
			sort.Strings(got)
		}
		if !slices.Equal(want, got) {
			t.Errorf("section %s: fields differ\n  redis:  %v\n  %s: %v\n  missing: %v\n  extra:   %v",
				rs.name, want, sideName(), got, missing(want, got), missing(got, want))
			continue
		}
		for _, f := range want {
			rf, sf := infoValueForm(rs.values[f]), infoValueForm(ss.values[f])
			if rf != sf {
				t.Errorf("%s %s: value %q is %s, redis's %q is %s", rs.name, f, ss.values[f], sf, rs.values[f], rf)
			}
		}
	}
}

// missing returns the names of a that b lacks.
func missing(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// ioCounters reads INFO stats' socket counters.
func ioCounters(c *respClient) (reads, writes int64) {
	c.t.Helper()
	text := c.do("INFO", "stats").text
	get := func(name string) int64 {
		for _, line := range strings.Split(text, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					c.t.Fatalf("%s: %s:%q", c.addr, name, v)
				}
				return n
			}
		}
		c.t.Fatalf("%s: INFO stats has no %s", c.addr, name)
		return 0
	}
	return get("total_reads_processed"), get("total_writes_processed")
}

// playIOCounters runs steps whose reads and writes are deterministic and
// returns how the counters moved over each, as "step: reads=… writes=…".
// The INFO that reads the counters is itself read before they are
// reported and written after, as in Redis.
func playIOCounters(t *testing.T, addr string) []string {
	c, sub := dialRESP(t, addr), dialRESP(t, addr)
	sub.do("SUBSCRIBE", "infochan")
	var out []string
	r0, w0 := ioCounters(c)
	polls := int64(0) // INFO calls made while waiting, one read and one write each
	step := func(name string) {
		r, w := ioCounters(c)
		// This INFO's read and the write of the one before are counted.
		r, w = r-r0-1-polls, w-w0-1-polls
		out = append(out, name+": reads="+strconv.FormatInt(r, 10)+" writes="+strconv.FormatInt(w, 10))
		r0, w0 = ioCounters(c)
		polls = 0
	}
	for i := 0; i < 5; i++ {
		c.do("SET", "iokey", "v")
	}
	step("5 commands one by one")
	c.pipeline([]string{cmd("PING"), cmd("PING"), cmd("PING"), cmd("PING"), cmd("PING"), cmd("PING")})
	step("6 commands pipelined in one write")
	c.do("PUBLISH", "infochan", "hello")
	sub.conn.SetDeadline(time.Now().Add(timeoutFor(addr)))
	if _, err := readReply(sub.r); err != nil { // the message: the subscriber's write happened
		t.Fatalf("%s: reading the message: %v", addr, err)
	}
	step("PUBLISH to one subscriber")
	gone := dialRESP(t, addr)
	gone.do("PING")
	clients := func() string {
		polls++
		for _, line := range strings.Split(c.do("INFO", "clients").text, "\r\n") {
			if v, ok := strings.CutPrefix(line, "connected_clients:"); ok {
				return v
			}
		}
		return ""
	}
	before := clients()
	gone.conn.Close()
	for deadline := time.Now().Add(5 * time.Second); clients() == before && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	step("a PING, then the client closes")
	return out
}

func TestInfoIOCounters(t *testing.T) {
	ref, sut := both(func(addr string) []string { return playIOCounters(t, addr) }, refRedis, sutRedis)
	if !slices.Equal(ref, sut) {
		t.Fatalf("counters moved differently:\n  redis:  %q\n  %s: %q", ref, sideName(), sut)
	}
	// The moves are the ones Redis documents, not only equal.
	if want := []string{
		"5 commands one by one: reads=5 writes=5",
		"6 commands pipelined in one write: reads=1 writes=1",
		"PUBLISH to one subscriber: reads=1 writes=2",
		"a PING, then the client closes: reads=2 writes=1",
	}; !slices.Equal(ref, want) {
		t.Fatalf("unexpected moves on redis-server: %q", ref)
	}
}

// clientFields parses a CLIENT LIST line into its fields.
func clientFields(line string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Fields(line) {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// playClientBuffers returns the CLIENT INFO and CLIENT LIST figures that
// are the same on any server: the caller's query buffer holding its
// pipeline, its running command's argument bytes, the replies built
// before it in the pipeline, and another client's open transaction. The
// others must be integers.
func playClientBuffers(t *testing.T, addr string) []string {
	a, b := dialRESP(t, addr), dialRESP(t, addr)
	exact := []string{"qbuf", "argv-mem", "multi", "multi-mem", "obl", "oll", "omem", "flags"}
	var out []string
	note := func(step, line string, names ...string) {
		f := clientFields(line)
		for _, n := range []string{"qbuf-free", "rbs", "rbp", "tot-mem"} {
			if _, err := strconv.ParseUint(f[n], 10, 64); err != nil {
				out = append(out, step+": "+n+"="+f[n]+" is no integer")
			}
		}
		for _, n := range names {
			out = append(out, step+": "+n+"="+f[n])
		}
	}
	note("CLIENT INFO", a.do("CLIENT", "INFO").text, exact...)
	r := a.pipeline([]string{cmd("PING"), cmd("ECHO", "hello"), cmd("CLIENT", "INFO")})
	note("PING, ECHO, CLIENT INFO pipelined", r[2].text, exact...)
	id := a.do("CLIENT", "ID").text
	a.do("MULTI")
	a.do("SET", "k", "v")
	a.do("GET", "k")
	f := clientFields(b.do("CLIENT", "LIST", "ID", id).text)
	// multi-mem is the queued arguments' bytes and their pointers, whose
	// size differs (Redis's robj*, Go's slice headers): more than the bytes.
	out = append(out, "in MULTI: multi="+f["multi"]+" flags="+f["flags"]+" argv-mem="+f["argv-mem"]+" qbuf="+f["qbuf"])
	if mm, _ := strconv.Atoi(f["multi-mem"]); mm <= len("SETkvGETk") {
		out = append(out, "in MULTI: multi-mem="+f["multi-mem"])
	}
	a.do("DISCARD")
	f = clientFields(b.do("CLIENT", "LIST", "ID", id).text)
	out = append(out, "after DISCARD: multi="+f["multi"]+" multi-mem="+f["multi-mem"]+" flags="+f["flags"])
	return out
}

func TestClientListBuffers(t *testing.T) {
	ref, sut := both(func(addr string) []string { return playClientBuffers(t, addr) }, refRedis, sutRedis)
	if !slices.Equal(ref, sut) {
		t.Fatalf("CLIENT LIST figures differ:\n  redis:  %q\n  %s: %q", ref, sideName(), sut)
	}
	if !slices.Contains(ref, "PING, ECHO, CLIENT INFO pipelined: obl=18") {
		t.Fatalf("unexpected figures on redis-server: %q", ref)
	}
}
