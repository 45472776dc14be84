package compat

import "testing"

// TestRedisEvictBeforeEveryCommand: with maxmemory set, Redis makes room
// before every command, a read too, and refuses any command a
// transaction would queue while memory stays over the bound, but those
// that end it (server.c processCommand). Each case puts the bound back.
func TestRedisEvictBeforeEveryCommand(t *testing.T) { runRedisCases(t, evictEveryCommandCases) }

// unbound restores the harness's settings.
var unbound = mbs("CONFIG SET maxmemory 0", "CONFIG SET maxmemory-policy noeviction")

var evictEveryCommandCases = []redisCase{
	{name: "a read evicts", cmds: cmds(mbs("SET a 1", "SET b 2", "CONFIG SET maxmemory-policy allkeys-lru", "CONFIG SET maxmemory 1", "DBSIZE", "GET a"), unbound)},
	{name: "a read evicts after a policy change", cmds: cmds(mbs("SET a 1", "CONFIG SET maxmemory 1", "GET a", "DBSIZE", "CONFIG SET maxmemory-policy allkeys-random", "DBSIZE", "EXISTS a"), unbound)},
	{name: "volatile policy evicts a lone key on a read", cmds: cmds(mbs("SET a 1 EX 1000", "SET b 2", "CONFIG SET maxmemory-policy volatile-lru", "CONFIG SET maxmemory 1", "EXISTS a", "EXISTS b", "SET c 3"), unbound)},
	{name: "multi queues nothing over the bound", cmds: cmds(mbs("SET a 1", "CONFIG SET maxmemory 1", "MULTI", "GET a", "PING", "MULTI", "WATCH x", "EXEC", "GET a"), unbound)},
	{name: "discard quit reset pass over the bound", cmds: cmds(mbs("SET a 1", "CONFIG SET maxmemory 1", "MULTI", "DISCARD", "MULTI", "RESET", "MULTI", "EXEC", "GET a"), unbound)},
}
