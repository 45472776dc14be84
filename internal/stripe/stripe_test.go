package stripe

import (
	"sync"
	"testing"
	"unsafe"
)

func TestCount(t *testing.T) {
	var c Count
	var wg sync.WaitGroup
	for id := uint64(0); id < 3*N; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				c.Add(Of(id), 2)
			}
		}()
	}
	wg.Wait()
	if got, want := c.Load(), int64(3*N*1000*2); got != want {
		t.Fatalf("Load = %d, want %d", got, want)
	}
	c.Reset()
	if got := c.Load(); got != 0 {
		t.Fatalf("after Reset, Load = %d", got)
	}
	// Each copy on a cache line of its own.
	if s := unsafe.Sizeof(c[0]); s != CacheLine {
		t.Fatalf("a copy is %d bytes, want %d", s, CacheLine)
	}
}
