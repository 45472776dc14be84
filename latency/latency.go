// Package latency is the latency monitor (LATENCY LATEST, HISTORY, RESET):
// per event class ("command", "fast-command"), the last 160 seconds that
// had a sample at or over latency-monitor-threshold milliseconds, each
// second keeping its worst, and the worst ever, as Redis 7.0 keeps them.
//
// One Monitor serves the process (package services builds it and keeps
// it in step with the directive); Add costs one atomic load while the
// monitor is off (threshold 0, the default).
package latency

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HistoryLen is how many samples an event keeps.
const HistoryLen = 160

// Sample is one second's worst latency of an event.
type Sample struct {
	Time    int64 // unix seconds
	Latency int64 // milliseconds
}

type series struct {
	name    string
	idx     int
	max     int64
	samples [HistoryLen]Sample
}

// Latest is an event's newest sample and its worst.
type Latest struct {
	Event string
	Sample
	Max int64
}

// Monitor is the latency monitor. The zero value is not usable: call New.
type Monitor struct {
	threshold atomic.Int64 // milliseconds; 0: off

	mu     sync.Mutex
	events []*series // in order of their first sample
	now    func() time.Time
}

// New returns a monitor that is off.
func New() *Monitor { return &Monitor{now: time.Now} }

// SetThreshold sets latency-monitor-threshold in milliseconds (0: off).
func (m *Monitor) SetThreshold(ms int64) { m.threshold.Store(ms) }

// Add records that event took ms milliseconds, if the monitor is on and
// ms reaches its threshold.
func (m *Monitor) Add(event string, ms int64) {
	t := m.threshold.Load()
	if t == 0 || ms < t {
		return
	}
	now := m.now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	var s *series
	for _, e := range m.events {
		if e.name == event {
			s = e
		}
	}
	if s == nil {
		s = &series{name: event}
		m.events = append(m.events, s)
	}
	s.max = max(s.max, ms)
	prev := &s.samples[(s.idx+HistoryLen-1)%HistoryLen]
	if prev.Time == now {
		prev.Latency = max(prev.Latency, ms)
		return
	}
	s.samples[s.idx] = Sample{Time: now, Latency: ms}
	s.idx = (s.idx + 1) % HistoryLen
}

// Latest is every event's newest sample.
func (m *Monitor) Latest() []Latest {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Latest, len(m.events))
	for i, s := range m.events {
		out[i] = Latest{Event: s.name, Sample: s.samples[(s.idx+HistoryLen-1)%HistoryLen], Max: s.max}
	}
	return out
}

// History is event's samples, oldest first; nil for an event without
// samples. Event names are matched exactly.
func (m *Monitor) History(event string) []Sample {
	h, _, _ := m.Event(event)
	return h
}

// Event is event's samples, oldest first, and its worst; ok is false for
// an event without samples. Event names are matched exactly.
func (m *Monitor) Event(event string) (samples []Sample, worst int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.events {
		if s.name != event {
			continue
		}
		for j := 0; j < HistoryLen; j++ {
			if e := s.samples[(s.idx+j)%HistoryLen]; e.Time != 0 {
				samples = append(samples, e)
			}
		}
		return samples, s.max, true
	}
	return nil, 0, false
}

// Events are the names of the events with samples, in the order of their
// first.
func (m *Monitor) Events() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.events))
	for i, s := range m.events {
		out[i] = s.name
	}
	return out
}

// Threshold is latency-monitor-threshold in milliseconds (0: off).
func (m *Monitor) Threshold() int64 { return m.threshold.Load() }

// Reset forgets the events named (ignoring case), or all of them when
// none is, and returns how many it forgot.
func (m *Monitor) Reset(events ...string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, name := range events {
		kept := m.events[:0]
		for _, s := range m.events {
			if strings.EqualFold(s.name, name) {
				n++
			} else {
				kept = append(kept, s)
			}
		}
		clear(m.events[len(kept):])
		m.events = kept
	}
	return n
}
