package conf

import "strings"

// Redis 7.0 directives that Tandem does not implement. Every one of them is
// a row of the table (directives.go), so that a stock redis.conf starts
// Tandem, CONFIG GET * lists what redis-server lists and CONFIG SET checks
// a value as Redis would (type, bounds, enum names, error texts). What they
// do in Tandem is one of:
//
//   - nothing (inert): the row says why, in one of the sentences below; a
//     value other than Redis's default given at start-up is reported once
//     in Config.Warnings, naming where it was given. A directive left at
//     its default asks for nothing Tandem lacks, so it is not reported;
//   - refused for the values Tandem cannot honour where going on would be
//     unsafe or misleading: a durability it does not give (appendonly yes,
//     min-replicas-to-write), a topology it is not part of (replicaof,
//     cluster-enabled yes) or a listener it does not open (unixsocket).
//     The same check refuses CONFIG SET of such a value.
//
// A few directives of redis.conf are not configuration values in Redis
// either (no CONFIG GET): include, rename-command and user are handled by
// the loader; loadmodule and sentinel are refused below, and the deprecated
// ones are accepted with a warning.

// Why an inert directive has no effect, one sentence each.
const (
	inertDaemonize        = "Tandem runs in the foreground; use your supervisor (systemd, Docker, runit) to run it in the background"
	inertSupervised       = "Tandem does not notify a supervisor (no sd_notify or SIGSTOP): run it as a simple service (systemd Type=simple or exec)"
	inertKeepAlive        = "client sockets keep a fixed 300-second TCP keep-alive"
	inertBacklog          = "the listen backlog is the kernel's (net.core.somaxconn)"
	inertLoadingEvents    = "the event loops serve clients all through a load, not every so many bytes"
	inertTenacity         = "Tandem's eviction frees what a write needs before it runs, with no effort to tune"
	inertExpireEffort     = "Tandem's active expiry has no effort to tune; hz sets how often it runs"
	inertDynamicHz        = "Tandem's background tasks run at hz whatever the number of clients"
	inertThreads          = "Tandem's network I/O runs on its own event loops, one per CPU core"
	inertLazyfree         = "Tandem frees a deleted value the same way whatever this says: its record is compacted away later, and Go's collector frees the rest concurrently"
	inertSetListpack      = "Tandem encodes sets as Redis 7.0 does: an intset (set-max-intset-entries) or a hash table"
	inertListSize         = "Tandem's list chunks have a fixed size, Redis's -2 (8 KB)"
	inertListCompress     = "Tandem does not compress list nodes (see 'compression' for values)"
	inertShutdownSignal   = "on SIGINT and SIGTERM Tandem saves when save rules are set, then exits, as 'default'"
	inertTLSPreferServer  = "Go's crypto/tls orders the cipher suites itself"
	inertTLSCacheSize     = "Go's TLS session tickets need no server-side session cache"
	inertTLSLinks         = "Tandem has no cluster links to protect"
	inertTLSClient        = "Tandem makes no outgoing TLS connections (the files are still loaded and checked)"
	inertTLSDHParams      = "Go's crypto/tls has no DHE cipher suites (the file is still checked)"
	inertUnixSocketPerm   = "Tandem has no unix socket"
	inertSocketMark       = "Tandem does not mark its sockets (SO_MARK)"
	inertOutgoing         = "it binds replication and cluster links, which Tandem never opens (MIGRATE binds no source address in Redis either)"
	inertLogo             = "Tandem prints no logo"
	inertProcTitle        = "Tandem does not rewrite its process title"
	inertSyslog           = "Tandem logs to logfile or standard output only"
	inertCrashLog         = "a crash prints Go's stack traces; there is no memory test"
	inertTHP              = "Tandem leaves transparent huge pages as the kernel has them"
	inertOOMScore         = "Tandem does not change its oom_score_adj"
	inertJemalloc         = "Tandem does not use jemalloc"
	inertCPUList          = "Tandem does not pin its threads to CPUs (use taskset or the cgroup's cpuset)"
	inertIgnoreWarnings   = "Tandem runs none of the start-up checks this silences"
	inertModules          = "modules are not supported by Tandem"
	inertRehashing        = "Tandem's hash tables have no incremental rehashing to tune"
	inertDefrag           = "Tandem has no active defragmenter: its arenas compact themselves"
	inertMaxMemoryClients = "Tandem does not evict clients for the memory they use"
	inertSanitize         = "Tandem decodes a dump payload in full, so it is always checked, as 'yes'"
	inertReplication      = "Tandem's replication does not act on this directive"
	inertCluster          = "cluster mode is not supported by Tandem"
)

// unsupportedDirectives are redis.conf lines that are not configuration
// values, refused at start-up with the reason shown.
var unsupportedDirectives = map[string]string{
	"loadmodule": "modules are not supported by Tandem",
	"sentinel":   "sentinel mode is not supported by Tandem",
}

// deprecatedDirectives are accepted, with one argument, and ignored, as
// redis 7.0 does (silently there; Tandem warns once each).
var deprecatedDirectives = map[string]string{
	"list-max-ziplist-entries": "deprecated since Redis 7.0, which ignores it too (see list-max-listpack-size)",
	"list-max-ziplist-value":   "deprecated since Redis 7.0, which ignores it too (see list-max-listpack-size)",
	"lua-replicate-commands":   "deprecated since Redis 7.0, which ignores it too (scripts always replicate their effects)",
}

// knownElsewhere reports whether name is a directive the loader accepts
// although it has no row: an environment variable naming one is meant for
// Tandem, not injected by a platform.
func knownElsewhere(name string) bool {
	return unsupportedDirectives[name] != "" || deprecatedDirectives[name] != ""
}

// Checks of values Redis itself refuses, with its texts.

// checkAOFName is redis's isValidAOFfilename / isValidAOFdirname.
func checkAOFName(name, what string) func(string) string {
	return func(s string) string {
		switch {
		case s == "":
			return name + " can't be empty"
		case strings.ContainsAny(s, "/\\"):
			return name + " can't be a path, just a " + what
		}
		return ""
	}
}

// maxHostname is redis's NET_HOST_STR_LEN.
const maxHostname = 256

// checkAnnouncedHostname is redis's isValidAnnouncedHostname.
func checkAnnouncedHostname(s string) string {
	if len(s) >= maxHostname {
		return reasonHostnameLength
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return reasonHostnameChars
		}
	}
	return ""
}

// procTitleVars are the variables of proc-title-template, each with
// whether it can expand to nothing ({title} is empty when redis validates,
// {server-mode} outside cluster and sentinel, {unixsocket} without one).
var procTitleVars = map[string]bool{
	"title": true, "server-mode": true, "unixsocket": true,
	"listen-addr": false, "config-file": false, "port": false, "tls-port": false,
}

// checkProcTitleTemplate is redis's validateProcTitleTemplate: the
// template must expand (sdstemplate: "{name}" a variable, "{{" a brace,
// no unknown name, no unclosed "{") to something other than spaces when
// {title} is empty.
func checkProcTitleTemplate(s string) string {
	nonEmpty := false
	for s != "" {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			nonEmpty = nonEmpty || strings.Trim(s, " ") != ""
			break
		}
		nonEmpty = nonEmpty || strings.Trim(s[:i], " ") != ""
		s = s[i+1:]
		switch {
		case s == "":
			return reasonProcTitle
		case s[0] == '{':
			nonEmpty = true
			s = s[1:]
			continue
		}
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return reasonProcTitle
		}
		mayBeEmpty, ok := procTitleVars[s[:j]]
		if !ok {
			return reasonProcTitle
		}
		nonEmpty = nonEmpty || !mayBeEmpty
		s = s[j+1:]
	}
	if !nonEmpty {
		return reasonProcTitle
	}
	return ""
}

// shutdownNames and shutdownVals are shutdown-on-sigint's and
// shutdown-on-sigterm's flags, redis's SHUTDOWN_* bits.
var (
	shutdownNames = []string{"default", "save", "nosave", "now", "force"}
	shutdownVals  = []int64{0, 1, 2, 4, 8}
)

func checkShutdownFlags(n int64) string {
	if n&1 != 0 && n&2 != 0 {
		return reasonShutdownFlags
	}
	return ""
}

var syslogFacilityNames = []string{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}
