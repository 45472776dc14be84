package compat

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// loosening names the one way a reply may differ from the reference. A
// case without one demands identical bytes.
type loosening struct {
	kind   looseKind
	fields []string // infoFields: fields that must exist in both replies
}

type looseKind int

const (
	exact           looseKind = iota
	kTTLApprox                // integers within ±1 (TTL, EXPIRETIME after EXPIRE)
	kPTTLApprox               // integers within ±pttlSlack (PTTL, PEXPIRETIME)
	kSortedArray              // aggregates compared as multisets (KEYS, unordered output)
	kErrorPrefix              // errors whose first word matches
	kAnyInt                   // any integer
	kAnyBulk                  // same shape: types and aggregate lengths, values ignored
	kInfoFields               // INFO-like text: the named fields exist in both
	kHelloReply               // HELLO: same fields, values equal but server, version, id
	kUnorderedPairs           // maps, or flat key-value arrays, in any order (CONFIG GET a b)
	kCmdInfoHead              // COMMAND INFO: every field exact but the key specs
	kNamedFigures             // MEMORY STATS: names and shape exact, figures free
	kIgnoreFields             // a "k:v k:v" status line: the named fields' values free
	kArt                      // LOLWUT's random art: as many lines and cells, the text lines exact
)

// pttlSlack is how many milliseconds two servers may disagree on a PTTL
// read right after setting it (the two sides run concurrently).
const pttlSlack = 500

var (
	ttlApprox   = loosening{kind: kTTLApprox}
	pttlApprox  = loosening{kind: kPTTLApprox}
	sortedArray = loosening{kind: kSortedArray}
	errorPrefix = loosening{kind: kErrorPrefix}
	anyInt      = loosening{kind: kAnyInt}
	anyBulk     = loosening{kind: kAnyBulk}
	helloReply  = loosening{kind: kHelloReply}
	// unorderedPairs compares a map (or RESP2 flat key, value array) as a
	// set of pairs.
	unorderedPairs = loosening{kind: kUnorderedPairs}
	// commandInfoNoKeySpecs compares COMMAND INFO entries field by field,
	// all exact but the ninth, the key specs: the table does not declare
	// per-key flags, keynum or unknown specs and their notes yet.
	commandInfoNoKeySpecs = loosening{kind: kCmdInfoHead}
	// namedFigures compares a map of named figures (MEMORY STATS, a
	// flat array in RESP2) by its names, in order, and the shape of its
	// values: the figures are each server's own.
	namedFigures = loosening{kind: kNamedFigures}
)

// randomArt compares LOLWUT's drawings, random in both servers: the same
// bulk type and number of lines, each drawn line of as many cells (braille
// characters, or coloured spaces), every other line exact.
var randomArt = loosening{kind: kArt}

// ignoreFields compares a status line of space-separated name:value
// fields (DEBUG OBJECT) field by field, the values of the named fields
// ignored.
func ignoreFields(names ...string) loosening {
	return loosening{kind: kIgnoreFields, fields: names}
}

// infoFields accepts any INFO-like text in which every named field exists.
func infoFields(fields ...string) loosening {
	return loosening{kind: kInfoFields, fields: fields}
}

func (l loosening) String() string {
	switch l.kind {
	case kTTLApprox:
		return "ttlApprox"
	case kPTTLApprox:
		return "pttlApprox"
	case kSortedArray:
		return "sortedArray"
	case kErrorPrefix:
		return "errorPrefix"
	case kAnyInt:
		return "anyInt"
	case kAnyBulk:
		return "anyBulk"
	case kInfoFields:
		return "infoFields(" + strings.Join(l.fields, ",") + ")"
	case kHelloReply:
		return "helloReply"
	case kUnorderedPairs:
		return "unorderedPairs"
	case kCmdInfoHead:
		return "commandInfoNoKeySpecs"
	case kNamedFigures:
		return "namedFigures"
	case kIgnoreFields:
		return "ignoreFields(" + strings.Join(l.fields, ",") + ")"
	case kArt:
		return "randomArt"
	}
	return "exact"
}

// at builds a case's loosening map from index, loosening pairs.
func at(pairs ...any) map[int]loosening {
	m := map[int]loosening{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i].(int)] = pairs[i+1].(loosening)
	}
	return m
}

// matchReply reports whether got is acceptable given the reference want.
// The reason explains a mismatch that is not obvious from the two replies.
func matchReply(want, got reply, l loosening) (ok bool, reason string) {
	if bytes.Equal(want.raw, got.raw) {
		return true, ""
	}
	switch l.kind {
	case kTTLApprox, kPTTLApprox:
		slack := int64(1)
		if l.kind == kPTTLApprox {
			slack = pttlSlack
		}
		if want.kind != ':' || got.kind != ':' {
			return false, "expected integers"
		}
		w, err1 := strconv.ParseInt(want.text, 10, 64)
		g, err2 := strconv.ParseInt(got.text, 10, 64)
		if err1 != nil || err2 != nil {
			return false, "bad integer"
		}
		if w < 0 || g < 0 { // -1 and -2 carry meaning: exact
			return false, "negative TTLs must match exactly"
		}
		if d := w - g; d > slack || d < -slack {
			return false, fmt.Sprintf("differ by more than %d", slack)
		}
		return true, ""
	case kSortedArray:
		if want.kind != got.kind || !want.isAggregate() || want.null != got.null {
			return false, "expected aggregates of the same type"
		}
		if len(want.elems) != len(got.elems) {
			return false, fmt.Sprintf("%d elements, want %d", len(got.elems), len(want.elems))
		}
		if !equalMultiset(want.elems, got.elems) {
			return false, "elements differ (compared as a multiset)"
		}
		return true, ""
	case kErrorPrefix:
		if !want.isError() || !got.isError() {
			return false, "expected errors"
		}
		if firstWord(want.text) != firstWord(got.text) {
			return false, "error codes differ"
		}
		return true, ""
	case kAnyInt:
		if got.kind != ':' {
			return false, "expected an integer"
		}
		return true, ""
	case kAnyBulk:
		if why := sameShape(want, got); why != "" {
			return false, why
		}
		return true, ""
	case kInfoFields:
		if want.kind != got.kind || (got.kind != '$' && got.kind != '=') {
			return false, "expected the same bulk type"
		}
		wf, gf := infoMap(want), infoMap(got)
		for _, f := range l.fields {
			if _, ok := wf[f]; !ok {
				return false, fmt.Sprintf("reference lacks field %q: the case is wrong", f)
			}
			if _, ok := gf[f]; !ok {
				return false, fmt.Sprintf("field %q missing", f)
			}
		}
		return true, ""
	case kUnorderedPairs:
		if want.kind != got.kind || !want.isAggregate() || len(want.elems) != len(got.elems) || len(want.elems)%2 != 0 {
			return false, "expected maps of the same size"
		}
		if !equalMultiset(pairs(want), pairs(got)) {
			return false, "pairs differ (compared unordered)"
		}
		return true, ""
	case kHelloReply:
		if want.kind != got.kind || len(want.elems) != len(got.elems) || len(want.elems)%2 != 0 {
			return false, "expected the same map shape"
		}
		for i := 0; i < len(want.elems); i += 2 {
			wk, gk := want.elems[i], got.elems[i]
			if !bytes.Equal(wk.raw, gk.raw) {
				return false, fmt.Sprintf("field %d is %q, want %q", i/2, gk.text, wk.text)
			}
			wv, gv := want.elems[i+1], got.elems[i+1]
			switch wk.text {
			case "server", "version", "id":
				if why := sameShape(wv, gv); why != "" {
					return false, wk.text + ": " + why
				}
			default:
				if !bytes.Equal(wv.raw, gv.raw) {
					return false, fmt.Sprintf("field %q differs", wk.text)
				}
			}
		}
		return true, ""
	case kCmdInfoHead:
		if want.kind != got.kind || len(want.elems) != len(got.elems) {
			return false, "expected arrays of as many entries"
		}
		for i, we := range want.elems {
			ge := got.elems[i]
			if len(we.elems) != 10 || len(ge.elems) != 10 {
				if !bytes.Equal(we.raw, ge.raw) {
					return false, fmt.Sprintf("entry %d differs", i)
				}
				continue
			}
			for j := range we.elems {
				if j != 8 && !bytes.Equal(we.elems[j].raw, ge.elems[j].raw) {
					return false, fmt.Sprintf("entry %d field %d differs", i, j)
				}
			}
		}
		return true, ""
	case kNamedFigures:
		return sameNamedFigures(want, got)
	case kArt:
		if want.kind != got.kind || (want.kind != '$' && want.kind != '=') {
			return false, "expected the same bulk type"
		}
		wl, gl := strings.Split(want.text, "\n"), strings.Split(got.text, "\n")
		if len(wl) != len(gl) {
			return false, fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
		}
		for i := range wl {
			if artCells(wl[i]) != artCells(gl[i]) || (artCells(wl[i]) < 0 && wl[i] != gl[i]) {
				return false, fmt.Sprintf("line %d is %q, want %q", i, gl[i], wl[i])
			}
		}
		return true, ""
	case kIgnoreFields:
		if want.kind != '+' || got.kind != '+' {
			return false, "expected status lines"
		}
		wf, gf := strings.Fields(want.text), strings.Fields(got.text)
		if len(wf) != len(gf) {
			return false, fmt.Sprintf("%d fields, want %d", len(gf), len(wf))
		}
		for i := range wf {
			wk, _, _ := strings.Cut(wf[i], ":")
			gk, _, _ := strings.Cut(gf[i], ":")
			if wk != gk || (wf[i] != gf[i] && !slices.Contains(l.fields, wk)) {
				return false, fmt.Sprintf("field %q, want %q", gf[i], wf[i])
			}
		}
		return true, ""
	}
	return false, ""
}

// sameNamedFigures is namedFigures: every aggregate has the same shape,
// and the even elements of one (the names of a map or flat map) are
// equal.
func sameNamedFigures(want, got reply) (bool, string) {
	if why := sameShape(want, got); why != "" {
		return false, why
	}
	if !want.isAggregate() {
		return true, ""
	}
	for i := range want.elems {
		if i%2 == 0 && !want.elems[i].isAggregate() && !bytes.Equal(want.elems[i].raw, got.elems[i].raw) {
			return false, fmt.Sprintf("name %d is %q, want %q", i/2, got.elems[i].text, want.elems[i].text)
		}
		if ok, why := sameNamedFigures(want.elems[i], got.elems[i]); !ok {
			return false, why
		}
	}
	return true, ""
}

// artCells is how many cells a line of LOLWUT art draws: braille
// characters (from U+2800), or spaces between colour escapes; -1 for a
// line of text.
func artCells(line string) int {
	switch {
	case strings.HasPrefix(line, "\x1b["):
		return strings.Count(line, " ")
	case strings.HasPrefix(line, "\xe2\xa0"), strings.HasPrefix(line, "\xe2\xa1"), strings.HasPrefix(line, "\xe2\xa2"), strings.HasPrefix(line, "\xe2\xa3"):
		return utf8.RuneCountInString(line)
	}
	return -1
}

func equalMultiset(a, b []reply) bool {
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		as[i], bs[i] = string(a[i].raw), string(b[i].raw)
	}
	sort.Strings(as)
	sort.Strings(bs)
	for i := range as {
		if as[i] != bs[i] {
			return false
		}
	}
	return true
}

// pairs joins the key and value of each pair of a flat map into one reply
// whose raw bytes are the pair's bytes.
func pairs(r reply) []reply {
	out := make([]reply, 0, len(r.elems)/2)
	for i := 0; i+1 < len(r.elems); i += 2 {
		raw := append(append([]byte{}, r.elems[i].raw...), r.elems[i+1].raw...)
		out = append(out, reply{raw: raw})
	}
	return out
}

// sameShape compares types and aggregate lengths, ignoring values.
func sameShape(want, got reply) string {
	if want.kind != got.kind || want.null != got.null {
		return fmt.Sprintf("type %q, want %q", got.kind, want.kind)
	}
	if len(want.elems) != len(got.elems) {
		return fmt.Sprintf("%d elements, want %d", len(got.elems), len(want.elems))
	}
	for i := range want.elems {
		if why := sameShape(want.elems[i], got.elems[i]); why != "" {
			return fmt.Sprintf("element %d: %s", i, why)
		}
	}
	return ""
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// infoMap parses "field:value" lines; "# Section" lines are skipped.
func infoMap(r reply) map[string]string {
	m := map[string]string{}
	for _, line := range r.lines() {
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}
