package resp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandemkv/tandem/latency"
	"github.com/tandemkv/tandem/services"
)

// INFO: the sections, their fields and the statistics behind them.
//
// The text is redis 7.0's: "# Name" headers, "field:value" lines ending in
// "\r\n", one empty line between sections, the same section order and the
// same meaning of "default", "all" and "everything". Fields that describe
// Redis internals Tandem does not have (AOF, forks, replication backlog,
// I/O threads) keep the values an idle redis-server reports, so monitoring
// tools that expect them keep working; Tandem's own facts come as extra
// fields at the end of the server section. internal/compat checks the
// field names of every section against redis-server.

// infoSection is one INFO section: its name (as requested, lower case),
// whether INFO without arguments includes it, and its generator.
type infoSection struct {
	name    string
	header  string
	deflt   bool
	extra   bool // Tandem's own: only with "everything" or by name, as Redis's module sections
	aliases []string
	gen     func(f *Frontend, b *infoBuilder)
}

// infoSections are in the order Redis prints them.
var infoSections = []infoSection{
	{name: "server", header: "Server", deflt: true, gen: (*Frontend).infoServer},
	{name: "clients", header: "Clients", deflt: true, gen: (*Frontend).infoClients},
	{name: "memory", header: "Memory", deflt: true, gen: (*Frontend).infoMemory},
	{name: "persistence", header: "Persistence", deflt: true, gen: (*Frontend).infoPersistence},
	{name: "stats", header: "Stats", deflt: true, gen: (*Frontend).infoStats},
	{name: "replication", header: "Replication", deflt: true, gen: (*Frontend).infoReplication},
	{name: "cpu", header: "CPU", deflt: true, gen: (*Frontend).infoCPU},
	{name: "module_list", header: "Modules", deflt: true, aliases: []string{"modules"}, gen: func(*Frontend, *infoBuilder) {}},
	{name: "commandstats", header: "Commandstats", gen: (*Frontend).infoCommandStats},
	{name: "errorstats", header: "Errorstats", deflt: true, gen: (*Frontend).infoErrorStats},
	{name: "latencystats", header: "Latencystats", gen: (*Frontend).infoLatencyStats}, // cmd_latency.go
	{name: "cluster", header: "Cluster", deflt: true, gen: func(_ *Frontend, b *infoBuilder) { b.field("cluster_enabled", "0") }},
	{name: "keyspace", header: "Keyspace", deflt: true, gen: (*Frontend).infoKeyspace},
	{name: "compression", header: "Compression", extra: true, gen: (*Frontend).infoCompression}, // compression.go
}

// infoBuilder accumulates INFO text.
type infoBuilder struct {
	strings.Builder
	now time.Time
}

func (b *infoBuilder) field(k, v string) {
	b.WriteString(k)
	b.WriteByte(':')
	b.WriteString(v)
	b.WriteString("\r\n")
}

func (b *infoBuilder) int(k string, v int64) { b.field(k, strconv.FormatInt(v, 10)) }

// float writes v with two decimals, as Redis's "%.2f".
func (b *infoBuilder) float(k string, v float64) { b.field(k, strconv.FormatFloat(v, 'f', 2, 64)) }

// cmdInfo is INFO [section ...].
func cmdInfo(c *Client, args [][]byte) {
	c.w.Verbatim(c.fe.infoText(args[1:], time.Now()))
}

// infoText returns INFO's text for the requested sections, as redis 7.0's
// genInfoSectionDict and genRedisInfoString: no argument means "default";
// "all" is every Redis section; "everything" is "all" plus the sections
// Redis would take from modules (Tandem's own: Compression); other words
// name sections, in any case, and unknown ones are ignored. Sections
// always come in Redis's order, Tandem's after them.
func (f *Frontend) infoText(args [][]byte, now time.Time) string {
	all, everything := false, false
	want := map[string]bool{}
	addDefaults := func() {
		for _, s := range infoSections {
			if s.deflt {
				want[s.name] = true
			}
		}
	}
	if len(args) == 0 {
		addDefaults()
	}
	for _, a := range args {
		switch w := strings.ToLower(string(a)); w {
		case "default":
			addDefaults()
		case "all", "everything":
			all = true
			everything = everything || w == "everything"
		default:
			want[w] = true
		}
	}
	b := &infoBuilder{now: now}
	n := 0
	for _, s := range infoSections {
		in := (all && !s.extra) || (everything && s.extra) || want[s.name]
		for _, a := range s.aliases {
			in = in || want[a]
		}
		if !in {
			continue
		}
		if n > 0 {
			b.WriteString("\r\n")
		}
		n++
		b.WriteString("# " + s.header + "\r\n")
		s.gen(f, b)
	}
	return b.String()
}

func (f *Frontend) infoServer(b *infoBuilder) {
	uptime := int64(b.now.Sub(f.started) / time.Second)
	b.field("redis_version", Version)
	b.field("redis_git_sha1", "00000000")
	b.field("redis_git_dirty", "0")
	b.field("redis_build_id", buildID(f.facts.TandemVersion))
	b.field("redis_mode", "standalone")
	b.field("os", osName())
	b.int("arch_bits", strconv.IntSize)
	b.field("monotonic_clock", "POSIX clock_gettime")
	b.field("multiplexing_api", multiplexingAPI())
	b.field("atomicvar_api", "c11-builtin")
	b.field("gcc_version", "0.0.0")
	b.int("process_id", int64(f.processID()))
	b.field("process_supervised", "no")
	b.field("run_id", f.facts.RunID)
	b.int("tcp_port", int64(f.tcpPort()))
	b.int("server_time_usec", b.now.UnixMicro())
	b.int("uptime_in_seconds", uptime)
	b.int("uptime_in_days", uptime/86400)
	b.int("hz", int64(f.cfg.Hz()))
	b.int("configured_hz", int64(f.cfg.Hz()))
	// Redis's LRU clock: seconds, 24 bits.
	b.int("lru_clock", (b.now.Unix())&(1<<24-1))
	b.field("executable", f.facts.Executable)
	b.field("config_file", f.configFile())
	b.field("io_threads_active", "0")
	if at, waiting := f.svc.ShutdownDeadline(); waiting { // a shutdown waits for its replicas
		b.int("shutdown_in_milliseconds", max(time.Until(at).Milliseconds(), 0))
	}
	// Tandem's own.
	b.field("tandem_version", f.facts.TandemVersion)
	b.int("memcached_port", int64(f.facts.MemcachedPort))
	b.field("go_version", runtime.Version())
}

func (f *Frontend) processID() int {
	if f.facts.ProcessID != 0 {
		return f.facts.ProcessID
	}
	return os.Getpid()
}

func (f *Frontend) tcpPort() int {
	if f.facts.TCPPort != 0 {
		return f.facts.TCPPort
	}
	return f.cfg.Port()
}

func (f *Frontend) configFile() string {
	if f.facts.ConfigFile != "" {
		return f.facts.ConfigFile
	}
	return f.cfg.ConfigFile()
}

// buildID is a stable hex id of Tandem's version (redis_build_id), printed
// as Redis's "%llx": without leading zeros.
func buildID(version string) string {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(version); i++ {
		h ^= uint64(version[i])
		h *= 1099511628211
	}
	return strconv.FormatUint(h, 16)
}

// osName is uname's "sysname release machine", as Redis prints it.
func osName() string {
	sys := runtime.GOOS
	switch sys {
	case "linux":
		sys = "Linux"
	case "darwin":
		sys = "Darwin"
	case "freebsd":
		sys = "FreeBSD"
	}
	machine := runtime.GOARCH
	switch machine {
	case "amd64":
		machine = "x86_64"
	case "386":
		machine = "i686"
	case "arm64":
		if runtime.GOOS == "linux" {
			machine = "aarch64"
		}
	}
	release := "unknown"
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		release = strings.TrimSpace(string(b))
	}
	return sys + " " + release + " " + machine
}

func multiplexingAPI() string {
	switch runtime.GOOS {
	case "linux":
		return "epoll"
	case "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		return "kqueue"
	}
	return "unknown"
}

// connectedClients is INFO's connected_clients, as Redis counts them:
// the connections of both protocols but the replicas' (connected_slaves
// counts those), and a replica's master client while its link is up.
func (f *Frontend) connectedClients() int {
	repl := f.svc.Replication.Primary.Info()
	n := 0
	if f.facts.ClientsCounter != nil {
		n = f.facts.ClientsCounter()
		if repl.Replica != nil && repl.Replica.LinkUp { // the master client has no connection of the server's
			n++
		}
	} else {
		f.clients.Range(func(_, _ any) bool { n++; return true })
	}
	return max(n-repl.ConnectedSlaves, 0)
}

func (f *Frontend) infoClients(b *infoBuilder) {
	b.int("connected_clients", int64(f.connectedClients()))
	b.field("cluster_connections", "0")
	b.int("maxclients", int64(f.cfg.MaxClients()))
	bufs := f.buffers()
	b.int("client_recent_max_input_buffer", bufs.RecentMaxInput)
	b.int("client_recent_max_output_buffer", bufs.RecentMaxOutput)
	blocked, inTimeoutTable := f.blockedClients()
	b.int("blocked_clients", int64(blocked))
	b.int("tracking_clients", f.tracking.Stats().Clients)
	b.int("clients_in_timeout_table", int64(inTimeoutTable))
}

func (f *Frontend) infoPersistence(b *infoBuilder) {
	loading := f.svc.Loading.Info()
	b.int("loading", int01(loading.Active))
	for _, kv := range [][2]string{
		{"async_loading", "0"}, {"current_cow_peak", "0"},
		{"current_cow_size", "0"}, {"current_cow_size_age", "0"}, {"current_fork_perc", "0.00"},
		{"current_save_keys_processed", "0"}, {"current_save_keys_total", "0"},
	} {
		b.field(kv[0], kv[1])
	}
	in := f.persist.Info()
	b.int("rdb_changes_since_last_save", in.ChangesSinceLastSave)
	b.int("rdb_bgsave_in_progress", int01(in.BGSaveInProgress))
	b.int("rdb_last_save_time", in.LastSaveTime.Unix())
	status := "ok"
	if !in.LastBGSaveOK {
		status = "err"
	}
	b.field("rdb_last_bgsave_status", status)
	b.int("rdb_last_bgsave_time_sec", in.LastBGSaveSecs)
	b.int("rdb_current_bgsave_time_sec", in.CurrentBGSaveSecs)
	b.int("rdb_saves", in.Saves)
	b.field("rdb_last_cow_size", "0")
	b.int("rdb_last_load_keys_expired", in.LastLoadExpired)
	b.int("rdb_last_load_keys_loaded", in.LastLoadLoaded)
	f.infoAOF(b)
	if loading.Active {
		infoLoading(b, loading, time.Now())
	}
}

// infoLoading is the progress of the load at start, as Redis prints it
// while loading: the share of the files' bytes read, and the seconds
// left at the pace so far (1 in the first second).
func infoLoading(b *infoBuilder, l services.LoadingInfo, now time.Time) {
	perc, remaining := 0.0, int64(1)
	if l.TotalBytes > 0 {
		perc = float64(l.LoadedBytes) / float64(l.TotalBytes) * 100
		remaining = l.TotalBytes - l.LoadedBytes
	}
	eta := int64(1)
	if elapsed := now.Unix() - l.Start.Unix(); elapsed != 0 {
		eta = elapsed * remaining / (l.LoadedBytes + 1)
	}
	b.int("loading_start_time", l.Start.Unix())
	b.int("loading_total_bytes", l.TotalBytes)
	b.field("loading_rdb_used_mem", "0")
	b.int("loading_loaded_bytes", l.LoadedBytes)
	b.float("loading_loaded_perc", perc)
	b.int("loading_eta_seconds", eta)
}

// infoAOF is INFO persistence's AOF part, as Redis 7.0 prints it: the
// sizes and buffers only while the AOF is on.
func (f *Frontend) infoAOF(b *infoBuilder) {
	a := f.svc.AppendOnly.Info()
	st := a.Stats
	okErr := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "err"
	}
	b.int("aof_enabled", int01(a.Enabled))
	b.int("aof_rewrite_in_progress", int01(a.Rewriting))
	b.int("aof_rewrite_scheduled", int01(a.Scheduled))
	b.int("aof_last_rewrite_time_sec", st.LastRewriteTimeSec)
	b.int("aof_current_rewrite_time_sec", st.CurrentRewriteTimeSec)
	b.field("aof_last_bgrewrite_status", okErr(st.LastBgrewriteOK))
	b.int("aof_rewrites", st.Rewrites)
	b.int("aof_rewrites_consecutive_failures", st.RewriteFailures)
	b.field("aof_last_write_status", okErr(st.LastWriteOK))
	b.field("aof_last_cow_size", "0")
	b.field("module_fork_in_progress", "0")
	b.field("module_fork_last_cow_size", "0")
	if a.Enabled {
		b.int("aof_current_size", st.CurrentSize)
		b.int("aof_base_size", st.BaseSize)
		b.field("aof_pending_rewrite", "0")
		b.int("aof_buffer_length", int64(st.BufferLength))
		b.int("aof_pending_bio_fsync", st.PendingBioFsync)
		b.int("aof_delayed_fsync", st.DelayedFsync)
	}
}

// rateSampler turns the command and byte counters into INFO's
// instantaneous rates. Redis samples them every 100 ms from its cron;
// Tandem samples when INFO runs: a rate is the average since the previous
// sample at least 100 ms older, which for a monitor polling INFO is the
// rate over its polling interval.
type rateSampler struct {
	mu              sync.Mutex
	at              time.Time
	cmds, in, out   int64
	ops             int64
	inKbps, outKbps float64
}

func (r *rateSampler) sample(now, since time.Time, cmds, in, out int64) (int64, float64, float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at.IsZero() {
		r.at = since
	}
	if dt := now.Sub(r.at); dt >= 100*time.Millisecond {
		s := dt.Seconds()
		r.ops = int64(float64(cmds-r.cmds) / s)
		r.inKbps = float64(in-r.in) / s / 1024
		r.outKbps = float64(out-r.out) / s / 1024
		r.at, r.cmds, r.in, r.out = now, cmds, in, out
	}
	return r.ops, r.inKbps, r.outKbps
}

// reset starts sampling over (CONFIG RESETSTAT zeroes the counters).
func (r *rateSampler) reset(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at, r.cmds, r.in, r.out = now, 0, 0, 0
	r.ops, r.inKbps, r.outKbps = 0, 0, 0
}

func (f *Frontend) infoStats(b *infoBuilder) {
	st := &f.stats
	es := f.eng.Stats()
	cmds, in, out := st.commands.Load(), st.netInput.Load(), st.netOutput.Load()
	ops, inKbps, outKbps := f.rates.sample(b.now, f.started, cmds, in, out)
	b.int("total_connections_received", st.connections.Load())
	b.int("total_commands_processed", cmds)
	b.int("instantaneous_ops_per_sec", ops)
	b.int("total_net_input_bytes", in)
	b.int("total_net_output_bytes", out)
	b.field("total_net_repl_input_bytes", "0")
	b.field("total_net_repl_output_bytes", "0")
	b.float("instantaneous_input_kbps", inKbps)
	b.float("instantaneous_output_kbps", outKbps)
	b.field("instantaneous_input_repl_kbps", "0.00")
	b.field("instantaneous_output_repl_kbps", "0.00")
	b.int("rejected_connections", st.rejectedConns.Load())
	full, partialOK, partialErr := f.svc.Replication.Primary.SyncStats()
	b.int("sync_full", full)
	b.int("sync_partial_ok", partialOK)
	b.int("sync_partial_err", partialErr)
	b.int("expired_keys", es.ExpiredKeys)
	b.field("expired_stale_perc", "0.00")
	b.field("expired_time_cap_reached_count", "0")
	b.field("expire_cycle_cpu_milliseconds", "0")
	b.int("evicted_keys", es.EvictedKeys)
	b.field("evicted_clients", "0")
	b.field("total_eviction_exceeded_time", "0")
	b.field("current_eviction_exceeded_time", "0")
	b.int("keyspace_hits", es.Hits)
	b.int("keyspace_misses", es.Misses)
	ps := f.hub.Totals()
	b.int("pubsub_channels", int64(ps.Channels))
	b.int("pubsub_patterns", int64(ps.Patterns))
	b.int("pubsubshard_channels", int64(ps.Shard))
	for _, k := range []string{
		"latest_fork_usec",
		"total_forks", "migrate_cached_sockets", "slave_expires_tracked_keys",
		"active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits",
		"active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time",
	} {
		b.field(k, "0")
	}
	ts := f.tracking.Stats()
	b.int("tracking_total_keys", ts.Keys)
	b.int("tracking_total_items", ts.Items)
	b.int("tracking_total_prefixes", ts.Prefixes)
	b.field("unexpected_error_replies", "0")
	b.int("total_error_replies", st.errorReplies.Load())
	b.field("dump_payload_sanitizations", "0")
	// Counted by the server for this port's connections (server.IOStats).
	b.int("total_reads_processed", f.io.Reads.Load())
	b.int("total_writes_processed", f.io.Writes.Load())
	b.field("io_threaded_reads_processed", "0")
	b.field("io_threaded_writes_processed", "0")
	b.int("reply_buffer_shrinks", f.io.ReplyShrinks.Load())
	b.int("reply_buffer_expands", f.io.ReplyExpands.Load())
}

func (f *Frontend) infoReplication(b *infoBuilder) {
	in := f.svc.Replication.Primary.Info()
	in.SlavePriority, in.SlaveReadOnly, in.ReplicaAnnouncedOn = f.cfg.ReplicaPriority(), f.cfg.ReplicaReadOnly(), f.cfg.ReplicaAnnounced()
	b.Write(in.Append(nil))
}

func (f *Frontend) infoCPU(b *infoBuilder) {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) string {
		return fmt.Sprintf("%d.%06d", int64(t.Sec), int64(t.Usec))
	}
	b.field("used_cpu_sys", tv(self.Stime))
	b.field("used_cpu_user", tv(self.Utime))
	b.field("used_cpu_sys_children", tv(children.Stime))
	b.field("used_cpu_user_children", tv(children.Utime))
	// Redis's main thread runs its event loop. Tandem's event loops are
	// goroutines the Go scheduler moves between threads (gnet's loops are
	// not locked to one), so no thread's own usage (RUSAGE_THREAD) is
	// theirs: these are the process's, which is the CPU of every thread
	// that ran a loop (and of the runtime's own work beside them).
	b.field("used_cpu_sys_main_thread", tv(self.Stime))
	b.field("used_cpu_user_main_thread", tv(self.Utime))
}

// forEachCommand visits every command of the table, each container
// followed by its subcommands.
func (t *Table) forEachCommand(fn func(cmd *Command)) {
	for _, cmd := range t.All() {
		fn(cmd)
		for _, sc := range cmd.Subcommands {
			fn(sc)
		}
	}
}

// infoCommandStats lists every command that was called, rejected or failed.
func (f *Frontend) infoCommandStats(b *infoBuilder) {
	f.table.forEachCommand(func(cmd *Command) {
		t := cmd.stats.totals()
		calls, usec, rejected, failed := t.calls, t.usec, t.rejected, t.failed
		if calls == 0 && rejected == 0 && failed == 0 {
			return
		}
		perCall := 0.0
		if calls > 0 {
			perCall = float64(usec) / float64(calls)
		}
		fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
			cmd.Name, calls, usec, perCall, rejected, failed)
	})
}

// maxErrorCodes bounds the distinct error codes errorstats tracks, as
// Redis's ERROR_STATS_NUMBER, so a peer cannot grow the map without end.
const maxErrorCodes = 128

// errorCode extracts an error reply's code ("ERR", "WRONGTYPE"…) from the
// bytes after its '-', as Redis's afterErrorReply: the text before a space
// within the first 32 bytes, else "ERR".
func errorCode(b []byte) string {
	if i := bytes.IndexByte(b, '\r'); i >= 0 {
		b = b[:i]
	}
	if i := bytes.IndexByte(b[:min(len(b), 32)], ' '); i >= 0 {
		return string(b[:i])
	}
	return "ERR"
}

// countError records an error reply for INFO (total_error_replies,
// errorstats).
func (f *Frontend) countError(code string) {
	f.stats.errorReplies.Add(1)
	f.errMu.Lock()
	defer f.errMu.Unlock()
	if _, ok := f.errorCodes[code]; ok || len(f.errorCodes) < maxErrorCodes {
		f.errorCodes[code]++
	}
}

func (f *Frontend) infoErrorStats(b *infoBuilder) {
	f.errMu.Lock()
	codes := make([]string, 0, len(f.errorCodes))
	for code := range f.errorCodes {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	counts := make([]int64, len(codes))
	for i, code := range codes {
		counts[i] = f.errorCodes[code]
	}
	f.errMu.Unlock()
	for i, code := range codes {
		fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", code, counts[i])
	}
}

func (f *Frontend) infoKeyspace(b *infoBuilder) {
	for n := 0; n < f.eng.Databases(); n++ {
		db := f.eng.DB(n)
		keys := db.Size()
		if keys == 0 {
			continue
		}
		fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=0\r\n", n, keys, db.Volatile())
	}
}

// resetStats is CONFIG RESETSTAT: every counter INFO reports back to zero,
// except the memory peak, as Redis.
func (f *Frontend) resetStats(now time.Time) {
	st := &f.stats
	for _, c := range []interface{ Store(int64) }{
		&st.connections, &st.rejectedConns, &st.errorReplies,
	} {
		c.Store(0)
	}
	st.commands.Reset()
	st.netInput.Reset()
	st.netOutput.Reset()
	f.io.Reset()
	f.errMu.Lock()
	clear(f.errorCodes)
	f.errMu.Unlock()
	f.table.forEachCommand(func(cmd *Command) {
		cmd.stats.reset()
	})
	f.cmdLatency.Reset(latency.ProtocolRESP)
	f.eng.ResetStats()
	f.svc.Replication.Primary.ResetSyncStats()
	f.rates.reset(now)
}

// randomHex40 is a random 40-hex-digit id (run_id, master_replid).
func randomHex40() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
