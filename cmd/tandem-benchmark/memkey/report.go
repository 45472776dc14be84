package memkey

import (
	"fmt"
	"io"
	"strings"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// report is everything results.json holds.
type report struct {
	Options       options    `json:"options"`
	SettleSeconds float64    `json:"settle_seconds"`
	Started       string     `json:"started"`
	NumCPU        int        `json:"num_cpu"`
	AvgKeyLen     float64    `json:"avg_key_len"`
	Runs          []*caseRun `json:"runs"`
	Summary       []*summary `json:"summary"`
}

// summary is one case over its rounds: medians of the rounds that ran
// through, ratios to the redis and memcached cases' medians.
type summary struct {
	Case      string `json:"case"`
	Server    string `json:"server"`
	Proto     string `json:"loaded_through"`
	Version   string `json:"version"`
	Accounted string `json:"accounted_as"`
	Rounds    int    `json:"rounds_ok"`

	AccountedPerKey float64   `json:"accounted_bytes_per_key"`
	RSSPerKey       float64   `json:"rss_bytes_per_key"`
	AccountedRounds []float64 `json:"accounted_bytes_per_key_rounds"`
	RSSRounds       []float64 `json:"rss_bytes_per_key_rounds"`
	LoadSeconds     float64   `json:"load_seconds"`

	// Ratios; nil when the case they divide by did not run through.
	AccountedVsRedis *float64 `json:"accounted_vs_redis_used_memory,omitempty"`
	RSSVsRedis       *float64 `json:"rss_vs_redis_rss,omitempty"`
	RSSVsMemcached   *float64 `json:"rss_vs_memcached_rss,omitempty"`

	Errors []string `json:"errors,omitempty"`
	runs   []*caseRun
}

func (rep *report) summarize(defs []caseDef) {
	o := rep.Options
	rep.SettleSeconds = o.Settle.Seconds()
	rep.AvgKeyLen = avgKeyLen(o.Keys)
	byCase := map[string]*summary{}
	for _, c := range defs {
		s := &summary{Case: c.Name, Server: c.Server, Proto: c.Proto}
		for _, r := range rep.Runs {
			if r.Case != c.Name {
				continue
			}
			s.runs = append(s.runs, r)
			s.Accounted = r.Accounted
			if r.Version != "" {
				s.Version = r.Version
			}
			if r.Error != "" {
				s.Errors = append(s.Errors, fmt.Sprintf("round %d: %s", r.Round, r.Error))
			}
			if !r.ok() {
				continue
			}
			s.Rounds++
			s.AccountedRounds = append(s.AccountedRounds, r.accountedPerKey(o.Keys))
			s.RSSRounds = append(s.RSSRounds, r.rssPerKey(o.Keys))
		}
		if s.Rounds > 0 {
			s.AccountedPerKey, s.RSSPerKey = benchkit.Median(s.AccountedRounds), benchkit.Median(s.RSSRounds)
			var loads []float64
			for _, r := range s.runs {
				if r.ok() {
					loads = append(loads, r.LoadSeconds)
				}
			}
			s.LoadSeconds = benchkit.Median(loads)
		}
		byCase[c.Name] = s
		rep.Summary = append(rep.Summary, s)
	}
	redis, mc := byCase["redis"], byCase["memcached"]
	for _, s := range rep.Summary {
		if s.Rounds == 0 {
			continue
		}
		if redis != nil && redis.Rounds > 0 {
			s.AccountedVsRedis = ratio(s.AccountedPerKey, redis.AccountedPerKey)
			s.RSSVsRedis = ratio(s.RSSPerKey, redis.RSSPerKey)
		}
		if mc != nil && mc.Rounds > 0 {
			s.RSSVsMemcached = ratio(s.RSSPerKey, mc.RSSPerKey)
		}
	}
}

// ratio is a/b, nil unless b is positive.
func ratio(a, b float64) *float64 {
	if b <= 0 {
		return nil
	}
	r := a / b
	return &r
}

// avgKeyLen is the mean length of key:0 .. key:<keys-1>.
func avgKeyLen(keys int) float64 {
	if keys <= 0 {
		return 0
	}
	total, digits := 0, 1
	for lo := 0; lo < keys; lo, digits = max(lo*10, 10), digits+1 {
		hi := min(max(lo*10, 10), keys) // [lo, hi) have this many digits
		total += (hi - lo) * (len("key:") + digits)
	}
	return float64(total) / float64(keys)
}

func times(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", *r)
}

// perRound is " (a, b, …)" for more than one round.
func perRound(xs []float64) string {
	if len(xs) < 2 {
		return ""
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.1f", x)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

var (
	serverNames = map[string]string{"tandem": "Tandem", "redis": "redis-server", "memcached": "memcached"}
	protoNames  = map[string]string{"resp": "RESP SET", "memcached": "memcached set"}
)

// writeTable prints the Markdown tables: per key, then the raw figures.
func (rep *report) writeTable(w io.Writer) {
	o := rep.Options
	fmt.Fprintf(w, "\n### Memory per key: %d keys × %d B values\n\n", o.Keys, o.Size)
	fmt.Fprintln(w, "| case | server | loaded through | accounted as | accounted B/key | RSS B/key | accounted ÷ redis used_memory | RSS ÷ redis RSS | RSS ÷ memcached RSS |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---:|---:|")
	for _, s := range rep.Summary {
		name := serverNames[s.Server] + " " + s.Version
		acc := s.Accounted
		if s.Server == "memcached" {
			acc = "memcached `bytes` †"
		}
		if s.Rounds == 0 {
			fmt.Fprintf(w, "| %s | %s | %s | %s | FAILED | FAILED | | | |\n", s.Case, name, protoNames[s.Proto], acc)
			continue
		}
		vsRedis := times(s.AccountedVsRedis)
		if s.Server == "memcached" && s.AccountedVsRedis != nil {
			vsRedis += " †"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.1f%s | %.1f%s | %s | %s | %s |\n", s.Case, name, protoNames[s.Proto], acc,
			s.AccountedPerKey, perRound(s.AccountedRounds), s.RSSPerKey, perRound(s.RSSRounds),
			vsRedis, times(s.RSSVsRedis), times(s.RSSVsMemcached))
	}

	fmt.Fprintf(w, "\n| case (round) | accounted: empty → after | RSS: empty → after (first sample after) | load | keys held | read back |\n")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	for _, r := range rep.Runs {
		label := r.Case
		if o.Rounds > 1 {
			label += fmt.Sprintf(" (%d)", r.Round)
		}
		if !r.ok() {
			fmt.Fprintf(w, "| %s | FAILED: %s | | | | |\n", label, strings.ReplaceAll(r.Error, "|", "\\|"))
			continue
		}
		fmt.Fprintf(w, "| %s | %s → %s | %s → %s (%s) | %.2f s, %.0fk keys/s | %d | %d keys, all equal |\n", label,
			benchkit.Bytes(r.Empty.Accounted), benchkit.Bytes(r.After.Accounted),
			benchkit.Bytes(r.Empty.RSS), benchkit.Bytes(r.After.RSS), benchkit.Bytes(r.After1.RSS),
			r.LoadSeconds, float64(o.Keys)/r.LoadSeconds/1000, r.After.Keys, r.Verified)
	}

	fmt.Fprintf(w, "\nKeys \"key:N\" (N < %d, %.2f B on average), values of %d B derived from N (incompressible): %.1f B of key and value per key. "+
		"B/key = (after − empty) / keys; \"after\" is the second of two samples taken %g s and %g s after the load, nothing else issued in between; "+
		"RSS is VmRSS. Loaded over one connection, %d commands a pipelined batch, every reply checked; %d random keys read back and compared byte for byte. "+
		"Fresh servers on loopback: Tandem and redis-server with no save rules and maxmemory 0, memcached -m %d -t 2 -U 0; "+
		"every case holds exactly %d keys with nothing evicted. %d round(s)%s; %d CPUs.\n",
		o.Keys, rep.AvgKeyLen, o.Size, rep.AvgKeyLen+float64(o.Size),
		rep.SettleSeconds, 2*rep.SettleSeconds, o.Pipeline, o.Verify, o.MCMemory, o.Keys, o.Rounds, medianNote(o.Rounds), rep.NumCPU)
	fmt.Fprintln(w, "\n† memcached's `bytes` is its own accounting of its items (item header, key, value, CAS), "+
		"without the slab classes' rounding, unused chunks nor the hash table; it is not the same measure as used_memory, so its ratio to redis-server's used_memory is indicative only. RSS is comparable across all four.")
}

func medianNote(rounds int) string {
	if rounds > 1 {
		return " (medians; each round in parentheses)"
	}
	return ""
}
