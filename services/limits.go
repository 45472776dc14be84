package services

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// The aggregate encoding thresholds (hash-max-listpack-*,
// set-max-intset-entries, zset-max-listpack-*) as the engine takes them.
// They are read for every write and every load, never cached, so that a
// CONFIG SET applies from the next command on, as in Redis.

// HashLimits are the hash thresholds configured now.
func HashLimits(c *conf.Config) engine.HashLimits {
	return engine.HashLimits{MaxListpackEntries: c.HashMaxListpackEntries(), MaxListpackValue: c.HashMaxListpackValue()}
}

// SetLimits are the set thresholds configured now.
func SetLimits(c *conf.Config) engine.SetLimits {
	return engine.SetLimits{MaxIntsetEntries: c.SetMaxIntsetEntries()}
}

// ZsetLimits are the sorted set thresholds configured now.
func ZsetLimits(c *conf.Config) engine.ZsetLimits {
	return engine.ZsetLimits{MaxListpackEntries: c.ZsetMaxListpackEntries(), MaxListpackValue: c.ZsetMaxListpackValue()}
}

// EncodingLimits are all of them: what keys loaded from a dump follow.
func EncodingLimits(c *conf.Config) engine.RestoreLimits {
	return engine.RestoreLimits{Hash: HashLimits(c), Set: SetLimits(c), ZSet: ZsetLimits(c)}
}
