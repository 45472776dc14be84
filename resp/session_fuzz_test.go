package resp

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/server/servertest"
	"github.com/tandemkv/tandem/services"
)

// FuzzSession runs whole command sequences through a real front-end over
// fresh services: the fuzzer's bytes are lines of space-separated
// arguments, each line one command sent as a multibulk, in RESP2 or RESP3.
// Invariants: nothing panics; every reply is well-formed RESP of the
// client's protocol (validated fully by readFuzzReply); afterwards a fresh
// client still gets +PONG, so the sequence wedged nothing.
//
// What would make a run slow, unbounded or reach outside is not sent or is
// tamed (tameCommand): no SHUTDOWN, SAVE, replication, ACL or CLIENT
// PAUSE, a whitelist for CONFIG SET; every integer argument is clamped to
// ±1000 (counts, offsets, timeouts); scripts and libraries are chosen from
// small fixed lists. maxmemory is 4mb and proto-max-bulk-len 1mb.

// fuzzScripts are the only EVAL and SCRIPT LOAD bodies: the fuzzer picks
// one by its body's length.
var fuzzScripts = []string{
	"return 1",
	"return redis.call('SET', KEYS[1], ARGV[1])",
	"return redis.call('GET', KEYS[1])",
	"return {1, 'a', {2, {3}}, nil, 5}",
	"return redis.status_reply('FINE')",
	"return redis.error_reply('MY error')",
	"redis.setresp(3) return redis.call('HGETALL', KEYS[1])",
	"redis.setresp(3) return {map={a=1}, double=1.5}",
	"return redis.pcall('INCR', KEYS[1])",
	"return cjson.encode({a = {1, 2}})",
	"return {err = 'bad\r\nthing'}",
	"return {ok = 'fine'}",
	"error('x')",
	"return redis.call('LPUSH', KEYS[1], 'a', 'b')",
	"local n = 0 for i = 1, 10 do n = n + i end return n",
	"return redis.call('PUBLISH', 'ch', 'm')",
	"return redis.call('EVAL', 'return 1', 0)",
	"return redis.call('BLPOP', KEYS[1], 0)",
	"return redis.call('ZADD', KEYS[1], 1, 'm')",
	"#!lua flags=no-writes\nreturn redis.call('SET', 'k', 'v')",
	"#!lua\nreturn redis.call('SET', KEYS[1], 'x')",
	"return 3.99",
	"return false",
	"redis.setresp(3) return redis.call('ZSCORE', KEYS[1], 'm')",
	"return redis.call('HSET', KEYS[1], 'f', ARGV[1])",
	"return redis.sha1hex(ARGV[1])",
	"return #KEYS + #ARGV",
	"return redis.call('DEL', KEYS[1])",
	"error(_G)",
	"return redis.call('CLIENT', 'PAUSE', 1000)",
}

// fuzzLibraries are the only FUNCTION LOAD bodies.
var fuzzLibraries = []string{
	"#!lua name=lib\nredis.register_function('f', function(keys, args) return keys[1] end)",
	"#!lua name=lib2\nredis.register_function{function_name='g', callback=function(k, a) return redis.call('INCR', k[1]) end, flags={'allow-oom'}}",
	"#!lua name=bad\nredis.call('SET', 'a', 'b')",
	"#!lua name=ro\nredis.register_function{function_name='r', callback=function(k) return redis.call('GET', k[1]) end, flags={'no-writes'}}",
	"#!lua name=lib\nredis.register_function('f', function(keys, args) return redis.setresp(3) end)",
}

// fuzzDenied are commands never sent: they touch the disk or the network,
// change who may log in, or stop the server or other clients.
var fuzzDenied = map[string]bool{
	"shutdown": true, "save": true, "bgsave": true, "bgrewriteaof": true, "sync": true, "psync": true,
	"replicaof": true, "slaveof": true, "replconf": true, "wait": true, "migrate": true, "failover": true, "module": true, "acl": true,
}

// fuzzConfigSafe are the directives CONFIG SET may change.
var fuzzConfigSafe = map[string]bool{
	"maxmemory-policy": true, "hash-max-listpack-entries": true, "hash-max-listpack-value": true,
	"hash-max-ziplist-entries": true, "zset-max-listpack-entries": true, "zset-max-listpack-value": true,
	"set-max-intset-entries": true, "list-max-listpack-size": true, "hll-sparse-max-bytes": true,
	"notify-keyspace-events": true, "maxmemory-samples": true, "lfu-log-factor": true, "lfu-decay-time": true,
	"activerehashing": true, "slowlog-log-slower-than": true, "slowlog-max-len": true, "latency-tracking": true,
}

// tameCommand returns the command to send instead of args, or nil to send
// nothing.
func tameCommand(args [][]byte) [][]byte {
	if len(args) == 0 {
		return nil
	}
	name := strings.ToLower(string(args[0]))
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(string(args[1]))
	}
	switch {
	case fuzzDenied[name]:
		return nil
	case name == "client" && (sub == "pause" || sub == "kill"):
		return nil
	case name == "debug" && len(args) > 1 && sub == "reload":
		return nil
	case name == "config" && sub == "rewrite":
		return nil
	case name == "config" && sub == "set":
		for i := 2; i < len(args); i += 2 {
			if !fuzzConfigSafe[strings.ToLower(string(args[i]))] {
				return nil
			}
		}
	}
	for i := 1; i < len(args); i++ {
		if v, err := strconv.ParseInt(string(args[i]), 10, 64); err == nil && (v > 1000 || v < -1000) {
			if v > 0 {
				args[i] = []byte("1000")
			} else {
				args[i] = []byte("-1000")
			}
		}
	}
	switch {
	case (name == "eval" || name == "eval_ro") && len(args) > 1:
		args[1] = []byte(fuzzScripts[len(args[1])%len(fuzzScripts)])
	case name == "script" && sub == "load" && len(args) > 2:
		args[2] = []byte(fuzzScripts[len(args[2])%len(fuzzScripts)])
	case name == "function" && sub == "load" && len(args) > 2:
		last := len(args) - 1
		args[last] = []byte(fuzzLibraries[len(args[last])%len(fuzzLibraries)])
	}
	return args
}

// splitFuzzCommands cuts the input into at most 64 commands of at most 16
// arguments: one per line, arguments separated by spaces.
func splitFuzzCommands(in []byte) [][][]byte {
	var cmds [][][]byte
	for _, line := range bytes.Split(in, []byte("\n")) {
		if len(cmds) == 64 {
			break
		}
		var args [][]byte
		for _, a := range bytes.Split(bytes.TrimSuffix(line, []byte("\r")), []byte(" ")) {
			if len(a) > 0 && len(args) < 16 {
				args = append(args, a)
			}
		}
		if len(args) > 0 {
			cmds = append(cmds, args)
		}
	}
	return cmds
}

func encodeArgs(args [][]byte) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"...)
		b = append(append(b, a...), "\r\n"...)
	}
	return b
}

// fuzzSessionSeeds are realistic pipelines, one command a line.
var fuzzSessionSeeds = []string{
	"SET k v\nGET k\nAPPEND k xyz\nSTRLEN k\nGETRANGE k 0 -1\nINCR n\nINCRBYFLOAT n 1.5\nDEL k n",
	"HSET h f v g 1\nHGETALL h\nHINCRBY h g 5\nHSCAN h 0 COUNT 10\nHRANDFIELD h -5 WITHVALUES\nOBJECT ENCODING h",
	"LPUSH l a b c\nRPUSH l d\nLRANGE l 0 -1\nLPOS l c RANK -1\nLMOVE l l2 LEFT RIGHT\nBLPOP l 1\nBLPOP missing 0\nPING",
	"ZADD z 1 a 2 b 3 c\nZRANGE z 0 -1 WITHSCORES\nZRANGEBYSCORE z (1 +inf LIMIT 0 2\nZINCRBY z 1.5 a\nZPOPMIN z\nZRANDMEMBER z -3 WITHSCORES",
	"SADD s 1 2 3\nSADD t a b\nSUNION s t\nSINTERCARD 2 s t\nSMEMBERS s\nSPOP s 2\nOBJECT ENCODING s",
	"MULTI\nSET a 1\nINCR a\nLPUSH a x\nEXEC\nGET a",
	"WATCH a\nMULTI\nSET a 2\nDISCARD\nMULTI\nBLPOP q 0\nEXEC\nEXEC",
	"MULTI\nSET\nEXEC\nMULTI\nSUBSCRIBE x\nEXEC",
	"EVAL x 1 k v\nEVAL xx 1 k v\nEVAL xxx 0\nEVAL xxxxxx 1 h\nEVAL xxxxxxx 0\nSCRIPT LOAD x\nSCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db\nSCRIPT FLUSH",
	"FUNCTION LOAD x\nFCALL f 1 k\nFUNCTION LOAD xx\nFCALL g 1 n\nFUNCTION LIST\nFUNCTION DUMP\nFUNCTION FLUSH\nFCALL f 0",
	"SUBSCRIBE a b\nPING\nPSUBSCRIBE p*\nPUBLISH a hi\nUNSUBSCRIBE\nPUNSUBSCRIBE\nGET k",
	"HELLO 3\nSUBSCRIBE a\nPUBLISH a hi\nGET k\nHGETALL h\nZSCORE z a\nCONFIG GET maxmemory*\nEVAL xxxxxxx 0",
	"HELLO 3\nHSET h a 1\nHGETALL h\nZADD z 1.5 m\nZRANGE z 0 -1 WITHSCORES\nSMEMBERS s\nINFO keyspace\nCLIENT INFO\nRESET\nGET h",
	"CLIENT SETNAME me\nCLIENT GETNAME\nCLIENT ID\nCLIENT LIST\nCLIENT REPLY SKIP\nGET a\nCLIENT REPLY OFF\nGET a\nCLIENT REPLY ON\nCLIENT NO-EVICT on",
	"CONFIG SET hash-max-listpack-entries 1\nHSET h a 1 b 2\nOBJECT ENCODING h\nCONFIG SET maxmemory-policy allkeys-lru\nCONFIG GET hash*\nCONFIG SET maxmemory 1",
	"SET k v EX 100\nTTL k\nPEXPIRE k 5\nOBJECT FREQ k\nOBJECT IDLETIME k\nDEBUG OBJECT k\nMEMORY USAGE k\nTYPE k\nDUMP k",
	"PFADD h a b c\nPFCOUNT h\nPFADD g x\nPFMERGE m h g\nPFCOUNT m g\nSET bad HYLLxx\nPFCOUNT bad\nPFDEBUG GETREG h",
	"SETRANGE k 100000000 x\nSETBIT b 4294967295 1\nBITCOUNT b\nBITFIELD b SET u8 #100000 255 GET i64 0\nBITPOS b 1",
	"SELECT 1\nSET x 1\nMOVE x 0\nSWAPDB 0 1\nDBSIZE\nSELECT 0\nKEYS *\nSCAN 0 MATCH * COUNT 1000\nFLUSHDB ASYNC",
	"SORT l\nSORT l ALPHA DESC LIMIT 0 2\nSORT l BY nosort GET # STORE out\nRENAME out o2\nCOPY o2 o3\nOBJECT ENCODING o3",
	"SET k\nGET\nUNKNOWNCMD a\nHSET h\nZADD z x y\nLRANGE l a b\nEXPIRE k 1 NX XX\nINCR\n\r\n",
	"HELLO 3\nMULTI\nGET a\nHGETALL h\nEXEC\nHELLO 2\nHGETALL h\nQUIT\nPING",
	"XADD s * a 1\nWAIT 0 0\nLATENCY LATEST\nCOMMAND COUNT\nCOMMAND INFO get\nCOMMAND GETKEYS SET a b\nINFO\nTIME\nLASTSAVE",
	"CONFIG SET notify-keyspace-events KEA\nSET k v\nEXPIRE k 10\nLPUSH l a\nHELLO 3\nSUBSCRIBE c\nPUBLISH c m\nDEL k l",
	"RESTORE k 0 \x00\x01a\x0b\x00\nSET k v\nDUMP k\nRESTORE k2 0 garbage\nOBJECT HELP",
}

func FuzzSession(f *testing.F) {
	for _, s := range fuzzSessionSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(fuzzSession)
}

// fuzzSession is FuzzSession's body.
func fuzzSession(t *testing.T, in []byte, mode uint8) {
	{
		if len(in) > 4096 {
			return
		}
		fe, eng := newFuzzFrontend(t)
		// An observer in RESP2 sees every message and keyspace event:
		// what is pushed to it must be RESP2 too.
		po := servertest.NewWritePeer("127.0.0.1:6379", "")
		obs := fe.NewSession(po).(*Client)
		defer obs.Closed()
		if _, out, _ := obs.Serve(encodeArgs([][]byte{[]byte("PSUBSCRIBE"), []byte("*")}), nil); !bytes.HasPrefix(out, []byte("*3\r\n")) {
			t.Fatalf("PSUBSCRIBE: %q", out)
		}
		p := servertest.NewWritePeer("127.0.0.1:6379", "")
		c := fe.NewSession(p).(*Client)
		defer c.Closed()
		cmds := splitFuzzCommands(in)
		if mode&1 != 0 {
			cmds = append([][][]byte{{[]byte("HELLO"), []byte("3")}}, cmds...)
		}
		if mode&2 != 0 {
			// The whole pipeline in one read: the replies may mix both
			// protocols if it switches, so any RESP3 type is allowed.
			var in []byte
			for _, a := range cmds {
				if a = tameCommand(a); a != nil {
					in = append(in, encodeArgs(a)...)
				}
			}
			_, out, _ := c.Serve(in, nil)
			checkFuzzReplies(t, out, 3)
		} else {
			for _, a := range cmds {
				if a = tameCommand(a); a == nil {
					continue
				}
				proto := int(c.proto.Load())
				if name := strings.ToLower(string(a[0])); name == "hello" || name == "reset" {
					proto = 3 // its own reply may be in the new protocol
				}
				req := encodeArgs(a)
				n, out, closeAfter := c.Serve(req, nil)
				checkFuzzReplies(t, out, proto)
				if closeAfter || n < len(req) {
					break // closed, or parked on a blocking command
				}
			}
		}
		// Messages wait in an outbox until a woken client's next Serve.
		_, pushed, _ := obs.Serve(nil, nil)
		checkFuzzReplies(t, pushed, 2)
		_, pushed, _ = c.Serve(nil, nil)
		checkFuzzReplies(t, pushed, int(c.proto.Load()))
		checkFuzzReplies(t, append(p.Written(), po.Written()...), 3)
		// The server is not wedged: a fresh client gets its PONG.
		p2 := servertest.NewPeer("127.0.0.1:6379")
		c2 := fe.NewSession(p2).(*Client)
		defer c2.Closed()
		ping := encodeArgs([][]byte{[]byte("PING")})
		if _, out, _ := c2.Serve(ping, nil); string(out) != "+PONG\r\n" {
			t.Fatalf("a fresh client's PING got %q", out)
		}
		if eng.UsedMemory() < 0 {
			t.Fatalf("used memory %d", eng.UsedMemory())
		}
	}
}

// newFuzzFrontend is newTestEnv's front-end with a small maxmemory and
// bulk limit, so that no sequence grows without bound.
func newFuzzFrontend(t *testing.T) (*Frontend, *engine.Engine) {
	clock := engine.NewManualClock(1_700_000_000_000)
	eng := engine.New(engine.Options{Clock: clock, ShardBits: 2})
	cfg := conf.Default()
	if err := cfg.Set([2]string{"maxmemory", "4mb"}, [2]string{"proto-max-bulk-len", "1mb"}); err != nil {
		t.Fatal(err)
	}
	svc := services.New(services.Options{Engine: eng, Config: cfg})
	t.Cleanup(svc.Replication.Primary.Close) // its cron goroutine holds the whole keyspace
	fe := New(Options{Services: svc,
		Facts: ServerFacts{TCPPort: 6379, StartTime: time.Unix(1_700_000_000, 0), ClientsCounter: func() int { return 1 }}})
	return fe, eng
}

// checkFuzzReplies fails unless out is a sequence of complete,
// well-formed RESP replies; with proto 2, of RESP2 types only.
func checkFuzzReplies(t *testing.T, out []byte, proto int) {
	t.Helper()
	for pos := 0; pos < len(out); {
		n, err := readFuzzReply(out[pos:], proto, 0)
		if err != nil {
			t.Fatalf("bad reply at byte %d: %v\n%q", pos, err, out[pos:min(len(out), pos+200)])
		}
		pos += n
	}
}

// readFuzzReply parses one reply and returns its length.
func readFuzzReply(b []byte, proto, depth int) (int, error) {
	if depth > 200 {
		return 0, fmt.Errorf("nested %d deep", depth)
	}
	if len(b) == 0 {
		return 0, fmt.Errorf("missing reply")
	}
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return 0, fmt.Errorf("unterminated line")
	}
	kind, line, n := b[0], string(b[1:i]), i+2
	if strings.ContainsAny(line, "\r\n") {
		return 0, fmt.Errorf("CR or LF inside a %q line", kind)
	}
	if proto == 2 && strings.IndexByte("+-:$*", kind) < 0 {
		return 0, fmt.Errorf("RESP3 type %q on a RESP2 connection", kind)
	}
	count := func() (int, error) {
		v, err := strconv.Atoi(line)
		if err != nil || v < -1 || (v == -1 && kind != '$' && kind != '*') {
			return 0, fmt.Errorf("bad length %q of %q", line, kind)
		}
		return v, nil
	}
	switch kind {
	case '+':
		return n, nil
	case '-':
		if line == "" {
			return 0, fmt.Errorf("empty error")
		}
		return n, nil
	case ':':
		if _, err := strconv.ParseInt(line, 10, 64); err != nil {
			return 0, fmt.Errorf("bad integer %q", line)
		}
		return n, nil
	case '$', '=', '!':
		size, err := count()
		if err != nil || size < 0 {
			return n, err
		}
		if len(b) < n+size+2 || string(b[n+size:n+size+2]) != "\r\n" {
			return 0, fmt.Errorf("bulk of %d bytes not followed by CRLF", size)
		}
		if kind == '=' && (size < 4 || b[n+3] != ':') {
			return 0, fmt.Errorf("verbatim string without its format")
		}
		return n + size + 2, nil
	case '*', '~', '>', '%', '|':
		items, err := count()
		if err != nil || items < 0 {
			return n, err
		}
		if kind == '%' || kind == '|' {
			items *= 2
		}
		for k := 0; k < items; k++ {
			m, err := readFuzzReply(b[n:], proto, depth+1)
			if err != nil {
				return 0, fmt.Errorf("element %d of %q%s: %w", k, kind, line, err)
			}
			n += m
		}
		if kind == '|' { // an attribute precedes the reply it describes
			m, err := readFuzzReply(b[n:], proto, depth+1)
			return n + m, err
		}
		return n, nil
	case ',':
		if line != "inf" && line != "-inf" && line != "nan" {
			if f, err := strconv.ParseFloat(line, 64); err != nil || math.IsInf(f, 0) {
				return 0, fmt.Errorf("bad double %q", line)
			}
		}
		return n, nil
	case '#':
		if line != "t" && line != "f" {
			return 0, fmt.Errorf("bad boolean %q", line)
		}
		return n, nil
	case '_':
		if line != "" {
			return 0, fmt.Errorf("null with a payload %q", line)
		}
		return n, nil
	case '(':
		s := strings.TrimPrefix(line, "-")
		if s == "" || strings.Trim(s, "0123456789") != "" {
			return 0, fmt.Errorf("bad big number %q", line)
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown reply type %q", kind)
}
