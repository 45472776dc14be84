package memproto

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
)

// expired_unfetched counts the items that expired without being read, by
// either protocol; reclaimed every expired item.
func TestStatsExpiredUnfetched(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.send("set got 0 10 1\r\n1\r\nset never 0 10 1\r\n1\r\nset peeked 0 10 1\r\n1\r\nset redis 0 10 1\r\n1\r\n")
	c.send("get got\r\nmg peeked v u\r\n")            // u: no update, no fetch
	if _, ok, _ := env.db.Get([]byte("redis")); !ok { // a Redis GET fetches too
		t.Fatal("redis key missing")
	}
	c.expect("mg redis h u\r\nmg never h u\r\nmg got h u\r\n", "HD h1\r\nHD h0\r\nHD h1\r\n")
	if got := c.send("me peeked\r\n"); !strings.Contains(got, " fetch=no ") {
		t.Fatalf("me peeked: %q", got)
	}
	env.clock.Advance(11 * time.Second)
	c.expect("get got never peeked redis\r\n", "END\r\n")
	m := statsMap(t, c, "")
	if m["reclaimed"] != "4" || m["expired_unfetched"] != "2" { // never, peeked
		t.Fatalf("reclaimed %s expired_unfetched %s", m["reclaimed"], m["expired_unfetched"])
	}
	c.expect("stats reset\r\n", "RESET\r\n")
	if m := statsMap(t, c, ""); m["expired_unfetched"] != "0" {
		t.Fatalf("after reset: %s", m["expired_unfetched"])
	}
}

// evicted_unfetched counts the evicted items never read; stats items shows
// the same figures.
func TestStatsEvictedUnfetched(t *testing.T) {
	env := newTestEnv(t)
	env.eng.SetEviction(engine.Eviction{Policy: engine.AllKeysLRU, Samples: 64})
	c := env.client()
	val := strings.Repeat("v", 1000)
	var in strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&in, "set k%d 0 0 %d\r\n%s\r\n", i, len(val), val)
	}
	c.send(in.String())
	env.eng.SetMaxMemory(env.eng.UsedMemory() / 2)
	if !env.eng.FreeMemory() {
		t.Fatal("nothing evicted")
	}
	m := statsMap(t, c, "")
	if m["evictions"] == "0" || m["evicted_unfetched"] != m["evictions"] || m["evicted_active"] != "0" {
		t.Fatalf("evictions %s evicted_unfetched %s evicted_active %s", m["evictions"], m["evicted_unfetched"], m["evicted_active"])
	}
	items := statsMap(t, c, " items")
	if items["items:1:evicted"] != m["evictions"] || items["items:1:evicted_unfetched"] != m["evicted_unfetched"] {
		t.Fatalf("stats items: %v", items)
	}
}

// The fetched bit survives what memcached does in place (incr, md I) and
// mg N counts as the first fetch of the item it creates, as in 1.6.18.
func TestFetchedInPlace(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("mg x N30 h\r\nmg x h\r\n", "HD h0 W\r\nHD h1 Z\r\n")
	c.expect("mg y N30 h u\r\nmg y h\r\n", "HD h0 W\r\nHD h0 Z\r\n")
	c.expect("set z 0 0 1\r\n1\r\nget z\r\nincr z 1\r\nmn\r\nmg z h\r\n", "STORED\r\nVALUE z 0 1\r\n1\r\nEND\r\n2\r\nMN\r\nHD h1\r\n")
	c.expect("md z I\r\nmg z h\r\n", "HD\r\nHD h1 X W\r\n")
	c.expect("set z 0 0 1\r\n1\r\nmg z h\r\n", "STORED\r\nHD h0\r\n")
}
