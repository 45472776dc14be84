package resp

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// followMemoryConfig makes the engine's memory bound and eviction follow
// maxmemory, maxmemory-policy, maxmemory-samples, lfu-log-factor and
// lfu-decay-time, now and on every CONFIG SET (which this front-end
// serves, so it owns the wiring; the memcached front-end shares the
// engine and its bound).
func followMemoryConfig(eng *engine.Engine, cfg *conf.Config) {
	if cfg == nil {
		return
	}
	apply := func(c *conf.Config) {
		eng.SetMaxMemory(c.MaxMemory())
		policy, _ := engine.ParsePolicy(c.MaxMemoryPolicy().String())
		eng.SetEviction(engine.Eviction{Policy: policy, Samples: c.MaxMemorySamples(),
			LFULogFactor: c.LFULogFactor(), LFUDecayTime: c.LFUDecayTime()})
	}
	apply(cfg)
	for _, name := range []string{"maxmemory", "maxmemory-policy", "maxmemory-samples", "lfu-log-factor", "lfu-decay-time"} {
		cfg.OnChange(name, apply)
	}
}

// overMemory reports whether denyoom commands must be refused: used memory
// is over maxmemory and the policy could not evict enough (noeviction, or
// a volatile policy without volatile keys).
func (f *Frontend) overMemory() bool {
	max := f.cfg.MaxMemory()
	return max > 0 && f.eng.UsedMemory() > max && !f.eng.FreeMemory()
}
