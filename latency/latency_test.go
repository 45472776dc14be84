package latency

import (
	"testing"
	"time"
)

func TestMonitor(t *testing.T) {
	m := New()
	sec := int64(1700000000)
	m.now = func() time.Time { return time.Unix(sec, 0) }
	m.Add("command", 100)
	if len(m.Latest()) != 0 {
		t.Fatal("a monitor that is off recorded")
	}
	m.SetThreshold(10)
	m.Add("command", 9)
	if len(m.Latest()) != 0 {
		t.Fatal("under the threshold recorded")
	}
	m.Add("command", 10)
	m.Add("command", 30)
	m.Add("command", 20) // same second: keeps 30
	sec++
	m.Add("command", 15)
	m.Add("fast-command", 12)
	if h := m.History("command"); len(h) != 2 || h[0] != (Sample{1700000000, 30}) || h[1] != (Sample{1700000001, 15}) {
		t.Errorf("history %v", h)
	}
	if l := m.Latest(); len(l) != 2 || l[0] != (Latest{"command", Sample{1700000001, 15}, 30}) || l[1].Event != "fast-command" {
		t.Errorf("latest %v", l)
	}
	if m.History("COMMAND") != nil {
		t.Error("history matched ignoring case")
	}
	for i := 0; i < 2*HistoryLen; i++ {
		sec++
		m.Add("command", int64(10+i))
	}
	if h := m.History("command"); len(h) != HistoryLen || h[HistoryLen-1].Latency != 10+2*HistoryLen-1 {
		t.Errorf("history of %d, last %v", len(h), h[len(h)-1])
	}
	if n := m.Reset("COMMAND", "nosuch"); n != 1 || len(m.Latest()) != 1 {
		t.Errorf("reset %d, left %v", n, m.Latest())
	}
	if n := m.Reset(); n != 1 || len(m.Latest()) != 0 {
		t.Errorf("reset all %d", n)
	}
}
