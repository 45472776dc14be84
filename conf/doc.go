// Package conf holds Tandem's configuration: one table of directives with
// redis's names, types, bounds and defaults plus Tandem's own, read at start
// from a redis.conf-style file, the environment and redis-server-style flags,
// and read and changed at run time through CONFIG GET and CONFIG SET.
//
// # Where values come from
//
// Load(os.Args[1:], os.Environ()) applies, each overriding the one before:
//
//  1. the defaults of the table (directives.go);
//  2. the configuration file: the first argument unless it starts with
//     "--", or --config FILE. Syntax as redis config.c: one directive per
//     line, # comments, words split as sdssplitargs ("double" and 'single'
//     quotes), names case-insensitive, "include PATH" (a glob may match
//     nothing), multiple save lines accumulate, save "" disables snapshots;
//  3. the environment: TANDEM_<DIRECTIVE> with dashes as underscores, upper
//     case: TANDEM_MAXMEMORY=1gb, TANDEM_MEMCACHED_PORT=11212,
//     TANDEM_SAVE="900 1 300 10". Unknown TANDEM_ variables are reported by
//     Warnings, not refused, because platforms inject their own (Kubernetes
//     sets TANDEM_SERVICE_HOST, and TANDEM_PORT=tcp://... for a service
//     named tandem, which is recognised and skipped);
//  4. the flags, as redis-server takes them: --port 7000, --save 900 1 300 10
//     or --save "900 1 300 10", --save alone to disable, --maxmemory 1gb.
//
// Flags come last because they are the most explicit; the environment beats
// the file so that a container can adjust a baked-in file. The first save of
// a layer replaces the rules of the layers below (redis would add them).
// A bad value stops start-up with a *LoadError naming the file and line, the
// flag or the variable, the offending text and redis's reason.
//
// A stock redis.conf starts Tandem: every directive of redis 7.0 is a row
// of the table, so CONFIG GET * lists what redis-server lists and CONFIG
// SET checks values as redis does. Those Tandem does not implement are
// inert (AOF and replication tuning, defrag knobs, syslog, daemonize,
// supervised...): accepted, with one line in Warnings for each given a
// value other than redis's default, saying why it has no effect. The
// values Tandem cannot honour are refused where going on would be unsafe
// or misleading: appendonly yes, replicaof <host> <port>,
// min-replicas-to-write > 0, cluster-enabled yes, unixsocket <path>,
// activedefrag yes (as a redis-server without its own jemalloc), and
// loadmodule and sentinel lines; see compat.go. As redis, a logfile that
// cannot be opened stops start-up.
//
// rename-command <name> <new-name> is redis's, start-up only (no CONFIG
// GET or SET), and memcached-rename-command is its memcached counterpart
// (rename.go): conf keeps the renames in order with where each was given
// (file lines, then the environment, then the flags; all accumulate),
// and each front-end applies its own when it builds its command table,
// reporting a refusal through CommandRename.Fail as a start-up error.
//
// # At run time
//
// The RESP front-end maps CONFIG GET to Get and CONFIG SET to Set (or
// SetFrom, which knows whether the client is local); their results are
// redis 7.0's, error texts included ("ERR ..."), as TestRedisDifferential*
// checks against a real redis-server. A Set is all or nothing: values are
// parsed into a copy of the current snapshot, which replaces it atomically
// only if every pair is valid. Event loops and the engine read values
// through typed getters (Port, MaxMemory, MaxMemoryPolicy, Save...), each an
// atomic load, and register OnChange callbacks for the directives they must
// react to (maxmemory, maxmemory-policy, save...). Directives whose values
// can be refused for what they name outside conf (a certificate that does
// not load) have an applier instead (OnApply, as Redis's apply functions):
// it checks the values a Set would publish, may refuse the whole Set, and
// commits them once published. The tls-* directives are the one group
// with an applier (node/tls.go).
//
// # Where Tandem differs from redis 7.0
//
//   - port, bind, memcached-port, tls-port and memcached-tls-port are
//     immutable (redis can rebind).
//   - TLS is Go's crypto/tls (tls.go): tls-protocols must be a contiguous
//     range, tls-ciphers takes the TLS 1.2 suites Go implements (OpenSSL
//     or IANA names), tls-ciphersuites only the full TLS 1.3 list,
//     tls-prefer-server-ciphers has no effect, tls-dh-params-file is
//     checked and unused; a TLS port, tls-replication or tls-cluster
//     needs tls-cert-file and tls-key-file at start.
//   - Defaults: bind 127.0.0.1, dir ./data, save 3600 1 300 100 60 10000.
//     maxmemory 0 means "not configured"; cmd/tandem may then choose a safe
//     share of memory (check Origin("maxmemory") == FromDefault).
//   - dir is not a chdir, and CONFIG GET shows it as configured.
//   - Memory values must fit an int64 (redis wraps around silently).
//   - appendonly accepts only "no"; daemonize yes is accepted and has no
//     effect (Tandem stays in the foreground); see compat.go for the other
//     refusals and inert directives.
//   - Tandem's own directives: memcached-port, memcached-tls-port, item-size-max (memcached -I;
//     1mb is 1048576), memcached-max-line, memcached-max-pending-output,
//     memcached-enable-shutdown (memcached -A),
//     memcached-disable-flush-all (memcached -F), memcached-binding-protocol
//     (memcached -B), memcached-rename-command,
//     compression (none|s2|zstd), compression-min-size,
//     compression-min-saving (percent, default 20), and
//     redis 7.2's set-max-listpack-entries/-value.
package conf
