package services

import (
	"strconv"

	"github.com/tandemkv/tandem/aof"
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/latency"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/slowlog"
	"github.com/tandemkv/tandem/tracking"
	"github.com/tandemkv/tandem/users"
)

// The followers: each applies its directives to a shared service now and
// on every CONFIG SET. Each directive has one follower; nothing else
// subscribes to it (server limits are followed by package node, which
// builds the server).

// followMemory makes the engine's memory bound and eviction follow
// maxmemory, maxmemory-policy, maxmemory-samples, lfu-log-factor and
// lfu-decay-time; process, when set, is told every new maxmemory after
// the engine (GOMEMLIMIT; the value at start is the caller's to apply).
func followMemory(eng *engine.Engine, cfg *conf.Config, process func(maxMemory int64)) {
	apply := func(c *conf.Config) {
		eng.SetMaxMemory(c.MaxMemory())
		policy, _ := engine.ParsePolicy(c.MaxMemoryPolicy().String())
		eng.SetEviction(engine.Eviction{Policy: policy, Samples: c.MaxMemorySamples(),
			LFULogFactor: c.LFULogFactor(), LFUDecayTime: c.LFUDecayTime()})
	}
	apply(cfg)
	for _, name := range []string{"maxmemory-policy", "maxmemory-samples", "lfu-log-factor", "lfu-decay-time"} {
		cfg.OnChange(name, apply)
	}
	cfg.OnChange("maxmemory", func(c *conf.Config) {
		apply(c)
		if process != nil {
			process(c.MaxMemory())
		}
	})
}

// followCompression makes the engine's value compression follow the
// compression, compression-min-size and compression-min-saving
// directives. A change applies to new writes; stored values keep their
// form and stay readable.
func followCompression(eng *engine.Engine, cfg *conf.Config) {
	apply := func(c *conf.Config) {
		codec := engine.CodecNone
		switch c.Compression() {
		case conf.CompressionS2:
			codec = engine.CodecS2
		case conf.CompressionZstd:
			codec = engine.CodecZstd
		}
		eng.SetCompression(engine.Compression{
			Codec:     codec,
			MinSize:   c.CompressionMinSize(),
			MinSaving: c.CompressionMinSaving(),
		})
	}
	apply(cfg)
	for _, name := range []string{"compression", "compression-min-size", "compression-min-saving"} {
		cfg.OnChange(name, apply)
	}
}

// followNotify makes the engine's enabled event classes follow
// notify-keyspace-events.
func followNotify(eng *engine.Engine, cfg *conf.Config) {
	eng.SetNotifyFlags(uint32(cfg.NotifyKeyspaceEvents()))
	cfg.OnChange("notify-keyspace-events", func(c *conf.Config) {
		eng.SetNotifyFlags(uint32(c.NotifyKeyspaceEvents()))
	})
}

// followRequirePass makes the default user's password follow requirepass
// ("" makes it nopass: nobody has to log in). Neither front-end reads the
// directive: both authenticate through the store. A change applies to the
// next login; connections already logged in stay so, as in Redis.
func followRequirePass(u *users.Store, cfg *conf.Config) {
	u.SetDefaultPassword(cfg.RequirePass())
	cfg.OnChange("requirepass", func(c *conf.Config) { u.SetDefaultPassword(c.RequirePass()) })
}

// followACL bounds the ACL log by acllog-max-len and gives new users and
// selectors the channels acl-pubsub-default says.
func followACL(u *users.Store, cfg *conf.Config) {
	u.SetLogMaxLen(cfg.ACLLogMaxLen())
	cfg.OnChange("acllog-max-len", func(c *conf.Config) { u.SetLogMaxLen(c.ACLLogMaxLen()) })
	u.SetPubsubDefault(cfg.ACLPubsubAllChannels())
	cfg.OnChange("acl-pubsub-default", func(c *conf.Config) { u.SetPubsubDefault(c.ACLPubsubAllChannels()) })
}

// followTracking bounds the tracking table by tracking-table-max-keys; a
// lower bound invalidates keys at once.
func followTracking(t *tracking.Table, cfg *conf.Config) {
	cfg.OnChange("tracking-table-max-keys", func(c *conf.Config) { t.SetMaxKeys(c.TrackingTableMaxKeys()) })
}

// NotifySink returns the engine sink that publishes keyspace events with
// publish (the hub's Publish) on Redis 7.0's channels: on
// __keyspace@<db>__:<key> with the event name as the message (flag K),
// then on __keyevent@<db>__:<event> with the key as the message (flag E).
// Events of both protocols' writes go through it: memcached writes too.
func NotifySink(publish func(channel, message []byte) int) engine.Sink {
	return func(ev engine.Event) {
		if ev.Keyspace {
			publish(eventChannel("__keyspace@", ev.DB, ev.Key), []byte(ev.Name))
		}
		if ev.Keyevent {
			publish(eventChannel("__keyevent@", ev.DB, []byte(ev.Name)), ev.Key) // subscribers copy what they keep
		}
	}
}

// eventChannel is prefix<db>__:<suffix>, Redis's notification channel.
func eventChannel(prefix string, db int, suffix []byte) []byte {
	ch := make([]byte, 0, len(prefix)+len("__:")+4+len(suffix))
	ch = append(ch, prefix...)
	ch = strconv.AppendInt(ch, int64(db), 10)
	ch = append(ch, "__:"...)
	return append(ch, suffix...)
}

// followSlowlog makes the slow log follow slowlog-log-slower-than and
// slowlog-max-len.
func followSlowlog(l *slowlog.Log, cfg *conf.Config) {
	l.SetThreshold(cfg.SlowlogLogSlowerThan())
	l.SetMaxLen(int64(cfg.SlowlogMaxLen()))
	cfg.OnChange("slowlog-log-slower-than", func(c *conf.Config) { l.SetThreshold(c.SlowlogLogSlowerThan()) })
	cfg.OnChange("slowlog-max-len", func(c *conf.Config) { l.SetMaxLen(int64(c.SlowlogMaxLen())) })
}

// followLatencyTracking makes the per-command histograms follow
// latency-tracking.
func followLatencyTracking(c *latency.Commands, cfg *conf.Config) {
	c.SetEnabled(cfg.LatencyTracking())
	cfg.OnChange("latency-tracking", func(cf *conf.Config) { c.SetEnabled(cf.LatencyTracking()) })
}

// followLatency makes the latency monitor follow latency-monitor-threshold.
func followLatency(m *latency.Monitor, cfg *conf.Config) {
	m.SetThreshold(cfg.LatencyMonitorThreshold())
	cfg.OnChange("latency-monitor-threshold", func(c *conf.Config) { m.SetThreshold(c.LatencyMonitorThreshold()) })
}

// followLazyfree makes the write stream feed the keys expiry and
// eviction remove as UNLINK or DEL, following lazyfree-lazy-expire and
// lazyfree-lazy-eviction, as Redis's propagateDeletion.
func followLazyfree(stream *propagate.Log, cfg *conf.Config) {
	apply := func(c *conf.Config) { stream.SetLazy(c.LazyfreeLazyExpire(), c.LazyfreeLazyEviction()) }
	apply(cfg)
	cfg.OnChange("lazyfree-lazy-expire", apply)
	cfg.OnChange("lazyfree-lazy-eviction", apply)
}

// followAppendOnly turns the AOF on and off with appendonly (on: from a
// rewrite, as Redis's startAppendOnly) and applies its tuning
// directives to the open log.
func followAppendOnly(a *AppendOnly, cfg *conf.Config) {
	cfg.OnChange("appendonly", func(c *conf.Config) {
		if !c.AppendOnly() {
			a.Stop()
			return
		}
		go func() {
			if err := a.Start(); err != nil {
				a.s.Log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation", "err", err)
			}
		}()
	})
	tune := func(c *conf.Config) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.log == nil {
			return
		}
		a.log.SetFsync(fsyncOf(c))
		a.sink.always.Store(fsyncOf(c) == aof.FsyncAlways)
		a.log.SetNoFsyncOnRewrite(c.NoAppendFsyncOnRewrite())
		a.log.SetTimestampEnabled(c.AOFTimestampEnabled())
		a.log.SetUseRDBPreamble(c.AOFUseRDBPreamble())
		a.log.SetDisableAutoGC(c.AOFDisableAutoGC())
	}
	for _, name := range []string{"appendfsync", "no-appendfsync-on-rewrite", "aof-timestamp-enabled", "aof-use-rdb-preamble", "aof-disable-auto-gc"} {
		cfg.OnChange(name, tune)
	}
}
