package snapshot

import (
	"math/rand/v2"
	"time"
)

// DebugDelay sleeps usec microseconds, the per-key delay of Redis's test
// knobs rdb-key-save-delay and key-load-delay (its debugDelay): a
// negative -N sleeps 1 µs with probability 1/N, since even the shortest
// sleep costs a context switch. 0 returns at once.
func DebugDelay(usec int) {
	if usec < 0 {
		if rand.IntN(-usec) != 0 {
			return
		}
		usec = 1
	}
	if usec > 0 {
		time.Sleep(time.Duration(usec) * time.Microsecond)
	}
}
