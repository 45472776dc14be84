package metrics

import (
	"os"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/server/tlsserver"
	"github.com/tandemkv/tandem/services"
)

// Sources are what the collector reads.
type Sources struct {
	Services  *services.Services
	Redis     *resp.Frontend
	Memcached *memproto.Frontend // nil when the memcached port is off
	Version   string
	// TLS reads the TLS ports' connection counts, by protocol; nil: no
	// TLS series.
	TLS func() (redis, memcached tlsserver.Counts)
}

// NewRegistry returns a registry with Tandem's collector and the standard
// Go and process collectors.
func NewRegistry(src Sources) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(src),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Protocol label values.
const (
	protoRESP      = "resp"
	protoMemcached = "memcached"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("tandem_"+name, help, labels, nil)
}

// The metrics, by family. A figure that belongs to one port has the
// protocol label; keyspace figures (both ports read one engine) have none.
var (
	dBuild = desc("build_info", "Tandem's version; always 1.", "version")

	dCommands         = desc("commands_total", "Commands run, by protocol and command (memcached: by its stats classes get, set, flush, touch, meta).", "protocol", "command")
	dCommandSeconds   = desc("command_duration_seconds_total", "Time spent running each command.", "protocol", "command")
	dCommandsFailed   = desc("commands_failed_total", "Commands that ran and replied an error.", "protocol", "command")
	dCommandsRejected = desc("commands_rejected_total", "Commands refused before running (arity, ACL, OOM, MISCONF...).", "protocol", "command")
	dErrorReplies     = desc("error_replies_total", "Error replies sent.", "protocol")

	dConnections            = desc("connections", "Client connections now open.", "protocol")
	dConnectionsReceived    = desc("connections_received_total", "Client connections accepted.", "protocol")
	dConnectionsRejected    = desc("connections_rejected_total", "Client connections refused (maxclients, protected mode).", "protocol")
	dTLSConnections         = desc("tls_connections", "Client connections now open on the TLS ports (counted in tandem_connections too).", "protocol")
	dTLSConnectionsReceived = desc("tls_connections_received_total", "Client connections the TLS ports made sessions of (after the handshake).", "protocol")
	dTLSConnectionsRejected = desc("tls_connections_rejected_total", "Client connections the TLS ports refused at maxclients.", "protocol")
	dBlockedClients         = desc("blocked_clients", "Clients waiting in a blocking command.")
	dNetInput               = desc("net_input_bytes_total", "Bytes read from clients.", "protocol")
	dNetOutput              = desc("net_output_bytes_total", "Bytes written to clients.", "protocol")

	dKeys         = desc("keys", "Keys in each database.", "db")
	dKeysExpiring = desc("keys_expiring", "Keys with an expiry in each database.", "db")
	dHits         = desc("keyspace_hits_total", "Key lookups that found the key, both protocols.")
	dMisses       = desc("keyspace_misses_total", "Key lookups that did not find the key, both protocols.")
	dOpHits       = desc("memcached_hits_total", "memcached commands that found their key, by command class (stats get_hits, delete_hits...).", "command")
	dOpMisses     = desc("memcached_misses_total", "memcached commands that did not find their key, by command class.", "command")
	dCasBadval    = desc("memcached_cas_badval_total", "memcached cas commands whose unique did not match.")
	dStoreErrors  = desc("memcached_store_errors_total", "memcached stores refused, by reason (too_large, no_memory).", "reason")
	dAuthErrors   = desc("memcached_auth_errors_total", "memcached logins refused.")

	dExpired          = desc("expired_keys_total", "Keys removed because they expired (memcached's reclaimed).")
	dEvicted          = desc("evicted_keys_total", "Keys evicted at maxmemory, by the policy that chose them.", "policy")
	dExpiredUnfetched = desc("expired_unfetched_keys_total", "Expired keys whose value was never read.")
	dEvictedUnfetched = desc("evicted_unfetched_keys_total", "Evicted keys whose value was never read.")
	dPolicy           = desc("maxmemory_policy_info", "The maxmemory policy in force; always 1.", "policy")

	dMemUsed       = desc("memory_used_bytes", "INFO used_memory: the engine's accounting of the keyspace.")
	dMemPeak       = desc("memory_used_peak_bytes", "INFO used_memory_peak.")
	dMemRSS        = desc("memory_rss_bytes", "INFO used_memory_rss.")
	dMemMax        = desc("memory_max_bytes", "maxmemory; 0 when unlimited.")
	dMemFrag       = desc("memory_fragmentation_ratio", "INFO mem_fragmentation_ratio: RSS over used memory.")
	dCompKeys      = desc("compressed_keys", "Values stored compressed.")
	dCompPlain     = desc("compression_plain_bytes", "Compressed values' length as readers see them.")
	dCompStored    = desc("compression_stored_bytes", "Compressed values' stored length.")
	dArenaDead     = desc("arena_dead_bytes", "Dead records in the arenas awaiting compaction.")
	dArenaCompacts = desc("arena_compactions_total", "Arena compactions.")

	dRDBOK          = desc("rdb_last_bgsave_success", "1 if the last background save succeeded, else 0.")
	dRDBLastSecs    = desc("rdb_last_bgsave_duration_seconds", "Duration of the last background save.")
	dRDBCurSecs     = desc("rdb_current_bgsave_duration_seconds", "Duration of the running background save; -1 when none runs.")
	dRDBInProgress  = desc("rdb_bgsave_in_progress", "1 while a background save runs.")
	dRDBChanges     = desc("rdb_changes_since_last_save", "Writes since the last save.")
	dRDBLastSave    = desc("rdb_last_save_timestamp_seconds", "Unix time of the last good save.")
	dRDBSaves       = desc("rdb_saves_total", "Saves since start.")
	dRDBSize        = desc("rdb_dump_size_bytes", "Size of the dump file on disk; 0 when there is none.")
	dPubsubChannels = desc("pubsub_channels", "Channels with subscribers.")
	dPubsubPatterns = desc("pubsub_patterns", "Pattern subscriptions.")
	dPubsubShard    = desc("pubsub_shard_channels", "Shard channels with subscribers.")
	dPubsubPub      = desc("pubsub_messages_published_total", "Messages published (PUBLISH, SPUBLISH, keyspace notifications).")
	dPubsubDeliv    = desc("pubsub_messages_delivered_total", "Copies of published messages delivered to subscribers.")
)

var allDescs = []*prometheus.Desc{
	dCommandLatency, dBuild, dCommands, dCommandSeconds, dCommandsFailed, dCommandsRejected, dErrorReplies,
	dConnections, dConnectionsReceived, dConnectionsRejected, dBlockedClients,
	dTLSConnections, dTLSConnectionsReceived, dTLSConnectionsRejected, dNetInput, dNetOutput,
	dKeys, dKeysExpiring, dHits, dMisses, dOpHits, dOpMisses, dCasBadval, dStoreErrors, dAuthErrors,
	dExpired, dEvicted, dExpiredUnfetched, dEvictedUnfetched, dPolicy,
	dMemUsed, dMemPeak, dMemRSS, dMemMax, dMemFrag, dCompKeys, dCompPlain, dCompStored, dArenaDead, dArenaCompacts,
	dRDBOK, dRDBLastSecs, dRDBCurSecs, dRDBInProgress, dRDBChanges, dRDBLastSave, dRDBSaves, dRDBSize,
	dPubsubChannels, dPubsubPatterns, dPubsubShard, dPubsubPub, dPubsubDeliv,
}

// collector reads the node's counters at each scrape.
type collector struct{ src Sources }

func newCollector(src Sources) *collector { return &collector{src: src} }

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// emit sends one constant metric; the descs and label counts are this
// file's own, so a mismatch is a bug the tests catch, not bad input.
type emit func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string)

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	e := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, labels...)
	}
	e(dBuild, prometheus.GaugeValue, 1, c.src.Version)
	c.collectRESP(e)
	c.collectMemcached(e)
	c.collectKeyspace(e)
	c.collectMemory(e)
	c.collectPersistence(e)
	c.collectPubsub(e)
	c.collectLatency(ch)
	c.collectTLS(e)
}

// collectTLS emits the TLS ports' connections, when any serves.
func (c *collector) collectTLS(e emit) {
	if c.src.TLS == nil {
		return
	}
	r, m := c.src.TLS()
	for _, p := range []struct {
		proto string
		c     tlsserver.Counts
	}{{protoRESP, r}, {protoMemcached, m}} {
		e(dTLSConnections, gauge, float64(p.c.Open), p.proto)
		e(dTLSConnectionsReceived, counter, float64(p.c.Accepted), p.proto)
		e(dTLSConnectionsRejected, counter, float64(p.c.Rejected), p.proto)
	}
}

const (
	counter = prometheus.CounterValue
	gauge   = prometheus.GaugeValue
)

func (c *collector) collectRESP(e emit) {
	f := c.src.Redis
	if f == nil {
		return
	}
	f.EachCommandStat(func(name string, calls, usec, rejected, failed int64) {
		e(dCommands, counter, float64(calls), protoRESP, name)
		e(dCommandSeconds, counter, float64(usec)/1e6, protoRESP, name)
		e(dCommandsFailed, counter, float64(failed), protoRESP, name)
		e(dCommandsRejected, counter, float64(rejected), protoRESP, name)
	})
	st := f.Stats()
	e(dErrorReplies, counter, float64(st.ErrorReplies), protoRESP)
	e(dConnections, gauge, float64(st.ConnectedClients), protoRESP)
	e(dConnectionsReceived, counter, float64(st.ConnectionsReceived), protoRESP)
	e(dConnectionsRejected, counter, float64(st.RejectedConnections), protoRESP)
	e(dBlockedClients, gauge, float64(st.BlockedClients))
	e(dNetInput, counter, float64(st.NetInputBytes), protoRESP)
	e(dNetOutput, counter, float64(st.NetOutputBytes), protoRESP)
}

func (c *collector) collectMemcached(e emit) {
	f := c.src.Memcached
	if f == nil {
		return
	}
	st := f.Stats()
	for _, v := range []struct {
		name string
		n    int64
	}{{"get", st.CmdGet}, {"set", st.CmdSet}, {"flush", st.CmdFlush}, {"touch", st.CmdTouch}, {"meta", st.CmdMeta}} {
		e(dCommands, counter, float64(v.n), protoMemcached, v.name)
	}
	for _, v := range []struct {
		name         string
		hits, misses int64
	}{{"get", st.GetHits, st.GetMisses}, {"delete", st.DeleteHits, st.DeleteMisses},
		{"incr", st.IncrHits, st.IncrMisses}, {"decr", st.DecrHits, st.DecrMisses},
		{"cas", st.CasHits, st.CasMisses}, {"touch", st.TouchHits, st.TouchMisses}} {
		e(dOpHits, counter, float64(v.hits), v.name)
		e(dOpMisses, counter, float64(v.misses), v.name)
	}
	e(dCasBadval, counter, float64(st.CasBadval))
	e(dStoreErrors, counter, float64(st.StoreTooLarge), "too_large")
	e(dStoreErrors, counter, float64(st.StoreNoMemory), "no_memory")
	e(dAuthErrors, counter, float64(st.AuthErrors))
	e(dConnections, gauge, float64(st.CurrConnections), protoMemcached)
	e(dConnectionsReceived, counter, float64(st.TotalConnections), protoMemcached)
	e(dConnectionsRejected, counter, float64(st.RejectedConnections), protoMemcached)
	e(dNetInput, counter, float64(st.BytesRead), protoMemcached)
	e(dNetOutput, counter, float64(st.BytesWritten), protoMemcached)
}

func (c *collector) collectKeyspace(e emit) {
	svc := c.src.Services
	eng := svc.Engine
	for n := 0; n < eng.Databases(); n++ {
		db := eng.DB(n)
		label := strconv.Itoa(n)
		e(dKeys, gauge, float64(db.Size()), label)
		e(dKeysExpiring, gauge, float64(db.Volatile()), label)
	}
	es := eng.Stats()
	e(dHits, counter, float64(es.Hits))
	e(dMisses, counter, float64(es.Misses))
	e(dExpired, counter, float64(es.ExpiredKeys))
	// A series for the policy in force, and for any other that has
	// evicted since the last reset: their sum is INFO's evicted_keys.
	current := svc.Config.MaxMemoryPolicy().String()
	for p, n := range es.EvictedByPolicy {
		if name := engine.Policy(p).String(); n > 0 || name == current {
			e(dEvicted, counter, float64(n), name)
		}
	}
	e(dExpiredUnfetched, counter, float64(es.ExpiredUnfetched))
	e(dEvictedUnfetched, counter, float64(es.EvictedUnfetched))
	e(dPolicy, gauge, 1, svc.Config.MaxMemoryPolicy().String())
}

func (c *collector) collectMemory(e emit) {
	svc := c.src.Services
	if f := c.src.Redis; f != nil {
		m := f.Memory()
		e(dMemUsed, gauge, float64(m.Used))
		e(dMemPeak, gauge, float64(m.Peak))
		e(dMemRSS, gauge, float64(m.RSS))
		e(dMemFrag, gauge, m.Fragmentation)
	}
	e(dMemMax, gauge, float64(svc.Config.MaxMemory()))
	cs := svc.Engine.CompressionStats()
	e(dCompKeys, gauge, float64(cs.Keys))
	e(dCompPlain, gauge, float64(cs.PlainBytes))
	e(dCompStored, gauge, float64(cs.StoredBytes))
	as := svc.Engine.ArenaStats()
	e(dArenaDead, gauge, float64(as.DeadBytes))
	e(dArenaCompacts, counter, float64(as.Compactions))
}

func (c *collector) collectPersistence(e emit) {
	p := c.src.Services.Persist
	in := p.Info()
	e(dRDBOK, gauge, b01(in.LastBGSaveOK))
	e(dRDBLastSecs, gauge, float64(in.LastBGSaveSecs))
	e(dRDBCurSecs, gauge, float64(in.CurrentBGSaveSecs))
	e(dRDBInProgress, gauge, b01(in.BGSaveInProgress))
	e(dRDBChanges, gauge, float64(in.ChangesSinceLastSave))
	e(dRDBLastSave, gauge, float64(in.LastSaveTime.Unix()))
	e(dRDBSaves, counter, float64(in.Saves))
	size := int64(0)
	if fi, err := os.Stat(p.Path()); err == nil {
		size = fi.Size()
	}
	e(dRDBSize, gauge, float64(size))
}

func (c *collector) collectPubsub(e emit) {
	hub := c.src.Services.Hub
	t := hub.Totals()
	e(dPubsubChannels, gauge, float64(t.Channels))
	e(dPubsubPatterns, gauge, float64(t.Patterns))
	e(dPubsubShard, gauge, float64(t.Shard))
	pub, deliv := hub.Messages()
	e(dPubsubPub, counter, float64(pub))
	e(dPubsubDeliv, counter, float64(deliv))
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
