package memproto

import "sync/atomic"

// versionSet stands in for a per-item memcached bit without a byte in the
// engine's entries: it remembers the CAS uniques of item versions that have
// the bit. A write gives the key a new CAS unique, so a new version starts
// without the bit, as a new memcached item does. The binary-key bit uses
// it: the version was stored by ms with b, so mg k and me return its key in
// base64. (The fetched bit, mg h and me fetch=, is the engine's own:
// engine.Item.Fetched.)
//
// It is a fixed table of slots indexed by a hash of the CAS: a version
// marked long ago may have lost its slot to a later one and then reads as
// unmarked, but a version never marked never reads as marked. It holds no
// pointers (the GC never scans it), and a slot is written only when a
// version is first marked, so a hot key read on many cores leaves its
// cache line shared.
type versionSet struct {
	slots [versionSlots]atomic.Uint64
}

const (
	versionSlotBits = 16
	versionSlots    = 1 << versionSlotBits
)

func versionSlot(cas uint64) uint64 { return (cas * 0x9e3779b97f4a7c15) >> (64 - versionSlotBits) }

// mark records the version with CAS unique cas.
func (t *versionSet) mark(cas uint64) {
	s := &t.slots[versionSlot(cas)]
	if s.Load() != cas {
		s.Store(cas)
	}
}

// has reports whether the version with CAS unique cas is marked.
func (t *versionSet) has(cas uint64) bool {
	return cas != 0 && t.slots[versionSlot(cas)].Load() == cas
}

// carryBits gives the version newCAS the binary-key bit of version oldCAS,
// for writes that memcached makes in place (incr, md I).
func (fe *Frontend) carryBits(oldCAS, newCAS uint64) {
	if fe.binary.has(oldCAS) {
		fe.binary.mark(newCAS)
	}
}
