package node

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/tandemkv/tandem/conf"
)

// HealthFileName is the file, in the data directory (dir), where a running
// node says how to reach it: `tandem healthcheck` reads it, so a container's
// HEALTHCHECK, which cannot see the flags given after the image name,
// checks the server that actually runs (cmd/tandem/healthcheck.go says
// why a file).
const HealthFileName = "tandem-health.json"

// Health is the content of the health file.
type Health struct {
	PID int `json:"pid"`
	// Addr is the host:port a local client dials for the Redis port;
	// MemcachedAddr the memcached port's, "" when it is off.
	Addr          string `json:"addr"`
	MemcachedAddr string `json:"memcached_addr,omitempty"`
	// Password is the default user's password (requirepass), "" for none.
	Password string `json:"password,omitempty"`
}

// ReadHealth reads the health file in dir.
func ReadHealth(dir string) (Health, error) {
	var h Health
	b, err := os.ReadFile(filepath.Join(dir, HealthFileName))
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("%s: %w", HealthFileName, err)
	}
	if h.Addr == "" {
		return h, fmt.Errorf("%s: no addr", HealthFileName)
	}
	return h, nil
}

// HealthOf is what the health file says of a server configured by cfg;
// tandem healthcheck uses it too when there is no file.
func HealthOf(cfg *conf.Config) Health {
	h := Health{PID: os.Getpid(), Password: cfg.RequirePass()}
	host := dialHost(cfg)
	h.Addr = net.JoinHostPort(host, strconv.Itoa(cfg.Port()))
	if p := cfg.MemcachedPort(); p > 0 {
		h.MemcachedAddr = net.JoinHostPort(host, strconv.Itoa(p))
	}
	return h
}

// dialHost is the address a client on this host dials to reach a server
// bound as cfg says: loopback when the server listens there (or on every
// interface), else its first bind address.
func dialHost(cfg *conf.Config) string {
	var first string
	v6 := false
	for _, b := range cfg.BindAddrs() {
		h := b.Host
		switch h {
		case "*", "0.0.0.0", "127.0.0.1", "localhost":
			return "127.0.0.1"
		case "::", "::*", "::1":
			v6 = true
		}
		if first == "" {
			first = h
		}
	}
	if v6 {
		return "::1"
	}
	if first == "" {
		return "127.0.0.1"
	}
	return first
}

// Healthy is the node's health as /healthz reports it: the dump is
// loaded, the listeners serve, and writes are not refused after a failed
// BGSAVE (MISCONF); reason says which is not so.
func (n *Node) Healthy() (ok bool, reason string) {
	switch {
	case !n.loaded.Load():
		return false, "loading the dump"
	case !n.serving.Load():
		return false, "not serving"
	case n.Services.Persist.WritesRefused():
		return false, "MISCONF: the last background save failed and stop-writes-on-bgsave-error refuses writes"
	}
	return true, ""
}

// healthFile is the health file of one running node.
type healthFile struct {
	path    string
	cfg     *conf.Config
	mu      sync.Mutex // write and remove: CONFIG SET requirepass runs on a client's loop
	removed bool
}

// writeHealth writes the health file in dir (mode 0600: it holds the
// password) and keeps it in step with requirepass; the returned function
// removes it, unless another server has written its own since.
func (n *Node) writeHealth() (remove func()) {
	dir, err := filepath.Abs(n.cfg.Dir())
	if err != nil {
		n.log.Warn("cannot write the health file", "err", err)
		return func() {}
	}
	hf := &healthFile{path: filepath.Join(dir, HealthFileName), cfg: n.cfg}
	if err := hf.write(); err != nil {
		n.log.Warn("cannot write the health file; tandem healthcheck will read the configuration instead", "err", err)
	}
	n.cfg.OnChange("requirepass", func(*conf.Config) {
		if err := hf.write(); err != nil {
			n.log.Warn("cannot rewrite the health file", "err", err)
		}
	})
	return hf.remove
}

// write replaces the file atomically: a reader sees the old or the new one.
func (hf *healthFile) write() error {
	hf.mu.Lock()
	defer hf.mu.Unlock()
	if hf.removed {
		return nil
	}
	b, err := json.Marshal(HealthOf(hf.cfg))
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(hf.path), ".tandem-health-*") // mode 0600
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), hf.path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
	}
	return werr
}

// remove deletes the file if it is still this process's; requirepass no
// longer rewrites it.
func (hf *healthFile) remove() {
	hf.mu.Lock()
	defer hf.mu.Unlock()
	hf.removed = true
	h, err := ReadHealth(filepath.Dir(hf.path))
	if err == nil && h.PID != os.Getpid() {
		return // another server on the same dir wrote it since
	}
	_ = os.Remove(hf.path)
}
