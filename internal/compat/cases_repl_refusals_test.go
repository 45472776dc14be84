package compat

import "testing"

// Commands refused by replication — READONLY on a read-only replica,
// NOREPLICAS under min-replicas-to-write, MASTERDOWN on a stale replica
// under replica-serve-stale-data no — where Redis 7.0 checks them: up
// front for a command (a script that declared its flags counts as
// declared: a write unless no-writes, stale only with allow-stale) and
// for EXEC by what it queued; inside a script for each command it calls
// (scriptVerifyWriteCommandAllow until it wrote, scriptVerifyAllowStale);
// not inside EXEC, whose queue runs as one command, but for a script
// there (scriptPrepareForRun). Both servers become replicas of a port
// nobody listens on — a link that never comes up: stale — so no sync
// ever replaces their data; every case ends as a master again, with
// Redis's defaults.
func TestRedisReplicationRefusals(t *testing.T) { runRedisCases(t, replicationRefusalCases) }

// asMaster puts a server back as the cases found it.
var asMaster = mbs("REPLICAOF NO ONE", "CONFIG SET min-replicas-to-write 0", "CONFIG SET replica-serve-stale-data yes")

var replicationRefusalCases = []redisCase{
	{name: "read-only replica refuses scripts' writes", cmds: cmds(mbs("SET k before", "REPLICAOF 127.0.0.1 1", "GET k", "SET k v"),
		cmd("EVAL", "return redis.call('set','k','v')", "0"),
		cmd("EVAL", "redis.call('get','k'); return redis.call('set','k','v')", "0"),
		cmd("EVAL", "return redis.pcall('set','k','v')", "0"),
		cmd("EVAL", "#!lua\nreturn redis.call('set','k','v')", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','k')", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn redis.call('set','k','v')", "0"),
		cmd("EVAL_RO", "return redis.call('get','k')", "0"),
		mbs("GET k"), asMaster, mbs("GET k"))},
	{name: "read-only replica refuses exec with a write queued", cmds: cmds(mbs("REPLICAOF 127.0.0.1 1", "MULTI", "SET k v", "EXEC",
		"MULTI", "GET k", "EXEC", "EXISTS k"), asMaster)},
	{name: "replicaof inside exec runs the rest of the queue", cmds: cmds(mbs("SET foo bar", "MULTI", "SET foo2 bar", "REPLICAOF 127.0.0.1 1",
		"SET foo3 bar", "EXEC", "SET foo4 bar", "MGET foo foo2 foo3 foo4"), asMaster)},
	{name: "writable replica takes scripts' writes", cmds: cmds(mbs("CONFIG SET replica-read-only no", "REPLICAOF 127.0.0.1 1"),
		cmd("EVAL", "return redis.call('set','k','v')", "0"),
		cmd("EVAL", "#!lua\nreturn redis.call('set','k2','v')", "0"),
		mbs("MGET k k2", "CONFIG SET replica-read-only yes"), asMaster)},
	{name: "min-replicas refuses scripts' writes and exec", cmds: cmds(mbs("SET k before", "CONFIG SET min-replicas-to-write 1", "SET k v", "GET k"),
		cmd("EVAL", "return redis.call('set','k','v')", "0"),
		cmd("EVAL", "return redis.pcall('set','k','v')", "0"),
		cmd("EVAL", "#!lua\nreturn redis.call('set','k','v')", "0"),
		cmd("EVAL", "return redis.call('get','k')", "0"),
		mbs("MULTI", "SET k v", "EXEC", "MULTI", "GET k", "EXEC", "GET k"), asMaster)},
	{name: "min-replicas set inside exec does not refuse its queue", cmds: cmds(mbs("MULTI", "CONFIG SET min-replicas-to-write 1", "SET k v", "EXEC",
		"SET k2 v", "MGET k k2"), asMaster)},
	{name: "stale replica serves only stale commands", cmds: cmds(mbs("SET k v", "CONFIG SET replica-serve-stale-data no", "REPLICAOF 127.0.0.1 1",
		"GET k", "PING", "ECHO e", "DBSIZE", "CONFIG GET replica-serve-stale-data"),
		cmd("EVAL", "return 1", "0"),
		cmd("EVAL", "return redis.call('get','k')", "0"),
		cmd("EVAL", "#!lua\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=no-writes,allow-stale\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=no-writes,allow-stale\nreturn redis.call('get','k')", "0"),
		cmd("EVAL", "#!lua flags=no-writes,allow-stale\nreturn redis.pcall('get','k')['err']", "0"),
		cmd("EVAL", "#!lua flags=no-writes,allow-stale\nreturn redis.call('echo','e')", "0"),
		cmd("EVAL", "#!lua flags=allow-stale\nreturn 1", "0"),
		mbs("MULTI", "GET k", "EXEC", "MULTI", "CONFIG GET replica-serve-stale-data", "EXEC",
			"CONFIG SET replica-serve-stale-data yes", "GET k"), asMaster)},
	{name: "state changed inside exec refuses its scripts", cmds: cmds(mbs("MULTI", "CONFIG SET replica-serve-stale-data no", "REPLICAOF 127.0.0.1 1", "GET k"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=allow-stale\nreturn redis.call('set','k','v')", "0"),
		cmd("EVAL", "#!lua flags=no-writes,allow-stale\nreturn 2", "0"),
		cmd("EVAL", "return redis.call('get','k')", "0"),
		mbs("EXEC", "CONFIG SET replica-serve-stale-data yes", "MULTI", "CONFIG SET min-replicas-to-write 1", "REPLICAOF NO ONE"),
		cmd("EVAL", "#!lua\nreturn redis.call('set','k','v')", "0"),
		mbs("EXEC", "EXISTS k"), asMaster)},
}
