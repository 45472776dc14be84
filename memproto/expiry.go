package memproto

import "github.com/tandemkv/tandem/engine"

// Expiration times, as memcached reads them (its realtime() after
// EXPTIME_TO_POSITIVE_TIME), in the engine's unix milliseconds:
//
//	0                  never expires
//	negative           already expired
//	1 .. 2592000       seconds from now (up to 30 days)
//	above 2592000      absolute unix time; in the past means expired
//
// Every time comes from the engine's clock.

// maxRelativeExptime is memcached's REALTIME_MAXDELTA: 30 days.
const maxRelativeExptime = 60 * 60 * 24 * 30

// expiredAt is an expiry instant certainly in the past: the engine deletes
// a key written or touched with it.
const expiredAt = 1

// memcachedClockOffset: memcached's clock counts seconds from a
// process_started set this far before the real start (ITEM_UPDATE_INTERVAL
// + 2), and Tandem mimics it where the raw clock leaks into a reply.
const memcachedClockOffset = 62

// expireAt converts exptime to an engine expiry: ms = 0 for none.
func (f *Frontend) expireAt(exptime int32) int64 {
	switch {
	case exptime == 0:
		return 0
	case exptime < 0:
		return expiredAt
	case exptime <= maxRelativeExptime:
		return f.clock.NowMs() + int64(exptime)*1000
	}
	at := int64(exptime) * 1000
	if at <= f.clock.NowMs() {
		return expiredAt
	}
	return at
}

// ttlMode returns the SetOptions fields for exptime.
func (f *Frontend) ttlMode(exptime int32) (engine.TTLMode, int64) {
	at := f.expireAt(exptime)
	if at == 0 {
		return engine.TTLClear, 0
	}
	return engine.TTLSet, at
}

// expireChange returns the GetEx change for exptime (gat, touch, mg T).
func (f *Frontend) expireChange(exptime int32) engine.ExpireChange {
	mode, at := f.ttlMode(exptime)
	return engine.ExpireChange{Mode: mode, At: at}
}

// ttlSeconds is the remaining time to live that meta commands return for
// an item expiring at expireAt (unix ms, 0 = never): -1 for none, else the
// seconds left, rounded up as memcached's whole-second clock shows them.
// An item that this very request made expire (T-1, or an absolute time in
// the past, given as exptime) shows what memcached shows: its expiry minus
// its clock, wrapped to 32 bits.
func (f *Frontend) ttlSeconds(expireAt int64, exptime int32) int64 {
	switch expireAt {
	case 0:
		return -1
	case expiredAt:
		current := (f.clock.NowMs()-f.startMs)/1000 + memcachedClockOffset
		rel := int64(1)
		if exptime > maxRelativeExptime {
			started := f.startMs/1000 - memcachedClockOffset
			if int64(exptime) > started {
				rel = int64(exptime) - started
			}
		}
		return int64(uint32(rel - current))
	}
	return (max(expireAt-f.clock.NowMs(), 0) + 999) / 1000
}
