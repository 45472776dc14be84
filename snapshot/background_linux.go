package snapshot

import (
	"runtime"
	"syscall"
)

// backgroundNice is the OS priority (nice) of a background save's thread.
const backgroundNice = 19

// lowerPriority makes the calling goroutine's thread a low-priority one for
// the rest of the goroutine's life, which must end without unlocking it:
// the thread then exits with it. While it runs, GOMAXPROCS is one more, so
// the save's thread does not take a P from the event loops; the OS gives
// the loops' threads the cores first. The returned function restores
// GOMAXPROCS.
//
// Without this the saver, busy on one of two cores, left the event loops
// one P to share with the clients' traffic, and p99 latency during a
// BGSAVE rose several times (docs/benchmarks-history.md, "Snapshots").
func lowerPriority() (restore func()) {
	runtime.LockOSThread()
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice); err != nil {
		return func() {}
	}
	procs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(procs + 1)
	return func() { runtime.GOMAXPROCS(procs) }
}
