package compat

import "testing"

// COMMAND GETKEYS and COMMAND INFO for the commands whose key positions
// depend on their arguments (Redis's movablekeys): a numkeys count
// (ZUNION…, ZMPOP, LMPOP, SINTERCARD) or SORT's STORE. Redis 7.0 reads the
// count first as the key specs do (strictly, destination key first) and
// falls back to the command's getkeys helper (atoi, destination last); the
// cases cover both paths, and COMMAND INFO with its keynum and unknown
// key specs.

func TestRedisGetKeysMovable(t *testing.T) { runRedisCases(t, getKeysCases) }

var getKeysCases = []redisCase{
	{name: "getkeys zunionstore", cmds: mbs(
		"COMMAND GETKEYS ZUNIONSTORE d 2 a b",
		"COMMAND GETKEYS ZUNIONSTORE d 2 a b WEIGHTS 1 2 AGGREGATE MAX",
		"COMMAND GETKEYS ZUNIONSTORE d 1 a",
		"COMMAND GETKEYS ZINTERSTORE d 2 a b",
		"COMMAND GETKEYS ZDIFFSTORE d 3 a b c")},
	{name: "getkeys zunionstore bad numkeys", cmds: mbs(
		"COMMAND GETKEYS ZUNIONSTORE d 3 a b",
		"COMMAND GETKEYS ZUNIONSTORE d 0 a",
		"COMMAND GETKEYS ZUNIONSTORE d -1 a",
		"COMMAND GETKEYS ZUNIONSTORE d x a",
		"COMMAND GETKEYS ZINTERSTORE d 99999999999999999999 a b",
		"COMMAND GETKEYS ZDIFFSTORE d -99999999999999999999 a b")},
	// Not a strict integer: the getkeys helper's atoi, destination last.
	{name: "getkeys zunionstore atoi numkeys", cmds: cmds(
		mbs("COMMAND GETKEYS ZUNIONSTORE d 2abc a b",
			"COMMAND GETKEYS ZUNIONSTORE d +2 a b",
			"COMMAND GETKEYS ZINTERSTORE d 02 a b"),
		cmd("COMMAND", "GETKEYS", "ZDIFFSTORE", "d", " 2", "a", "b"),
		cmd("COMMAND", "GETKEYS", "ZDIFFSTORE", "d", "\t\n1x", "a", "b"),
		cmd("COMMAND", "GETKEYS", "ZDIFFSTORE", "d", "", "a", "b"))},
	// The key specs' count is cast to 32 bits, as Redis's (int).
	{name: "getkeys numkeys truncated", cmds: mbs(
		"COMMAND GETKEYS ZUNIONSTORE d 4294967298 a b",
		"COMMAND GETKEYS ZMPOP 4294967298 a b",
		"COMMAND GETKEYS ZUNION 2147483648 a b",
		"COMMAND GETKEYS SINTERCARD 4294967297 a")},
	{name: "getkeys zunion zinter zdiff", cmds: mbs(
		"COMMAND GETKEYS ZUNION 2 a b",
		"COMMAND GETKEYS ZUNION 1 a WITHSCORES",
		"COMMAND GETKEYS ZINTER 3 a b c WEIGHTS 1 2 3",
		"COMMAND GETKEYS ZDIFF 2 a b WITHSCORES",
		"COMMAND GETKEYS ZUNION 3 a b",
		"COMMAND GETKEYS ZINTER 0 a",
		"COMMAND GETKEYS ZDIFF x a",
		"COMMAND GETKEYS zunion 1x a b")},
	{name: "getkeys zintercard", cmds: mbs(
		"COMMAND GETKEYS ZINTERCARD 2 a b",
		"COMMAND GETKEYS ZINTERCARD 2 a b LIMIT 1",
		"COMMAND GETKEYS ZINTERCARD 3 a b",
		"COMMAND GETKEYS ZINTERCARD 0 a")},
	{name: "getkeys zmpop bzmpop", cmds: mbs(
		"COMMAND GETKEYS ZMPOP 2 a b MIN",
		"COMMAND GETKEYS ZMPOP 2 a b MAX COUNT 3",
		"COMMAND GETKEYS ZMPOP 2 a b",
		"COMMAND GETKEYS ZMPOP 3 a b MIN",
		"COMMAND GETKEYS ZMPOP 4 a b MIN",
		"COMMAND GETKEYS BZMPOP 0 2 a b MIN",
		"COMMAND GETKEYS BZMPOP 1.5 1 a MAX COUNT 2",
		"COMMAND GETKEYS BZMPOP 0 2 a b",
		"COMMAND GETKEYS BZMPOP 0 3 a b",
		"COMMAND GETKEYS BZMPOP 0 0 a b")},
	{name: "getkeys lmpop blmpop", cmds: mbs(
		"COMMAND GETKEYS LMPOP 1 a LEFT",
		"COMMAND GETKEYS LMPOP 2 a b RIGHT COUNT 2",
		"COMMAND GETKEYS LMPOP 2 a LEFT",
		"COMMAND GETKEYS LMPOP 3 a LEFT",
		"COMMAND GETKEYS LMPOP 0 a LEFT",
		"COMMAND GETKEYS BLMPOP 0 1 a LEFT",
		"COMMAND GETKEYS BLMPOP 0 2 a b LEFT",
		"COMMAND GETKEYS BLMPOP 0 2 a LEFT",
		"COMMAND GETKEYS BLMPOP 0 3 a LEFT",
		"COMMAND GETKEYS BLMPOP 0 x a LEFT")},
	{name: "getkeys sintercard", cmds: mbs(
		"COMMAND GETKEYS SINTERCARD 2 a b",
		"COMMAND GETKEYS SINTERCARD 1 a LIMIT 2",
		"COMMAND GETKEYS SINTERCARD 3 a b",
		"COMMAND GETKEYS SINTERCARD 0 a",
		"COMMAND GETKEYS SINTERCARD 2 a",
		"COMMAND GETKEYS SINTERCARD 1x a")},
	{name: "getkeys movable arity", cmds: mbs(
		"COMMAND GETKEYS LMPOP 1 a",
		"COMMAND GETKEYS ZDIFF 1",
		"COMMAND GETKEYS ZINTERSTORE d 1",
		"COMMAND GETKEYS BZMPOP 0 1 a",
		"COMMAND GETKEYS SINTERCARD 1")},
	{name: "getkeys sort", cmds: mbs(
		"COMMAND GETKEYS SORT k",
		"COMMAND GETKEYS SORT k STORE d",
		"COMMAND GETKEYS SORT k STORE",
		"COMMAND GETKEYS SORT k store d STORE e",
		"COMMAND GETKEYS SORT k LIMIT 0 1 STORE d",
		"COMMAND GETKEYS SORT k BY store STORE d",
		"COMMAND GETKEYS SORT k BY w_* GET # GET store",
		"COMMAND GETKEYS SORT k LIMIT store x STORE d",
		"COMMAND GETKEYS SORT k ALPHA store d DESC",
		"COMMAND GETKEYS SORT k STORE d LIMIT 0",
		"COMMAND GETKEYS SORT_RO k BY x GET y",
		"COMMAND GETKEYS SORT_RO k STORE d")},
	{name: "command info movablekeys", cmds: mbs(
		"COMMAND INFO zunion zinter zdiff zunionstore zinterstore zdiffstore zintercard",
		"COMMAND INFO zmpop bzmpop lmpop blmpop sintercard",
		"COMMAND INFO sort sort_ro")},
}
