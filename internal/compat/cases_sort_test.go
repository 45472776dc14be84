package compat

import "testing"

// SORT and SORT_RO: every option, error and ordering rule, in RESP2 and
// RESP3. Sets are built as intsets wherever BY nosort keeps their order
// (a hashtable's order is Redis's dict order, which Tandem does not
// reproduce).

func TestRedisSort(t *testing.T) { runRedisCases(t, sortCases) }

var sortWeights = mbs("RPUSH l b a c d", "MSET w_a 3 w_b 1 w_c 2 w_d 2", "HSET h_a f 30", "HSET h_b f 10", "HSET h_c f 20", "SET v_a va", "SET v_b vb", "HSET o_c name cc")

var sortCases = []redisCase{
	{name: "numeric list", cmds: mbs("RPUSH l 3 10 1 -2 2.5 1e1", "SORT l", "SORT l DESC", "SORT l ASC", "SORT_RO l", "SORT l LIMIT 1 2")},
	{name: "numeric ties by element", cmds: mbs("RPUSH l 1.0 1 01 +1 1e0", "SORT l", "SORT l DESC")},
	{name: "strtod rules", cmds: cmds(cmd("RPUSH", "l", "", " 4", "0x10", "1e5", "-inf", "inf", "5.", ".5", "0X1p3", "infinity", "-0", "0e-500", "1\x00junk", "0x1p-1074"), mbs("SORT l", "SORT l DESC"))},
	{name: "not a double", cmds: cmds(
		mbs("RPUSH a 1 x", "SORT a", "SORT a ALPHA", "SORT a BY nosort", "SORT a STORE d", "EXISTS d"),
		cmd("RPUSH", "b", "1 "), mbs("SORT b"),
		mbs("RPUSH c 1e-310", "SORT c", "RPUSH e 1e400", "SORT e", "RPUSH f nan", "SORT f", "RPUSH g 0x", "SORT g", "RPUSH i 1e", "SORT i", "RPUSH j 2.2250738585072011e-308", "SORT j", "RPUSH k 0x1.8p-1074", "SORT k"),
		cmd("RPUSH", "m", "  "), mbs("SORT m"))},
	{name: "alpha", cmds: cmds(cmd("RPUSH", "l", "b", "a", "B", "", "ab", "a\x00z", "a\x00b", "10", "9"), mbs("SORT l ALPHA", "SORT l ALPHA DESC", "SORT l ALPHA STORE d", "LRANGE d 0 -1", "SORT l ALPHA LIMIT 2 3"))},
	{name: "set sorted numerically", cmds: mbs("SADD s 5 -1 30 2", "SORT s", "SORT s DESC", "SADD t x 5 1", "SORT t ALPHA", "SORT t")},
	{name: "zset sorted by member", cmds: mbs("ZADD z 1 30 2 4 3 -1", "OBJECT ENCODING z", "SORT z", "OBJECT ENCODING z", "ZADD y 1 a 2 b", "SORT_RO y ALPHA DESC", "OBJECT ENCODING y", "SORT y")},
	{name: "nosort list", cmds: mbs("RPUSH l c a b d", "SORT l BY nosort", "SORT l BY nosort DESC", "SORT l BY nosort LIMIT 1 2", "SORT l BY nosort DESC LIMIT 1 2", "SORT l BY nosort LIMIT 3 10", "SORT l BY nosort LIMIT 10 1", "SORT l BY constant ALPHA")},
	{name: "nosort zset", cmds: mbs("ZADD z 3 c 1 a 2 b 2 bb", "SORT z BY nosort", "SORT z BY nosort DESC", "SORT z BY nosort LIMIT 1 2", "SORT z BY nosort DESC LIMIT 1 2", "SORT_RO z BY nosort LIMIT 5 1", "OBJECT ENCODING z")},
	{name: "nosort intset", cmds: mbs("SADD s 9 3 5 1", "SORT s BY nosort", "SORT s BY nosort DESC", "SORT s BY nosort LIMIT 1 2", "SORT s BY nosort STORE d", "LRANGE d 0 -1", "SORT s BY nosort DESC STORE d", "LRANGE d 0 -1")},
	{name: "nosort set store sorts alpha", cmds: mbs("SADD s b 10 9 a", "SORT s BY nosort STORE d", "LRANGE d 0 -1", "SORT s BY nosort DESC LIMIT 0 2 STORE d", "LRANGE d 0 -1")},
	{name: "nosort wins over later by", cmds: cmds(sortWeights, mbs("SORT l BY nosort BY w_*", "SORT l BY w_* BY nosort", "SORT l BY w_* BY w_*"))},
	{name: "by weights", cmds: cmds(sortWeights, mbs("SORT l BY w_*", "SORT l BY w_* DESC", "SORT l BY w_* LIMIT 0 2", "SORT l BY h_*->f", "SORT l BY h_*->f DESC", "SORT l BY h_*->nosuch", "SORT l BY v_*", "SORT l BY v_* ALPHA", "SORT l BY w_* ALPHA", "SORT l BY h_*->f ALPHA DESC"))},
	{name: "by missing weights", cmds: mbs("RPUSH l z y x w", "MSET k_x 1 k_y 1 k_z 1", "SORT l BY k_*", "SORT l BY k_* ALPHA", "SORT l BY k_* ALPHA DESC", "SORT l BY k_* ALPHA LIMIT 0 2", "SORT l BY nokey_*")},
	{name: "by wrong types", cmds: mbs("RPUSH l a b", "RPUSH w_a 1", "SET w_b 1", "SET h_a x", "SORT l BY w_*", "SORT l BY h_*->f", "SORT l GET w_* GET h_*->f")},
	{name: "get", cmds: cmds(sortWeights, mbs("SORT l GET v_*", "SORT l GET # GET v_*", "SORT l BY w_* GET # GET w_* GET h_*->f GET o_*->name", "SORT l GET nostar", "SORT l GET # LIMIT 1 1", "SORT l BY nosort GET # GET #", "SORT l BY w_* DESC GET h_*->f"))},
	{name: "pattern shapes", cmds: cmds(mbs("RPUSH l a", "SET pa-> s1", "HSET pa f1 g1", "SET x-a s2", "HSET pre_a_post f hv", "SET pre_a_post sv", "HSET h->f_a g v"),
		mbs("SORT l GET p*->", "SORT l GET p*->f1", "SORT l GET x-*", "SORT l GET pre_*_post->f", "SORT l GET pre_*_post", "SORT l GET h->f_*", "SORT l GET *", "SORT l GET **", "SORT l GET ## GET #"))},
	{name: "store", cmds: cmds(sortWeights, mbs("SORT l STORE d", "TYPE d", "LRANGE d 0 -1", "OBJECT ENCODING d", "SORT l BY w_* GET # GET v_* STORE d", "LRANGE d 0 -1", "SET d x", "EXPIRE d 100", "SORT l ALPHA STORE d", "TTL d", "SORT nosuch STORE d", "EXISTS d", "SORT l STORE l", "LRANGE l 0 -1"))},
	{name: "store limit none", cmds: cmds(sortWeights, mbs("SET d x", "SORT l LIMIT 10 5 STORE d", "EXISTS d", "SORT l LIMIT 0 0 GET # STORE d"))},
	{name: "only empty elements", cmds: cmds(cmd("RPUSH", "l", ""), cmd("ZADD", "z", "1", ""), mbs("SORT l", "SORT z", "SORT l GET #", "SORT z BY nosort", "SORT l STORE d", "LRANGE d 0 -1"))},
	{name: "nosort hashtable set", cmds: mbs("SADD s a b c d e f g h i j k l m", "SORT s BY nosort", "SORT s BY nosort STORE d", "LRANGE d 0 -1", "SORT s ALPHA"), loose: at(1, sortedArray)},
	{name: "missing key", cmds: mbs("SORT nosuch", "SORT_RO nosuch BY w_* GET #", "SORT nosuch LIMIT 0 5 DESC ALPHA")},
	{name: "wrong type", cmds: mbs("SET s v", "HSET h f v", "SORT s", "SORT h", "SORT_RO s", "SORT s BY nosort STORE d", "EXISTS d", "SORT s LIMIT x 1")},
	{name: "syntax errors", cmds: mbs("RPUSH l 1", "SORT l FOO", "SORT l LIMIT 1", "SORT l LIMIT", "SORT l BY", "SORT l GET", "SORT l STORE", "SORT_RO l STORE d", "EXISTS d", "SORT l ASC DESC ALPHA FOO LIMIT x y", "SORT l LIMIT x 1", "SORT l LIMIT 1 x", "SORT l LIMIT 1 1 FOO", "SORT l LIMIT 99999999999999999999 1", "SORT", "SORT_RO")},
	{name: "limit clamping", cmds: mbs("RPUSH l 5 4 3 2 1", "SORT l LIMIT -1 2", "SORT l LIMIT 0 -1", "SORT l LIMIT 0 -5", "SORT l LIMIT 2 100", "SORT l LIMIT 4 1", "SORT l LIMIT 5 1", "SORT l LIMIT 0 0", "SORT l LIMIT -9223372036854775808 9223372036854775807", "SORT l LIMIT 9223372036854775807 9223372036854775807", "SORT l BY nosort LIMIT -1 -1")},
	{name: "option case and nul", cmds: cmds(mbs("RPUSH l 2 1", "SORT l desc", "SORT l Alpha LiMiT 0 1"), cmd("SORT", "l", "DESC\x00x"), cmd("SORT", "l", "BY", "no\x00*"))},
	{name: "options repeat", cmds: mbs("RPUSH l 2 1 3", "SORT l DESC ASC", "SORT l LIMIT 0 1 LIMIT 1 1", "SORT l STORE a STORE b", "EXISTS a b")},
}
