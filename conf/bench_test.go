package conf

import "testing"

// The typed getters run on every request: they must not allocate.
func BenchmarkGetters(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var sink int64
		for pb.Next() {
			sink += c.MaxMemory() + int64(c.MaxMemoryPolicy()) + c.ProtoMaxBulkLen() + int64(c.Timeout())
		}
		_ = sink
	})
}

func BenchmarkConfigGetAll(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = c.Get("*")
	}
}

func BenchmarkConfigSet(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = c.Set([2]string{"maxmemory", "1gb"}, [2]string{"maxmemory-policy", "allkeys-lru"})
	}
}

func TestGettersDoNotAllocate(t *testing.T) {
	c := Default()
	n := testing.AllocsPerRun(100, func() {
		_ = c.MaxMemory() + int64(c.Port()) + int64(c.Timeout()) + int64(c.NotifyKeyspaceEvents())
		_ = c.ClientOutputBufferLimit(ClientPubSub)
		_ = c.RequirePass()
	})
	if n != 0 {
		t.Errorf("getters allocate %v times", n)
	}
}
