package engine

// Blocking sorted-set pops (BZPOPMIN, BZPOPMAX, BZMPOP): the machinery of
// blocking.go with the hand-off zsetPopCopies, as BLPopEnd for lists.

// BZPop pops up to count of the lowest (highest when max) members of
// the first non-empty sorted set of keys, in one transaction over the keys.
// A key of another type met first fails with ErrWrongType. When every key
// is missing and w is not nil, w is queued on each key, under the same
// locks as the check: the first write that gives one of them a sorted set
// hands the waiter its pop (Waiter.ZSetResult) and wakes it. The caller
// calls w.Done once the command completed, or w.Cancel on timeout or
// disconnect. It returns nil, nil when nothing was popped.
func (d DB) BZPop(keys [][]byte, max bool, count int, w *Waiter) (*ZPopResult, error) {
	n := count
	if n < 1 {
		n = 1
	}
	var res *ZPopResult
	err := d.WithKeys(keys, func(tx *KeyTx) error {
		i, err := tx.firstOfType(TypeZSet)
		if err != nil {
			return err
		}
		if i >= 0 {
			_, err := tx.Aggregate(i, TypeZSet, nil, func(a aggregate) (bool, error) {
				res = zsetPopCopies(a, keys[i], max, n)
				return len(res.Members) > 0, nil
			})
			return err
		}
		if w != nil {
			w.typ = TypeZSet
			w.take = func(key []byte, a aggregate) { w.result = zsetPopCopies(a, key, max, n) }
			w.popClass, w.popEvent, w.popCount = ClassZSet, "zpopmin", count
			if max {
				w.popEvent = "zpopmax"
			}
			for i := range keys {
				tx.register(i, w)
			}
		}
		return nil
	})
	return res, err
}

// ZSetResult returns what a write handed to a waiter of BZPop, or
// nil when it has not been served.
func (w *Waiter) ZSetResult() *ZPopResult {
	r, _ := w.Result().(*ZPopResult)
	return r
}
