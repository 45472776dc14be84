package compat

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Sorted-set commands: every command, option and error, in both
// protocols, in the listpack and the skiplist encodings.

func TestRedisZsetWrite(t *testing.T)    { runRedisCases(t, zsetWriteCases) }
func TestRedisZsetRange(t *testing.T)    { runRedisCases(t, zsetRangeCases) }
func TestRedisZsetPop(t *testing.T)      { runRedisCases(t, zsetPopCases) }
func TestRedisZsetAlgebra(t *testing.T)  { runRedisCases(t, zsetAlgebraCases) }
func TestRedisZsetMisc(t *testing.T)     { runRedisCases(t, zsetMiscCases) }
func TestRedisZsetEncoding(t *testing.T) { runRedisCases(t, zsetEncodingCases) }
func TestRedisZsetSkiplist(t *testing.T) { runRedisCases(t, zsetSkiplistCases) }

// zlong is a member longer than zset-max-listpack-value (64): adding it
// makes a sorted set a skiplist.
var zlong = "long-member-" + strings.Repeat("x", 60)

// resetZsetConfig restores the thresholds a case changed.
var resetZsetConfig = mbs("CONFIG SET zset-max-listpack-entries 128", "CONFIG SET zset-max-listpack-value 64")

// zfixture is a small sorted set with ties, infinities and a negative.
var zfixture = mbs("ZADD z -inf ninf -1 neg 0 zero 1 a 1 b 2 c 2.5 d 3 e +inf pinf")

// zlexFixture is a sorted set of one score, for lex ranges.
var zlexFixture = mbs("ZADD l 0 a 0 b 0 c 0 d 0 e 0 f 0 g")

// zwrongType makes str a string.
var zwrongType = mbs("SET str v")

var zsetWriteCases = []redisCase{
	{name: "zadd basic", cmds: mbs("ZADD z 1 a", "ZADD z 2 b 3 c", "ZADD z 1 a", "ZADD z 5 a", "ZRANGE z 0 -1 WITHSCORES", "ZCARD z", "TYPE z")},
	{name: "zadd same member twice", cmds: mbs("ZADD z 1 a 2 a", "ZADD z CH 3 a 4 a", "ZSCORE z a")},
	{name: "zadd nx xx", cmds: mbs("ZADD z 1 a", "ZADD z NX 5 a 2 b", "ZADD z XX 7 a 3 c", "ZRANGE z 0 -1 WITHSCORES", "ZADD nokey XX 1 a", "EXISTS nokey")},
	{name: "zadd gt lt", cmds: mbs("ZADD z 5 a 5 b", "ZADD z GT CH 6 a 4 b 1 new", "ZADD z LT CH 7 a 3 b", "ZADD z XX GT 10 a 11 nope", "ZADD z XX LT 1 a", "ZRANGE z 0 -1 WITHSCORES")},
	{name: "zadd ch", cmds: mbs("ZADD z 1 a 2 b", "ZADD z CH 1 a 3 b 4 c", "ZADD z ch xx 9 a 9 d")},
	{name: "zadd incr", cmds: mbs("ZADD z INCR 1.5 a", "ZADD z INCR 1.5 a", "ZADD z XX INCR 1 nope", "ZADD z NX INCR 1 a", "ZADD z GT INCR -1 a", "ZADD z LT INCR -1 a", "ZADD z GT INCR 0 a", "ZADD z INCR 0 a", "ZSCORE z a")},
	{name: "zadd options lowercase and mixed", cmds: mbs("zadd z nx ch 1 a", "ZADD z Xx Ch InCr 2 a", "ZADD z gt xx ch 5 a")},
	{name: "zadd option conflicts", cmds: mbs("ZADD z NX XX 1 a", "ZADD z XX NX 1 a", "ZADD z GT LT 1 a", "ZADD z NX GT 1 a", "ZADD z LT NX 1 a", "ZADD z NX XX GT 1 a", "ZADD z INCR 1 a 2 b", "ZADD z INCR NX XX 1 a 2 b", "EXISTS z")},
	{name: "zadd syntax errors", cmds: mbs("ZADD z 1 a 2", "ZADD z NX 1", "ZADD z CH XX", "ZADD z FOO 1 a", "ZADD z 1 a FOO", "ZADD z 1 a XX 2 b", "EXISTS z")},
	{name: "zadd arity", cmds: mbs("ZADD z", "ZADD z 1", "ZINCRBY z 1", "ZINCRBY z 1 a b")},
	{name: "zadd bad scores", cmds: mbs("ZADD z abc a", "ZADD z nan a", "ZADD z 1 a abc b", "ZADD z 1e400 a", "ZADD z -1e400 a", "ZADD z 1e-400 a", "ZADD z 1_0 a", "ZADD z 0x a", "ZADD z 1e a", "ZADD z infinit a", "EXISTS z")},
	{name: "zadd score spaces and nul", cmds: cmds(cmd("ZADD", "z", " 1", "a"), cmd("ZADD", "z", "1 ", "a"), cmd("ZADD", "z", "", "a"), cmd("ZADD", "z", "1\x00", "a"), mbs("EXISTS z"))},
	{name: "zadd score formats", cmds: mbs("ZADD z .5 a 5. b +5 c -.5e1 d 0x10 e 0X1P4 f 0x1.8 g 1E2 h 4e-320 i 0e-999 j", "ZRANGE z 0 -1 WITHSCORES")},
	{name: "zadd infinities", cmds: mbs("ZADD z inf a -inf b +inf c Infinity d -INFINITY e", "ZRANGE z 0 -1 WITHSCORES", "ZADD z INCR -inf a", "ZADD z INCR +inf b", "ZINCRBY z -inf c", "ZINCRBY z 1 a", "ZSCORE z a")},
	{name: "zadd precision", cmds: mbs("ZADD z 0.1 a 0.30000000000000004 b 1e20 c 1e-20 d 123456789012345678 e 3.141592653589793 f 1.7976931348623157e308 g 5e-324 h", "ZRANGE z 0 -1 WITHSCORES", "ZINCRBY z 0.2 a")},
	{name: "zadd negative zero listpack", cmds: mbs("ZADD z -0 a 0 b -0.0 c", "ZSCORE z a", "ZRANGE z 0 -1 WITHSCORES", "ZINCRBY z -0 a", "ZINCRBY n -0 m", "ZSCORE n m", "ZADD z GT -0 b", "ZADD z CH 0 a")},
	{name: "zadd option words end at nul", cmds: cmds(cmd("ZADD", "z", "nx\x00junk", "5", "a"), cmd("ZADD", "z", "CH\x00", "6", "a"), mbs("ZRANGE z 0 -1 WITHSCORES"))},
	{name: "zincrby", cmds: mbs("ZINCRBY z 1 a", "ZINCRBY z 2.5 a", "ZINCRBY z -10 a", "ZINCRBY z 0.1 b", "ZINCRBY z 0.2 b", "ZRANGE z 0 -1 WITHSCORES")},
	{name: "zincrby errors", cmds: mbs("ZINCRBY z abc a", "ZINCRBY z nan a", "ZINCRBY z nx a", "ZINCRBY z incr a", "ZADD z inf a", "ZINCRBY z -inf a", "ZSCORE z a")},
	{name: "zrem", cmds: mbs("ZADD z 1 a 2 b 3 c", "ZREM z a nope", "ZREM z a", "ZREM nokey a", "ZREM z b c", "EXISTS z", "ZREM z x")},
	{name: "zrem duplicates", cmds: mbs("ZADD z 1 a 2 b", "ZREM z a a b b", "EXISTS z")},
	{name: "zscore zmscore", cmds: mbs("ZADD z 1.5 a 2 b", "ZSCORE z a", "ZSCORE z x", "ZSCORE nokey a", "ZMSCORE z a x b", "ZMSCORE nokey a b", "ZMSCORE z x")},
	{name: "zcard", cmds: mbs("ZCARD nokey", "ZADD z 1 a 2 b", "ZCARD z")},
	{name: "wrong type writes", cmds: cmds(zwrongType, mbs("ZADD str 1 a", "ZINCRBY str 1 a", "ZREM str a", "ZREMRANGEBYRANK str 0 -1", "ZREMRANGEBYSCORE str 0 1", "ZREMRANGEBYLEX str - +", "ZPOPMIN str", "ZPOPMAX str 2", "GET str"))},
	{name: "wrong type reads", cmds: cmds(zwrongType, mbs("ZSCORE str a", "ZMSCORE str a", "ZCARD str", "ZCOUNT str 0 1", "ZLEXCOUNT str - +", "ZRANGE str 0 -1", "ZRANK str a", "ZREVRANK str a", "ZRANDMEMBER str", "ZRANDMEMBER str 2", "ZSCAN str 0"))},
	{name: "zset commands on other types", cmds: mbs("RPUSH l a", "HSET h f v", "SADD s a", "ZADD l 1 a", "ZSCORE h f", "ZCARD s", "ZRANGE s 0 -1", "ZRANGESTORE d l 0 -1")},
	{name: "other commands on a zset", cmds: mbs("ZADD z 1 a", "GET z", "LPUSH z a", "HGET z f", "SADD z a", "INCR z", "APPEND z x", "TYPE z")},
}

var zsetRangeCases = []redisCase{
	{name: "zrange by index", cmds: cmds(zfixture, mbs("ZRANGE z 0 -1", "ZRANGE z 0 2 WITHSCORES", "ZRANGE z -3 -1", "ZRANGE z 5 3", "ZRANGE z -100 100", "ZRANGE z 9 9", "ZRANGE z 10 20", "ZRANGE z -1 -1 WITHSCORES"))},
	{name: "zrange extreme indexes", cmds: cmds(zfixture, mbs("ZRANGE z 0 9223372036854775807", "ZRANGE z -9223372036854775808 0", "ZRANGE z -9223372036854775808 -9223372036854775808", "ZRANGE z 0 99999999999999999999", "ZRANGE z x 1", "ZRANGE z 1.5 2"))},
	{name: "zrange rev", cmds: cmds(zfixture, mbs("ZRANGE z 0 2 REV", "ZRANGE z 0 -1 REV WITHSCORES", "ZREVRANGE z 0 2", "ZREVRANGE z -2 -1 WITHSCORES", "ZREVRANGE z 5 1"))},
	{name: "zrange byscore", cmds: cmds(zfixture, mbs("ZRANGE z 1 2 BYSCORE", "ZRANGE z (1 2 BYSCORE WITHSCORES", "ZRANGE z 1 (2 BYSCORE", "ZRANGE z (1 (2 BYSCORE", "ZRANGE z -inf +inf BYSCORE", "ZRANGE z (-inf (+inf BYSCORE", "ZRANGE z 2 1 BYSCORE", "ZRANGE z (1 1 BYSCORE", "ZRANGE z 1 1 BYSCORE"))},
	{name: "zrange byscore rev", cmds: cmds(zfixture, mbs("ZRANGE z 2 1 BYSCORE REV", "ZRANGE z +inf -inf BYSCORE REV WITHSCORES", "ZRANGE z 1 2 BYSCORE REV", "ZREVRANGEBYSCORE z (3 (0", "ZREVRANGEBYSCORE z +inf 2 WITHSCORES"))},
	{name: "zrange byscore limit", cmds: cmds(zfixture, mbs("ZRANGE z -inf +inf BYSCORE LIMIT 2 3", "ZRANGE z -inf +inf BYSCORE LIMIT 0 0", "ZRANGE z -inf +inf BYSCORE LIMIT 0 -1", "ZRANGE z -inf +inf BYSCORE LIMIT -1 2", "ZRANGE z -inf +inf BYSCORE LIMIT 9 5", "ZRANGE z -inf +inf BYSCORE LIMIT 10 5", "ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 WITHSCORES", "ZRANGEBYSCORE z 1 3 LIMIT 1 2 WITHSCORES", "ZREVRANGEBYSCORE z 3 1 WITHSCORES LIMIT 1 5", "ZRANGEBYSCORE z 1 3 LIMIT 0 1 LIMIT 1 1"))},
	{name: "zrange score bounds parsing", cmds: cmds(zfixture, mbs("ZRANGEBYSCORE z 1e400 inf", "ZRANGEBYSCORE z -1e400 1e-400", "ZCOUNT z 0x1 0x2", "ZCOUNT z nan 1", "ZCOUNT z (nan 1", "ZCOUNT z abc 1", "ZCOUNT z 1 ((2", "ZCOUNT z 1 2x"), cmd("ZRANGEBYSCORE", "z", "", ""), cmd("ZRANGEBYSCORE", "z", "(", "1"), cmd("ZRANGEBYSCORE", "z", " 1", "2"), cmd("ZRANGEBYSCORE", "z", "1 ", "2"), cmd("ZRANGEBYSCORE", "z", "1\x00zz", "2"), cmd("ZRANGEBYSCORE", "z", "(1\x00", "3"))},
	{name: "zrange bylex", cmds: cmds(zlexFixture, mbs("ZRANGE l - + BYLEX", "ZRANGE l [b (e BYLEX", "ZRANGE l (b [e BYLEX", "ZRANGE l + - BYLEX", "ZRANGE l - - BYLEX", "ZRANGE l + + BYLEX", "ZRANGE l [c [c BYLEX", "ZRANGE l (c [c BYLEX", "ZRANGE l [d [b BYLEX", "ZRANGE l [bb [dd BYLEX"))},
	{name: "zrange bylex rev and limit", cmds: cmds(zlexFixture, mbs("ZRANGE l + - BYLEX REV", "ZRANGE l [e [b BYLEX REV", "ZRANGE l - + BYLEX LIMIT 2 2", "ZRANGE l + - BYLEX REV LIMIT 1 3", "ZRANGEBYLEX l - + LIMIT 0 -1", "ZRANGEBYLEX l - + LIMIT -1 2", "ZREVRANGEBYLEX l (e - LIMIT 1 2", "ZRANGEBYLEX l [a [c LIMIT 5 1"))},
	{name: "zrange lex bounds parsing", cmds: cmds(zlexFixture, mbs("ZRANGEBYLEX l a +", "ZRANGEBYLEX l - b", "ZRANGEBYLEX l -x +", "ZRANGEBYLEX l - +x", "ZRANGEBYLEX l ( (", "ZRANGEBYLEX l [ +", "ZLEXCOUNT l ( +"), cmd("ZRANGEBYLEX", "l", "", "+"), cmd("ZRANGEBYLEX", "l", "-\x00zz", "+"), cmd("ZRANGEBYLEX", "l", "[\x00", "+"), cmd("ZRANGEBYLEX", "l", "(b\x00", "+"))},
	{name: "zrange bylex mixed scores", cmds: mbs("ZADD m 1 b 2 a 3 d 4 c 5 e", "ZRANGEBYLEX m - +", "ZRANGEBYLEX m [b [d", "ZRANGEBYLEX m (a +", "ZREVRANGEBYLEX m [d [b", "ZLEXCOUNT m [b [d", "ZLEXCOUNT m [c +", "ZRANGEBYLEX m [c + LIMIT 1 1", "ZREMRANGEBYLEX m [b [c", "ZRANGE m 0 -1")},
	{name: "zrange options", cmds: cmds(zfixture, mbs("ZRANGE z 0 -1 withscores withscores", "ZRANGE z 0 1 LIMIT 0 1", "ZRANGE z 0 1 LIMIT 0 -1", "ZRANGE z - + BYLEX WITHSCORES", "ZRANGE z 0 1 BYSCORE BYLEX", "ZRANGE z 0 1 REV REV", "ZRANGE z 0 1 BYSCORE BYSCORE", "ZRANGE z 0 1 FOO", "ZRANGE z 0 -1 LIMIT 0", "ZRANGE z (1 3 BYSCORE LIMIT", "ZRANGE z 0 -1 BYSCORE LIMIT x 1", "ZRANGE z 0 -1 BYSCORE LIMIT 0 x", "ZRANGE z 0 -1 BYSCORE LIMIT 0 1.5", "ZRANGE z x 1 FOO", "ZRANGE z x 1 LIMIT 0 1", "ZRANGE z x 1 BYLEX"))},
	{name: "zrange option words end at nul", cmds: cmds(zfixture, cmd("ZRANGE", "z", "0", "1", "withscores\x00"), cmd("ZRANGE", "z", "(1", "3", "byscore\x00", "limit\x00", "0", "1"), cmd("ZRANGE", "z", "0", "1", "REV\x00x"))},
	{name: "old range commands refuse zrange options", cmds: cmds(zfixture, mbs("ZRANGEBYSCORE z 0 2 REV", "ZRANGEBYSCORE z 0 2 BYSCORE", "ZREVRANGE z 0 1 BYSCORE", "ZREVRANGE z 0 1 LIMIT 0 1", "ZREVRANGE z 0 1 REV", "ZRANGEBYLEX z - + BYLEX", "ZRANGEBYLEX z - + WITHSCORES", "ZRANGEBYSCORE z 0 2 LIMIT 1", "ZRANGEBYSCORE z 0 2 LIMIT 1 1 1"))},
	{name: "zrange error order", cmds: cmds(zwrongType, mbs("ZRANGE str 0 1 BYLEX", "ZRANGE str [a [b BYLEX", "ZRANGE str 0 1 FOO", "ZRANGE str x 1", "ZRANGE nokey x 1", "ZRANGEBYSCORE nokey x 1", "ZRANGE nokey 0 -1 BYSCORE"))},
	{name: "zrangestore", cmds: cmds(zfixture, mbs("ZRANGESTORE d z 0 2", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z (1 +inf BYSCORE LIMIT 1 2", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d z 3 1 BYSCORE REV", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d", "TTL d"))},
	{name: "zrangestore bylex", cmds: cmds(zlexFixture, mbs("ZRANGESTORE d l [b [d BYLEX", "ZRANGE d 0 -1", "ZRANGESTORE d l + - BYLEX REV LIMIT 0 2", "ZRANGE d 0 -1"))},
	{name: "zrangestore empty deletes", cmds: cmds(zfixture, mbs("SET d x", "ZRANGESTORE d z 5 1", "EXISTS d", "SET d x", "ZRANGESTORE d nokey 0 -1", "EXISTS d"))},
	{name: "zrangestore over itself and strings", cmds: cmds(zfixture, zwrongType, mbs("SET d x EX 100", "ZRANGESTORE d z 0 0", "TYPE d", "TTL d", "ZRANGESTORE z z 1 2", "ZRANGE z 0 -1 WITHSCORES", "ZRANGESTORE d str 0 -1", "TYPE d", "ZRANGESTORE str z 0 0", "TYPE str"))},
	{name: "zrangestore errors", cmds: cmds(zfixture, mbs("ZRANGESTORE d z 0 -1 WITHSCORES", "ZRANGESTORE d z 0 -1 LIMIT 0 1", "ZRANGESTORE d z", "ZRANGESTORE d z 0", "ZRANGESTORE d z x 1", "EXISTS d"))},
	{name: "zcount", cmds: cmds(zfixture, mbs("ZCOUNT z -inf +inf", "ZCOUNT z 1 2", "ZCOUNT z (1 (2", "ZCOUNT z 3 1", "ZCOUNT z (1 1", "ZCOUNT nokey 0 1"))},
	{name: "zlexcount", cmds: cmds(zlexFixture, mbs("ZLEXCOUNT l - +", "ZLEXCOUNT l [b (e", "ZLEXCOUNT l + -", "ZLEXCOUNT l ( (", "ZLEXCOUNT l b +", "ZLEXCOUNT nokey - +"))},
	{name: "zrank zrevrank", cmds: cmds(zfixture, mbs("ZRANK z ninf", "ZRANK z pinf", "ZRANK z b", "ZREVRANK z b", "ZREVRANK z pinf", "ZRANK z nope", "ZRANK nokey a", "ZREVRANK nokey a", "ZRANK z a withscore"))},
	{name: "zremrangebyrank", cmds: cmds(zfixture, mbs("ZREMRANGEBYRANK z 0 1", "ZREMRANGEBYRANK z -2 -1", "ZREMRANGEBYRANK z 5 2", "ZREMRANGEBYRANK z 100 200", "ZRANGE z 0 -1", "ZREMRANGEBYRANK z 0 -1", "EXISTS z", "ZREMRANGEBYRANK nokey 0 -1", "ZREMRANGEBYRANK z x 1", "ZREMRANGEBYRANK z 0 1.5"))},
	{name: "zremrangebyscore", cmds: cmds(zfixture, mbs("ZREMRANGEBYSCORE z (1 2", "ZREMRANGEBYSCORE z -inf (0", "ZREMRANGEBYSCORE z 5 1", "ZRANGE z 0 -1 WITHSCORES", "ZREMRANGEBYSCORE z -inf +inf", "EXISTS z", "ZREMRANGEBYSCORE z x y", "ZREMRANGEBYSCORE nokey 0 1"))},
	{name: "zremrangebylex", cmds: cmds(zlexFixture, mbs("ZREMRANGEBYLEX l [b (d", "ZREMRANGEBYLEX l (f +", "ZREMRANGEBYLEX l + -", "ZRANGE l 0 -1", "ZREMRANGEBYLEX l - +", "EXISTS l", "ZREMRANGEBYLEX l x y", "ZREMRANGEBYLEX nokey - +"))},
}

var zsetPopCases = []redisCase{
	{name: "zpopmin zpopmax", cmds: mbs("ZADD z 1 a 2 b 3 c 4 d", "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 1", "ZPOPMAX z 10", "EXISTS z", "ZPOPMIN z", "ZPOPMAX z 3")},
	{name: "zpop counts", cmds: mbs("ZADD z 1 a 2 b 3 c", "ZPOPMIN z 0", "ZPOPMIN nokey 0", "ZPOPMIN z -1", "ZPOPMIN nokey -1", "ZPOPMIN z abc", "ZPOPMIN z 1.5", "ZPOPMIN z 1 2", "ZPOPMIN z 9223372036854775807", "EXISTS z")},
	{name: "zpop ties", cmds: mbs("ZADD z 1 b 1 a 1 c 2 d", "ZPOPMIN z 2", "ZPOPMAX z 2")},
	{name: "zmpop", cmds: mbs("ZADD z 1 a 2 b 3 c", "ZADD y 5 x", "ZMPOP 1 z MIN", "ZMPOP 2 nokey z MAX COUNT 10", "ZMPOP 2 z y MIN", "ZMPOP 3 z y nokey MIN", "EXISTS y z")},
	{name: "zmpop errors", cmds: mbs("ZADD z 1 a", "ZMPOP 0 z MIN", "ZMPOP -1 z MIN", "ZMPOP abc z MIN", "ZMPOP 2 z MIN", "ZMPOP 1 z FOO", "ZMPOP 1 z MIN COUNT 0", "ZMPOP 1 z MIN COUNT -1", "ZMPOP 1 z MIN COUNT x", "ZMPOP 1 z MIN COUNT 1 COUNT 2", "ZMPOP 1 z MIN FOO", "ZMPOP 1 z MIN COUNT", "ZMPOP 1 z", "ZCARD z")},
	{name: "zmpop wrong type", cmds: cmds(zwrongType, mbs("ZADD q 1 x", "ZMPOP 2 nokey str MIN", "ZMPOP 2 q str MAX", "ZMPOP 2 str q MAX", "ZCARD q"))},
	{name: "zmpop words end at nul", cmds: cmds(mbs("ZADD z 1 a 2 b 3 c"), cmd("ZMPOP", "1", "z", "min\x00"), cmd("ZMPOP", "1", "z", "MAX", "count\x00", "1"))},
}

var zsetAlgebraCases = []redisCase{
	{name: "zunion", cmds: mbs("ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZUNION 2 a b", "ZUNION 2 a b WITHSCORES", "ZUNION 1 a WITHSCORES", "ZUNION 3 a b nokey WITHSCORES", "ZUNION 1 nokey")},
	{name: "zunion weights aggregate", cmds: mbs("ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZUNION 2 a b WEIGHTS 2 0.5 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES", "ZUNION 2 a b AGGREGATE max WITHSCORES", "ZUNION 2 a b WEIGHTS -1 1 AGGREGATE MAX WITHSCORES", "ZUNION 2 a b WEIGHTS 1 2 WEIGHTS 3 4 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN AGGREGATE max WITHSCORES", "ZUNION 2 a b WITHSCORES WITHSCORES")},
	{name: "zunion infinities", cmds: mbs("ZADD a inf x 1 y", "ZADD b -inf x 2 y", "ZUNION 2 a b WITHSCORES", "ZUNION 2 a b WEIGHTS 0 1 WITHSCORES", "ZINTER 2 a b WITHSCORES", "ZINTER 2 a b WEIGHTS 0 1 WITHSCORES", "ZINTER 2 a b AGGREGATE MAX WITHSCORES", "ZUNION 2 a b WEIGHTS inf -inf WITHSCORES")},
	{name: "zunion float sum order", cmds: mbs("ZADD a 0.1 x", "ZADD b 0.2 x 1 y", "ZADD c 0.3 x 1 y 2 z", "ZUNION 3 a b c WITHSCORES", "ZUNION 3 c b a WITHSCORES", "ZINTER 3 c a b WITHSCORES")},
	{name: "zinter", cmds: mbs("ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZINTER 2 a b", "ZINTER 2 a b WITHSCORES", "ZINTER 2 a b WEIGHTS 1 -1 AGGREGATE MIN WITHSCORES", "ZINTER 2 a nokey", "ZINTER 2 a a WITHSCORES")},
	{name: "zdiff", cmds: mbs("ZADD a 1 x 2 y 3 z", "ZADD b 10 y", "ZADD c 5 z", "ZDIFF 2 a b", "ZDIFF 3 a b c WITHSCORES", "ZDIFF 2 a a", "ZDIFF 2 nokey a", "ZDIFF 2 a nokey WITHSCORES", "ZDIFF 1 a")},
	{name: "zalgebra with sets", cmds: mbs("ZADD a 1 x 2 y 3 z", "SADD s y w v", "SADD i 1 2 3", "ZADD n 5 2 6 9", "ZUNION 2 a s WITHSCORES", "ZINTER 2 a s WITHSCORES", "ZDIFF 2 s a WITHSCORES", "ZUNION 2 i n WEIGHTS 2 1 WITHSCORES", "ZINTER 2 n i WITHSCORES", "ZINTERCARD 2 a s", "ZUNIONSTORE d 2 s i", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 1 s", "ZRANGE d 0 -1 WITHSCORES")},
	{name: "zunionstore zinterstore zdiffstore", cmds: mbs("ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "ZINTERSTORE d 2 a b WEIGHTS 2 1", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d")},
	{name: "zstore empty deletes and overwrites", cmds: cmds(zwrongType, mbs("ZADD a 1 x", "SET d v EX 100", "ZINTERSTORE d 2 a nokey", "EXISTS d", "ZUNIONSTORE str 1 a", "TYPE str", "TTL str", "ZUNIONSTORE a 2 a a", "ZRANGE a 0 -1 WITHSCORES", "ZDIFFSTORE a 2 a a", "EXISTS a"))},
	{name: "zalgebra errors", cmds: mbs("ZADD a 1 x", "ZADD b 2 x", "ZUNION 0 a", "ZUNIONSTORE d 0 a", "ZINTERCARD 0 a", "ZDIFFSTORE d 0 a", "ZINTER -1 a", "ZUNION 3 a b", "ZUNION abc a", "ZUNION 2 a b WEIGHTS 1", "ZUNION 2 a b WEIGHTS 1 x", "ZUNION 2 a b WEIGHTS 1 nan", "ZUNION 2 a b AGGREGATE foo", "ZUNION 2 a b AGGREGATE", "ZUNIONSTORE d 2 a b WITHSCORES", "ZDIFF 2 a b WEIGHTS 1 2", "ZDIFF 2 a b AGGREGATE SUM", "ZUNION 2 a b FOO", "EXISTS d")},
	{name: "zalgebra wrong type wins over options", cmds: cmds(zwrongType, mbs("ZADD a 1 x", "ZUNION 2 a str FOO", "ZUNION 2 str a WEIGHTS 1 x", "ZINTERSTORE d 2 a str", "ZDIFF 2 a str", "ZINTERCARD 2 str a LIMIT -1", "ZUNION 0 str", "ZUNION 3 a str"))},
	{name: "zalgebra option words end at nul", cmds: cmds(mbs("ZADD a 1 x 2 y"), cmd("ZUNION", "1", "a", "WITHSCORES\x00x"), cmd("ZUNION", "1", "a", "AGGREGATE", "sum\x00"), cmd("ZUNION", "1", "a", "weights\x00", "2", "withscores"), cmd("ZINTERCARD", "1", "a", "limit\x00", "1"))},
	{name: "zintercard", cmds: mbs("ZADD a 1 x 2 y 3 z", "ZADD b 1 y 2 z 3 w", "ZINTERCARD 2 a b", "ZINTERCARD 2 a b LIMIT 1", "ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 2 a b LIMIT 100", "ZINTERCARD 2 a b LIMIT -1", "ZINTERCARD 2 a b LIMIT x", "ZINTERCARD 2 a b WITHSCORES", "ZINTERCARD 2 a b WEIGHTS 1 1", "ZINTERCARD 2 a nokey", "ZINTERCARD 1 a LIMIT 1 LIMIT 2")},
	{name: "zalgebra arity", cmds: mbs("ZUNION 1", "ZUNIONSTORE d 1", "ZINTERCARD 1", "ZDIFF", "ZINTER 1")},
}

var zsetMiscCases = []redisCase{
	{name: "zrandmember deterministic", cmds: mbs("ZADD z 1 a 2 b 3 c", "ZRANDMEMBER z 3", "ZRANDMEMBER z 5", "ZRANDMEMBER z 3 WITHSCORES", "ZRANDMEMBER z 9223372036854775807", "ZRANDMEMBER z 4611686018427387903 WITHSCORES", "ZRANDMEMBER z 0", "ZRANDMEMBER z 0 WITHSCORES")},
	{name: "zrandmember shapes", cmds: mbs("ZADD z 1 a 2 b 3 c", "ZRANDMEMBER z", "ZRANDMEMBER z 1", "ZRANDMEMBER z -5", "ZRANDMEMBER z -2 WITHSCORES", "ZRANDMEMBER z 2"), loose: at(1, anyBulk, 2, anyBulk, 3, anyBulk, 4, anyBulk, 5, anyBulk)},
	{name: "zrandmember missing key", cmds: mbs("ZRANDMEMBER nokey", "ZRANDMEMBER nokey 5", "ZRANDMEMBER nokey -5 WITHSCORES", "ZRANDMEMBER nokey x", "ZRANDMEMBER nokey 1 FOO")},
	{name: "zrandmember errors", cmds: mbs("ZADD z 1 a", "ZRANDMEMBER z x", "ZRANDMEMBER z 1.5", "ZRANDMEMBER z -9223372036854775808", "ZRANDMEMBER z 4611686018427387904 WITHSCORES", "ZRANDMEMBER z -4611686018427387904 WITHSCORES", "ZRANDMEMBER z 1 foo", "ZRANDMEMBER z 1 withscores x", "ZRANDMEMBER z x foo")},
	{name: "zrandmember withscores word ends at nul", cmds: cmds(mbs("ZADD z 1 a"), cmd("ZRANDMEMBER", "z", "1", "withscores\x00zz"))},
	{name: "zscan listpack", cmds: mbs("ZADD z 1 a 2 b 3 c 1.5 bb", "ZSCAN z 0", "ZSCAN z 0 MATCH b* COUNT 1", "ZSCAN z 99", "ZSCAN z 0 match *", "ZSCAN nokey 0", "ZSCAN z 0 MATCH nothing*")},
	{name: "zscan scores", cmds: mbs("ZADD z 0.1 a inf b -inf c -0 d 1e20 e 123456789012345678 f", "ZSCAN z 0")},
	{name: "zscan errors", cmds: cmds(zwrongType, mbs("ZADD z 1 a", "ZSCAN z abc", "ZSCAN z 0 COUNT 0", "ZSCAN z 0 COUNT x", "ZSCAN z 0 FOO bar", "ZSCAN z 0 NOVALUES", "ZSCAN z 0 TYPE zset", "ZSCAN z 0 COUNT", "ZSCAN nokey 0 COUNT 0", "ZSCAN nokey abc", "ZSCAN str 0 COUNT 0", "ZSCAN str abc", "ZSCAN z -1", "ZSCAN z 18446744073709551615"))},
	{name: "zscan words end at nul", cmds: cmds(mbs("ZADD z 1 a 2 b"), cmd("ZSCAN", "z", "0", "count\x00", "5"), cmd("ZSCAN", "z", "0", "MATCH\x00", "a"))},
	{name: "binary members", cmds: cmds(cmd("ZADD", "z", "1", "", "2", "\x00", "3", "a\r\nb", "0", "\xff"), mbs("ZRANGE z 0 -1 WITHSCORES", "ZRANGEBYLEX z - +"), cmd("ZSCORE", "z", ""), cmd("ZRANK", "z", "\x00"), cmd("ZREM", "z", ""), mbs("ZCARD z"))},
	{name: "zset expiry and persistence", cmds: mbs("ZADD z 1 a", "EXPIRE z 100", "ZADD z 2 b", "TTL z", "ZREM z a", "TTL z", "ZREM z b", "TTL z"), loose: at(3, ttlApprox, 5, ttlApprox)},
	{name: "zset rename copy", cmds: mbs("ZADD z 1 a 2 b", "RENAME z y", "ZRANGE y 0 -1 WITHSCORES", "COPY y x", "ZADD x 3 c", "ZCARD y", "ZCARD x", "OBJECT ENCODING x")},
}

// zsetEncodingCases follow OBJECT ENCODING through the thresholds.
var zsetEncodingCases = []redisCase{
	{name: "encoding listpack", cmds: mbs("ZADD z 1 a", "OBJECT ENCODING z")},
	{name: "encoding long member", cmds: cmds(mbs("ZADD z 1 a"), cmd("ZADD", "z", "2", zlong), mbs("OBJECT ENCODING z"), cmd("ZREM", "z", zlong), mbs("OBJECT ENCODING z"))},
	{name: "encoding long first member", cmds: cmds(cmd("ZADD", "z", "1", zlong, "2", "a"), mbs("OBJECT ENCODING z"), cmd("ZADD", "y", "1", "a", "2", zlong), mbs("OBJECT ENCODING y"))},
	{name: "encoding update keeps listpack", cmds: cmds(mbs("ZADD z 1 a", "CONFIG SET zset-max-listpack-entries 1", "ZADD z 5 a", "ZINCRBY z 1 a", "OBJECT ENCODING z", "ZADD z 1 b", "OBJECT ENCODING z"), resetZsetConfig)},
	{name: "encoding entries threshold", cmds: cmds(mbs("CONFIG SET zset-max-listpack-entries 3", "ZADD z 1 a 2 b 3 c", "OBJECT ENCODING z", "ZADD z 4 d", "OBJECT ENCODING z", "ZREM z a b c", "OBJECT ENCODING z"), resetZsetConfig)},
	{name: "encoding entries zero", cmds: cmds(mbs("CONFIG SET zset-max-listpack-entries 0", "ZADD z 1 a", "OBJECT ENCODING z", "ZINCRBY y 1 a", "OBJECT ENCODING y", "ZADD x 1 a", "ZRANGESTORE d x 0 -1", "OBJECT ENCODING d", "ZUNIONSTORE u 1 x", "OBJECT ENCODING u"), resetZsetConfig)},
	{name: "encoding value threshold", cmds: cmds(mbs("CONFIG SET zset-max-listpack-value 3", "ZADD z 1 abc", "OBJECT ENCODING z", "ZADD z 2 abcd", "OBJECT ENCODING z", "ZADD y 1 abcd", "OBJECT ENCODING y", "CONFIG SET zset-max-listpack-value 0"), cmd("ZADD", "e", "1", ""), mbs("OBJECT ENCODING e", "ZADD f 1 a", "OBJECT ENCODING f"), resetZsetConfig)},
	{name: "encoding stored results", cmds: cmds(mbs("CONFIG SET zset-max-listpack-entries 3", "ZADD a 1 x 2 y 3 z 4 w", "OBJECT ENCODING a", "ZRANGESTORE d a 0 2", "OBJECT ENCODING d", "ZRANGESTORE d a 0 3", "OBJECT ENCODING d", "ZUNIONSTORE u 1 a", "OBJECT ENCODING u", "ZINTERSTORE u 2 a d WEIGHTS 1 0", "OBJECT ENCODING u", "ZDIFFSTORE u 2 a d", "EXISTS u", "ZREMRANGEBYRANK a 0 1", "ZUNIONSTORE u 1 a", "OBJECT ENCODING u", "OBJECT ENCODING a"), resetZsetConfig)},
	{name: "encoding copy keeps it", cmds: cmds(cmd("ZADD", "z", "1", "a", "2", zlong), cmd("ZREM", "z", zlong), mbs("COPY z c", "OBJECT ENCODING c", "RENAME z r", "OBJECT ENCODING r"))},
	{name: "encoding lowering threshold converts nothing", cmds: cmds(mbs("ZADD z 1 a 2 b", "CONFIG SET zset-max-listpack-entries 1", "OBJECT ENCODING z", "ZREM z a", "OBJECT ENCODING z", "ZADD z 3 c", "OBJECT ENCODING z"), resetZsetConfig)},
}

// zbigFixture is a sorted set of 300 members (a skiplist), with ties.
func zbigFixture(key string) string {
	args := []string{"ZADD", key}
	for i := 0; i < 300; i++ {
		args = append(args, strconv.Itoa(i/3), "m"+strconv.Itoa(i))
	}
	return cmd(args...)
}

// zbigLexFixture is 300 members of one score.
func zbigLexFixture(key string) string {
	args := []string{"ZADD", key}
	for i := 0; i < 300; i++ {
		args = append(args, "0", "m"+strconv.Itoa(1000+i))
	}
	return cmd(args...)
}

// zsetSkiplistCases repeat the range commands on skiplists.
var zsetSkiplistCases = []redisCase{
	{name: "skiplist ranges", cmds: cmds(zbigFixture("z"), mbs("OBJECT ENCODING z", "ZCARD z", "ZRANGE z 0 9 WITHSCORES", "ZRANGE z -5 -1", "ZRANGE z 100 110 REV WITHSCORES", "ZRANGE z (10 20 BYSCORE LIMIT 3 5", "ZRANGE z 20 (10 BYSCORE REV LIMIT 2 4 WITHSCORES", "ZCOUNT z (10 20", "ZCOUNT z -inf +inf", "ZRANK z m150", "ZREVRANK z m150", "ZRANK z nope", "ZSCORE z m299", "ZMSCORE z m0 m1 nope"))},
	{name: "skiplist lex", cmds: cmds(zbigLexFixture("l"), mbs("OBJECT ENCODING l", "ZRANGEBYLEX l [m1100 (m1110", "ZREVRANGEBYLEX l (m1110 [m1100 LIMIT 2 3", "ZLEXCOUNT l - +", "ZLEXCOUNT l (m1100 [m1200", "ZRANGE l - + BYLEX LIMIT 295 10", "ZREMRANGEBYLEX l [m1000 [m1099", "ZCARD l"))},
	{name: "skiplist writes", cmds: cmds(zbigFixture("z"), mbs("ZADD z 1000 m0", "ZINCRBY z -2000 m1", "ZRANGE z 0 1 WITHSCORES", "ZRANGE z -1 -1 WITHSCORES", "ZREM z m2 m3 nope", "ZREMRANGEBYRANK z 0 9", "ZREMRANGEBYSCORE z (50 60", "ZCARD z", "ZPOPMIN z 3", "ZPOPMAX z 2", "ZMPOP 1 z MIN COUNT 2", "ZCARD z", "OBJECT ENCODING z"))},
	{name: "skiplist negative zero", cmds: cmds(cmd("ZADD", "s", "-0", "m", "0", "n", "1", zlong), mbs("OBJECT ENCODING s", "ZSCORE s m", "ZSCORE s n", "ZRANGE s 0 -1 WITHSCORES", "ZADD s 0 m", "ZSCORE s m", "ZRANGEBYSCORE s -0 0", "ZSCAN s 0 MATCH m", "ZUNION 1 s WITHSCORES", "ZUNIONSTORE u 1 s", "ZSCORE u m", "ZRANGESTORE r s 0 1", "ZSCORE r m", "ZRANDMEMBER s 10 WITHSCORES"))},
	{name: "skiplist algebra", cmds: cmds(zbigFixture("a"), zbigFixture("b"), mbs("ZINTERSTORE i 2 a b WEIGHTS 1 2", "ZRANGE i 0 4 WITHSCORES", "OBJECT ENCODING i", "ZUNION 2 a b AGGREGATE MAX LIMIT", "ZDIFFSTORE d 2 a i", "EXISTS d", "ZREMRANGEBYRANK b 0 249", "ZDIFF 2 a b WITHSCORES", "ZINTERCARD 2 a b", "ZINTERCARD 2 a b LIMIT 10", "ZUNIONSTORE u 1 b", "OBJECT ENCODING u"))},
	{name: "skiplist randmember all", cmds: cmds(zbigFixture("z"), mbs("ZRANDMEMBER z 300", "ZRANDMEMBER z 1000 WITHSCORES", "ZRANDMEMBER z 299", "ZRANDMEMBER z 10", "ZRANDMEMBER z -1000"), mbs("ZRANDMEMBER z 299"), mbs("ZRANDMEMBER z 10")), loose: at(3, anyBulk, 4, anyBulk, 5, anyBulk, 6, anyBulk, 7, anyBulk), noSplit: true},
}

func init() {
	zsetSkiplistCases = append(zsetSkiplistCases,
		// ZRANGESTORE adds members one by one to a listpack that becomes a
		// skiplist past the threshold: a -0 added before then is 0.
		redisCase{name: "zrangestore negative zero history", cmds: cmds(mbs("CONFIG SET zset-max-listpack-entries 0",
			"ZADD c -1 m0 -1 m9 -0 m3 0.1 m4 2 m12 3 m2 1000 m7 inf m13", "CONFIG SET zset-max-listpack-entries 6",
			"ZRANGESTORE d c 0 7 REV", "ZRANGE d 0 -1 WITHSCORES", "ZRANGESTORE d c 1 7", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d c 2 7", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d",
			"ZRANGESTORE d c -inf 0.5 BYSCORE", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d",
			"ZRANGESTORE d c -inf +inf BYSCORE", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d",
			"ZRANGESTORE d c +inf -inf BYSCORE REV", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d c -inf +inf BYSCORE LIMIT 1 7", "ZRANGE d 0 -1 WITHSCORES",
			"ZRANGESTORE d c - + BYLEX", "ZRANGE d 0 -1 WITHSCORES",
			"ZUNIONSTORE d 1 c", "ZRANGE d 0 -1 WITHSCORES", "ZREMRANGEBYRANK d 0 1", "ZUNIONSTORE e 1 d", "ZRANGE e 0 -1 WITHSCORES"), resetZsetConfig)},
	)
}

// TestGoRedisLeaderboard is the leaderboard applications build with
// go-redis v9, in both protocols: scores added and incremented, the top
// and a player's neighbourhood read back with scores, a weekly board
// merged from daily ones, and the board trimmed.
func TestGoRedisLeaderboard(t *testing.T) {
	ctx := context.Background()
	for _, proto := range []int{3, 2} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			flushSUT(t)
			c := newGoRedis(t, proto, 0)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			check := func(what string, got, want any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			for day, scores := range []map[string]float64{
				{"ann": 120, "bob": 80, "cid": 95.5},
				{"ann": 10, "bob": 60, "dee": 200},
			} {
				key := fmt.Sprintf("board:day%d", day)
				for who, s := range scores {
					must(c.ZAdd(ctx, key, redis.Z{Score: s, Member: who}).Err())
				}
			}
			n, err := c.ZIncrBy(ctx, "board:day0", 4.5, "cid").Result()
			must(err)
			check("ZINCRBY", n, 100.0)
			top, err := c.ZRevRangeWithScores(ctx, "board:day0", 0, 1).Result()
			must(err)
			check("top 2", top, []redis.Z{{Score: 120, Member: "ann"}, {Score: 100, Member: "cid"}})
			rank, err := c.ZRevRank(ctx, "board:day0", "bob").Result()
			must(err)
			check("ZREVRANK bob", rank, int64(2))
			_, err = c.ZRevRank(ctx, "board:day0", "nobody").Result()
			check("ZREVRANK nobody", err, redis.Nil)
			must(c.ZUnionStore(ctx, "board:week", &redis.ZStore{Keys: []string{"board:day0", "board:day1"}}).Err())
			week, err := c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: "board:week", Start: "+inf", Stop: "100", ByScore: true, Rev: true}).Result()
			must(err)
			check("week above 100", week, []redis.Z{{Score: 200, Member: "dee"}, {Score: 140, Member: "bob"}, {Score: 130, Member: "ann"}, {Score: 100, Member: "cid"}})
			scores, err := c.ZMScore(ctx, "board:week", "ann", "nobody").Result()
			must(err)
			check("ZMSCORE", scores, []float64{130, 0})
			cnt, err := c.ZCount(ctx, "board:week", "(100", "+inf").Result()
			must(err)
			check("ZCOUNT", cnt, int64(3))
			must(c.ZRemRangeByRank(ctx, "board:week", 0, -4).Err()) // keep the top 3
			card, err := c.ZCard(ctx, "board:week").Result()
			must(err)
			check("ZCARD after trim", card, int64(3))
			best, err := c.ZPopMax(ctx, "board:week").Result()
			must(err)
			check("ZPOPMAX", best, []redis.Z{{Score: 200, Member: "dee"}})
			mk, popped, err := c.ZMPop(ctx, "min", 2, "nosuch", "board:week").Result()
			must(err)
			check("ZMPOP", []any{mk, popped}, []any{"board:week", []redis.Z{{Score: 130, Member: "ann"}, {Score: 140, Member: "bob"}}})
			rnd, err := c.ZRandMemberWithScores(ctx, "board:day1", 10).Result()
			must(err)
			check("ZRANDMEMBER all", len(rnd), 3)
			var cursor uint64
			seen := map[string]bool{}
			for {
				keys, next, err := c.ZScan(ctx, "board:day1", cursor, "", 10).Result()
				must(err)
				for i := 0; i+1 < len(keys); i += 2 {
					seen[keys[i]+"="+keys[i+1]] = true
				}
				if cursor = next; cursor == 0 {
					break
				}
			}
			check("ZSCAN", seen, map[string]bool{"ann=10": true, "bob=60": true, "dee=200": true})
		})
	}
}
