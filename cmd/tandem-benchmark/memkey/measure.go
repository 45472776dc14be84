package memkey

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// caseRun is one case in one round.
type caseRun struct {
	Case      string `json:"case"`
	Server    string `json:"server"`
	Proto     string `json:"loaded_through"`
	Round     int    `json:"round"`
	Version   string `json:"version"`
	Accounted string `json:"accounted_as"` // what sample.Accounted is

	Empty  *sample `json:"empty"`
	After1 *sample `json:"after_first"` // -settle after the load
	After  *sample `json:"after"`       // -settle later: the one that counts

	LoadSeconds float64 `json:"load_seconds"`
	Verified    int     `json:"verified_keys"`
	Error       string  `json:"error,omitempty"`
}

// ok reports whether the run has both samples and no error.
func (r *caseRun) ok() bool { return r.Error == "" && r.Empty != nil && r.After != nil }

// accountedPerKey and rssPerKey are (after − empty) / keys.
func (r *caseRun) accountedPerKey(keys int) float64 {
	return perKey(r.Empty.Accounted, r.After.Accounted, keys)
}
func (r *caseRun) rssPerKey(keys int) float64 { return perKey(r.Empty.RSS, r.After.RSS, keys) }

func perKey(empty, after int64, keys int) float64 {
	if keys <= 0 {
		return 0
	}
	return float64(after-empty) / float64(keys)
}

// sample is one reading of a server.
type sample struct {
	Accounted int64            `json:"accounted"` // used_memory; memcached's stats bytes
	RSS       int64            `json:"rss"`       // VmRSS
	Keys      int64            `json:"keys"`      // DBSIZE; memcached's curr_items
	Evicted   int64            `json:"evicted"`   // evicted_keys; memcached's evictions
	Extra     map[string]int64 `json:"extra,omitempty"`
}

// Fields kept beside the main figures.
var (
	infoExtra = []string{"used_memory_rss", "allocator_allocated", "allocator_active", "allocator_resident"}
	statExtra = []string{"limit_maxbytes", "hash_bytes", "total_items", "threads"}
)

// prober takes samples of one server.
type prober struct {
	s   *server
	ctl *benchkit.Conn   // RESP servers
	mc  *benchkit.MCConn // memcached
}

func newProber(s *server) (*prober, error) {
	p := &prober{s: s}
	var err error
	if s.kind == "memcached" {
		p.mc, err = benchkit.DialMemcached(s.mcAddr(), time.Minute)
	} else {
		p.ctl, err = benchkit.Dial(s.respAddr(), time.Minute)
	}
	return p, err
}

func (p *prober) close() {
	if p.ctl != nil {
		p.ctl.Close()
	}
	if p.mc != nil {
		p.mc.Close()
	}
}

// version is the server's version.
func (p *prober) version() string {
	if p.mc != nil {
		v, _ := p.mc.Version()
		return v
	}
	in, err := p.ctl.Info("server")
	if err != nil {
		return "?"
	}
	if v := in["tandem_version"]; v != "" {
		return v
	}
	return in["redis_version"]
}

// take reads RSS first, then the server's own figures.
func (p *prober) take() (*sample, error) {
	rss, err := benchkit.VmRSS(p.s.pid())
	if err != nil {
		return nil, err
	}
	sm := &sample{RSS: rss, Extra: map[string]int64{}}
	if p.mc != nil {
		st, err := p.mc.Stats()
		if err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
		for name, dst := range map[string]*int64{"bytes": &sm.Accounted, "curr_items": &sm.Keys, "evictions": &sm.Evicted} {
			if *dst, err = strconv.ParseInt(st[name], 10, 64); err != nil {
				return nil, fmt.Errorf("stats %s: %q", name, st[name])
			}
		}
		for _, f := range statExtra {
			if n, err := strconv.ParseInt(st[f], 10, 64); err == nil {
				sm.Extra[f] = n
			}
		}
		return sm, nil
	}
	mem, err := p.ctl.Info("memory")
	if err != nil {
		return nil, fmt.Errorf("INFO memory: %w", err)
	}
	if _, ok := mem["used_memory"]; !ok {
		return nil, fmt.Errorf("INFO memory has no used_memory")
	}
	sm.Accounted = benchkit.IntField(mem, "used_memory")
	for _, f := range infoExtra {
		if _, ok := mem[f]; ok {
			sm.Extra[f] = benchkit.IntField(mem, f)
		}
	}
	stats, err := p.ctl.Info("stats")
	if err != nil {
		return nil, fmt.Errorf("INFO stats: %w", err)
	}
	sm.Evicted = benchkit.IntField(stats, "evicted_keys")
	r, err := p.ctl.Do("DBSIZE")
	if err != nil {
		return nil, fmt.Errorf("DBSIZE: %w", err)
	}
	if r.Kind != ':' {
		return nil, fmt.Errorf("DBSIZE answered %q", r.String())
	}
	sm.Keys = r.Int
	return sm, nil
}

// check fails a sample that does not hold exactly keys keys, or one taken
// after an eviction.
func (sm *sample) check(what string, keys int) error {
	if sm.Keys != int64(keys) {
		return fmt.Errorf("%s: the server holds %d keys, want %d", what, sm.Keys, keys)
	}
	if sm.Evicted != 0 {
		return fmt.Errorf("%s: the server evicted %d keys", what, sm.Evicted)
	}
	return nil
}

// measure runs one case on a fresh server. The caseRun is never nil.
func measure(o options, c caseDef, round int, dir, logPath string, log io.Writer) (*caseRun, error) {
	r := &caseRun{Case: c.Name, Server: c.Server, Proto: c.Proto, Round: round, Accounted: "used_memory"}
	if c.Server == "memcached" {
		r.Accounted = "memcached stats bytes"
	}
	bin := map[string]string{"tandem": o.tandemBin, "redis": o.redisBin, "memcached": o.memcachedBin}[c.Server]
	s, err := startServer(c.Server, bin, dir, logPath, o.MCMemory, time.Minute)
	if err != nil {
		return r, err
	}
	defer s.Stop()
	p, err := newProber(s)
	if err != nil {
		return r, err
	}
	defer p.close()
	r.Version = p.version()

	if r.Empty, err = p.take(); err != nil {
		return r, fmt.Errorf("empty: %w", err)
	}
	if err := r.Empty.check("empty", 0); err != nil {
		return r, err
	}

	addr, codec := s.respAddr(), benchkit.Codec(benchkit.RESP{})
	if c.Proto == "memcached" {
		addr, codec = s.mcAddr(), benchkit.MemcacheText{}
	}
	d, err := load(addr, codec, o.Keys, o.Size, o.Pipeline)
	if err != nil {
		return r, fmt.Errorf("loading: %w", err)
	}
	r.LoadSeconds = d.Seconds()
	fmt.Fprintf(log, "  loaded in %.2f s (%.0f keys/s)\n", r.LoadSeconds, float64(o.Keys)/r.LoadSeconds)

	time.Sleep(o.Settle)
	if r.After1, err = p.take(); err != nil {
		return r, fmt.Errorf("after the load: %w", err)
	}
	time.Sleep(o.Settle)
	if r.After, err = p.take(); err != nil {
		return r, fmt.Errorf("after the load: %w", err)
	}
	for _, x := range []struct {
		what string
		sm   *sample
	}{{"first sample after the load", r.After1}, {"second sample after the load", r.After}} {
		if err := x.sm.check(x.what, o.Keys); err != nil {
			return r, err
		}
	}
	fmt.Fprintf(log, "  %s: %.1f B/key, RSS %.1f B/key (empty %s / %s, after %s / %s)\n", r.Accounted,
		r.accountedPerKey(o.Keys), r.rssPerKey(o.Keys), benchkit.Bytes(r.Empty.Accounted), benchkit.Bytes(r.Empty.RSS), benchkit.Bytes(r.After.Accounted), benchkit.Bytes(r.After.RSS))

	idx := pickKeys(o.Keys, o.Verify, uint64(round))
	if err := verify(addr, codec, idx, o.Size); err != nil {
		return r, fmt.Errorf("reading back: %w", err)
	}
	r.Verified = len(idx)
	fmt.Fprintf(log, "  read back %d keys: all values match\n", r.Verified)
	return r, nil
}
