package latency

import (
	"strings"
	"testing"
)

func TestGraph(t *testing.T) {
	now := int64(1000)
	got := Graph("ev", []Sample{{998, 10}, {999, 20}, {1000, 30}}, 40, now)
	want := "ev - high 30 ms, low 10 ms (all time high 40 ms)\n" + strings.Repeat("-", 80) + "\n" +
		"  #\n _|\n ||\n_||\n   \n210\nsss\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// One value throughout: the lowest line; labels in minutes, hours, days.
	got = Graph("e", []Sample{{1000 - 90, 5}, {1000 - 7200, 5}, {1000 - 3*86400, 5}}, 5, now)
	if want := "   \n   \n   \n___\n   \n123\nmhd\n"; !strings.HasSuffix(got, strings.Repeat("-", 80)+"\n"+want) {
		t.Errorf("got\n%s", got)
	}
	// More samples than columns: a second chart after an empty line.
	var many []Sample
	for i := 0; i < 81; i++ {
		many = append(many, Sample{now, int64(i)})
	}
	parts := strings.Split(Graph("e", many, 80, now), "\n\n")
	if len(parts) != 2 || !strings.HasPrefix(parts[1], "#\n|\n|\n|\n \n0\ns\n") {
		t.Errorf("wrapped chart %q", parts)
	}
}

func TestDoctor(t *testing.T) {
	st := Analyze([]Sample{{100, 10}, {101, 30}}, 103)
	if st != (EventStats{Samples: 2, Avg: 20, MAD: 10, PeriodSec: 3}) {
		t.Errorf("stats %+v", st)
	}
	if got := Doctor(nil, DoctorSettings{}, 0); !strings.HasPrefix(got, "I'm sorry, Dave") {
		t.Errorf("off: %q", got)
	}
	if got := Doctor(nil, DoctorSettings{Threshold: 1}, 0); !strings.HasPrefix(got, "Dave, no latency spike") {
		t.Errorf("no events: %q", got)
	}
	ev := []DoctorEvent{{"command", []Sample{{100, 10}, {101, 30}}, 50}, {"fast-command", []Sample{{101, 7}}, 7}}
	got := Doctor(ev, DoctorSettings{Threshold: 5, SlowerThan: -1}, 103)
	for _, want := range []string{
		"\n\n1. command: 2 latency spikes (average 20ms, mean deviation 10ms, period 1.50 sec). Worst all time event 50ms.\n2. fast-command: 1",
		"'CONFIG SET slowlog-log-slower-than 5000'. If the Slow log is disabled",
		"- Check your Slow Log", "- The system is slow to execute", "- Deleting, expiring or evicting",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "only logs events that are slower") || strings.Contains(got, "huge pages") {
		t.Errorf("advice not due:\n%s", got)
	}
	got = Doctor(ev[:1], DoctorSettings{Threshold: 5, SlowerThan: 10000}, 103)
	if !strings.Contains(got, "Please use 'CONFIG SET slowlog-log-slower-than 5000'.\n") {
		t.Errorf("no tuning advice:\n%s", got)
	}
	if got := Doctor([]DoctorEvent{{"other", []Sample{{1, 1}}, 1}}, DoctorSettings{Threshold: 1}, 1); !strings.Contains(got, "I'm not able to suggest any easy fix") {
		t.Errorf("unknown event: %q", got)
	}
}
