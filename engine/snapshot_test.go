package engine

import (
	"fmt"
	"testing"
)

// A snapshot shares records with the live shard. Expiry and CAS fields
// change in place when nothing reads them; while a snapshot may, the
// change writes a new record, so keys still waiting to be visited show
// the values of the barrier.
func TestSnapshotSeesBarrierExpiryAndCAS(t *testing.T) {
	e, clock := newTestEngine(t, 1)
	d := e.DB(0)
	mc := d
	mc.TrackCAS = true
	const n = 200
	before := clock.NowMs() + 60_000
	cas := map[string]uint64{}
	for i := 0; i < n; i++ {
		k := fmt.Sprint("k", i)
		mustSet(t, mc, k, "v", SetOptions{TTL: TTLSet, ExpireAt: before})
		cas[k] = mustSet(t, mc, k, "v", SetOptions{TTL: TTLSet, ExpireAt: before}).CAS
	}
	after := before + 60_000
	visited, changed := 0, false
	err := e.Snapshot(nil, func(it *SnapItem) error {
		if !changed {
			changed = true
			for i := 0; i < n; i++ {
				k := []byte(fmt.Sprint("k", i))
				d.Expire(k, after, 0)
				// A new CAS unique in place, as a change to an
				// aggregate gives one.
				s, h := d.shardOf(k)
				s.lock()
				e.newVersion(&s.shardData, &s.entries[s.lookup(k, h)])
				s.unlock()
			}
		}
		visited++
		if it.ExpireAt != before {
			t.Errorf("%s: expiry %d in the snapshot, %d at the barrier", it.Key, it.ExpireAt, before)
		}
		if it.CAS != cas[string(it.Key)] {
			t.Errorf("%s: CAS %d in the snapshot, %d at the barrier", it.Key, it.CAS, cas[string(it.Key)])
		}
		return nil
	})
	if err != nil || visited != n {
		t.Fatalf("visited %d keys, err %v", visited, err)
	}
	for i := 0; i < n; i++ {
		if at := expireOf(d, fmt.Sprint("k", i)); at != after {
			t.Fatalf("k%d: expiry %d after the snapshot, want %d", i, at, after)
		}
	}
	// After the snapshot, changes are in place again.
	for i := range e.shards {
		if e.shards[i].frozen {
			t.Fatalf("shard %d still frozen", i)
		}
	}
	checkInvariants(t, e)
}
