package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// progress writes a live line on long runs: what runs, how far it is and
// its rate, redrawn in place every half second. Only to a terminal: a log
// file or a pipe gets nothing.
type progress struct {
	w io.Writer
}

// newProgress returns a progress line on w if w is a terminal, else nil
// (whose watch does nothing).
func newProgress(w io.Writer, quiet bool) *progress {
	f, ok := w.(*os.File)
	if !ok || quiet {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progress{w: w}
}

// watch shows label's progress (done of total requests, or of duration)
// until the returned stop is called, which clears the line. Nothing is
// drawn during the first second, so short phases leave no trace.
func (p *progress) watch(label string, done *atomic.Int64, total int64, duration time.Duration) (stop func()) {
	if p == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		drawn := false
		for {
			select {
			case <-quit:
				if drawn {
					fmt.Fprint(p.w, "\r\033[K")
				}
				return
			case now := <-t.C:
				el := now.Sub(start)
				if el < time.Second {
					continue
				}
				n := done.Load()
				of := ""
				switch {
				case total > 0:
					of = fmt.Sprintf(" of %d (%.0f%%)", total, 100*float64(n)/float64(total))
				case duration > 0:
					of = fmt.Sprintf(" in %.0fs of %.0fs", el.Seconds(), duration.Seconds())
				}
				fmt.Fprintf(p.w, "\r\033[K%s: %d%s, %.0f ops/s", label, n, of, float64(n)/el.Seconds())
				drawn = true
			}
		}
	}()
	return func() { close(quit); <-finished }
}
