// Package compat holds Tandem's differential compatibility suite. It has no
// production code: everything lives in _test.go files.
//
// TestMain builds ./cmd/tandem and starts three servers on free loopback
// ports: a real redis-server 7.0, a real memcached 1.6 and Tandem. Every case
// is a short list of raw protocol bytes. It is sent, on a fresh connection
// after FLUSHALL (Redis) or flush_all (memcached), to the real server and to
// Tandem, and the replies are compared byte for byte. Where a reply is
// legitimately server-specific (a CAS unique, a TTL read a millisecond later,
// INFO text) a case names the loosening it needs; there are no others.
//
// Each Redis case runs in RESP2 and RESP3 (after HELLO 3, whose reply is
// discarded) and in three write modes, so that Tandem's parser sees the same
// bytes cut differently: one command per write (reading each reply before
// the next write), the whole case pipelined in one write, and the whole
// case split into writes of 1 to 7 bytes. After the last reply an ECHO
// sentinel checks that no unrequested reply follows. memcached cases run
// whole and split; the runner ends each with "mn" and compares everything
// answered before "MN".
//
// Files:
//
//	harness_test.go        TestMain, server processes, ports, resets, timeouts
//	respreader_test.go     reads exactly one RESP2/RESP3 reply
//	redisrun_test.go       redisCase, cmd/mbs helpers, the three write modes
//	memcrun_test.go        memcCase, the mn reader, memcached loosenings
//	loosen_test.go         RESP loosenings
//	client_test.go         small clients for SCAN loops and cross checks
//	cases_*_test.go        the cases, one file per family
//	scan_test.go           SCAN iterated to cursor 0, key sets compared
//	crossproto_test.go     RESP and memcached share one keyspace (Tandem only)
//	harness_unit_test.go   tests of the reader and the loosenings
//	memcached_suite_test.go memcached 1.6.18's own t/*.t files (binary.t,
//	                       binary-sasl.t, ...) run by perl against Tandem,
//	                       through testdata/mcsuite/shim as memcached-debug
//
// Run it:
//
//	go test ./internal/compat/                    # against Tandem
//	COMPAT_SELFTEST=1 go test ./internal/compat/  # "Tandem" is a second redis-server and memcached
//	go test ./internal/compat/ -run 'TestRedisStrings/set_ex/resp3'
//
// Self-test mode proves that the cases are deterministic and that the
// harness is correct: every case must pass when both sides are the real
// servers. COMPAT_DUMP=1 with -v logs every command with the reference
// reply; COMPAT_KEEP=1 keeps the servers' logs.
//
// One rule holds for every test in the tree that needs a real redis-server
// or memcached: CI installs both (scripts/test.sh), so a missing one fails
// the test with the apt-get line that installs it (internal/realserver),
// never skips it. Here TestMain fails the whole package before any case.
//
// crossproto_test.go is not differential: it checks that the Redis and
// memcached front doors of Tandem share one keyspace, and asserts concrete
// values. It is skipped in self-test mode, where the two sides are separate
// servers.
package compat
