package benchkit

import (
	"sync"
	"time"
)

// Sample is one reading of a server process.
type Sample struct {
	At       time.Time
	RSS      int64   // the process's VmRSS
	ChildRSS int64   // its children's, summed (redis-server's BGSAVE child)
	CPU      float64 // user+system seconds used so far
	Extra    int64   // what the sampler's extra function read (used_memory, ...)
}

// Total is the RSS of the process and its children.
func (s Sample) Total() int64 { return s.RSS + s.ChildRSS }

// Sampler reads a process's RSS and CPU time from /proc every period, in
// a goroutine of its own, until stopped: one sample at once, one at each
// tick, one when it stops.
type Sampler struct {
	pid   int
	extra func() int64
	mu    sync.Mutex
	all   []Sample
	quit  chan struct{}
	done  chan struct{}
}

// StartSampler starts sampling pid every period. extra, if not nil, is
// called with every sample (from the sampler's goroutine) and its result
// kept as Sample.Extra.
func StartSampler(pid int, period time.Duration, extra func() int64) *Sampler {
	s := &Sampler{pid: pid, extra: extra, quit: make(chan struct{}), done: make(chan struct{})}
	go s.run(period)
	return s
}

func (s *Sampler) run(period time.Duration) {
	defer close(s.done)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		s.take()
		select {
		case <-s.quit:
			s.take()
			return
		case <-t.C:
		}
	}
}

func (s *Sampler) take() {
	x := Sample{At: time.Now()}
	x.RSS, _ = VmRSS(s.pid)
	x.CPU, _ = CPUSeconds(s.pid)
	for _, c := range Children(s.pid) {
		r, _ := VmRSS(c)
		x.ChildRSS += r
	}
	if s.extra != nil {
		x.Extra = s.extra()
	}
	s.mu.Lock()
	s.all = append(s.all, x)
	s.mu.Unlock()
}

// Stop ends the sampling and returns every sample, in time order.
func (s *Sampler) Stop() []Sample {
	close(s.quit)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all
}

// Between returns the samples taken in [from, to].
func Between(ss []Sample, from, to time.Time) []Sample {
	var out []Sample
	for _, s := range ss {
		if !s.At.Before(from) && !s.At.After(to) {
			out = append(out, s)
		}
	}
	return out
}

// Usage is what a run cost a server: CPU seconds between the first and
// the last sample, and the peak RSS (with children) seen.
type Usage struct {
	CPUSeconds float64
	PeakRSS    int64
}

// UsageOf summarises samples.
func UsageOf(ss []Sample) Usage {
	var u Usage
	if len(ss) == 0 {
		return u
	}
	u.CPUSeconds = ss[len(ss)-1].CPU - ss[0].CPU
	for _, s := range ss {
		u.PeakRSS = max(u.PeakRSS, s.Total())
	}
	return u
}
