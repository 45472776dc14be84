package compat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/aof"
)

// cmdBaseDataset writes every type through c: collections past 64 items
// (one rewrite command each 64), expiries, three databases and an empty
// one selected, streams with a deleted entry, an emptied stream, consumer
// groups with pending entries and a consumer without, and a function
// library. Every time in it is fixed, so both servers hold the same
// data, delivery times of pending entries included.
func cmdBaseDataset(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	var cmds [][]any
	add := func(args ...any) { cmds = append(cmds, args) }
	const at = "4102444800123" // 2100-01-01, as PEXPIREAT
	add("FUNCTION", "LOAD", "#!lua name=cmdbaselib\nredis.register_function('cmdbase_f', function(keys, args) return 1 end)")
	add("SET", "s", "plain")
	add("SET", "n", "12345")
	add("SET", "bin", "a\x00b\r\nc")
	add("SET", "ttl", "v")
	add("PEXPIREAT", "ttl", at)
	long := []any{"RPUSH", "biglist"}
	for i := range 150 {
		long = append(long, "e"+strconv.Itoa(i))
	}
	add(long...)
	add("RPUSH", "list", "a", "b", "3")
	add("PEXPIREAT", "list", at)
	ints, strs := []any{"SADD", "intset"}, []any{"SADD", "bigset"}
	for i := range 100 {
		ints = append(ints, strconv.Itoa(i*7-50))
		strs = append(strs, "m"+strconv.Itoa(i))
	}
	add(ints...)
	add(strs...)
	add("SADD", "set", "x", "y")
	bigHash := []any{"HSET", "bighash"}
	for i := range 70 {
		bigHash = append(bigHash, "f"+strconv.Itoa(i), strconv.Itoa(i*i))
	}
	add(bigHash...)
	add("HSET", "hash", "a", "1", "b", "two")
	bigZ := []any{"ZADD", "bigzset"}
	for i := range 70 {
		bigZ = append(bigZ, strconv.FormatFloat(float64(i)/3, 'g', -1, 64), "m"+strconv.Itoa(i))
	}
	add(bigZ...)
	add("ZADD", "zset", "1", "a", "0.1", "b", "-inf", "c", "+inf", "d", "1e20", "e")
	add("XADD", "st", "1-1", "f", "v1")
	add("XADD", "st", "2-1", "f", "v2", "g", "w")
	add("XADD", "st", "3-1", "f", "v3")
	add("XADD", "st", "4-1", "f", "v4")
	add("XDEL", "st", "2-1")
	add("XGROUP", "CREATE", "st", "grp", "0")
	add("XREADGROUP", "GROUP", "grp", "alice", "COUNT", "2", "STREAMS", "st", ">")
	add("XREADGROUP", "GROUP", "grp", "bob", "COUNT", "1", "STREAMS", "st", ">")
	// Fixed delivery times and counts (XREADGROUP's are the clock's).
	add("XCLAIM", "st", "grp", "alice", "0", "1-1", "TIME", "1700000000001", "RETRYCOUNT", "3", "JUSTID")
	add("XCLAIM", "st", "grp", "alice", "0", "3-1", "TIME", "1700000000002", "RETRYCOUNT", "1", "JUSTID")
	add("XCLAIM", "st", "grp", "bob", "0", "4-1", "TIME", "1700000000003", "RETRYCOUNT", "2", "JUSTID")
	add("XGROUP", "CREATECONSUMER", "st", "grp", "idle")
	add("XGROUP", "CREATE", "st", "late", "$")
	add("XADD", "empty", "5-5", "a", "b")
	add("XDEL", "empty", "5-5")
	add("XGROUP", "CREATE", "empty", "g", "$")
	add("SELECT", "1") // selected, written nothing: no SELECT 1 in the base
	add("SELECT", "3")
	add("SET", "in3", "x")
	add("HSET", "h3", "k", "v")
	add("PEXPIREAT", "h3", at)
	add("SELECT", "9")
	add("ZADD", "z9", "2", "two")
	add("SELECT", "0")
	conn := c.Conn() // one connection, so the SELECTs hold
	defer conn.Close()
	for _, args := range cmds {
		if err := conn.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

// baseFile returns the path of the base file the manifest in dir names,
// and checks it is the command form.
func baseFile(t *testing.T, dir string) string {
	t.Helper()
	manifest, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range splitLines(string(manifest)) {
		f := strings.Fields(line)
		if len(f) >= 6 && f[0] == "file" && f[5] == "b" {
			if !strings.HasSuffix(f[1], ".base.aof") {
				t.Fatalf("the base %s is not a .base.aof", f[1])
			}
			return filepath.Join(dir, "appendonlydir", f[1])
		}
	}
	t.Fatalf("no base in the manifest:\n%s", manifest)
	return ""
}

// baseGroups reads an AOF base of commands and returns each key's
// commands in a canonical text, by "db key" ("functions" for the
// libraries). A note (PING) goes with the command after it. Order within
// a key stays where it is Redis's (RPUSH, XADD, XCLAIM…); for sets,
// hashes and sorted sets, whose member order is the hash table's, the
// members are sorted and the split into commands kept as the sizes of
// the commands.
func baseGroups(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := aof.NewReader(f, 0)
	type group struct {
		cmds          []string
		members       []string
		sizes         []int
		unorderedName string
	}
	groups := map[string]*group{}
	db, pending := -1, ""
	for {
		args, ann, err := r.Next()
		if err != nil {
			break
		}
		if ann != nil {
			continue
		}
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = fmt.Sprintf("%q", a)
		}
		name := strings.ToUpper(string(args[0]))
		var gk string
		switch {
		case name == "SELECT":
			db, _ = strconv.Atoi(string(args[1]))
			continue
		case name == "PING":
			pending = strings.Join(s, " ")
			continue
		case name == "FUNCTION":
			gk = "functions"
		case name == "XGROUP":
			gk = fmt.Sprintf("%d %q", db, args[2])
		default:
			gk = fmt.Sprintf("%d %q", db, args[1])
		}
		g := groups[gk]
		if g == nil {
			g = &group{}
			groups[gk] = g
		}
		if pending != "" {
			g.cmds = append(g.cmds, pending)
			pending = ""
		}
		per := map[string]int{"SADD": 1, "HMSET": 2, "ZADD": 2}[name]
		if per == 0 {
			g.cmds = append(g.cmds, strings.Join(s, " "))
			continue
		}
		g.unorderedName = name
		g.sizes = append(g.sizes, (len(s)-2)/per)
		for i := 2; i+per <= len(s); i += per {
			g.members = append(g.members, strings.Join(s[i:i+per], " "))
		}
	}
	out := map[string]string{}
	for k, g := range groups {
		text := strings.Join(g.cmds, "\n")
		if g.unorderedName != "" {
			slices.Sort(g.members)
			text += fmt.Sprintf("\n%s in commands of %v: %s", g.unorderedName, g.sizes, strings.Join(g.members, ", "))
		}
		out[k] = text
	}
	return out
}

// keyFingerprints describes every key of every database of c: type,
// expiry, the value's digest (DEBUG DIGEST-VALUE: order-free for sets
// and hashes), and for a stream its entries, groups, consumers and
// pending entries (XINFO STREAM FULL without the times a load sets anew
// and the node layout), plus the function libraries.
func keyFingerprints(t *testing.T, addr string) map[string]string {
	t.Helper()
	ctx := context.Background()
	c0 := client(addr)
	defer c0.Close()
	waitLoaded(t, c0)
	out := map[string]string{}
	for db := range 16 {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: db, Protocol: 2, MaxRetries: -1})
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			typ := c.Type(ctx, k).Val()
			fp := fmt.Sprintf("%s pexpiretime=%v ", typ, c.Do(ctx, "PEXPIRETIME", k).Val())
			if typ == "stream" {
				// XINFO STREAM FULL holds its groups too, which DEBUG
				// DIGEST-VALUE leaves out (as Redis's).
				info, err := c.Do(ctx, "XINFO", "STREAM", k, "FULL").Result()
				if err != nil {
					t.Fatal(err)
				}
				fp += streamInfoText(info)
			} else {
				digest, err := c.Do(ctx, "DEBUG", "DIGEST-VALUE", k).Result()
				if err != nil {
					t.Fatalf("DEBUG DIGEST-VALUE %q: %v", k, err)
				}
				fp += fmt.Sprint(digest)
			}
			out[fmt.Sprintf("%d %q", db, k)] = fp
		}
		c.Close()
	}
	libs, err := c0.Do(ctx, "FUNCTION", "LIST", "WITHCODE").Result()
	if err != nil {
		t.Fatal(err)
	}
	out["functions"] = fmt.Sprint(libs)
	return out
}

// streamInfoText prints XINFO STREAM FULL's reply, dropping the fields
// a load sets anew (a consumer's seen-time) or shapes its own way (the
// radix tree's size).
func streamInfoText(v any) string {
	switch x := v.(type) {
	case []any:
		var parts []string
		for i := 0; i < len(x); i++ {
			if name, ok := x[i].(string); ok && i+1 < len(x) && (name == "seen-time" || strings.HasPrefix(name, "radix-tree-")) {
				i++
				continue
			}
			parts = append(parts, streamInfoText(x[i]))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

func diffMaps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s: %s:\n got  %s\n want %s", what, k, got[k], want[k])
		}
	}
}

// TestAOFCommandBase: under aof-use-rdb-preamble no, Tandem's rewrite
// writes its base as the commands redis-server 7.0 writes for the same
// data (compared key by key), redis-server loads Tandem's directory to
// the same data, and Tandem restarts from it with the same data, its
// memcached items keeping their flags and CAS.
func TestAOFCommandBase(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	debug := []string{"--enable-debug-command", "local"}
	rdir := t.TempDir()
	ref := startFor(t, rdir, "redis-cmdbase", 1, redisAOFArgs(rdir, append([]string{"--aof-use-rdb-preamble", "no"}, debug...)...))
	rc := client(ref.addrs[0])
	defer rc.Close()
	cmdBaseDataset(t, rc)
	if err := rc.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
		t.Fatal(err)
	}
	waitRewrite(t, rc)
	want := keyFingerprints(t, ref.addrs[0])

	tdir := t.TempDir()
	sut := startFor(t, tdir, "tandem-cmdbase", 2, tandemAOF(tdir, append([]string{"--aof-use-rdb-preamble", "no"}, debug...)...))
	// The base written at start (the empty dataset) is commands too: none.
	if b, err := os.ReadFile(baseFile(t, tdir)); err != nil || len(b) != 0 {
		t.Errorf("Tandem's first base: %.40q %v, want it empty as redis-server's", b, err)
	}
	tc := client(sut.addrs[0])
	cmdBaseDataset(t, tc)
	mc := memcache.New(sut.addrs[1])
	for _, it := range []*memcache.Item{{Key: "mc:ttl", Value: []byte("v"), Flags: 42, Expiration: 100000}, {Key: "mc:plain", Value: []byte("p"), Flags: 7}} {
		if err := mc.Set(it); err != nil {
			t.Fatal(err)
		}
	}
	mcBefore, err := mc.GetMulti([]string{"mc:ttl", "mc:plain"}) // gets: with their CAS
	if err != nil || len(mcBefore) != 2 {
		t.Fatal(mcBefore, err)
	}
	if err := tc.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
		t.Fatal(err)
	}
	waitRewrite(t, tc)
	if info := tc.Info(ctx, "persistence").Val(); !containsLine(info, "aof_last_bgrewrite_status:ok") {
		t.Fatalf("the rewrite failed:\n%s", info)
	}

	tbase := baseFile(t, tdir)
	if b, _ := os.ReadFile(tbase); !strings.HasPrefix(string(b), "*") {
		t.Fatalf("Tandem's base %s is not commands: %.40q", tbase, b)
	}
	got := baseGroups(t, tbase)
	for _, it := range mcBefore {
		k := fmt.Sprintf("0 %q", it.Key)
		if !strings.HasPrefix(got[k], fmt.Sprintf(`"PING" "MC %d %d"`+"\n"+`"SET" %q "%s"`, it.Flags, it.CasID, it.Key, it.Value)) {
			t.Errorf("memcached item %s in the base:\n%s", it.Key, got[k])
		}
		delete(got, k)
	}
	diffMaps(t, "Tandem's base (got) vs redis-server's", got, baseGroups(t, baseFile(t, rdir)))
	tc.Close()
	sut.stop()

	// Tandem's directory into redis-server: the same data, the memcached
	// items as plain strings.
	r2 := startFor(t, tdir, "redis-on-tandem-cmdbase", 1, redisAOFArgs(tdir, append([]string{"--aof-use-rdb-preamble", "no"}, debug...)...))
	loaded := keyFingerprints(t, r2.addrs[0])
	c2 := client(r2.addrs[0])
	for _, it := range mcBefore {
		if v, err := c2.Get(ctx, it.Key).Result(); err != nil || v != string(it.Value) {
			t.Errorf("redis-server on Tandem's AOF: GET %s = %q %v", it.Key, v, err)
		}
		delete(loaded, fmt.Sprintf("0 %q", it.Key))
	}
	c2.Close()
	diffMaps(t, "redis-server on Tandem's AOF (got) vs redis-server", loaded, want)
	r2.stop()

	// Tandem restarts from its directory with the same data and items.
	t2 := startFor(t, tdir, "tandem-on-cmdbase", 2, tandemAOF(tdir, append([]string{"--aof-use-rdb-preamble", "no"}, debug...)...))
	restarted := keyFingerprints(t, t2.addrs[0])
	mc2 := memcache.New(t2.addrs[1])
	mcAfter, err := mc2.GetMulti([]string{"mc:ttl", "mc:plain"})
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range mcBefore {
		a := mcAfter[k]
		if a == nil || a.Flags != b.Flags || a.CasID != b.CasID || string(a.Value) != string(b.Value) {
			t.Errorf("memcached item %s after the restart: %+v, before %+v", k, a, b)
		}
		delete(restarted, fmt.Sprintf("0 %q", k))
	}
	c3 := client(t2.addrs[0])
	defer c3.Close()
	if ttl := c3.TTL(ctx, "mc:ttl").Val(); ttl < 90000*time.Second {
		t.Errorf("mc:ttl's TTL after the restart: %v", ttl)
	}
	diffMaps(t, "Tandem restarted (got) vs redis-server", restarted, want)
}

// TestAOFCommandBaseWhileOff: BGREWRITEAOF with appendonly no writes its
// base as commands too under aof-use-rdb-preamble no, the same commands
// as redis-server 7.0's.
func TestAOFCommandBaseWhileOff(t *testing.T) {
	mustNotSelfTest(t)
	base := func(name string, nports int, args func(string, ...string) func([]int) []string) map[string]string {
		dir := t.TempDir()
		s := startFor(t, dir, name, nports, args(dir, "--aof-use-rdb-preamble", "no"))
		c := client(s.addrs[0])
		defer c.Close()
		cmdBaseDataset(t, c)
		if err := c.Do(context.Background(), "BGREWRITEAOF").Err(); err != nil {
			t.Fatal(err)
		}
		waitRewrite(t, c)
		path := baseFile(t, dir)
		if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "*") {
			t.Fatalf("%s's base %s is not commands: %.40q", name, path, b)
		}
		return baseGroups(t, path)
	}
	want := base("redis-cmdbase-off", 1, redisArgsIn)
	diffMaps(t, "Tandem's base while off (got) vs redis-server's", base("tandem-cmdbase-off", 2, tandemArgs), want)
}
