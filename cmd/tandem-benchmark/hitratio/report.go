package hitratio

import (
	"fmt"
	"strings"
	"time"
)

// metric is one row kind of the main table.
type metric struct {
	label string
	value func(counts) float64
	only  func(*workload) bool
}

var metrics = []metric{
	{"all requests", counts.missRatio, func(*workload) bool { return true }},
	{"Zipf requests only (scans left out)", counts.zipfMissRatio, func(w *workload) bool { return w.scanEvery > 0 && w.scanLen > 0 }},
	{"misses on expired keys left out", counts.liveMissRatio, func(w *workload) bool { return w.hasTTL() }},
}

// renderTables prints the main table (workload × cache size × metric
// rows, one column per target, then Tandem's default over Redis LRU) and
// the per-cell details.
func renderTables(o *options, cells []cell, targets []target, tandemDefault string) string {
	var b strings.Builder
	find := func(wl string, size float64, t target) *cell {
		for i := range cells {
			c := &cells[i]
			if c.workload == wl && c.size == size && c.target.server == t.server && c.target.policy == t.policy {
				return c
			}
		}
		return nil
	}
	redisLRU := target{server: "redis", policy: "allkeys-lru"}
	tandemDef := target{server: "tandem", policy: tandemDefault}
	redisLFU := target{server: "redis", policy: "allkeys-lfu"}
	haveRatio := tandemDefault != "" && containsTarget(targets, redisLRU) && containsTarget(targets, tandemDef)
	haveRatioLFU := tandemDefault != "" && containsTarget(targets, redisLFU) && containsTarget(targets, tandemDef)

	b.WriteString("Miss ratio (misses / GETs counted after the warm-up; lower is better)\n\n")
	b.WriteString("| workload | cache | requests counted |")
	for _, t := range targets {
		name := t.String()
		if t.server == "tandem" && t.policy == tandemDefault {
			name += " (default)"
		}
		fmt.Fprintf(&b, " %s |", name)
	}
	if haveRatio {
		b.WriteString(" Tandem default / Redis LRU |")
	}
	if haveRatioLFU {
		b.WriteString(" Tandem default / Redis LFU |")
	}
	b.WriteString("\n|---|---|---|")
	for range targets {
		b.WriteString("---:|")
	}
	if haveRatio {
		b.WriteString("---:|")
	}
	if haveRatioLFU {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	oomSeen := false
	for _, wl := range o.workloads {
		w, _ := o.workload(wl)
		for _, m := range metrics {
			if !m.only(w) {
				continue
			}
			for _, size := range o.sizes {
				fmt.Fprintf(&b, "| %s | %s | %s |", wl, pct(size), m.label)
				for _, t := range targets {
					c := find(wl, size, t)
					switch {
					case c == nil:
						b.WriteString(" — |")
					case c.err != nil:
						b.WriteString(" n/a |")
					default:
						mark := ""
						if c.res.OOM > 0 {
							mark = " †"
							oomSeen = true
						}
						fmt.Fprintf(&b, " %.4f%s |", m.value(c.res.counts), mark)
					}
				}
				for _, ref := range []struct {
					on bool
					t  target
				}{{haveRatio, redisLRU}, {haveRatioLFU, redisLFU}} {
					if !ref.on {
						continue
					}
					ct, cr := find(wl, size, tandemDef), find(wl, size, ref.t)
					if ct == nil || cr == nil || ct.err != nil || cr.err != nil || m.value(cr.res.counts) == 0 {
						b.WriteString(" — |")
					} else {
						fmt.Fprintf(&b, " **%.3f** |", m.value(ct.res.counts)/m.value(cr.res.counts))
					}
				}
				b.WriteString("\n")
			}
		}
	}
	if oomSeen {
		b.WriteString("\n† some fills were refused with -OOM (not stored): the policy did not evict; see the OOM column below.\n")
	}

	b.WriteString("\nPer cell: the bound, the keys held while counting, and how the run went\n\n")
	b.WriteString("| workload | cache | target | miss ratio | cold misses | expired-key misses | bytes/key | maxmemory calibrated → final | keys held: mean [min, max] | evicted_keys | expired_keys | OOM replies | errors | req/s | pacing lag |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cells {
		if c.err != nil {
			fmt.Fprintf(&b, "| %s | %s | %s | failed: %s |||||||||||\n", c.workload, pct(c.size), c.target, oneLine(c.err.Error()))
			continue
		}
		r := c.res
		if c.target.server == "sim" {
			fmt.Fprintf(&b, "| %s | %s | %s | %.4f | %d | — | — | %d keys | %d | — | — | — | — | — | — |\n",
				c.workload, pct(c.size), c.target, r.missRatio(), r.ColdMisses, c.cacheKeys, c.cacheKeys)
			continue
		}
		lag := "—"
		if r.MaxLag > 0 {
			lag = r.MaxLag.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.4f | %d | %d | %.1f | %d → %d | %.0f [%d, %d] | %d | %d | %d | %d | %.0f | %s |\n",
			c.workload, pct(c.size), c.target, r.missRatio(), r.ColdMisses, r.ExpiredMisses, c.cal.BytesPer, c.cal.MaxMemory, c.maxmemory,
			c.held.Mean, c.held.Min, c.held.Max, c.evicted, c.expired, r.OOM, r.SetErrors+r.GetErrors+r.BadValues,
			float64(r.Played)/r.Elapsed.Seconds(), lag)
	}
	return b.String()
}

func containsTarget(ts []target, want target) bool {
	for _, t := range ts {
		if t.server == want.server && t.policy == want.policy {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
