package compat

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Issue 15: COMMAND DOCS for every command both servers serve, and COMMAND
// INFO for every one, byte for byte in RESP2 and RESP3. Redis lists a
// container's subcommands in the order of its dictionary, which a random
// hash seed decides per process, so that one map (DOCS) or array (INFO) is
// compared as a set of entries, of the subcommands both serve (Tandem
// has CLIENT NO-TOUCH and SETINFO, not LATENCY DOCTOR…); each subcommand
// is also asked for by its full name, where nothing is reordered.
func TestCommandDocsAndInfo(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			ref, sut := dialRESP(t, refRedis), dialRESP(t, sutRedis)
			if proto == 3 {
				ref.do("HELLO", "3")
				sut.do("HELLO", "3")
			}
			names, common := commonCommands(t, ref, sut)
			if len(names) < 200 {
				t.Fatalf("only %d commands both serve", len(names))
			}
			for _, name := range names {
				for _, q := range [][]string{{"COMMAND", "DOCS", name}, {"COMMAND", "INFO", name}} {
					r, s := ref.do(q...), sut.do(q...)
					if rc, sc := subcommandsAsSet(r, common), subcommandsAsSet(s, common); rc != sc {
						t.Errorf("%s:\n  redis:  %q\n  %s: %q", strings.Join(q, " "), r.raw, sideName(), s.raw)
					}
				}
			}
		})
	}
}

// commonCommands returns the full names (subcommands included) that both
// servers' COMMAND LIST name, failing if Tandem serves one Redis 7.0.15
// does not have beyond the newer ones it documents itself.
func commonCommands(t *testing.T, ref, sut *respClient) ([]string, map[string]bool) {
	t.Helper()
	listed := func(c *respClient) map[string]bool {
		m := map[string]bool{}
		for _, e := range c.do("COMMAND", "LIST").elems {
			m[e.text] = true
		}
		return m
	}
	inRef, inSut := listed(ref), listed(sut)
	newer := map[string]bool{"client|no-touch": true, "client|setinfo": true} // Redis 7.2's
	var names []string
	common := map[string]bool{}
	for n := range inSut {
		switch {
		case inRef[n]:
			names = append(names, n)
			common[n] = true
		case !newer[n]:
			t.Errorf("%s serves %q, redis-server 7.0.15 does not", sideName(), n)
		}
	}
	sort.Strings(names)
	return names, common
}

// subcommandsAsSet returns r's bytes with the subcommands of a COMMAND
// DOCS or COMMAND INFO entry sorted: DOCS's "subcommands" map by entry,
// INFO's tenth field by element, those not in common left out.
func subcommandsAsSet(r reply, common map[string]bool) string {
	if !r.isAggregate() || len(r.elems) != 2 && len(r.elems) != 1 {
		return string(r.raw)
	}
	var b strings.Builder
	b.WriteString(header(r))
	for i, e := range r.elems {
		switch {
		case r.kind != '*' || len(r.elems) == 2 && i == 1: // DOCS: name, docs
			b.WriteString(docsSorted(e, common))
		case len(e.elems) == 10: // INFO: one entry
			b.WriteString(infoSorted(e, common))
		default:
			b.Write(e.raw)
		}
	}
	return b.String()
}

// header is the first line of an aggregate reply.
func header(r reply) string {
	n := len(r.elems)
	if r.kind == '%' {
		n /= 2
	}
	return fmt.Sprintf("%c%d\r\n", r.kind, n)
}

// docsSorted writes a docs map with its subcommands map's entries sorted.
func docsSorted(d reply, common map[string]bool) string {
	if !d.isAggregate() {
		return string(d.raw)
	}
	var b strings.Builder
	b.WriteString(header(d))
	for i := 0; i+1 < len(d.elems); i += 2 {
		b.Write(d.elems[i].raw)
		v := d.elems[i+1]
		if d.elems[i].text != "subcommands" {
			b.Write(v.raw)
			continue
		}
		var entries []string
		for j := 0; j+1 < len(v.elems); j += 2 {
			if common[v.elems[j].text] {
				entries = append(entries, string(v.elems[j].raw)+docsSorted(v.elems[j+1], common))
			}
		}
		sort.Strings(entries)
		b.WriteString(fmt.Sprintf("%c%d\r\n", v.kind, len(entries)*mapWidth(v)) + strings.Join(entries, ""))
	}
	return b.String()
}

// mapWidth is how many elements a map entry counts in its header: one in
// RESP3, key and value in RESP2's flat array.
func mapWidth(m reply) int {
	if m.kind == '%' {
		return 1
	}
	return 2
}

// infoSorted writes a COMMAND INFO entry with its subcommands sorted.
func infoSorted(e reply, common map[string]bool) string {
	var b strings.Builder
	b.WriteString(header(e))
	for i, f := range e.elems {
		if i != 9 || !f.isAggregate() {
			b.Write(f.raw)
			continue
		}
		var subs []string
		for _, s := range f.elems {
			if len(s.elems) == 10 && common[s.elems[0].text] {
				subs = append(subs, infoSorted(s, common))
			}
		}
		sort.Strings(subs)
		b.WriteString(fmt.Sprintf("%c%d\r\n", f.kind, len(subs)) + strings.Join(subs, ""))
	}
	return b.String()
}
