package memproto

import (
	"strconv"
)

// Administrative commands. Those that tune memcached internals Tandem does
// not have (slab classes, the LRU crawler, LRU segments) check their
// arguments as memcached does and then change nothing.

// maxVerbosity is memcached's MAX_VERBOSITY_LEVEL.
const maxVerbosity = 2

func adminCommands() []*command {
	return []*command{
		{name: "flush_all", minTokens: 2, maxTokens: 4, write: true, run: (*session).flushAll},
		{name: "version", run: func(s *session, _ *Request) {
			s.out = append(append(s.out, "VERSION "...), s.fe.version...)
			s.crlf()
		}},
		{name: "verbosity", minTokens: 3, maxTokens: 4, run: (*session).verbosityCmd},
		{name: "quit", run: func(s *session, _ *Request) { s.closing = true }},
		{name: "shutdown", run: (*session).shutdownCmd},
		{name: "stats", run: (*session).stats},
		{name: "cache_memlimit", minTokens: 3, maxTokens: 4, run: (*session).cacheMemlimit},
		{name: "slabs", run: (*session).slabs},
		{name: "lru_crawler", run: (*session).lruCrawler},
		{name: "lru", minTokens: 3, run: (*session).lru},
		{name: "watch", run: (*session).watchCmd},
		{name: "extstore", minTokens: 3, run: func(s *session, r *Request) {
			r.NoReply = r.isNoReply(r.nt - 2)
			s.line(r, errUnknown)
		}},
		{name: "refresh_certs", run: func(s *session, r *Request) {
			r.NoReply = r.isNoReply(r.nt - 2)
			s.line(r, errNoTLS)
		}},
	}
}

// flushAll serves flush_all [delay] [noreply] on database 0: every key
// of it, Redis hashes, lists, sets, sorted sets and strings included
// (other databases are untouched), with no keyspace notification, as
// Redis's FLUSHDB. A delay makes every current key of database 0 expire
// then (see engine.DB.FlushExpiring; each then expires as any key, with
// its "expired" notification); unlike memcached, keys written during the
// delay are kept. memcached-disable-flush-all refuses it, as memcached -F.
func (s *session) flushAll(r *Request) {
	fe := s.fe
	fe.stats.cmdFlush.Add(1)
	r.NoReply = r.isNoReply(r.nt - 2)
	if fe.cfg.MemcachedDisableFlushAll() { // memcached -F: counted in cmd_flush all the same
		s.line(r, errFlushDisabled)
		return
	}
	var delay int32
	want := 2
	if r.NoReply {
		want = 3
	}
	if r.nt != want {
		d, ok := parseInt32(r.toks[1])
		if !ok {
			s.line(r, errBadExptime)
			return
		}
		delay = d
	}
	s.flushAfter(delay)
	s.line(r, replyOK)
}

// flushAfter flushes database 0 now (delay 0 or less), or makes every key of
// it expire after delay, an exptime as memcached reads one (expiry.go).
// The effect goes to the write stream (effects.go).
func (s *session) flushAfter(delay int32) {
	fe := s.fe
	now := fe.clock.NowMs()
	switch {
	case delay <= 0:
		fe.flushNow()
		s.propagateFlush(0)
	case delay <= maxRelativeExptime:
		fe.db.FlushExpiring(now + int64(delay)*1000)
		s.propagateFlush(now + int64(delay)*1000)
	default:
		at := int64(delay) * 1000
		switch {
		case at <= fe.startMs-memcachedClockOffset*1000:
			// memcached ignores a time before it started.
		case at <= now:
			fe.flushNow()
			s.propagateFlush(0)
		default:
			fe.db.FlushExpiring(at)
			s.propagateFlush(at)
		}
	}
}

func (fe *Frontend) flushNow() {
	fe.db.Flush()
	fe.marks.clear()
}

// verbosityCmd serves verbosity <level> [noreply]. The level is kept for
// stats settings; Tandem's logging follows its own loglevel.
func (s *session) verbosityCmd(r *Request) {
	r.NoReply = r.isNoReply(r.nt - 2)
	level, ok := parseUint32(r.toks[1])
	if !ok {
		s.line(r, errBadFormat)
		return
	}
	s.fe.verbosity.Store(min(level, maxVerbosity))
	s.line(r, replyOK)
}

// shutdownCmd serves shutdown [graceful], when memcached-enable-shutdown
// allows it. The connection closes without a reply, as in memcached.
func (s *session) shutdownCmd(r *Request) {
	if !s.fe.cfg.MemcachedEnableShutdown() {
		s.line(r, errShutdownDisabled)
		return
	}
	switch {
	case r.nt == 2:
		s.closing = true
		s.fe.shutdown(false)
	case r.nt == 3 && string(r.toks[1]) == "graceful":
		s.closing = true
		s.fe.shutdown(true)
	default:
		s.line(r, errShutdownMode)
	}
}

// cacheMemlimit serves cache_memlimit <megabytes> [noreply]: it sets
// Tandem's maxmemory.
func (s *session) cacheMemlimit(r *Request) {
	r.NoReply = r.isNoReply(r.nt - 2)
	mb, ok := parseUint32(r.toks[1])
	switch {
	case !ok:
		s.line(r, errUnknown)
	case mb < 8:
		s.line(r, errMemlimitTooSmall)
	case mb > 1000000000:
		s.line(r, errMemlimitUnits)
	default:
		bytes := strconv.FormatUint(uint64(mb)<<20, 10)
		if err := s.fe.cfg.Set([2]string{"maxmemory", bytes}); err != nil {
			s.line(r, errMemlimitFailed)
			return
		}
		s.line(r, replyOK)
	}
}

// slabs serves slabs reassign|automove. Tandem has no slab classes.
func (s *session) slabs(r *Request) {
	switch {
	case r.nt == 5 && string(r.toks[1]) == "reassign":
		_, ok1 := parseInt32(r.toks[2])
		_, ok2 := parseInt32(r.toks[3])
		if !ok1 || !ok2 {
			s.line(r, errBadFormat)
			return
		}
		s.line(r, errBadSlabClass)
	case r.nt >= 4 && string(r.toks[1]) == "automove":
		r.NoReply = r.isNoReply(r.nt - 2)
		if string(r.toks[2]) == "ratio" {
			if r.nt < 5 || !isCFloat(r.toks[3]) {
				s.line(r, errUnknown)
				return
			}
			s.line(r, replyOK)
			return
		}
		level, ok := parseUint32(r.toks[2])
		switch {
		case !ok:
			s.line(r, errBadFormat)
		case level > 2:
			s.line(r, errUnknown)
		default:
			s.line(r, replyOK)
		}
	default:
		s.line(r, errUnknown)
	}
}

// lru serves lru tune|mode|temp_ttl.
func (s *session) lru(r *Request) {
	r.NoReply = r.isNoReply(r.nt - 2)
	sub := string(r.toks[1])
	switch {
	case sub == "tune" && r.nt >= 7:
		hot, ok1 := parseUint32(r.toks[2])
		warm, ok2 := parseUint32(r.toks[3])
		hotFactor, ok3 := parseCFloat(r.toks[4])
		factor, ok4 := parseCFloat(r.toks[5])
		switch {
		case !ok1 || !ok2 || !ok3 || !ok4:
			s.line(r, errUnknown)
		case uint64(hot)+uint64(warm) > 80:
			s.line(r, errLRUPercents)
		case factor <= 0 || hotFactor <= 0:
			s.line(r, errLRUFactors)
		default:
			s.line(r, replyOK)
		}
	case sub == "mode" && r.nt >= 4:
		if m := string(r.toks[2]); m == "flat" || m == "segmented" {
			s.line(r, replyOK)
		} else {
			s.line(r, errUnknown)
		}
	case sub == "temp_ttl" && r.nt >= 4:
		if _, ok := parseInt32(r.toks[2]); !ok {
			s.line(r, errUnknown)
			return
		}
		s.line(r, replyOK)
	default:
		s.line(r, errUnknown)
	}
}

// parseCFloat approximates memcached's safe_strtod: a float, then nothing
// or white space.
func parseCFloat(tok []byte) (float64, bool) {
	end := len(tok)
	for i, c := range tok {
		if isCSpace(c) && i > 0 {
			end = i
			break
		}
	}
	f, err := strconv.ParseFloat(string(tok[:end]), 64)
	return f, err == nil
}

func isCFloat(tok []byte) bool {
	_, ok := parseCFloat(tok)
	return ok
}
