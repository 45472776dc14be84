package resp

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/glob"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// DEBUG, behind enable-debug-command as in Redis: the subcommands of
// redis 7.0's DEBUG that mean something in Tandem, each with Redis's
// argument count, replies and errors. Those that crash, leak or tune
// jemalloc, the AOF, replication or a cluster are left out, and so is
// their line in DEBUG HELP; asking for one is Redis's answer to an unknown
// subcommand. RELOAD is the persistence family's (cmd_persistence.go).

func debugCommands() []*Command {
	return []*Command{
		{Name: "debug", Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, ACL: []string{"@admin", "@dangerous"},
			Group: "server", Since: "1.0.0", Summary: "A container for debugging commands", Run: cmdDebug},
	}
}

// debugState is what DEBUG sets for the whole front-end.
type debugState struct {
	// packedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD's size from
	// which a list element is a plain quicklist node in DUMP payloads
	// and DEBUG OBJECT; 0 is Redis's default (1 GB).
	packedThreshold atomic.Int64
	// allowNoScript is DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call
	// commands flagged noscript (Redis's script_disable_deny_script).
	allowNoScript atomic.Bool
}

// debugSub is one DEBUG subcommand: its name, Redis's test of the
// argument count (the name and subcommand included) and its handler.
type debugSub struct {
	name string
	argc func(n int) bool
	run  func(c *Client, args [][]byte)
}

func argcIs(want ...int) func(int) bool {
	return func(n int) bool {
		for _, w := range want {
			if n == w {
				return true
			}
		}
		return false
	}
}

func argcAtLeast(min int) func(int) bool { return func(n int) bool { return n >= min } }

// debugSubs are the subcommands, looked up in this order as Redis's chain
// of strcasecmp tests does.
var debugSubs = []debugSub{
	{"help", argcIs(2), cmdDebugHelp},
	{"log", argcIs(3), cmdDebugLog},
	{"reload", argcAtLeast(2), notWhileLoading(debugReload)},
	{"loadaof", argcIs(2), notWhileLoading(debugLoadAOF)},
	{"object", argcIs(3), cmdDebugObject},
	{"listpack", argcIs(3), cmdDebugListpack},
	{"quicklist", argcIs(3, 4), cmdDebugQuicklist},
	{"populate", func(n int) bool { return n >= 3 && n <= 5 }, cmdDebugPopulate},
	{"digest", argcIs(2), cmdDebugDigest},
	{"digest-value", argcAtLeast(2), cmdDebugDigestValue},
	{"protocol", argcIs(3), cmdDebugProtocol},
	{"sleep", argcIs(3), cmdDebugSleep},
	{"set-active-expire", argcIs(3), cmdDebugSetActiveExpire},
	{"quicklist-packed-threshold", argcIs(3), cmdDebugPackedThreshold},
	{"error", argcIs(3), cmdDebugError},
	{"change-repl-id", argcIs(2), cmdDebugChangeReplID},
	{"stringmatch-test", argcIs(2), cmdDebugStringmatchTest},
	{"set-disable-deny-scripts", argcIs(3), cmdDebugDisableDenyScripts},
	{"aof-flush-sleep", argcIs(3), cmdDebugAOFFlushSleep},
}

// notWhileLoading refuses run with LOADING while the data loads at start:
// DEBUG may run then (it has the loading flag), but a reload would save
// or replace the half-loaded keyspace.
func notWhileLoading(run func(c *Client, args [][]byte)) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		if c.fe.svc.Loading.Active() {
			c.w.Error(conf.ErrLoading)
			return
		}
		run(c, args)
	}
}

// ErrDebugNotAllowed is the refusal of DEBUG under enable-debug-command no
// (or local, to a remote client).
const ErrDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// DEBUG's error texts, redis 7.0's.
const (
	errDebugNoKey       = "ERR no such key"
	errDebugNotListpack = "ERR Not a listpack encoded object."
	errDebugNotQL       = "ERR Not a quicklist encoded object."
	errDebugThreshold   = "ERR argument must be a memory value bigger than 1 and smaller than 4gb"
	errDebugProtocol    = "ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false"
	errDebugPushRESP2   = "ERR RESP2 is not supported by this command"
)

// cmdDebug checks enable-debug-command, then finds the subcommand and
// checks its argument count, as Redis's debugCommand.
func cmdDebug(c *Client, args [][]byte) {
	if !c.debugAllowed() {
		c.w.Error(ErrDebugNotAllowed)
		return
	}
	for _, s := range debugSubs {
		if argIs(args[1], strings.ToUpper(s.name)) && s.argc(len(args)) {
			s.run(c, args)
			return
		}
	}
	c.subcommandSyntaxError(args)
}

// debugAllowed applies enable-debug-command: yes, no, or local (loopback
// clients only).
func (c *Client) debugAllowed() bool {
	switch c.fe.cfg.EnableDebugCommand() {
	case conf.ProtectedYes:
		return true
	case conf.ProtectedLocal:
		host, _, err := net.SplitHostPort(c.peer.RemoteAddr())
		ip := net.ParseIP(host)
		return err == nil && ip != nil && ip.IsLoopback()
	}
	return false
}

// debugHelp is DEBUG HELP's text for the subcommands Tandem serves, in
// Redis's words and order.
var debugHelp = []string{
	"AOF-FLUSH-SLEEP <microsec>",
	"    Server will sleep before flushing the AOF, this is used for testing.",
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"STRINGMATCH-TEST",
	"    Run a fuzz tester against the stringmatchlen() function.",
	"LISTPACK <key>",
	"    Show low level info about the listpack encoding of <key>.",
	"QUICKLIST <key> [<0|1>]",
	"    Show low level info about the quicklist encoding of <key>.",
	"    The optional argument (0 by default) sets the level of detail",
}

func cmdDebugHelp(c *Client, args [][]byte) { c.help(args[0], debugHelp) }

func cmdDebugLog(c *Client, args [][]byte) {
	c.fe.log.Warn("DEBUG LOG: " + cutC(string(args[2]), len(args[2])))
	c.w.Status("OK")
}

// cmdDebugError replies its argument as an error, newlines as spaces.
func cmdDebugError(c *Client, args [][]byte) { c.w.Error(string(args[2])) }

// peek is DEBUG's key lookup: Redis reads the dictionary directly, so a
// logically expired key is still there, and nothing is touched or counted.
func (c *Client) peek(key []byte) (it engine.SnapItem, info engine.PeekInfo, ok bool) {
	ok = c.db.Peek(key, func(i *engine.SnapItem, pi engine.PeekInfo) {
		it, info = *i, pi
		// The slices are the shard's until the lock is released.
		it.Key = append([]byte(nil), i.Key...)
		it.Value = append([]byte(nil), i.Value...)
		it.Elems = cloneAll(i.Elems)
		it.Fields, it.Values = cloneAll(i.Fields), cloneAll(i.Values)
		it.Members = make([]engine.ZMember, len(i.Members))
		for j, m := range i.Members {
			it.Members[j] = engine.ZMember{Member: append([]byte(nil), m.Member...), Score: m.Score}
		}
	})
	return it, info, ok
}

func cloneAll(bs [][]byte) [][]byte {
	if bs == nil {
		return nil
	}
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = append([]byte(nil), b...)
	}
	return out
}

// lruClockMax is Redis's LRU_CLOCK_MAX: its access clock is 24 bits of
// seconds.
const lruClockMax = 1<<24 - 1

// cmdDebugObject is DEBUG OBJECT key: redis 7.0's line, its figures
// Tandem's: the refcount OBJECT REFCOUNT gives, the length the value's
// RDB serialization has (the DUMP payload's, without type and footer),
// the access clock as Redis keeps it (seconds, 24 bits; under an LFU
// policy minutes and the counter), and for a list the quicklist Redis
// would hold. "Value at" is an address in Redis; Tandem's values have
// none, and it shows the key's place in the keyspace instead.
func cmdDebugObject(c *Client, args [][]byte) {
	it, info, ok := c.peek(args[2])
	if !ok {
		c.w.Error(errDebugNoKey)
		return
	}
	o := c.dumpOptions()
	payload, err := appendPayload(nil, &it, info.DumpInfo, o)
	if err != nil {
		c.w.Error("ERR " + err.Error())
		return
	}
	serialized := len(payload) - 1 - 10 // type byte, version and CRC
	nowSec := c.nowMs() / 1000
	idleSec := info.IdleMs / 1000
	lru := (nowSec - idleSec) & lruClockMax
	if lfuPolicy(c.fe.cfg.MaxMemoryPolicy()) {
		lru = ((nowSec/60-idleSec/60)&0xffff)<<8 | info.Freq
	}
	var extra string
	if it.Type == engine.TypeList {
		nodes, size := rdb.QuicklistShape(it.Elems, o)
		compressed := 0
		if c.fe.cfg.ListCompressDepth() != 0 {
			compressed = 1
		}
		extra = fmt.Sprintf(" ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
			nodes, float64(len(it.Elems))/float64(nodes), o.ListFill, compressed, size)
	}
	h := binary.BigEndian.Uint64(sha1Of(args[2]))
	c.w.Status(fmt.Sprintf("Value at:0x7f%010x refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d%s",
		h&0xfffffffff8, refcountOf(c, it.Type, info.Encoding, it.Value), info.Encoding, serialized, lru, idleSec, extra))
}

// debugLookup is Redis's objectCommandLookupOrReply with "no such key":
// a read that reclaims an expired key but touches nothing.
func (c *Client) debugLookup(key []byte) (engine.KeyInfo, bool) {
	info, ok := c.db.Info(key)
	if !ok {
		c.w.Error(errDebugNoKey)
	}
	return info, ok
}

// cmdDebugListpack is DEBUG LISTPACK key: Redis prints the listpack on
// its standard output and says so; Tandem writes what it holds to the log.
func cmdDebugListpack(c *Client, args [][]byte) {
	info, ok := c.debugLookup(args[2])
	if !ok {
		return
	}
	if info.Encoding != engine.EncListpack {
		c.w.Error(errDebugNotListpack)
		return
	}
	c.fe.log.Info("DEBUG LISTPACK", "key", string(args[2]), "type", info.Type.String())
	c.w.Status("Listpack structure printed on stdout")
}

// cmdDebugQuicklist is DEBUG QUICKLIST key [0|1], as DEBUG LISTPACK for a
// quicklist (every list, in redis 7.0).
func cmdDebugQuicklist(c *Client, args [][]byte) {
	info, ok := c.debugLookup(args[2])
	if !ok {
		return
	}
	if info.Encoding != engine.EncQuicklist {
		c.w.Error(errDebugNotQL)
		return
	}
	c.fe.log.Info("DEBUG QUICKLIST", "key", string(args[2]))
	c.w.Status("Quicklist structure printed on stdout")
}

// positiveLongArg is Redis's getPositiveLongFromObjectOrReply without a
// message: not an integer and negative get the same error.
func (c *Client) positiveLongArg(b []byte) (int64, bool) {
	v, ok := num.ParseInt(b)
	if !ok || v < 0 {
		c.w.Error("ERR value is out of range, must be positive")
		return 0, false
	}
	return v, true
}

// cmdDebugPopulate is DEBUG POPULATE count [prefix] [size]: count string
// keys prefix:0… ("key" by default) valued value:0… (padded with zero
// bytes or cut to size), skipping keys that exist.
func cmdDebugPopulate(c *Client, args [][]byte) {
	keys, ok := c.positiveLongArg(args[2])
	if !ok {
		return
	}
	var size int64
	if len(args) == 5 {
		if size, ok = c.positiveLongArg(args[4]); !ok {
			return
		}
	}
	prefix := "key"
	if len(args) >= 4 {
		prefix = cutC(string(args[3]), 128)
	}
	c.db.Reserve(int(min(keys, 1<<30)))
	for j := int64(0); j < keys; j++ {
		// Redis formats "%s:%lu" into 128 bytes: a long prefix is cut.
		key := cutC(prefix+":"+strconv.FormatInt(j, 10), 127)
		val := []byte("value:" + strconv.FormatInt(j, 10))
		if size > 0 {
			v := make([]byte, size)
			copy(v, val)
			val = v
		}
		if _, err := c.db.Set([]byte(key), val, engine.SetOptions{Cond: engine.CondAbsent}); err != nil {
			c.engineError(err)
			return
		}
	}
	c.w.Status("OK")
}

// digest is a DEBUG DIGEST value: 20 bytes, Redis's SHA1 mixes.
type digest [20]byte

// xor is Redis's xorDigest: digest ^= SHA1(b), order-free.
func (d *digest) xor(b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix is Redis's mixDigest: digest = SHA1(digest ^ SHA1(b)), ordered.
func (d *digest) mix(b []byte) {
	d.xor(b)
	*d = sha1.Sum(d[:])
}

func sha1Of(b []byte) []byte {
	h := sha1.Sum(b)
	return h[:]
}

// redisType is a type's number in Redis (OBJ_STRING…), which the digest
// mixes in.
func redisType(t engine.Type) uint32 {
	switch t {
	case engine.TypeList:
		return 1
	case engine.TypeSet:
		return 2
	case engine.TypeZSet:
		return 3
	case engine.TypeHash:
		return 4
	case engine.TypeStream:
		return 6
	}
	return 0
}

// xorObject is Redis's xorObjectDigest: the value's type and contents
// mixed into d, lists in order, the elements of sets, hashes and sorted
// sets each digested on their own and xored, and the mark of an expiry.
func xorObject(d *digest, it *engine.SnapItem) {
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], redisType(it.Type))
	d.mix(aux[:])
	switch it.Type {
	case engine.TypeString:
		d.mix(it.Value)
	case engine.TypeList:
		for _, e := range it.Elems {
			d.mix(e)
		}
	case engine.TypeSet:
		for _, e := range it.Elems {
			d.xor(e)
		}
	case engine.TypeZSet:
		for _, m := range it.Members {
			var ed digest
			ed.mix(m.Member)
			ed.mix(appendDouble(nil, m.Score))
			d.xor(ed[:])
		}
	case engine.TypeHash:
		for i := range it.Fields {
			var ed digest
			ed.mix(it.Fields[i])
			ed.mix(it.Values[i])
			d.xor(ed[:])
		}
	case engine.TypeStream:
		// The live entries in order: "ms.seq", then each field and value
		// (the groups are not digested, as in Redis).
		for _, b := range it.Stream.Blocks {
			for _, e := range b.Entries {
				if e.Deleted {
					continue
				}
				d.mix(fmt.Appendf(nil, "%d.%d", e.ID.Ms, e.ID.Seq))
				for _, f := range e.Fields {
					d.mix(f)
				}
			}
		}
	}
	if it.ExpireAt != 0 {
		d.xor([]byte("!!expire!!"))
	}
}

// cmdDebugDigest is DEBUG DIGEST: Redis's digest of the whole keyspace,
// taken in an exclusive section so that it is one instant's. Each
// non-empty database mixes in its number, then xors in each key's digest.
func cmdDebugDigest(c *Client, _ [][]byte) {
	var final digest
	c.exclusive(func() {
		for n := 0; n < c.fe.eng.Databases(); n++ {
			db := c.fe.eng.DB(n)
			if db.Size() == 0 {
				continue
			}
			var aux [4]byte
			binary.BigEndian.PutUint32(aux[:], uint32(n))
			final.mix(aux[:])
			db.PeekAll(func(it *engine.SnapItem) {
				var d digest
				d.mix(it.Key)
				xorObject(&d, it)
				final.xor(d[:])
			})
		}
	})
	c.w.Status(hex.EncodeToString(final[:]))
}

// cmdDebugDigestValue is DEBUG DIGEST-VALUE key…: each value's digest
// (without its key), twenty zero bytes for a missing key.
func cmdDebugDigestValue(c *Client, args [][]byte) {
	c.w.Array(len(args) - 2)
	for _, k := range args[2:] {
		var d digest
		c.db.Peek(k, func(it *engine.SnapItem, _ engine.PeekInfo) { xorObject(&d, it) })
		c.w.Status(hex.EncodeToString(d[:]))
	}
}

// cmdDebugProtocol is DEBUG PROTOCOL type: a sample reply of each RESP
// type.
func cmdDebugProtocol(c *Client, args [][]byte) {
	w := &c.w
	switch name := args[2]; {
	case argIs(name, "STRING"):
		w.BulkString("Hello World")
	case argIs(name, "INTEGER"):
		w.Int(12345)
	case argIs(name, "DOUBLE"):
		w.Double(3.141)
	case argIs(name, "BIGNUM"):
		w.BigNumber("1234567999999999999999999999999999999")
	case argIs(name, "NULL"):
		w.Null()
	case argIs(name, "ARRAY"):
		w.Array(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case argIs(name, "SET"):
		w.Set(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case argIs(name, "MAP"):
		w.Map(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
			w.Bool(j == 1)
		}
	case argIs(name, "ATTRIB"):
		if w.resp3() {
			w.Raw([]byte("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"))
		}
		w.BulkString("Some real reply following the attribute")
	case argIs(name, "PUSH"):
		if !w.resp3() {
			w.Error(errDebugPushRESP2)
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case argIs(name, "TRUE"):
		w.Bool(true)
	case argIs(name, "FALSE"):
		w.Bool(false)
	case argIs(name, "VERBATIM"):
		w.Verbatim("This is a verbatim\nstring")
	default:
		w.Error(errDebugProtocol)
	}
}

// cmdDebugSleep is DEBUG SLEEP seconds (strtod: "1.5", "2abc" is 2): the
// whole server stops, both protocols, as Redis's single thread does, by
// sleeping in an exclusive section.
func cmdDebugSleep(c *Client, args [][]byte) {
	secs, _, _ := num.Strtod(args[2])
	if d := time.Duration(secs * 1e9); secs > 0 {
		if secs > 1e9 {
			d = 1 << 62
		}
		c.exclusive(func() { time.Sleep(d) })
	}
	c.w.Status("OK")
}

// cmdDebugSetActiveExpire is DEBUG SET-ACTIVE-EXPIRE n: atoi(n) != 0
// turns the active expiry cycle on, 0 off.
func cmdDebugSetActiveExpire(c *Client, args [][]byte) {
	c.fe.eng.SetActiveExpire(cAtoi(args[2]) != 0)
	c.w.Status("OK")
}

// cmdDebugAOFFlushSleep is DEBUG AOF-FLUSH-SLEEP <microsec>: each write
// of the AOF's buffer sleeps first, so Redis's tests can see whether a
// reply goes out before its write reaches the file.
func cmdDebugAOFFlushSleep(c *Client, args [][]byte) {
	c.fe.svc.AppendOnly.SetFlushSleep(cAtoi(args[2]))
	c.w.Status("OK")
}

// cmdDebugDisableDenyScripts is DEBUG SET-DISABLE-DENY-SCRIPTS <0|1>,
// which Redis's own tests use to run DEBUG and CLIENT from scripts; Redis
// lists it in no DEBUG HELP line.
func cmdDebugDisableDenyScripts(c *Client, args [][]byte) {
	c.fe.debug.allowNoScript.Store(cAtoi(args[2]) != 0)
	c.w.Status("OK")
}

// cmdDebugPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD size: a
// memory value up to 4 GB less 1 MB; 0 restores 1 GB.
func cmdDebugPackedThreshold(c *Client, args [][]byte) {
	sz, ok := conf.ParseMemory(string(args[2]))
	if !ok || sz > 1<<32-1<<20 {
		c.w.Error(errDebugThreshold)
		return
	}
	c.fe.debug.packedThreshold.Store(sz)
	c.w.Status("OK")
}

// cmdDebugChangeReplID is DEBUG CHANGE-REPL-ID: a new replication ID
// (INFO replication's master_replid).
func cmdDebugChangeReplID(c *Client, _ [][]byte) {
	c.fe.log.Warn("Changing replication IDs after receiving DEBUG change-repl-id")
	c.fe.svc.Replication.Primary.ChangeReplID()
	c.w.Status("OK")
}

// cmdDebugStringmatchTest is DEBUG STRINGMATCH-TEST: Redis's fuzz of its
// glob matcher (random patterns and strings of up to 31 bytes below 128),
// run against Tandem's.
func cmdDebugStringmatchTest(c *Client, _ [][]byte) {
	var str, pat [32]byte
	matches := 0
	for cycles := 0; cycles < 1_000_000; cycles++ {
		s, p := str[:rand.IntN(len(str))], pat[:rand.IntN(len(pat))]
		for j := range s {
			s[j] = byte(rand.IntN(128))
		}
		for j := range p {
			p[j] = byte(rand.IntN(128))
		}
		if glob.Match(p, s, false) {
			matches++
		}
	}
	c.fe.log.Info("DEBUG STRINGMATCH-TEST", "matches", matches)
	c.w.Status("Apparently Redis did not crash: test passed")
}
