package engine

import "slices"

// Read access to a sorted set for commands that decide what to read as
// they go, all under one shard lock: the GEO searches look a member's
// score up, then read up to nine score ranges, and GEORADIUS STORE and
// GEOSEARCHSTORE write what they found to another key in the same step,
// as Redis's commands are atomic.

// ZView is a sorted set seen by the function ZViewRead or ZViewStore
// runs. It and the member bytes it hands out are valid only during that
// call.
type ZView struct{ z *zset }

// Score returns member's score.
func (v *ZView) Score(member []byte) (float64, bool) { return v.z.score(member) }

// EachInRange calls fn for the members with min <= score < max, in
// order, until fn returns false.
func (v *ZView) EachInRange(min, max float64, fn func(member []byte, score float64) bool) {
	z := v.z
	lo := z.firstScore(func(s float64) bool { return s >= min })
	z.each(lo, z.length()-lo, false, func(m []byte, s float64) bool {
		return s < max && fn(m, s)
	})
}

// ZViewRead runs fn with a view of the sorted set at key under its shard
// lock, or with nil when the key is missing. A key of another type fails
// with ErrWrongType and fn does not run. The lookup counts as a keyspace
// hit or miss.
func (d DB) ZViewRead(key []byte, fn func(v *ZView)) error {
	found, err := d.zsetRead(key, func(z *zset) { fn(&ZView{z}) })
	if err == nil && !found {
		fn(nil)
	}
	return err
}

// ZViewStore locks src and dst and runs fn with a view of src (nil when
// it is missing; ErrWrongType, fn not run, when it holds another type).
// When fn returns store, dst is replaced, expiry dropped, by a sorted set
// of the members fn returned (distinct, in any order; their bytes may be
// src's) in the encoding Redis gives a computed result, or deleted when
// there are none, "del" notified if it existed.
func (d DB) ZViewStore(dst, src []byte, lim ZsetLimits, fn func(v *ZView) (members []ZMember, store bool)) error {
	return d.WithKeys([][]byte{src, dst}, func(tx *KeyTx) error {
		var (
			members []ZMember
			store   bool
		)
		found, err := tx.readAggregate(0, TypeZSet, func(a aggregate) { members, store = fn(&ZView{a.(*zset)}) })
		if err != nil {
			return err
		}
		if !found {
			members, store = fn(nil)
		}
		if !store {
			return nil
		}
		entries := make([]zentry, len(members))
		for i, m := range members {
			entries[i] = zentry{m.Member, m.Score}
		}
		slices.SortFunc(entries, zentryCmp)
		tx.Store(1, TypeZSet, zsetBuild(entries, lim))
		return nil
	})
}
