package compat

import "testing"

// TestRedisExpiryStopped: while a transaction or a script runs, Redis 7.0
// judges key expiry at one moment — a key that expires during it is still
// there for the commands after — while the TTLs it replies read the clock
// (db.c keyIsExpired). DEBUG SLEEP and a script's busy loop let 50 ms pass
// over a 5 ms expiry.
func TestRedisExpiryStopped(t *testing.T) { runRedisCases(t, expiryStoppedCases) }

// busyLoop is Lua that spins until ms milliseconds of TIME have passed.
const busyLoop = "local t=redis.call('time') while true do local u=redis.call('time') if (u[1]-t[1])*1000000+(u[2]-t[2]) > 50000 then break end end "

var expiryStoppedCases = []redisCase{
	{name: "expiry stopped in exec", cmds: mbs("MULTI", "SET k v PX 5", "DEBUG SLEEP 0.05", "EXISTS k", "PTTL k", "GET k", "EXEC", "EXISTS k")},
	{name: "expiry stopped across select in exec", cmds: mbs("SELECT 1", "MULTI", "SET k v PX 5", "DEBUG SLEEP 0.05", "SELECT 0", "SELECT 1", "EXISTS k", "KEYS *", "DBSIZE", "EXEC", "EXISTS k")},
	{name: "expiry stopped in exec for move", cmds: mbs("MULTI", "SET k v PX 5", "DEBUG SLEEP 0.05", "MOVE k 2", "EXEC", "SELECT 2", "EXISTS k")},
	{name: "expiry stopped in script", cmds: cmds(
		eval("redis.call('set','k','v','px',5) "+busyLoop+"return {redis.call('exists','k'), redis.call('pttl','k'), redis.call('get','k')}", "0"),
		mbs("EXISTS k"))},
	{name: "script in exec stops expiry at its own start", cmds: cmds(
		mbs("MULTI", "SET k v PX 5", "DEBUG SLEEP 0.05"),
		eval("return redis.call('exists','k')", "0"),
		mbs("EXISTS k", "EXEC"))},
	{name: "expiry runs again after exec", cmds: cmds(
		mbs("MULTI", "SET k v PX 5", "EXEC"), expiryPause, mbs("EXISTS k"))},
}
