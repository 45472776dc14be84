package node

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/tandemkv/tandem/conf"
)

// logBanner logs one record at start, before the dump loads, saying what
// this process is and how it is set up: build, ports of both protocols
// (plain and TLS), the memory bound and where it came from, eviction,
// snapshots and the log itself, so that a log read later tells which
// configuration was running without the configuration file.
func (n *Node) logBanner() {
	cfg := n.cfg
	var save []string
	for _, r := range cfg.Save() {
		save = append(save, strconv.FormatInt(r.Seconds, 10)+" "+strconv.FormatInt(r.Changes, 10))
	}
	source := "default"
	if n.mem != nil {
		source = n.mem.source
	}
	n.log.Info("Tandem starting",
		"version", n.version, "commit", n.commit, "go", runtime.Version(), "pid", os.Getpid(),
		"bind", cfg.Bind(), "port", cfg.Port(), "tls-port", cfg.TLSPort(),
		"memcached-port", cfg.MemcachedPort(), "memcached-tls-port", cfg.MemcachedTLSPort(),
		"metrics-port", cfg.MetricsPort(),
		"maxmemory", cfg.MaxMemory(), "maxmemory-human", conf.HumanBytes(cfg.MaxMemory()), "maxmemory-source", source,
		"maxmemory-policy", cfg.MaxMemoryPolicy().String(),
		"save", strings.Join(save, " "), "dbfile", n.Services.Persist.Path(),
		"loglevel", cfg.LogLevel().String(), "log-format", cfg.LogFormat().String())
}

// commitOf is the revision the banner reports: the one given (-ldflags),
// else the go command's vcs.revision, "-dirty" when the tree had changes;
// "unknown" for a build without either (go test, go run of a file).
func commitOf(given string) string {
	if given != "" {
		return given
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
