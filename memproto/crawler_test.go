package memproto

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/server/servertest"
)

func TestParseCrawlClasses(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want crawlTarget
	}{
		{"all", crawlAll}, {"hash", crawlHash}, {"1", crawlAll}, {"2,1", crawlAll}, {"1,,3", crawlAll},
		{"2", crawlEmpty}, {"63", crawlEmpty}, {",", crawlNone}, {"", crawlNone},
		{"0", crawlBad}, {"64", crawlBad}, {"1,x", crawlBad}, {"-1", crawlBad}, {"ALL", crawlBad},
	} {
		if got := parseCrawlClasses([]byte(c.arg)); got != c.want {
			t.Errorf("parseCrawlClasses(%q) = %d, want %d", c.arg, got, c.want)
		}
	}
}

func TestAppendURIEncoded(t *testing.T) {
	got := string(appendURIEncoded(nil, []byte("aZ09-._~ %/\x00\xff")))
	if want := "aZ09-._~%20%25%2F%00%FF"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// metadump lists every live string of database 0 in memcached's format,
// with last access, fetched bit, flags' 4 bytes in the size, and the
// expiry in unix seconds; expired keys and other types are left out.
func TestMetadumpLines(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.send("set a%b 5 100 3\r\nxyz\r\nset plain 0 0 1\r\n1\r\nset gone 0 1 1\r\nx\r\n")
	env.clock.Advance(2 * time.Second) // gone expires; la of the others is 2 s back
	c.send("get plain\r\n")
	if _, err := env.eng.DB(0).HSet([]byte("hash"), [][]byte{[]byte("f"), []byte("v")}, engine.HashLimits{}); err != nil {
		t.Fatal(err)
	}
	casOf := func(key string) string {
		db := env.db
		db.NoTouch = true
		it, _, _ := db.Get([]byte(key))
		return strconv.FormatUint(it.CAS, 10)
	}
	now := strconv.Itoa(startMs/1000 + 2)
	want := map[string]string{
		"key=a%25b exp=" + strconv.Itoa(startMs/1000+100) + " la=" + strconv.Itoa(startMs/1000) + " cas=" + casOf("a%b") + " fetch=no cls=1 size=" + strconv.Itoa(itemHeaderSize+3+1+3+2+4): "",
		"key=plain exp=-1 la=" + now + " cas=" + casOf("plain") + " fetch=yes cls=1 size=" + strconv.Itoa(itemHeaderSize+6+1+2):                                                             "",
	}
	out := c.send("lru_crawler metadump all\r\n")
	if !strings.HasSuffix(out, "\nEND\r\n") {
		t.Fatalf("no END: %q", out)
	}
	got := strings.Split(strings.TrimSuffix(out, "END\r\n"), "\n")
	got = got[:len(got)-1]
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, l := range got {
		if _, ok := want[l]; !ok {
			t.Errorf("line %q not among %q", l, want)
		}
	}
	// Listing did not fetch a%b.
	if out := c.send("lru_crawler metadump 1\r\n"); !strings.Contains(out, "key=a%25b ") || !strings.Contains(out, "fetch=no cls=1 size=69\n") {
		t.Errorf("second dump %q", out)
	}
	c.expect("lru_crawler metadump 2\r\n", "END\r\n")
}

// A metadump of a large keyspace suspends between batches, as a multiget
// at the bound: each key is listed once, END comes once at the end, the
// request after it runs after END, and the dump paused at least once.
func TestMetadumpStreams(t *testing.T) {
	env := newTestEnv(t)
	const n = 3*metadumpBatch + 17
	c := env.client()
	var fill strings.Builder
	for i := 0; i < n; i++ {
		fill.WriteString("set k" + strconv.Itoa(i) + " 0 0 1\r\nv\r\n")
	}
	c.send(fill.String())
	peer := &pausingPeer{Peer: servertest.NewPeer("127.0.0.1:11211")}
	s := env.fe.NewSession(peer).(*session)
	pending := "lru_crawler metadump all\r\nversion\r\n"
	var got strings.Builder
	for serves := 0; pending != ""; serves++ {
		if serves > 100 {
			t.Fatalf("no end after %d serves", serves)
		}
		k, out, _ := s.Serve([]byte(pending), nil)
		if k == 0 && len(out) == 0 {
			t.Fatal("a Serve made no progress")
		}
		got.Write(out)
		pending = pending[k:]
	}
	if peer.pauses < 3 {
		t.Errorf("%d pauses for %d keys", peer.pauses, n)
	}
	out := got.String()
	if !strings.HasSuffix(out, "END\r\nVERSION 1.6.18-tandem-test\r\n") || strings.Count(out, "END\r\n") != 1 {
		t.Fatalf("dump does not end once before version: %q", out[max(0, len(out)-200):])
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.SplitN(out, "END\r\n", 2)[0], "\n") {
		if l == "" {
			continue
		}
		k := strings.TrimPrefix(strings.Fields(l)[0], "key=")
		if seen[k] {
			t.Fatalf("key %s listed twice", k)
		}
		seen[k] = true
	}
	if len(seen) != n {
		t.Errorf("%d keys listed, want %d", len(seen), n)
	}
}

// The crawler's switches: disable makes crawl and metadump refuse, a
// second enable fails as memcached's thread start does, and "stats
// settings" shows them.
func TestLruCrawlerSwitches(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("lru_crawler sleep 250\r\nlru_crawler tocrawl 7\r\n", "OK\r\nOK\r\n")
	c.expect("lru_crawler disable\r\n", "OK\r\n")
	c.expect("lru_crawler crawl all\r\n", "CLIENT_ERROR lru crawler disabled\r\n")
	c.expect("lru_crawler metadump all\r\n", "CLIENT_ERROR lru crawler disabled\r\n")
	m := statsMap(t, c, " settings")
	if m["lru_crawler"] != "no" || m["lru_crawler_sleep"] != "250" || m["lru_crawler_tocrawl"] != "7" {
		t.Errorf("settings %q %q %q", m["lru_crawler"], m["lru_crawler_sleep"], m["lru_crawler_tocrawl"])
	}
	c.expect("lru_crawler enable\r\n", "OK\r\n")
	c.expect("lru_crawler enable\r\n", "ERROR failed to start lru crawler thread\r\n")
	c.expect("lru_crawler crawl 1,2\r\n", "OK\r\n")
	c.expect("lru_crawler crawl hash\r\n", "ERROR an unknown error happened\r\n")
	if m := statsMap(t, c, " settings"); m["lru_crawler"] != "yes" {
		t.Errorf("lru_crawler %q after enable", m["lru_crawler"])
	}
}
