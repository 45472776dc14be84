package memproto

import (
	"bytes"
	"sync/atomic"

	"github.com/tandemkv/tandem/engine"
)

// lru_crawler. memcached's crawler is a thread that walks its LRUs to
// reclaim expired items (crawl) or to list every live item to a client
// (metadump). Tandem's active expiry does the reclaiming, so crawl checks
// its arguments as memcached does and answers OK; metadump lists the
// strings of database 0 (what memcached commands read) from the engine's
// own scan. The switches (enable, disable, sleep, tocrawl) are kept so
// that crawl, metadump and "stats settings" follow them as memcached's do.

// crawlerSettings are lru_crawler's settings, shared by every connection.
type crawlerSettings struct {
	disabled atomic.Bool   // lru_crawler disable (memcached starts with it enabled)
	sleep    atomic.Uint32 // lru_crawler sleep <µs>; 0 until set: see sleepOrDefault
	sleepSet atomic.Bool
	tocrawl  atomic.Uint32 // lru_crawler tocrawl <n>
}

// defaultCrawlerSleep is memcached's lru_crawler_sleep default, in µs.
const defaultCrawlerSleep = 100

func (c *crawlerSettings) sleepOrDefault() uint32 {
	if !c.sleepSet.Load() {
		return defaultCrawlerSleep
	}
	return c.sleep.Load()
}

// Slab class ids a crawl may name: memcached's POWER_SMALLEST up to
// MAX_NUMBER_OF_SLAB_CLASSES (exclusive).
const (
	minSlabClass = 1
	maxSlabClass = 64
)

// Replies of lru_crawler, as memcached words them.
const (
	errCrawlerDisabled  = "CLIENT_ERROR lru crawler disabled"
	errCrawlerBadClass  = "BADCLASS invalid class id"
	errCrawlerNotStart  = "NOTSTARTED no items to crawl"
	errCrawlerUnknown   = "ERROR an unknown error happened"
	errCrawlerStart     = "ERROR failed to start lru crawler thread"
	errMetadumpPipeline = "ERROR cannot pipeline other commands before metadump"
)

// crawlTarget is what a crawl's argument names.
type crawlTarget uint8

const (
	crawlNone  crawlTarget = iota // a list naming no class: NOTSTARTED
	crawlAll                      // "all", "hash", or a list naming class 1
	crawlEmpty                    // a list of valid classes, none of them 1: nothing to list
	crawlHash                     // "hash": for metadump only
	crawlBad                      // a class that does not parse or is out of range: BADCLASS
)

// parseCrawlClasses reads a crawl's argument: "all", "hash", or class ids
// separated by commas (empty items skipped, as strtok does). Tandem keeps
// every item in class 1 (see "stats items"), so only a list naming it
// has items to visit.
func parseCrawlClasses(arg []byte) crawlTarget {
	switch string(arg) {
	case "all":
		return crawlAll
	case "hash":
		return crawlHash
	}
	t := crawlNone
	for _, p := range bytes.Split(arg, []byte(",")) {
		if len(p) == 0 {
			continue
		}
		id, ok := parseUint32(p)
		if !ok || id < minSlabClass || id >= maxSlabClass {
			return crawlBad
		}
		if id == 1 {
			t = crawlAll
		} else if t == crawlNone {
			t = crawlEmpty
		}
	}
	return t
}

// lruCrawler serves lru_crawler <crawl|metadump|tocrawl|sleep> <arg> and
// lru_crawler <enable|disable>. It takes no noreply, as memcached's.
func (s *session) lruCrawler(r *Request) {
	cs := &s.fe.crawler
	sub := ""
	if r.nt >= 3 {
		sub = string(r.toks[1])
	}
	switch {
	case r.nt == 4 && sub == "crawl":
		if cs.disabled.Load() {
			s.line(r, errCrawlerDisabled)
			return
		}
		switch parseCrawlClasses(r.toks[2]) {
		case crawlBad:
			s.line(r, errCrawlerBadClass)
		case crawlNone:
			s.line(r, errCrawlerNotStart)
		case crawlHash: // memcached walks the hash table for metadump only
			s.line(r, errCrawlerUnknown)
		default:
			s.line(r, replyOK)
		}
	case r.nt == 4 && sub == "metadump":
		s.metadump(r)
	case r.nt == 4 && sub == "tocrawl":
		v, ok := parseUint32(r.toks[2])
		if !ok {
			s.line(r, errBadFormat)
			return
		}
		cs.tocrawl.Store(v)
		s.line(r, replyOK)
	case r.nt == 4 && sub == "sleep":
		v, ok := parseUint32(r.toks[2])
		switch {
		case !ok:
			s.line(r, errBadFormat)
		case v > 1000000:
			s.line(r, errSleepTooLong)
		default:
			cs.sleep.Store(v)
			cs.sleepSet.Store(true)
			s.line(r, replyOK)
		}
	case r.nt == 3 && sub == "enable":
		if !cs.disabled.CompareAndSwap(true, false) {
			s.line(r, errCrawlerStart) // memcached: its thread already runs
			return
		}
		s.line(r, replyOK)
	case r.nt == 3 && sub == "disable":
		cs.disabled.Store(true)
		s.line(r, replyOK)
	default:
		s.line(r, errUnknown)
	}
}

// metadumpBatch is how many keys one turn of a metadump lists before the
// connection yields its event loop (and the engine's gate) to the others.
const metadumpBatch = 1024

// metadump serves lru_crawler metadump <all|hash|classes>: one line per
// live string of database 0,
//
//	key=<uri-encoded key> exp=<unix s|-1> la=<unix s> cas=<n> fetch=<yes|no> cls=1 size=<n>\n
//
// (memcached ends these lines with a bare \n) and then END\r\n. It lists
// a batch of keys per turn and suspends as a multiget does at the bound
// (pacing.go): the request's line stays unread, the server serves the
// connection again once the socket has taken what is queued, or on the
// loop's next turn, and the scan goes on from its cursor. So a large
// keyspace never holds the loop, nor queues more than the pacing bound.
// Keys written during the dump may or may not be listed, as with SCAN
// (and memcached's crawler, which walks a moving LRU); none present
// throughout is missed.
func (s *session) metadump(r *Request) {
	m := s.resume
	s.resume = multigetResume{}
	resuming := m.crawling && m.cmd == r.Cmd
	if !resuming {
		switch {
		case s.fe.crawler.disabled.Load():
			s.line(r, errCrawlerDisabled)
			return
		case len(s.out) > s.flushed:
			// memcached hands the connection to its crawler thread, which
			// cannot follow replies still queued.
			s.line(r, errMetadumpPipeline)
			return
		}
	}
	switch parseCrawlClasses(r.toks[2]) {
	case crawlBad:
		s.line(r, errCrawlerBadClass)
		return
	case crawlNone:
		s.line(r, errCrawlerNotStart)
		return
	case crawlEmpty:
		s.out = append(s.out, "END\r\n"...)
		return
	}
	cursor := m.cursor
	for {
		cursor = s.metadumpBatch(cursor)
		if cursor == 0 {
			s.out = append(s.out, "END\r\n"...)
			return
		}
		if s.pause() {
			s.resume = multigetResume{cmd: r.Cmd, crawling: true, cursor: cursor}
			s.suspended = true
			return
		}
		// A peer that cannot pause (a test double) is served in one go.
	}
}

// metadumpBatch appends the lines of about metadumpBatch keys from the
// scan at cursor and returns the next cursor (0 at the end).
func (s *session) metadumpBatch(cursor uint64) uint64 {
	db := s.fe.db
	db.NoTouch = true // listing an item does not make it fetched or recent
	var keys [][]byte
	for len(keys) < metadumpBatch {
		cursor = db.Scan(cursor, 256, nil, engine.TypeString, func(k []byte) {
			keys = append(keys, append([]byte(nil), k...))
		})
		if cursor == 0 {
			break
		}
	}
	nowMs := s.fe.clock.NowMs()
	b := s.out
	for _, k := range keys {
		info, ok := db.Info(k)
		if !ok {
			continue
		}
		it, ok, _ := db.Get(k)
		if !ok || it.Type != engine.TypeString {
			continue
		}
		b = appendMetadumpLine(b, k, &it, (nowMs-info.IdleMs)/1000)
		it.Release()
	}
	s.out = b
	return cursor
}

// appendMetadumpLine appends one metadump line; lastAccess is in unix
// seconds.
func appendMetadumpLine(b, key []byte, it *engine.Item, lastAccess int64) []byte {
	b = appendURIEncoded(append(b, "key="...), key)
	b = append(b, " exp="...)
	if it.ExpireAt == 0 {
		b = append(b, "-1"...)
	} else {
		b = appendInt(b, it.ExpireAt/1000)
	}
	b = appendInt(append(b, " la="...), lastAccess)
	b = appendUint(append(b, " cas="...), it.CAS)
	if it.Fetched {
		b = append(b, " fetch=yes"...)
	} else {
		b = append(b, " fetch=no"...)
	}
	b = appendUint(append(b, " cls=1 size="...), uint64(itemTotal(key, it)))
	return append(b, '\n')
}

// itemTotal is the size memcached gives an item (ITEM_ntotal): its header
// with the CAS, the key and its NUL, the value and its "\r\n", and the
// client flags when they are not 0.
func itemTotal(key []byte, it *engine.Item) int {
	size := itemHeaderSize + len(key) + 1 + len(it.Value) + 2
	if it.Flags != 0 {
		size += 4
	}
	return size
}

// appendURIEncoded appends key as memcached's uriencode writes it: ASCII
// letters, digits and "-._~" as they are, every other byte as %XX.
func appendURIEncoded(b, key []byte) []byte {
	const hex = "0123456789ABCDEF"
	for _, c := range key {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}
