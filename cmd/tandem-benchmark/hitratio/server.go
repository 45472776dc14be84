package hitratio

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/internal/benchkit"
)

// serverSpec says which server to start.
type serverSpec struct {
	name string // "redis" or "tandem"
	kind benchkit.Kind
	bin  string
}

func redisSpec(bin string) serverSpec {
	return serverSpec{name: "redis", kind: benchkit.Redis, bin: bin}
}
func tandemSpec(bin string) serverSpec {
	return serverSpec{name: "tandem", kind: benchkit.Tandem, bin: bin}
}

// server is one running server process.
type server struct {
	*benchkit.Server
	addr string
}

// start runs a server with policy and maxmemory (0 = unbounded) in a new
// directory under work, and waits until it answers PING.
func start(spec serverSpec, work, policy string, maxmemory int64) (*server, error) {
	dir, err := os.MkdirTemp(work, spec.name+"-")
	if err != nil {
		return nil, err
	}
	var args []string
	if policy != "" {
		args = append(args, "--maxmemory-policy", policy)
	}
	args = append(args, "--maxmemory", strconv.FormatInt(maxmemory, 10))
	s, err := benchkit.Launch(benchkit.Spec{Kind: spec.kind, Bin: spec.bin, Dir: dir, Args: args, Poll: 20 * time.Millisecond, Grace: 5 * time.Second})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &server{Server: s, addr: s.Addr()}, nil
}

// stop ends the process and removes its directory.
func (s *server) stop() {
	s.Stop()
	os.RemoveAll(s.Dir)
}

// calibration is the memory a server needs to hold a number of keys.
type calibration struct {
	Keys      int
	Baseline  int64 // used_memory of the empty server, this client connected
	Used      int64 // used_memory holding Keys keys
	BytesPer  float64
	MaxMemory int64 // the bound given to the measured server: Used
}

// calibrate loads keys keys (ids 0..keys-1, the workload's TTL keys with a
// TTL of an hour so none expires meanwhile) into an unbounded server of the
// same kind and policy, and reads used_memory before and after. The bound
// for the measured run is the used_memory with those keys loaded — the
// baseline (server structures, this client's buffers) plus keys × the
// per-key footprint — so that every server and policy holds about the same
// number of keys at the bound. Measuring at the cache's own key count, not
// at a large N scaled down, includes what grows in steps (Redis's hash
// table doubles) as it is at that size.
func calibrate(spec serverSpec, work, policy string, keys int, w *workload, ks *keyspace, cfg replayConfig) (calibration, error) {
	cal := calibration{Keys: keys}
	s, err := start(spec, work, policy, 0)
	if err != nil {
		return cal, err
	}
	defer s.stop()
	c, err := benchkit.Dial(s.addr, 30*time.Second)
	if err != nil {
		return cal, err
	}
	defer c.Close()
	if _, err := c.Do("FLUSHALL"); err != nil {
		return cal, err
	}
	// Keys are loaded in chunks shaped like the run's largest batch (depth
	// SETs, then depth GETs of those keys), and the baseline is read after
	// one such chunk and a FLUSHALL: the connection's query and reply
	// buffers are then the same size at the baseline, after the load and in
	// the run, and do not count as keys.
	var out, key, val []byte
	loadChunk := func(from, to int) error {
		out = out[:0]
		for k := from; k < to; k++ {
			key = appendKey(key[:0], uint32(k))
			val = appendValue(val[:0], uint32(k), cfg.valueSize)
			if ks.ttlKey(w, uint32(k)) {
				out = benchkit.AppendCommand(out, []byte("SET"), key, val, []byte("PX"), []byte("3600000"))
			} else {
				out = benchkit.AppendCommand(out, []byte("SET"), key, val)
			}
		}
		for k := from; k < to; k++ {
			key = appendKey(key[:0], uint32(k))
			out = benchkit.AppendCommand(out, []byte("GET"), key)
		}
		err := c.Pipeline(out, 2*(to-from))
		var re benchkit.ReplyErr
		if errors.As(err, &re) {
			return errors.New("calibration: " + err.Error())
		}
		return err
	}
	if err := loadChunk(0, min(cfg.depth, keys)); err != nil {
		return cal, err
	}
	if _, err := c.Do("FLUSHALL"); err != nil {
		return cal, err
	}
	if cal.Baseline, err = c.InfoInt("memory", "used_memory"); err != nil {
		return cal, err
	}
	for from := 0; from < keys; from += cfg.depth {
		if err := loadChunk(from, min(from+cfg.depth, keys)); err != nil {
			return cal, err
		}
	}
	r, err := c.Do("DBSIZE")
	if err != nil {
		return cal, err
	}
	if r.Int != int64(keys) {
		return cal, fmt.Errorf("calibration: DBSIZE %d after loading %d keys", r.Int, keys)
	}
	// Redis grows its hash table by allocating the doubled table and
	// rehashing incrementally: until that ends both tables are counted.
	// Wait (serverCron rehashes a millisecond every 100 ms) until
	// used_memory stops moving.
	if cal.Used, err = c.InfoInt("memory", "used_memory"); err != nil {
		return cal, err
	}
	for i, same := 0, 0; i < 40 && same < 3; i++ {
		time.Sleep(100 * time.Millisecond)
		u, err := c.InfoInt("memory", "used_memory")
		if err != nil {
			return cal, err
		}
		if u == cal.Used {
			same++
		} else {
			same = 0
		}
		cal.Used = u
	}
	cal.BytesPer = float64(cal.Used-cal.Baseline) / float64(keys)
	cal.MaxMemory = cal.Used
	return cal, nil
}
