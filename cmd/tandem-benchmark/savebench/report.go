package savebench

import (
	"fmt"
	"io"
	"strings"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// each collects one figure of every BGSAVE round.
func each(bs []bgsave, f func(bgsave) float64) []float64 {
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = f(b)
	}
	return out
}

func runs(xs []float64, format string) string {
	if len(xs) < 2 {
		return ""
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf(format, x)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func mbs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x / (1 << 20)
	}
	return out
}

func pctOf(part, whole float64) string {
	if whole <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %%", 100*part/whole)
}

// writeTables prints one Markdown table per data set, a column per server.
func writeTables(w io.Writer, o options, results []*result) {
	for _, ds := range o.sets {
		var rs []*result
		for _, r := range results {
			if r.Set == ds {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s\n\n", ds)
		head := "| |"
		sep := "|---|"
		for _, r := range rs {
			name := "Tandem"
			if r.Server == "redis" {
				name = "redis-server"
			}
			head += fmt.Sprintf(" %s %s |", name, r.Version)
			sep += "---|"
		}
		fmt.Fprintln(w, head)
		fmt.Fprintln(w, sep)
		row := func(label string, cell func(r *result) string) {
			line := "| " + label + " |"
			for _, r := range rs {
				line += " " + cell(r) + " |"
			}
			fmt.Fprintln(w, line)
		}
		n := o.rounds
		row("used_memory after the fill", func(r *result) string { return benchkit.Bytes(r.UsedMemory) })
		row("RSS after the fill", func(r *result) string { return benchkit.Bytes(r.RSS) })
		row("dump file size", func(r *result) string { return benchkit.Bytes(r.FileBytes) })
		row(fmt.Sprintf("SAVE time, median of %d", n), func(r *result) string {
			return fmt.Sprintf("%.2f s%s", benchkit.Median(r.SaveSecs), runs(r.SaveSecs, "%.2f"))
		})
		row("SAVE throughput (file size / time)", func(r *result) string {
			return fmt.Sprintf("%.0f MB/s", float64(r.FileBytes)/(1<<20)/benchkit.Median(r.SaveSecs))
		})
		row("load on start: process start → first PONG", func(r *result) string { return fmt.Sprintf("%.2f s", r.LoadReadySecs) })
		row("load on start: \"DB loaded from disk\" log line", func(r *result) string { return fmt.Sprintf("%.2f s", r.LoadLogSecs) })
		row(fmt.Sprintf("BGSAVE under load, median of %d", n), func(r *result) string {
			xs := each(r.BGSaves, func(b bgsave) float64 { return b.Secs })
			return fmt.Sprintf("%.2f s%s", benchkit.Median(xs), runs(xs, "%.2f"))
		})
		row("RSS before BGSAVE (median of the idle samples)", func(r *result) string {
			return benchkit.Bytes(int64(benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return float64(b.RSSBefore) }))))
		})
		row("extra RSS during BGSAVE: peak − before", func(r *result) string {
			xs := each(r.BGSaves, func(b bgsave) float64 { return float64(b.extra()) })
			s := fmt.Sprintf("%s%s", benchkit.Bytes(int64(benchkit.Median(xs))), runs(mbs(xs), "%.0f MB"))
			if r.Server == "redis" {
				s += "; parent + child RSS, shared pages counted twice"
			}
			return s
		})
		row("… as a share of used_memory", func(r *result) string {
			return pctOf(benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return float64(b.extra()) })), float64(r.UsedMemory))
		})
		row("first BGSAVE after the fill: extra RSS, share of used_memory", func(r *result) string {
			if len(r.BGSaves) == 0 {
				return "n/a"
			}
			x := r.BGSaves[0].extra()
			return fmt.Sprintf("%s, %s", benchkit.Bytes(x), pctOf(float64(x), float64(r.UsedMemory)))
		})
		row("highest peak RSS during a BGSAVE − RSS after the fill", func(r *result) string {
			peak := int64(0)
			for _, b := range r.BGSaves {
				peak = max(peak, b.PeakRSS)
			}
			return fmt.Sprintf("%s, %s", benchkit.Bytes(peak-r.RSS), pctOf(float64(peak-r.RSS), float64(r.UsedMemory)))
		})
		row("redis-server: copy-on-write (rdb_last_cow_size)", func(r *result) string {
			if r.Server != "redis" {
				return "n/a (no fork)"
			}
			xs := each(r.BGSaves, func(b bgsave) float64 { return float64(b.CowBytes) })
			return fmt.Sprintf("%s = %s of used_memory%s", benchkit.Bytes(int64(benchkit.Median(xs))), pctOf(benchkit.Median(xs), float64(r.UsedMemory)), runs(mbs(xs), "%.0f MB"))
		})
		row("redis-server: fork (latest_fork_usec)", func(r *result) string {
			if r.Server != "redis" {
				return "n/a"
			}
			return fmt.Sprintf("%.1f ms", benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return float64(b.ForkUsec) }))/1000)
		})
		row("p99 latency idle", func(r *result) string {
			xs := each(r.BGSaves, func(b bgsave) float64 { return b.Idle.P99 })
			return fmt.Sprintf("%.2f ms%s", benchkit.Median(xs), runs(xs, "%.2f"))
		})
		row("p99 latency during BGSAVE", func(r *result) string {
			xs := each(r.BGSaves, func(b bgsave) float64 { return b.During.P99 })
			return fmt.Sprintf("%.2f ms%s", benchkit.Median(xs), runs(xs, "%.2f"))
		})
		row("p99 during / idle", func(r *result) string {
			xs := each(r.BGSaves, func(b bgsave) float64 {
				if b.Idle.P99 == 0 {
					return 0
				}
				return b.During.P99 / b.Idle.P99
			})
			return fmt.Sprintf("%.2f×%s", benchkit.Median(xs), runs(xs, "%.2f"))
		})
		row("p99.9 / max during BGSAVE", func(r *result) string {
			return fmt.Sprintf("%.2f / %.1f ms", benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return b.During.P999 })),
				benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return b.During.Max })))
		})
		row("p99 from schedule (idle → during)", func(r *result) string {
			return fmt.Sprintf("%.2f → %.2f ms", benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return b.Idle.P99Sched })),
				benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return b.During.P99Sched })))
		})
		row("requests measured idle / during (median)", func(r *result) string {
			return fmt.Sprintf("%.0f / %.0f", benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return float64(b.Idle.N) })),
				benchkit.Median(each(r.BGSaves, func(b bgsave) float64 { return float64(b.During.N) })))
		})
		row("load errors", func(r *result) string { return fmt.Sprint(r.LoadErrors) })
	}
	comp := "rdbcompression as configured by default (yes)"
	if o.rdbCompression != "" {
		comp = "rdbcompression " + o.rdbCompression
	}
	fmt.Fprintf(w, "\nSteady load: %d connections, no pipelining, %d requests/s in all, %d %% SET / %d %% GET on random keys of the data set; RSS sampled every %v; %d rounds (BGSAVEs first, then SAVEs); %s.\n",
		o.conns, o.rate, o.setPct, 100-o.setPct, o.sample, o.rounds, comp)
}
