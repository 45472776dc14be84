package compat

import (
	"strconv"
	"testing"
	"time"
)

// Transactions on one connection: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
// Every command of a case gets exactly one reply (+QUEUED while queuing), so
// the cases run in the three write modes like any other. The EXEC reply is
// one aggregate: loosenings apply to top-level replies only, so nothing
// inside a transaction may need one (no PTTL, no INFO, no unordered sets
// of more than one member).
//
// Multi-connection scenarios are in multi_scenarios_test.go, go-redis
// concurrency tests in multi_clients_test.go.

func TestRedisMulti(t *testing.T)         { runRedisCases(t, multiCases) }
func TestRedisMultiErrors(t *testing.T)   { runRedisCases(t, multiErrorCases) }
func TestRedisMultiWatch(t *testing.T)    { runRedisCases(t, multiWatchCases) }
func TestRedisMultiBlocking(t *testing.T) { runRedisCases(t, multiBlockingCases) }

var multiCases = []redisCase{
	{name: "multi exec basic", cmds: mbs("MULTI", "SET k v", "GET k", "INCR n", "EXEC", "GET k", "GET n")},
	{name: "multi exec lowercase", cmds: mbs("multi", "set k v", "Get k", "exec")},
	{name: "multi exec empty", cmds: mbs("MULTI", "EXEC", "DBSIZE")},
	{name: "multi queued then visible only after exec", cmds: mbs("MULTI", "SET k v", "EXISTS k", "EXEC", "EXISTS k")},
	{name: "multi exec sequence of incr", cmds: mbs("MULTI", "INCR a", "INCR a", "INCRBY a 10", "DECR a", "GET a", "EXEC")},
	{name: "multi exec many commands", cmds: manyIncrs(60)},
	{name: "multi exec twice", cmds: mbs("MULTI", "SET k 1", "EXEC", "MULTI", "INCR k", "EXEC", "GET k")},
	{name: "multi ping echo", cmds: cmds(mbs("MULTI", "PING", "PING hi", "ECHO e"), cmd("ECHO", ""), mbs("EXEC"))},
	{name: "exec without multi", cmds: mbs("EXEC", "GET k")},
	{name: "discard without multi", cmds: mbs("DISCARD", "PING")},
	{name: "multi nested", cmds: mbs("MULTI", "MULTI", "SET k v", "EXEC", "GET k")},
	{name: "multi nested twice then discard", cmds: mbs("MULTI", "SET k v", "MULTI", "MULTI", "DISCARD", "GET k", "EXEC")},
	{name: "discard drops queue", cmds: mbs("SET k old", "MULTI", "SET k new", "DEL k", "DISCARD", "GET k", "EXEC")},
	{name: "discard then multi again", cmds: mbs("MULTI", "SET k 1", "DISCARD", "MULTI", "INCR k", "EXEC", "GET k")},
	{name: "discard then plain commands", cmds: mbs("MULTI", "INCR k", "DISCARD", "INCR k", "INCR k", "GET k")},

	// Runtime errors stay per command: the others are applied.
	{name: "exec wrongtype in the middle", cmds: mbs("SET s str", "MULTI", "INCR n", "LPUSH s x", "INCR n", "GET s", "EXEC", "GET n", "TYPE s")},
	{name: "exec runtime errors of every kind", cmds: mbs("SET s str", "HSET h f v", "MULTI",
		"INCR s", "HGET s f", "SET k v FOO", "SETEX k -1 v", "INCRBY n notanumber", "LRANGE h 0 -1", "SET k v", "ZADD z x m", "EXPIRE k abc", "EXEC", "GET k", "EXISTS z n")},
	{name: "exec all errors", cmds: mbs("SET s str", "MULTI", "LPUSH s a", "SADD s a", "EXEC")},
	{name: "exec error then dependent command", cmds: mbs("MULTI", "SET k 9223372036854775807", "INCR k", "GET k", "DECR k", "EXEC")},
	{name: "exec set syntax error is not a queue error", cmds: mbs("MULTI", "SET k v NX XX", "SET k2 v EX 0", "SET k3 v", "EXEC", "EXISTS k k2 k3")},

	// Nested aggregates and nulls in the EXEC reply (RESP2 and RESP3).
	{name: "exec nested aggregates", cmds: mbs("HSET h f1 v1", "RPUSH l a b c", "ZADD z 1.5 m 2 n", "SADD s only", "MULTI",
		"HGETALL h", "LRANGE l 0 -1", "ZRANGE z 0 -1 WITHSCORES", "SMEMBERS s", "MGET h nosuch", "ZSCORE z m", "ZPOPMIN z", "LMPOP 1 l LEFT COUNT 2", "EXEC")},
	{name: "exec nulls", cmds: mbs("MULTI", "GET nosuch", "LPOP nosuch", "LPOP nosuch 2", "HGET nosuch f", "HGETALL nosuch", "ZSCORE nosuch m", "LPOS nosuch x", "ZRANDMEMBER nosuch", "LMPOP 1 nosuch LEFT", "SMEMBERS nosuch", "EXEC")},
	{name: "exec doubles and booleans", cmds: mbs("MULTI", "INCRBYFLOAT f 1.5", "ZINCRBY z 2.5 m", "ZMSCORE z m x", "SMISMEMBER s a", "ZRANK z m", "EXEC")},
	{name: "exec config get map", cmds: mbs("MULTI", "CONFIG GET databases", "EXEC")},
	{name: "exec keys scan type", cmds: mbs("SET k v", "MULTI", "KEYS *", "SCAN 0", "TYPE k", "TYPE nosuch", "OBJECT ENCODING k", "EXEC")},

	// Databases inside a transaction.
	{name: "select inside multi", cmds: mbs("SET k db0", "MULTI", "SELECT 1", "SET k db1", "GET k", "EXEC", "GET k", "SELECT 0", "GET k")},
	{name: "select inside multi then back", cmds: mbs("MULTI", "SELECT 2", "SET k v", "SELECT 0", "EXEC", "EXISTS k", "SELECT 2", "EXISTS k")},
	{name: "select invalid inside multi", cmds: mbs("MULTI", "SELECT 99", "SELECT x", "SET k v", "EXEC", "GET k")},
	{name: "select before multi", cmds: mbs("SELECT 3", "MULTI", "SET k v", "DBSIZE", "EXEC", "SELECT 0", "DBSIZE")},
	{name: "discard keeps db", cmds: mbs("MULTI", "SELECT 5", "DISCARD", "SET k v", "SELECT 5", "EXISTS k")},
	{name: "swapdb inside multi", cmds: mbs("SET a in0", "MULTI", "SWAPDB 0 1", "GET a", "SELECT 1", "GET a", "EXEC", "GET a")},
	{name: "flushall inside multi", cmds: mbs("SET a 1", "MULTI", "SET b 2", "FLUSHALL", "DBSIZE", "SET c 3", "EXEC", "DBSIZE")},
	{name: "flushdb inside multi", cmds: mbs("SET a 1", "SELECT 1", "SET a 1", "MULTI", "FLUSHDB", "SELECT 0", "DBSIZE", "EXEC")},
	{name: "move copy rename inside multi", cmds: mbs("SET a 1", "MULTI", "COPY a b", "RENAME b c", "MOVE c 1", "EXISTS a b c", "SELECT 1", "GET c", "EXEC")},

	// Time is frozen inside EXEC: a key set with an expiry and read in the
	// same transaction.
	{name: "ttl inside exec", cmds: mbs("MULTI", "SET k v EX 100", "TTL k", "EXPIRE k 50", "TTL k", "PERSIST k", "TTL k", "EXEC")},
	{name: "expired before exec", cmds: cmds(mbs("SET k v PX 20"), expiryPause, mbs("MULTI", "GET k", "EXISTS k", "EXEC"))},

	// Commands handled outside the queue.
	{name: "reset inside multi", cmds: mbs("MULTI", "SET k v", "RESET", "EXEC", "GET k")},
	{name: "reset inside multi after error", cmds: mbs("MULTI", "NOSUCH", "RESET", "MULTI", "SET k v", "EXEC")},
	{name: "reset leaves selected db", cmds: mbs("SELECT 1", "MULTI", "SET k v", "RESET", "SET k w", "GET k", "SELECT 1", "GET k")},
	{name: "quit inside multi", cmds: mbs("MULTI", "SET k v", "QUIT"), closes: true},
	{name: "client reply on inside multi", cmds: mbs("MULTI", "CLIENT REPLY ON", "SET k v", "EXEC", "GET k")},
	{name: "client setname inside multi", cmds: mbs("MULTI", "CLIENT SETNAME tx", "CLIENT GETNAME", "EXEC", "CLIENT GETNAME")},
	{name: "multi inline commands", cmds: []string{"MULTI\r\n", "SET k v\r\n", "GET k\r\n", "EXEC\r\n"}},
}

func manyIncrs(n int) []string {
	out := mbs("MULTI")
	for i := 0; i < n; i++ {
		out = append(out, cmd("INCRBY", "k", strconv.Itoa(i)))
	}
	return append(out, mbs("EXEC", "GET k")...)
}

// Queue-time errors: the erring command gets its error at once, the others
// are still queued, and EXEC answers EXECABORT and leaves the transaction.
var multiErrorCases = []redisCase{
	{name: "execabort unknown command", cmds: mbs("MULTI", "SET k v", "NOSUCH", "SET k2 v", "EXEC", "EXISTS k k2")},
	{name: "execabort unknown command with args", cmds: mbs("MULTI", "FOO a b", "EXEC")},
	{name: "execabort wrong arity", cmds: mbs("MULTI", "SET k", "GET", "SET k v", "EXEC", "EXISTS k")},
	{name: "execabort wrong arity many", cmds: mbs("MULTI", "GET k x", "EXEC")},
	{name: "execabort unknown subcommand", cmds: mbs("MULTI", "CLIENT FOO", "SET k v", "EXEC", "EXISTS k")},
	{name: "execabort subcommand arity", cmds: mbs("MULTI", "OBJECT ENCODING", "CONFIG GET", "EXEC")},
	{name: "execabort leaves multi", cmds: mbs("MULTI", "NOSUCH", "EXEC", "EXEC", "DISCARD", "SET k v", "GET k")},
	{name: "execabort after runtime-valid commands", cmds: mbs("SET n 1", "MULTI", "INCR n", "INCR n", "FOO", "EXEC", "GET n")},
	{name: "discard after queue error", cmds: mbs("MULTI", "FOO", "SET k v", "DISCARD", "GET k", "MULTI", "SET k v", "EXEC")},
	{name: "multi after execabort is clean", cmds: mbs("MULTI", "FOO", "EXEC", "MULTI", "SET k v", "EXEC")},
	{name: "exec with argument inside multi", cmds: mbs("MULTI", "SET k v", "EXEC x", "EXEC", "GET k")},
	{name: "discard with argument inside multi", cmds: mbs("MULTI", "SET k v", "DISCARD x", "EXEC", "GET k")},
	{name: "multi with argument", cmds: mbs("MULTI x", "EXEC", "MULTI", "MULTI x", "EXEC")},
	{name: "exec discard arity outside multi", cmds: mbs("EXEC x", "DISCARD x")},
	{name: "nested multi is not a queue error", cmds: mbs("MULTI", "MULTI", "INCR n", "EXEC", "GET n")},
	{name: "watch inside multi", cmds: mbs("MULTI", "WATCH k", "SET k v", "EXEC", "GET k")},
	{name: "watch arity inside multi", cmds: mbs("MULTI", "WATCH", "SET k v", "EXEC", "EXISTS k")},
	{name: "unwatch queued inside multi", cmds: mbs("MULTI", "UNWATCH", "SET k v", "EXEC")},
	{name: "unwatch arity inside multi", cmds: mbs("MULTI", "UNWATCH x", "EXEC")},
	{name: "watch unwatch replies", cmds: mbs("WATCH a", "WATCH a b c", "WATCH a", "UNWATCH", "UNWATCH", "WATCH", "UNWATCH x")},
	{name: "execabort resp3 error types", cmds: mbs("MULTI", "SET k", "EXEC", "MULTI", "NOSUCH", "EXEC")},
	{name: "execabort empty command name", cmds: cmds(mbs("MULTI"), cmd(""), mbs("EXEC"))},
}

// WATCH on one connection: what counts as a modification.
var multiWatchCases = []redisCase{
	{name: "watch unchanged", cmds: mbs("SET k v", "WATCH k", "MULTI", "GET k", "EXEC")},
	{name: "watch then set", cmds: mbs("SET k v", "WATCH k", "SET k w", "MULTI", "GET k", "EXEC", "GET k")},
	{name: "watch then set same value", cmds: mbs("SET k v", "WATCH k", "SET k v", "MULTI", "GET k", "EXEC")},
	{name: "watch missing then create", cmds: mbs("WATCH k", "SET k v", "MULTI", "PING", "EXEC")},
	{name: "watch missing stays missing", cmds: mbs("WATCH k", "MULTI", "SET k v", "EXEC", "GET k")},
	{name: "watch missing create and delete", cmds: mbs("WATCH k", "SET k v", "DEL k", "MULTI", "PING", "EXEC")},
	{name: "watch then del", cmds: mbs("SET k v", "WATCH k", "DEL k", "MULTI", "SET k w", "EXEC", "GET k")},
	{name: "watch then del missing", cmds: mbs("WATCH k", "DEL k", "UNLINK k", "MULTI", "PING", "EXEC")},
	{name: "watch then reads", cmds: mbs("SET k v", "WATCH k", "GET k", "EXISTS k", "TTL k", "TYPE k", "STRLEN k", "TOUCH k", "OBJECT ENCODING k", "MULTI", "GET k", "EXEC")},
	{name: "watch then sadd existing member", cmds: mbs("SADD s a", "WATCH s", "SADD s a", "SREM s zz", "MULTI", "SCARD s", "EXEC")},
	{name: "watch then sadd new member", cmds: mbs("SADD s a", "WATCH s", "SADD s b", "MULTI", "SCARD s", "EXEC")},
	{name: "watch then hset same value", cmds: mbs("HSET h f v", "WATCH h", "HSET h f v", "MULTI", "HGET h f", "EXEC")},
	{name: "watch then hsetnx existing", cmds: mbs("HSET h f v", "WATCH h", "HSETNX h f w", "HDEL h nosuch", "MULTI", "HGET h f", "EXEC")},
	{name: "watch then zadd same score", cmds: mbs("ZADD z 1 m", "WATCH z", "ZADD z 1 m", "MULTI", "ZSCORE z m", "EXEC")},
	{name: "watch then zadd nx existing", cmds: mbs("ZADD z 1 m", "WATCH z", "ZADD z NX 5 m", "ZREM z nosuch", "MULTI", "ZSCORE z m", "EXEC")},
	{name: "watch then lrem nothing", cmds: mbs("RPUSH l a", "WATCH l", "LREM l 0 zz", "LPUSHX nosuch a", "MULTI", "LLEN l", "EXEC")},
	{name: "watch then setnx existing", cmds: mbs("SET k v", "WATCH k", "SETNX k w", "SET k w NX", "MULTI", "GET k", "EXEC")},
	{name: "watch then set xx missing", cmds: mbs("WATCH k", "SET k v XX", "MULTI", "EXISTS k", "EXEC")},
	{name: "watch then incr", cmds: mbs("SET n 1", "WATCH n", "INCR n", "MULTI", "GET n", "EXEC")},
	{name: "watch then append empty", cmds: cmds(mbs("SET k v", "WATCH k"), cmd("APPEND", "k", ""), mbs("MULTI", "GET k", "EXEC"))},
	{name: "watch then wrongtype error", cmds: mbs("SET k v", "WATCH k", "LPUSH k x", "MULTI", "GET k", "EXEC")},
	{name: "watch then expire", cmds: mbs("SET k v", "WATCH k", "EXPIRE k 100", "MULTI", "GET k", "EXEC")},
	{name: "watch then expire missing", cmds: mbs("WATCH k", "EXPIRE k 100", "MULTI", "GET k", "EXEC")},
	{name: "watch then expire in the past", cmds: mbs("SET k v", "WATCH k", "EXPIRE k -1", "MULTI", "EXISTS k", "EXEC")},
	{name: "watch then expire nx not applied", cmds: mbs("SET k v EX 100", "WATCH k", "EXPIRE k 200 NX", "MULTI", "GET k", "EXEC")},
	{name: "watch then persist", cmds: mbs("SET k v EX 100", "WATCH k", "PERSIST k", "MULTI", "GET k", "EXEC")},
	{name: "watch then persist without ttl", cmds: mbs("SET k v", "WATCH k", "PERSIST k", "MULTI", "GET k", "EXEC")},
	{name: "watch then rename source", cmds: mbs("SET a 1", "WATCH a", "RENAME a b", "MULTI", "PING", "EXEC")},
	{name: "watch then rename onto", cmds: mbs("SET a 1", "WATCH b", "RENAME a b", "MULTI", "PING", "EXEC")},
	{name: "watch then copy onto", cmds: mbs("SET a 1", "WATCH b", "COPY a b", "MULTI", "GET b", "EXEC")},
	{name: "watch then copy from", cmds: mbs("SET a 1", "WATCH a", "COPY a b", "MULTI", "GET b", "EXEC")},
	{name: "watch then move", cmds: mbs("SET k v", "WATCH k", "MOVE k 1", "MULTI", "EXISTS k", "EXEC")},
	{name: "watch then lpop last", cmds: mbs("RPUSH l a", "WATCH l", "LPOP l", "MULTI", "EXISTS l", "EXEC")},
	{name: "watch then lpop missing", cmds: mbs("WATCH l", "LPOP l", "RPOP l", "MULTI", "EXISTS l", "EXEC")},
	{name: "watch then sort store", cmds: mbs("RPUSH l 3 1 2", "WATCH d", "SORT l STORE d", "MULTI", "LRANGE d 0 -1", "EXEC")},
	{name: "watch then setbit same bit", cmds: mbs("SETBIT b 3 1", "WATCH b", "SETBIT b 3 1", "MULTI", "GET b", "EXEC")},
	{name: "watch then pfadd no change", cmds: mbs("PFADD p a", "WATCH p", "PFADD p a", "MULTI", "PFCOUNT p", "EXEC")},
	{name: "watch then del and recreate same value", cmds: mbs("SET k v", "WATCH k", "DEL k", "SET k v", "MULTI", "GET k", "EXEC")},
	{name: "watch then expire same ttl", cmds: mbs("SET k v EX 100", "WATCH k", "EXPIRE k 100", "MULTI", "GET k", "EXEC")},
	{name: "watch then getex without option", cmds: mbs("SET k v EX 100", "WATCH k", "GETEX k", "MULTI", "GET k", "EXEC")},
	{name: "watch then getex ex", cmds: mbs("SET k v", "WATCH k", "GETEX k EX 100", "MULTI", "GET k", "EXEC")},
	{name: "watch then getdel", cmds: mbs("SET k v", "WATCH k", "GETDEL k", "MULTI", "EXISTS k", "EXEC")},
	{name: "watch then incrby zero", cmds: mbs("SET n 5", "WATCH n", "INCRBY n 0", "MULTI", "GET n", "EXEC")},
	{name: "watch then setrange empty", cmds: cmds(mbs("SET k v", "WATCH k"), cmd("SETRANGE", "k", "0", ""), mbs("MULTI", "GET k", "EXEC"))},
	{name: "watch then setrange same bytes", cmds: mbs("SET k v", "WATCH k", "SETRANGE k 0 v", "MULTI", "GET k", "EXEC")},
	{name: "watch then ltrim keeping all", cmds: mbs("RPUSH l a b", "WATCH l", "LTRIM l 0 -1", "MULTI", "LLEN l", "EXEC")},
	{name: "watch then lset same value", cmds: mbs("RPUSH l a", "WATCH l", "LSET l 0 a", "MULTI", "LLEN l", "EXEC")},
	{name: "watch then pushx missing", cmds: mbs("WATCH l", "LPUSHX l a", "RPUSHX l a", "MULTI", "EXISTS l", "EXEC")},
	{name: "watch then rename same key", cmds: mbs("SET k v", "WATCH k", "RENAME k k", "MULTI", "GET k", "EXEC")},
	{name: "watch then move refused", cmds: mbs("SET k v", "SELECT 1", "SET k other", "SELECT 0", "WATCH k", "MOVE k 1", "MULTI", "GET k", "EXEC")},
	{name: "watch then sort store empty deletes", cmds: mbs("SET d x", "WATCH d", "SORT nosuch STORE d", "MULTI", "EXISTS d", "EXEC")},
	{name: "watch then hincrby zero", cmds: mbs("HSET h f 1", "WATCH h", "HINCRBY h f 0", "MULTI", "HGET h f", "EXEC")},
	{name: "watch then zincrby zero", cmds: mbs("ZADD z 1 m", "WATCH z", "ZINCRBY z 0 m", "MULTI", "ZSCORE z m", "EXEC")},
	{name: "watch then smove missing member", cmds: mbs("SADD s a", "SADD d b", "WATCH s d", "SMOVE s d zz", "MULTI", "SCARD s", "EXEC")},
	{name: "watch then spop missing", cmds: mbs("WATCH s", "SPOP s", "MULTI", "EXISTS s", "EXEC")},
	{name: "watch then pfcount after pfadd", cmds: mbs("PFADD p a b", "WATCH p", "PFCOUNT p", "MULTI", "PFCOUNT p", "EXEC")},
	{name: "watch several one changed", cmds: mbs("WATCH a b c", "SET c 1", "MULTI", "SET a 1", "EXEC", "EXISTS a")},
	{name: "watch twice same key", cmds: mbs("WATCH k", "WATCH k", "SET k v", "MULTI", "PING", "EXEC")},
	{name: "watch then unwatch then set", cmds: mbs("SET k v", "WATCH k", "UNWATCH", "SET k w", "MULTI", "GET k", "EXEC")},
	{name: "watch set in own transaction", cmds: mbs("WATCH k", "MULTI", "SET k v", "EXEC", "MULTI", "GET k", "EXEC")},
	{name: "exec unwatches", cmds: mbs("WATCH k", "MULTI", "EXEC", "SET k v", "MULTI", "GET k", "EXEC")},
	{name: "aborted exec unwatches", cmds: mbs("WATCH k", "SET k v", "MULTI", "EXEC", "SET k w", "MULTI", "GET k", "EXEC")},
	{name: "discard unwatches", cmds: mbs("WATCH k", "MULTI", "DISCARD", "SET k v", "MULTI", "GET k", "EXEC")},
	{name: "execabort unwatches", cmds: mbs("WATCH k", "MULTI", "FOO", "EXEC", "SET k v", "MULTI", "GET k", "EXEC")},
	{name: "reset unwatches", cmds: mbs("WATCH k", "RESET", "SET k v", "MULTI", "GET k", "EXEC")},
	{name: "watch aborted exec does not run queue", cmds: mbs("SET n 1", "WATCH n", "INCR n", "MULTI", "INCR n", "SET other x", "EXEC", "GET n", "EXISTS other")},
	{name: "watch then queue error", cmds: mbs("WATCH k", "SET k v", "MULTI", "FOO", "EXEC")},

	// Databases.
	{name: "watch is per db", cmds: mbs("SELECT 1", "WATCH k", "SELECT 0", "SET k v", "SELECT 1", "MULTI", "GET k", "EXEC")},
	{name: "watch in db 1 modified in db 1", cmds: mbs("SELECT 1", "WATCH k", "SET k v", "SELECT 0", "MULTI", "GET k", "EXEC")},
	{name: "watch then flushall existing", cmds: mbs("SET k v", "WATCH k", "FLUSHALL", "MULTI", "PING", "EXEC")},
	{name: "watch then flushall missing", cmds: mbs("SET other v", "WATCH k", "FLUSHALL", "MULTI", "PING", "EXEC")},
	{name: "watch then flushdb existing", cmds: mbs("SET k v", "WATCH k", "FLUSHDB", "MULTI", "PING", "EXEC")},
	{name: "watch then flushdb missing", cmds: mbs("SET other v", "WATCH k", "FLUSHDB", "MULTI", "PING", "EXEC")},
	{name: "watch then flushdb other db", cmds: mbs("SET k v", "WATCH k", "SELECT 1", "SET k x", "FLUSHDB", "SELECT 0", "MULTI", "GET k", "EXEC")},
	{name: "watch then flushall async", cmds: mbs("SET k v", "WATCH k", "FLUSHALL ASYNC", "MULTI", "PING", "EXEC")},
	{name: "watch then swapdb existing", cmds: mbs("SET k v", "WATCH k", "SWAPDB 0 1", "MULTI", "PING", "EXEC")},
	{name: "watch then swapdb brings key", cmds: mbs("SELECT 1", "SET k v", "SELECT 0", "WATCH k", "SWAPDB 0 1", "MULTI", "GET k", "EXEC")},
	{name: "watch then swapdb both missing", cmds: mbs("SELECT 1", "SET other v", "SELECT 0", "WATCH k", "SWAPDB 0 1", "MULTI", "PING", "EXEC")},
	{name: "watch then swapdb other dbs", cmds: mbs("SET k v", "WATCH k", "SELECT 2", "SET k x", "SWAPDB 1 2", "SELECT 0", "MULTI", "GET k", "EXEC")},
	{name: "watch then swapdb same value", cmds: mbs("SET k v", "SELECT 1", "SET k v", "SELECT 0", "WATCH k", "SWAPDB 0 1", "MULTI", "GET k", "EXEC")},

	// Expiry of a watched key: the pause lets a short PX pass.
	{name: "watch key that expires", cmds: cmds(mbs("SET k v PX 100", "WATCH k"), pause(300*time.Millisecond), mbs("MULTI", "GET k", "EXEC"))},
	{name: "watch key that expires then exists", cmds: cmds(mbs("SET k v PX 100", "WATCH k"), pause(300*time.Millisecond), mbs("EXISTS k", "MULTI", "GET k", "EXEC"))},
	{name: "watch already expired key", cmds: cmds(mbs("SET k v PX 20"), expiryPause, mbs("WATCH k", "MULTI", "GET k", "EXEC"))},
	{name: "watch already expired key then access", cmds: cmds(mbs("SET k v PX 20"), expiryPause, mbs("WATCH k", "EXISTS k", "GET k", "MULTI", "GET k", "EXEC"))},
	{name: "watch already expired key then set", cmds: cmds(mbs("SET k v PX 20"), expiryPause, mbs("WATCH k", "SET k w", "MULTI", "GET k", "EXEC"))},
	{name: "watch key with long ttl", cmds: mbs("SET k v EX 1000", "WATCH k", "MULTI", "GET k", "EXEC")},
}

// Blocking commands inside MULTI never block: an empty key answers at once
// as on a timeout, a non-empty one answers its value.
var multiBlockingCases = []redisCase{
	{name: "blocking on empty keys", cmds: mbs("MULTI", "BLPOP l 0", "BRPOP l 1", "BLMOVE a b LEFT LEFT 0", "BRPOPLPUSH a b 0", "BLMPOP 0 1 l LEFT", "BZPOPMIN z 0", "BZPOPMAX z 0", "BZMPOP 0 1 z MIN", "EXEC", "EXISTS l a b z")},
	{name: "blocking on non-empty keys", cmds: mbs("RPUSH l a b c d e", "ZADD z 1 x 2 y 3 w", "MULTI",
		"BLPOP l 0", "BRPOP l 0", "BLMOVE l d LEFT RIGHT 0", "BRPOPLPUSH l d 0", "BLMPOP 0 1 l LEFT COUNT 5", "BZPOPMIN z 0", "BZPOPMAX z 0", "BZMPOP 0 1 z MIN", "EXEC", "LRANGE d 0 -1", "EXISTS l z")},
	{name: "blocking after push in same transaction", cmds: mbs("MULTI", "RPUSH l a", "BLPOP l 0", "BLPOP l 0", "ZADD z 1 m", "BZPOPMIN z 0", "EXEC")},
	{name: "blocking wrongtype inside multi", cmds: mbs("SET s v", "MULTI", "BLPOP s 0", "BZPOPMIN s 0", "BLMOVE s d LEFT LEFT 0", "EXEC")},
	{name: "blocking bad timeout inside multi", cmds: mbs("MULTI", "BLPOP l -1", "BLPOP l abc", "BZPOPMIN z -1", "BLMOVE a b LEFT LEFT x", "EXEC")},
	{name: "blocking multi key first non-empty", cmds: mbs("RPUSH b x", "MULTI", "BLPOP a b c 0", "BLPOP a b c 0", "EXEC")},
	{name: "blocking arity inside multi", cmds: mbs("MULTI", "BLPOP l", "EXEC")},
}
