package memproto

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/latency"
)

// counters are the front-end's statistics, as memcached's "stats" names
// them. Keyspace facts (curr_items, bytes, evictions, reclaimed) come from
// the engine instead.
type counters struct {
	cmdGet, cmdSet, cmdFlush, cmdTouch, cmdMeta atomic.Int64
	getHits, getMisses                          atomic.Int64
	deleteHits, deleteMisses                    atomic.Int64
	incrHits, incrMisses, decrHits, decrMisses  atomic.Int64
	casHits, casMisses, casBadval               atomic.Int64
	touchHits, touchMisses                      atomic.Int64
	storeTooLarge, storeNoMemory                atomic.Int64
	bytesRead, bytesWritten                     atomic.Int64
	currConns, totalConns, rejectedConns        atomic.Int64
	totalItems                                  atomic.Int64
	authCmds, authErrors                        atomic.Int64 // logins tried, refused (auth.go)
}

// reset zeroes what "stats reset" zeroes (memcached keeps the connection
// gauges and the item counts).
func (c *counters) reset() {
	for _, v := range []*atomic.Int64{
		&c.cmdGet, &c.cmdSet, &c.cmdFlush, &c.cmdTouch, &c.cmdMeta,
		&c.getHits, &c.getMisses, &c.deleteHits, &c.deleteMisses,
		&c.incrHits, &c.incrMisses, &c.decrHits, &c.decrMisses,
		&c.casHits, &c.casMisses, &c.casBadval, &c.touchHits, &c.touchMisses,
		&c.storeTooLarge, &c.storeNoMemory, &c.bytesRead, &c.bytesWritten,
		&c.rejectedConns, &c.totalItems, &c.authCmds, &c.authErrors,
	} {
		v.Store(0)
	}
	c.totalConns.Store(c.currConns.Load())
}

// statsWriter appends statistics: "STAT <name> <value>\r\n" lines ended
// by "END", or for a binary Stat request (bin) one reply each, ended by an
// empty one.
type statsWriter struct {
	b   []byte
	bin *binRequest
}

func (w *statsWriter) str(name, v string) {
	if w.bin != nil {
		w.b = appendBinStat(w.b, w.bin, name, v)
		return
	}
	w.b = append(w.b, "STAT "...)
	w.b = append(w.b, name...)
	w.b = append(w.b, ' ')
	w.b = append(w.b, v...)
	w.b = append(w.b, '\r', '\n')
}

func (w *statsWriter) int(name string, v int64) { w.str(name, strconv.FormatInt(v, 10)) }

func (w *statsWriter) end() {
	if w.bin != nil {
		w.b = appendBinStat(w.b, w.bin, "", "")
		return
	}
	w.b = append(w.b, "END\r\n"...)
}

// appendBinStat appends one binary Stat reply: the statistic's name as
// its key, its value as the value; CAS 0.
func appendBinStat(b []byte, r *binRequest, name, v string) []byte {
	b = append(b, binResMagic, r.opcode, byte(len(name)>>8), byte(len(name)), 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)+len(v)))
	b = binary.BigEndian.AppendUint32(b, r.opaque)
	b = binary.BigEndian.AppendUint64(b, 0)
	return append(append(b, name...), v...)
}

// resetStats is "stats reset": the counters, the engine's statistics and
// the per-prefix detail counts (memcached's stats_prefix_clear).
func (fe *Frontend) resetStats() {
	fe.stats.reset()
	fe.eng.ResetStats()
	fe.prefixes.clear()
	fe.cmdLatency.Reset(latency.ProtocolMemcached)
}

// stats serves "stats [group ...]".
func (s *session) stats(r *Request) {
	fe := s.fe
	w := statsWriter{b: s.out}
	sub := ""
	if r.nt > 2 {
		sub = string(r.toks[1])
	}
	switch sub {
	case "":
		fe.generalStats(&w)
	case "reset":
		fe.resetStats()
		s.line(r, replyReset)
		return
	case "detail":
		s.statsDetail(r)
		return
	case "settings":
		fe.settingsStats(&w)
	case "cachedump":
		s.cachedump(r)
		return
	case "conns":
		fe.connStats(&w)
	case "items":
		fe.itemStats(&w)
	case "slabs":
		fe.slabStats(&w)
	case "sizes":
		w.str("sizes_status", "disabled")
	case "extstore":
	default:
		s.line(r, errUnknown)
		return
	}
	w.end()
	s.out = w.b
}

// generalStats is "stats": memcached 1.6's names in its order. Counters
// of memcached machinery Tandem does not have are reported as 0.
func (fe *Frontend) generalStats(w *statsWriter) {
	now := fe.clock.NowMs()
	c := &fe.stats
	es := fe.eng.Stats()
	user, system := rusage()
	w.int("pid", int64(os.Getpid()))
	w.int("uptime", (now-fe.startMs)/1000)
	w.int("time", now/1000)
	w.str("version", fe.version)
	w.str("libevent", "gnet")
	w.int("pointer_size", strconv.IntSize)
	w.str("rusage_user", user)
	w.str("rusage_system", system)
	w.int("max_connections", int64(fe.cfg.MaxClients()))
	w.int("curr_connections", c.currConns.Load())
	w.int("total_connections", c.totalConns.Load())
	w.int("rejected_connections", c.rejectedConns.Load())
	w.int("connection_structures", c.currConns.Load())
	for _, name := range []string{"response_obj_oom", "response_obj_count", "response_obj_bytes",
		"read_buf_count", "read_buf_bytes", "read_buf_bytes_free", "read_buf_oom", "reserved_fds"} {
		w.int(name, 0)
	}
	w.int("cmd_get", c.cmdGet.Load())
	w.int("cmd_set", c.cmdSet.Load())
	w.int("cmd_flush", c.cmdFlush.Load())
	w.int("cmd_touch", c.cmdTouch.Load())
	w.int("cmd_meta", c.cmdMeta.Load())
	w.int("get_hits", c.getHits.Load())
	w.int("get_misses", c.getMisses.Load())
	w.int("get_expired", 0) // the engine does not tell an expired miss apart
	w.int("get_flushed", 0)
	w.int("delete_misses", c.deleteMisses.Load())
	w.int("delete_hits", c.deleteHits.Load())
	w.int("incr_misses", c.incrMisses.Load())
	w.int("incr_hits", c.incrHits.Load())
	w.int("decr_misses", c.decrMisses.Load())
	w.int("decr_hits", c.decrHits.Load())
	w.int("cas_misses", c.casMisses.Load())
	w.int("cas_hits", c.casHits.Load())
	w.int("cas_badval", c.casBadval.Load())
	w.int("touch_hits", c.touchHits.Load())
	w.int("touch_misses", c.touchMisses.Load())
	w.int("store_too_large", c.storeTooLarge.Load())
	w.int("store_no_memory", c.storeNoMemory.Load())
	w.int("auth_cmds", c.authCmds.Load())
	w.int("auth_errors", c.authErrors.Load())
	w.int("bytes_read", c.bytesRead.Load())
	w.int("bytes_written", c.bytesWritten.Load())
	w.int("limit_maxbytes", fe.cfg.MaxMemory()) // maxmemory: chosen at start when not configured, 0 when unlimited
	w.int("accepting_conns", 1)
	w.int("listen_disabled_num", 0)
	w.int("time_in_listen_disabled_us", 0)
	w.int("threads", int64(runtime.GOMAXPROCS(0)))
	for _, name := range []string{"conn_yields", "hash_power_level", "hash_bytes", "hash_is_expanding",
		"slab_reassign_rescues", "slab_reassign_chunk_rescues", "slab_reassign_evictions_nomem",
		"slab_reassign_inline_reclaim", "slab_reassign_busy_items", "slab_reassign_busy_deletes",
		"slab_reassign_running", "slabs_moved", "lru_crawler_running", "lru_crawler_starts",
		"lru_maintainer_juggles", "malloc_fails"} {
		w.int(name, 0)
	}
	ls := fe.log.Stats() // watch (package mclog)
	w.int("log_worker_dropped", ls.WorkerDropped)
	w.int("log_worker_written", ls.WorkerWritten)
	w.int("log_watcher_skipped", ls.WatcherSkip)
	w.int("log_watcher_sent", ls.WatcherSent)
	w.int("log_watchers", int64(ls.Watchers))
	w.int("unexpected_napi_ids", 0)
	w.int("round_robin_fallback", 0)
	w.int("bytes", fe.eng.UsedMemoryExact()) // INFO's used_memory
	w.int("curr_items", int64(fe.db.Size()))
	w.int("total_items", c.totalItems.Load())
	w.int("slab_global_page_pool", 0)
	// Keys expired or evicted whose value was never read, through either
	// protocol (the engine's fetched bit). Like evictions and reclaimed,
	// they count every database, not only the one memcached sees.
	w.int("expired_unfetched", es.ExpiredUnfetched)
	w.int("evicted_unfetched", es.EvictedUnfetched)
	// memcached's evicted_active counts items evicted from the cold end of
	// its segmented LRU while flagged active (hit again, not yet moved to
	// the warm queue). No policy here has that state: 0.
	w.int("evicted_active", 0)
	w.int("evictions", es.EvictedKeys)
	// memcached counts the entries whose memory an expired one gave back;
	// here every expired key removed frees its memory.
	w.int("reclaimed", es.ExpiredKeys)
	for _, name := range []string{"crawler_reclaimed", "crawler_items_checked", "lrutail_reflocked",
		"moves_to_cold", "moves_to_warm", "moves_within_lru", "direct_reclaims", "lru_bumps_dropped"} {
		w.int(name, 0)
	}
}

// rusage returns the process's user and system CPU time as memcached
// prints them (seconds.microseconds).
func rusage() (user, system string) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return "0.000000", "0.000000"
	}
	tv := func(t syscall.Timeval) string {
		us := strconv.FormatInt(int64(t.Usec), 10)
		for len(us) < 6 {
			us = "0" + us
		}
		return strconv.FormatInt(int64(t.Sec), 10) + "." + us
	}
	return tv(ru.Utime), tv(ru.Stime)
}

// settingsStats is "stats settings": memcached's names, Tandem's values
// where Tandem has the setting, memcached's defaults otherwise.
func (fe *Frontend) settingsStats(w *statsWriter) {
	cfg := fe.cfg
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	onOff := "on"
	if cfg.MaxMemoryPolicy() == conf.NoEviction {
		onOff = "off"
	}
	inter := "NULL"
	if b := cfg.Bind(); len(b) > 0 {
		inter = b[0]
	}
	w.int("maxbytes", cfg.MaxMemory())
	w.int("maxconns", int64(cfg.MaxClients()))
	w.int("tcpport", int64(cfg.MemcachedPort()))
	w.int("udpport", 0)
	w.str("inter", inter)
	w.int("verbosity", int64(fe.verbosity.Load()))
	w.int("oldest", 0)
	w.str("evictions", onOff)
	w.str("domain_socket", "NULL")
	w.str("umask", "700")
	w.str("shutdown_command", yesNo(cfg.MemcachedEnableShutdown()))
	w.str("growth_factor", "1.25")
	w.int("chunk_size", 48)
	w.int("num_threads", int64(runtime.GOMAXPROCS(0)))
	w.int("num_threads_per_udp", int64(runtime.GOMAXPROCS(0)))
	w.str("stat_key_prefix", ":")
	w.str("detail_enabled", yesNo(fe.prefixes.enabled.Load()))
	w.int("reqs_per_event", 20)
	w.str("cas_enabled", "yes")
	w.int("tcp_backlog", int64(cfg.TCPBacklog()))
	w.str("binding_protocol", [...]string{"auto-negotiate", "ascii", "binary"}[fe.cfg.MemcachedBindingProtocol()])
	w.str("auth_enabled_sasl", yesNo(fe.users.AuthRequired()))
	w.str("auth_enabled_ascii", yesNo(fe.users.AuthRequired())) // memcached: the auth file's name, or "no"
	w.int("item_size_max", cfg.ItemSizeMax())
	w.str("maxconns_fast", "yes")
	w.int("hashpower_init", 0)
	w.str("slab_reassign", "no")
	w.int("slab_automove", 0)
	w.str("slab_automove_ratio", "0.80")
	w.int("slab_automove_window", 30)
	w.str("slab_chunk_max", strconv.FormatInt(cfg.ItemSizeMax()/2, 10))
	cs := &fe.crawler
	w.str("lru_crawler", yesNo(!cs.disabled.Load()))
	w.int("lru_crawler_sleep", int64(cs.sleepOrDefault()))
	w.int("lru_crawler_tocrawl", int64(cs.tocrawl.Load()))
	w.int("tail_repair_time", 0)
	w.str("flush_enabled", yesNo(!cfg.MemcachedDisableFlushAll()))
	w.str("dump_enabled", "yes")
	w.str("hash_algorithm", "maphash")
	w.str("lru_maintainer_thread", "no")
	// memcached's segmented LRU tuning ("lru tune", "lru mode"): accepted,
	// with no machinery behind them, so its defaults are shown.
	w.str("lru_segmented", "no")
	w.int("hot_lru_pct", 20)
	w.int("warm_lru_pct", 40)
	w.str("hot_max_factor", "0.20")
	w.str("warm_max_factor", "2.00")
	w.str("temp_lru", "no")
	w.int("temporary_ttl", 61)
	w.int("idle_timeout", int64(cfg.Timeout().Seconds()))
	w.int("watcher_logbuf_size", int64(fe.log.BufferSize()))
	w.int("worker_logbuf_size", 65536)
	w.int("read_buf_mem_limit", 0)
	w.str("track_sizes", "no")
	w.str("inline_ascii_response", "no")
	// memcached built with extstore (Debian's is) prints its settings
	// whether or not a store is configured; Tandem has none: its defaults.
	for _, kv := range [][2]string{{"ext_item_size", "512"}, {"ext_item_age", "4294967295"},
		{"ext_low_ttl", "0"}, {"ext_recache_rate", "2000"}, {"ext_wbuf_size", "4194304"},
		{"ext_compact_under", "0"}, {"ext_drop_under", "0"}, {"ext_max_sleep", "1000000"},
		{"ext_max_frag", "0.80"}, {"slab_automove_freeratio", "0.010"}, {"ext_drop_unread", "no"}} {
		w.str(kv[0], kv[1])
	}
	// TLS is served on memcached-tls-port, next to the plain port, not
	// through memcached's -Z switch: memcached's view of this port.
	for _, kv := range [][2]string{{"ssl_enabled", "no"}, {"ssl_chain_cert", "(null)"}, {"ssl_key", "(null)"},
		{"ssl_verify_mode", "0"}, {"ssl_keyformat", "1"}, {"ssl_ciphers", "NULL"}, {"ssl_ca_cert", "NULL"},
		{"ssl_wbuf_size", "16384"}, {"ssl_session_cache", "no"}, {"ssl_kernel_tls", "no"},
		{"ssl_min_version", "tlsv1.2"}, {"num_napi_ids", "(null)"}, {"memory_file", "(null)"}} {
		w.str(kv[0], kv[1])
	}
}

// itemStats is "stats items": Tandem keeps no slab classes, so everything
// is reported as class 1.
func (fe *Frontend) itemStats(w *statsWriter) {
	n := int64(fe.db.Size())
	if n == 0 {
		return
	}
	es := fe.eng.Stats()
	c := &fe.stats
	w.int("items:1:number", n)
	// No hot, warm or cold segments: every item counts as cold, where
	// memcached's flat LRU mode keeps them too.
	w.int("items:1:number_hot", 0)
	w.int("items:1:number_warm", 0)
	w.int("items:1:number_cold", n)
	w.int("items:1:age_hot", 0)
	w.int("items:1:age_warm", 0)
	w.int("items:1:age", 0)
	w.int("items:1:mem_requested", fe.eng.UsedMemoryExact())
	w.int("items:1:evicted", es.EvictedKeys)
	w.int("items:1:evicted_nonzero", 0)
	w.int("items:1:evicted_time", 0)
	w.int("items:1:outofmemory", c.storeNoMemory.Load())
	w.int("items:1:tailrepairs", 0)
	w.int("items:1:reclaimed", es.ExpiredKeys)
	w.int("items:1:expired_unfetched", es.ExpiredUnfetched)
	w.int("items:1:evicted_unfetched", es.EvictedUnfetched)
	for _, name := range []string{"evicted_active", "crawler_reclaimed", "crawler_items_checked",
		"lrutail_reflocked", "moves_to_cold", "moves_to_warm", "moves_within_lru", "direct_reclaims"} {
		w.int("items:1:"+name, 0)
	}
	w.int("items:1:hits_to_hot", 0)
	w.int("items:1:hits_to_warm", 0)
	w.int("items:1:hits_to_cold", c.getHits.Load())
	w.int("items:1:hits_to_temp", 0)
}

// slabStats is "stats slabs": one pseudo class holding every item.
func (fe *Frontend) slabStats(w *statsWriter) {
	n := int64(fe.db.Size())
	used := fe.eng.UsedMemoryExact()
	if n > 0 {
		c := &fe.stats
		w.int("1:chunk_size", used/n)
		w.int("1:chunks_per_page", 0)
		w.int("1:total_pages", 0)
		w.int("1:total_chunks", n)
		w.int("1:used_chunks", n)
		w.int("1:free_chunks", 0)
		w.int("1:free_chunks_end", 0)
		w.int("1:get_hits", c.getHits.Load())
		w.int("1:cmd_set", c.cmdSet.Load())
		w.int("1:delete_hits", c.deleteHits.Load())
		w.int("1:incr_hits", c.incrHits.Load())
		w.int("1:decr_hits", c.decrHits.Load())
		w.int("1:cas_hits", c.casHits.Load())
		w.int("1:cas_badval", c.casBadval.Load())
		w.int("1:touch_hits", c.touchHits.Load())
		w.int("active_slabs", 1)
	} else {
		w.int("active_slabs", 0)
	}
	w.int("total_malloced", used)
}

// connStats is "stats conns": one group per connection, keyed by its
// socket descriptor as memcached does.
func (fe *Frontend) connStats(w *statsWriter) {
	now := fe.clock.NowMs() / 1000
	fe.sessions.Range(func(_, v any) bool {
		s := v.(*session)
		fd := strconv.Itoa(s.peer.FD())
		w.str(fd+":addr", "tcp:"+s.peer.RemoteAddr())
		w.str(fd+":listen_addr", "tcp:"+s.peer.LocalAddr())
		w.str(fd+":state", "conn_parse_cmd")
		w.int(fd+":secs_since_last_cmd", now-s.lastCmd.Load())
		return true
	})
}

// statsDetail serves "stats detail on|off|dump".
func (s *session) statsDetail(r *Request) {
	arg := ""
	if r.nt >= 4 {
		arg = string(r.toks[2])
	}
	switch arg {
	case "on":
		s.fe.prefixes.enabled.Store(true)
		s.line(r, replyOK)
	case "off":
		s.fe.prefixes.enabled.Store(false)
		s.line(r, replyOK)
	case "dump":
		s.out = s.fe.prefixes.dump(s.out)
	default:
		s.line(r, errStatsDetailUsage)
	}
}

// cachedump serves "stats cachedump <class> <limit>": class 1 lists keys
// of database 0 (strings only) as "ITEM <key> [<bytes> b; <expiry> s]",
// the expiry in unix seconds or 0; other classes are empty.
func (s *session) cachedump(r *Request) {
	if r.nt < 5 {
		s.line(r, errStatsBadLine)
		return
	}
	id, ok1 := parseUint32(r.toks[2])
	limit, ok2 := parseUint32(r.toks[3])
	switch {
	case !ok1 || !ok2:
		s.line(r, errBadFormat)
		return
	case id >= 64: // MAX_NUMBER_OF_SLAB_CLASSES
		s.line(r, errIllegalSlabID)
		return
	}
	b := s.out
	if id == 1 {
		db := s.fe.db
		db.NoTouch = true
		var keys [][]byte
		var cursor uint64
		for {
			cursor = db.Scan(cursor, 256, nil, engine.TypeString, func(k []byte) {
				keys = append(keys, append([]byte(nil), k...))
			})
			if cursor == 0 || (limit > 0 && len(keys) >= int(limit)) {
				break
			}
		}
		if limit > 0 && len(keys) > int(limit) {
			keys = keys[:limit]
		}
		for _, k := range keys {
			it, ok, _ := db.Get(k)
			if !ok {
				continue
			}
			b = append(b, "ITEM "...)
			b = append(b, k...)
			b = append(b, " ["...)
			b = appendUint(b, uint64(len(it.Value)))
			b = append(b, " b; "...)
			b = appendInt(b, (it.ExpireAt+999)/1000)
			b = append(b, " s]\r\n"...)
		}
	}
	s.out = append(b, "END\r\n"...)
}

// prefixStats are memcached's per-prefix counters ("stats detail"): keys
// are grouped by what precedes their first ':'; keys without one are not
// counted. Only the text get, set and delete commands record, as in
// memcached.
type prefixStats struct {
	enabled atomic.Bool
	mu      sync.Mutex
	// buckets mirror memcached's table (murmur3 of the prefix, 256
	// buckets, newest first) so that dump lists prefixes in its order.
	buckets [256][]*prefixEntry
}

type prefixEntry struct {
	prefix                 string
	gets, hits, sets, dels uint64
}

// find returns key's entry, creating it; nil when key has no prefix. The
// lock must be held.
func (p *prefixStats) find(key []byte) *prefixEntry {
	i := bytes.IndexByte(key, ':')
	if i < 0 {
		return nil
	}
	prefix := key[:i]
	bucket := &p.buckets[murmur3(prefix)%uint32(len(p.buckets))]
	for _, e := range *bucket {
		if e.prefix == string(prefix) {
			return e
		}
	}
	e := &prefixEntry{prefix: string(prefix)}
	*bucket = append([]*prefixEntry{e}, *bucket...)
	return e
}

func (p *prefixStats) record(key []byte, fn func(e *prefixEntry)) {
	if !p.enabled.Load() {
		return
	}
	p.mu.Lock()
	if e := p.find(key); e != nil {
		fn(e)
	}
	p.mu.Unlock()
}

// clear forgets every prefix.
func (p *prefixStats) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buckets = [256][]*prefixEntry{}
}

func (p *prefixStats) recordGet(key []byte, hit bool) {
	if !p.enabled.Load() {
		return
	}
	p.record(key, func(e *prefixEntry) {
		e.gets++
		if hit {
			e.hits++
		}
	})
}

func (p *prefixStats) recordSet(key []byte) {
	if !p.enabled.Load() {
		return
	}
	p.record(key, func(e *prefixEntry) { e.sets++ })
}

func (p *prefixStats) recordDelete(key []byte) {
	if !p.enabled.Load() {
		return
	}
	p.record(key, func(e *prefixEntry) { e.dels++ })
}

// dump appends "PREFIX <p> get <n> hit <n> set <n> del <n>" lines and END.
func (p *prefixStats) dump(b []byte) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, bucket := range p.buckets {
		for _, e := range bucket {
			b = append(b, "PREFIX "...)
			b = append(b, e.prefix...)
			b = appendUint(append(b, " get "...), e.gets)
			b = appendUint(append(b, " hit "...), e.hits)
			b = appendUint(append(b, " set "...), e.sets)
			b = appendUint(append(b, " del "...), e.dels)
			b = append(b, '\r', '\n')
		}
	}
	return append(b, "END\r\n"...)
}

// murmur3 is MurmurHash3_x86_32 with seed 0, memcached's default hash.
func murmur3(data []byte) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	rotl := func(x uint32, r uint) uint32 { return x<<r | x>>(32-r) }
	var h uint32
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		k *= c1
		k = rotl(k, 15)
		k *= c2
		h ^= k
		h = rotl(h, 13)
		h = h*5 + 0xe6546b64
	}
	tail := data[4*n:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = rotl(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
