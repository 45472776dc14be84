package engine

import (
	"testing"
	"time"
)

// TestReplicaExpiresOnlyItsOwnKeys: while keys expire by the master's
// DELs, the expiry cycle reclaims the keys the replica's own clients gave
// a TTL (SET EX, EXPIRE) and leaves the master's, which read as missing;
// a key whose TTL was removed, or that an INCR wrote keeping the master's
// TTL, is not the replica's to expire. As Redis 7.0's writable replica
// (tests/integration/replication-3.tcl, "Slave is able to evict keys
// created in writable slaves", "Writable replica doesn't return expired
// keys").
func TestReplicaExpiresOnlyItsOwnKeys(t *testing.T) {
	clock := NewManualClock(1_700_000_000_000)
	eng := New(Options{Clock: clock, ShardBits: 2, Databases: 2})
	eng.SetExpiryByMaster(true)
	master, own := eng.DB(0), eng.DB(0)
	master.FromMaster = true
	ttl := func(ms int64) SetOptions { return SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + ms} }
	mustSet := func(d DB, key string, o SetOptions) {
		t.Helper()
		if _, err := d.Set([]byte(key), []byte("1"), o); err != nil {
			t.Fatal(err)
		}
	}
	mustSet(master, "m1", ttl(100))
	mustSet(master, "m2", ttl(100))
	mustSet(master, "counter", ttl(100))
	mustSet(own, "o-set", ttl(100))
	mustSet(own, "o-persisted", ttl(100))
	own.Persist([]byte("o-persisted"))
	mustSet(own, "o-expire", SetOptions{})
	own.Expire([]byte("o-expire"), clock.NowMs()+100, 0)
	other := eng.DB(1)
	mustSet(other, "o-db1", ttl(100))
	if _, err := own.IncrBy([]byte("counter"), 1); err != nil { // keeps the master's TTL
		t.Fatal(err)
	}
	if n := eng.OwnExpiringKeys(); n != 4 {
		t.Fatalf("remembered %d keys, want o-set, o-persisted, o-expire, o-db1", n)
	}

	clock.Advance(200 * time.Millisecond)
	if n := eng.ActiveExpireCycle(time.Second); n != 3 {
		t.Fatalf("cycle reclaimed %d keys, want o-set, o-expire, o-db1", n)
	}
	if got := own.Size(); got != 4 { // m1, m2, counter (expired, in place), o-persisted
		t.Fatalf("db 0 holds %d keys, want 4", got)
	}
	if other.Size() != 0 {
		t.Fatal("db 1's own key not reclaimed")
	}
	if n := eng.OwnExpiringKeys(); n != 0 {
		t.Fatalf("%d keys still remembered", n)
	}
	if _, ok, _ := own.Get([]byte("m1")); ok {
		t.Fatal("the master's expired key reads as present")
	}
	// A client's write to the master's expired key replaces it, with no
	// TTL (Redis's INCR on a writable replica: 1, TTL -1).
	if v, err := own.IncrBy([]byte("m2"), 1); err != nil || v != 1 {
		t.Fatalf("INCR of an expired key: %d %v", v, err)
	}
	if info, ok := own.Info([]byte("m2")); !ok || info.ExpireAt != 0 {
		t.Fatalf("m2 after INCR: %+v %v", info, ok)
	}
	if got := own.Size(); got != 4 {
		t.Fatalf("db 0 holds %d keys after the INCR, want 4", got)
	}

	// Promoted, the server expires every key itself again.
	eng.SetExpiryByMaster(false)
	if n := eng.ActiveExpireCycle(time.Second); n != 2 {
		t.Fatalf("a master's cycle reclaimed %d keys, want m1 and counter", n)
	}
}
