package latency

import (
	"fmt"
	"strings"
)

// LATENCY GRAPH and LATENCY DOCTOR's texts, as Redis 7.0 draws and words
// them.

// graphCols and graphRows are the sparkline's width (a longer history
// wraps into further charts) and height in lines.
const (
	graphCols = 80
	graphRows = 4
)

// graphFill are the characters of one line of the chart, lowest first;
// a column whose value is above a line shows '|' there.
const graphFill = "_o#"

// Graph is LATENCY GRAPH's chart of event's samples (oldest first, at
// least one) with its worst ever, at unix time now: a header with the
// highest and lowest sample, a rule, then per sample a column whose
// height is its latency between the lowest and the highest, labelled
// with how long ago it was, written downwards.
func Graph(event string, samples []Sample, worst, now int64) string {
	var b strings.Builder
	lo, hi := samples[0].Latency, samples[0].Latency
	for _, s := range samples {
		lo, hi = min(lo, s.Latency), max(hi, s.Latency)
	}
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, uint32(hi), uint32(lo), worst)
	b.WriteString(strings.Repeat("-", graphCols))
	b.WriteByte('\n')
	for j := 0; j < len(samples); j += graphCols {
		if j != 0 {
			b.WriteByte('\n')
		}
		renderRange(&b, samples[j:min(j+graphCols, len(samples))], lo, hi, now)
	}
	return b.String()
}

// ago is a sample's label: how long before now it was, in the largest
// unit that fits.
func ago(elapsed int64) string {
	switch {
	case elapsed < 60:
		return fmt.Sprintf("%ds", elapsed)
	case elapsed < 3600:
		return fmt.Sprintf("%dm", elapsed/60)
	case elapsed < 3600*24:
		return fmt.Sprintf("%dh", elapsed/3600)
	}
	return fmt.Sprintf("%dd", elapsed/(3600*24))
}

// renderRange draws one chart of up to graphCols samples scaled between
// lo and hi (those of every sample): graphRows lines of bars, an empty
// line, then the labels one character per line.
func renderRange(b *strings.Builder, samples []Sample, lo, hi, now int64) {
	steps := len(graphFill) * graphRows
	span := float64(hi - lo)
	if span == 0 {
		span = 1
	}
	labels := make([]string, len(samples))
	for i, s := range samples {
		labels[i] = ago(now - s.Time)
	}
	line := make([]byte, len(samples))
	for row := 0; ; row++ {
		any := false
		for j := range line {
			line[j] = ' '
		}
		switch {
		case row < graphRows:
			any = true
			for j, s := range samples {
				// As Redis: the scaled value is truncated before the
				// division by the span, and the result again.
				step := int(float64(int(float64(s.Latency-lo)*float64(steps))) / span)
				step = min(max(step, 0), steps-1)
				if c := step - (graphRows-row-1)*len(graphFill); c >= 0 && c < len(graphFill) {
					line[j] = graphFill[c]
				} else if c >= len(graphFill) {
					line[j] = '|'
				}
			}
		case row == graphRows:
			any = true // the margin above the labels
		default:
			for j, l := range labels {
				if k := row - graphRows - 1; k < len(l) {
					any = true
					line[j] = l[k]
				}
			}
		}
		if !any {
			return
		}
		b.Write(line)
		b.WriteByte('\n')
	}
}

// EventStats is what DOCTOR says of an event: its samples, their mean
// and mean absolute deviation (ms, truncated as Redis's integer
// division), and the seconds from the oldest to now (at least 1).
type EventStats struct {
	Samples   int
	Avg, MAD  int64
	PeriodSec int64
}

// Analyze computes an event's EventStats at unix time now.
func Analyze(samples []Sample, now int64) EventStats {
	var st EventStats
	if len(samples) == 0 {
		return st
	}
	var sum int64
	oldest := samples[0].Time
	for _, s := range samples {
		sum += s.Latency
		oldest = min(oldest, s.Time)
	}
	st.Samples = len(samples)
	st.Avg = sum / int64(len(samples))
	st.PeriodSec = now - oldest
	if st.PeriodSec == 0 {
		st.PeriodSec = 1
	}
	var dev int64
	for _, s := range samples {
		d := st.Avg - s.Latency
		dev += max(d, -d)
	}
	st.MAD = dev / int64(len(samples))
	return st
}

// DoctorEvent is one event's part of the report.
type DoctorEvent struct {
	Name    string
	Samples []Sample
	Worst   int64
}

// DoctorSettings are the directives and facts DOCTOR's advice depends on.
type DoctorSettings struct {
	Threshold     int64 // latency-monitor-threshold, ms
	SlowerThan    int64 // slowlog-log-slower-than, µs
	AnonHugePages bool  // the process has transparent huge pages
}

// The advice DOCTOR can give, in the order it gives it.
type advice int

const (
	adviseSlowlogEnabled advice = iota
	adviseSlowlogTuning
	adviseSlowlogInspect
	adviseScheduler
	adviseLargeObjects
	adviseDisableTHP
	adviceCount
)

// Doctor is LATENCY DOCTOR's report over events at unix time now, as
// Redis 7.0 words it for the events Tandem records ("command",
// "fast-command"); other events get their summary line only.
func Doctor(events []DoctorEvent, set DoctorSettings, now int64) string {
	var b strings.Builder
	if len(events) == 0 && set.Threshold == 0 {
		b.WriteString("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n")
		return b.String()
	}
	var advise [adviceCount]bool
	advices := 0
	give := func(a advice) {
		advise[a] = true
		advices++ // counted per giving, as Redis: only zero or not matters
	}
	for i, e := range events {
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		st := Analyze(e.Samples, now)
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, e.Name, st.Samples, st.Avg, st.MAD, float64(st.PeriodSec)/float64(st.Samples), e.Worst)
		switch strings.ToLower(e.Name) {
		case "command":
			if set.SlowerThan < 0 {
				give(adviseSlowlogEnabled)
			} else if set.SlowerThan/1000 > set.Threshold {
				give(adviseSlowlogTuning)
			}
			give(adviseSlowlogInspect)
			give(adviseLargeObjects)
		case "fast-command":
			give(adviseScheduler)
		}
		b.WriteByte('\n')
	}
	if set.AnonHugePages {
		give(adviseDisableTHP)
	}
	switch {
	case len(events) == 0 && advices == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
		return b.String()
	case advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
		return b.String()
	}
	b.WriteString("\nI have a few advices for you:\n\n")
	if advise[adviseSlowlogEnabled] {
		fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", set.Threshold*1000)
	}
	if advise[adviseSlowlogTuning] {
		fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", set.Threshold*1000)
	}
	if advise[adviseSlowlogInspect] {
		b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
	}
	if advise[adviseScheduler] {
		b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
			"  1) Lower the system load.\n" +
			"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
			"  3) Check if you have a \"noisy neighbour\" problem.\n" +
			"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
			"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
	}
	if advise[adviseLargeObjects] {
		b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
	}
	if advise[adviseDisableTHP] {
		b.WriteString("- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n")
	}
	return b.String()
}
