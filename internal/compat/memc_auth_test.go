package compat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
)

// The memcached port with requirepass: memcached 1.6's auth-file login
// (memcached -Y <authfile>, lines "user:password") against Tandem started
// with --requirepass. The reference's auth file holds the one user Tandem
// has, "default", with the requirepass password: Redis's name for the
// default user is the name a memcached client logs in with.
//
// These cases do not use the mn runner: before a login every command, mn
// included, is refused. Each step of a case is written whole and answered
// by reading until the server is idle (or closes); then, unless the
// connection closed, a probe "mn" tells whether the session is logged in
// (MN) or not (CLIENT_ERROR unauthenticated). A step is one write because
// memcached answers this mode differently by read: a reply it has not yet
// written is replaced by the next (auth.go in memproto), so cutting a step
// into random pieces would make even the reference nondeterministic.

const authPassword = "s3cr3t-pw"

// authCase is one login case: steps written one at a time.
type authCase struct {
	name  string
	steps []string
}

// login is the data-block login of the default user.
func login(key string) string {
	data := "default " + authPassword
	return fmt.Sprintf("set %s 0 0 %d\r\n%s\r\n", key, len(data), data)
}

func authCases() []authCase {
	good := login("auth")
	many := func(n int) string { return strings.Repeat("get k\r\n", n) }
	return []authCase{
		// Before a login: everything is refused, the connection stays.
		{"get", []string{"get k\r\n"}},
		{"gets_multi", []string{"gets a b c\r\n"}},
		{"version", []string{"version\r\n"}},
		{"quit", []string{"quit\r\n"}},
		{"mg", []string{"mg k v\r\n"}},
		{"mn", []string{"mn\r\n"}},
		{"ms", []string{"ms k 1 T0\r\nv\r\n"}},
		{"md_ma_me", []string{"md k\r\n", "ma k\r\n", "me k\r\n"}},
		{"flush_all", []string{"flush_all\r\n"}},
		{"cache_memlimit", []string{"cache_memlimit 8\r\n"}},
		{"stats", []string{"stats\r\n"}},
		{"verbosity_shutdown", []string{"verbosity 1\r\n", "shutdown\r\n"}},
		{"unknown_and_empty", []string{"bogus\r\n", "\r\n", "a\n"}},
		{"lone_newline_waits", []string{"\n", "\n"}},
		{"other_storage", []string{"add k 0 0 17\r\n", "replace k 0 0 17\r\n", "cas k 0 0 17 1\r\n", "append k 0 0 1\r\n"}},
		{"set_case_and_shape", []string{"SET k 0 0 17\r\n", "setx k 0 0 17\r\n", "set k 0 17\r\n", "set k 0 0\r\n"}},
		{"set_bad_length", []string{"set k 0 0 17x\r\n", "set k 0 0 -1\r\n", "set k 0 0 \r\n"}},

		// Logins.
		{"login", []string{good}},
		{"login_then_commands", []string{good, "set k 0 0 1\r\nv\r\nget k\r\nmn\r\n"}},
		{"login_noreply", []string{"set auth 0 0 17 noreply\r\ndefault " + authPassword + "\r\n"}},
		{"login_any_key_flags_exptime", []string{"set " + strings.Repeat("k", 300) + " junk -5 17\r\ndefault " + authPassword + "\r\n"}},
		{"login_length_forms", []string{"  set k 0 0 +17\r\ndefault " + authPassword + "\r\n"}},
		{"login_length_tab", []string{"set k 0 0 17\tjunk\r\ndefault " + authPassword + "\r\n"}},
		{"login_bare_newline", []string{"set k 0 0 17\ndefault " + authPassword + "\r\n"}},
		{"login_extra_tokens", []string{"set k 0 0 23\r\ndefault " + authPassword + " extra\r\n"}},
		{"login_spaces", []string{"set k 0 0 20\r\n default  " + authPassword + " \r\n"}},
		{"login_line_then_block", []string{"set k 0 0 17\r\n", "default " + authPassword + "\r\n"}},
		{"login_block_in_pieces", []string{"set k 0 0 17\r\ndefault", " " + authPassword, "\r\n"}},
		{"login_twice", []string{good, good}},

		// Failed logins: refused, still open, and a retry works.
		{"wrong_password", []string{"set k 0 0 13\r\ndefault wrong\r\n"}},
		{"wrong_then_right", []string{"set k 0 0 13\r\ndefault wrong\r\n", good}},
		{"unknown_user", []string{"set k 0 0 15\r\nalice " + authPassword + "\r\n"}},
		{"name_case", []string{"set k 0 0 17\r\nDefault " + authPassword + "\r\n"}},
		{"password_prefix", []string{"set k 0 0 16\r\ndefault " + authPassword[:8] + "\r\n"}},
		{"no_password", []string{"set k 0 0 7\r\ndefault\r\n", "set k 0 0 8\r\ndefault \r\n", "set k 0 0 0\r\n\r\n"}},
		{"nul_in_block", []string{"set k 0 0 17\r\ndefault\x00" + authPassword + "\r\n"}},
		{"bad_termination", []string{"set k 0 0 17\r\ndefault " + authPassword + "XY", "get k\r\n"}},
		{"short_length", []string{"set k 0 0 10\r\ndefault " + authPassword + "\r\n"}},
		{"value_as_login", []string{"set k 0 0 5\r\nhello\r\n", "set k 0 0 11\r\nhello world\r\n"}},

		// One read, several requests: replies not yet written are replaced.
		{"pipelined_refusals", []string{"get a\r\nget b\r\nversion\r\n"}},
		{"pipelined_refusal_then_login", []string{"get a\r\n" + good}},
		{"pipelined_failure_then_get", []string{"set k 0 0 13\r\ndefault wrong\r\nget k\r\n"}},
		{"pipelined_login_then_gets", []string{good + "get a\r\nget b\r\n"}},
		{"pipelined_21", []string{many(21)}},
		{"pipelined_22", []string{many(22)}},
		{"pipelined_41", []string{many(41)}},
		{"pipelined_42", []string{many(42)}},
		{"pipelined_62", []string{many(62)}},

		// Connection closes.
		{"long_line_2048", []string{strings.Repeat("x", 2048)}},
		{"long_line_2049", []string{strings.Repeat("x", 2049)}},
		{"refusal_then_long_line", []string{"get k\r\n" + strings.Repeat("x", 3000)}},
		{"login_then_long_line", []string{good + strings.Repeat("x", 3000)}},
		{"block_16382", []string{"set k 0 0 16382\r\n" + strings.Repeat("a", 16382) + "\r\n"}},
		{"block_16383", []string{"set k 0 0 16383\r\n" + strings.Repeat("a", 16381) + " b\r\n"}},
	}
}

// startAuthServers starts memcached -Y with the default user's password
// and, as the system under test, Tandem with --requirepass (a second
// memcached -Y in self-test mode). It returns their memcached addresses.
func startAuthServers(t *testing.T) (ref, sut string) {
	t.Helper()
	dir := t.TempDir()
	authFile := filepath.Join(dir, "memcached.auth")
	if err := os.WriteFile(authFile, []byte("default:"+authPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	memcBin, err := realserver.Lookup(realserver.Memcached)
	if err != nil {
		t.Fatal(err)
	}
	memc := memcachedArgs(memcBin, "-Y", authFile)
	start := func(name string, nports int, args func([]int) []string) *server {
		return startFor(t, dir, name, nports, args)
	}
	ref = start("memcached-auth", 1, memc).addrs[0]
	if selfTest {
		return ref, start("memcached-auth-selftest", 1, memc).addrs[0]
	}
	return ref, startTandemAuth(t, dir).addrs[1]
}

// startTandemAuth starts Tandem with requirepass; addrs are RESP, memcached.
func startTandemAuth(t *testing.T, dir string, extra ...string) *server {
	t.Helper()
	s, err := startServer(dir, "tandem-auth", 2, func(p []int) []string {
		return append([]string{tandemBin, "--port", strconv.Itoa(p[0]), "--memcached-port", strconv.Itoa(p[1]),
			"--bind", "127.0.0.1", "--save", "", "--dir", dir, "--requirepass", authPassword,
			"--maxmemory", "0", "--maxmemory-policy", "noeviction"}, extra...)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// authIdle is how long a server may stay silent before its answer to a
// step is taken as complete.
const authIdle = 250 * time.Millisecond

// playAuth runs c on a fresh connection and returns a transcript: each
// step's output, then the probe's, "<closed>" where the server closed.
func playAuth(addr string, c authCase) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, replyTimeout)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	var b strings.Builder
	for i, step := range append(append([]string(nil), c.steps...), "mn\r\n") {
		if i == len(c.steps) {
			b.WriteString("| probe mn: ")
		}
		conn.SetWriteDeadline(time.Now().Add(replyTimeout))
		if _, err := conn.Write([]byte(step)); err != nil && !closedByPeer(err) {
			return b.String(), err
		}
		out, closed, err := readIdle(conn)
		b.WriteString(strconv.Quote(out))
		if err != nil {
			return b.String(), err
		}
		if closed {
			b.WriteString(" <closed>")
			break
		}
		b.WriteString(" ")
	}
	return b.String(), nil
}

// readIdle reads until the connection has been silent for authIdle or is
// closed (EOF or reset).
func readIdle(conn net.Conn) (string, bool, error) {
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		conn.SetReadDeadline(time.Now().Add(authIdle))
		n, err := conn.Read(buf)
		out = append(out, buf[:n]...)
		switch {
		case err == nil:
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			return string(out), false, nil
		case err == io.EOF || closedByPeer(err):
			return string(out), true, nil
		default:
			return string(out), false, err
		}
	}
}

// TestMemcachedAuthFile compares Tandem's memcached login with memcached
// -Y's, byte for byte, connection closes included.
func TestMemcachedAuthFile(t *testing.T) {
	t.Parallel() // own servers, mostly waiting: overlaps the others like it (CI time)
	ref, sut := startAuthServers(t)
	// Logins store nothing; a case that logs in and writes uses key k,
	// emptied before every case through a logged-in connection.
	reset := func(addr string) error {
		conn, err := net.DialTimeout("tcp", addr, replyTimeout)
		if err != nil {
			return err
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(replyTimeout))
		if _, err := conn.Write([]byte(login("auth") + "flush_all\r\nmn\r\n")); err != nil {
			return err
		}
		out, err := readUntilMN(bufio.NewReader(conn))
		if err != nil || string(out) != "STORED\r\nOK\r\n" {
			return fmt.Errorf("login and flush_all on %s: %q %v", addr, out, err)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, c := range authCases() {
		if seen[c.name] {
			t.Fatalf("duplicate case %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			for _, addr := range []string{ref, sut} {
				if err := reset(addr); err != nil {
					t.Fatal(err)
				}
			}
			type result struct {
				out string
				err error
			}
			r, s := both(func(addr string) result {
				out, err := playAuth(addr, c)
				return result{out, err}
			}, ref, sut)
			if r.err != nil {
				t.Fatalf("reference memcached -Y: %v after %s (the case is wrong)", r.err, r.out)
			}
			if dumpRefs {
				t.Logf("send %s\n    -> %s", describeSends(c.steps), r.out)
			}
			if s.err != nil {
				t.Fatalf("%s: %v\n  sent:      %s\n  memcached: %s\n  %s: %s", sideName(), s.err, describeSends(c.steps), r.out, sideName(), s.out)
			}
			if r.out != s.out {
				t.Errorf("output differs\n  sent:      %s\n  memcached: %s\n  %s: %s", describeSends(c.steps), r.out, sideName(), s.out)
			}
		})
	}
}

// Issue 12, item 4: with requirepass set, a memcached client that has not
// logged in can neither read nor change Redis-protected keys, flush them,
// nor shrink maxmemory (cache_memlimit 8 used to evict most keys).
func TestMemcachedRequirePassProtectsKeys(t *testing.T) {
	mustNotSelfTest(t)
	srv := startTandemAuth(t, t.TempDir(), "--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: srv.addrs[0], Password: authPassword, Protocol: 2})
	defer rc.Close()
	const keys = 200
	for i := 0; i < keys; i++ {
		if err := rc.Set(ctx, fmt.Sprint("key:", i), strings.Repeat("v", 1000), 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	before, err := rc.ConfigGet(ctx, "maxmemory").Result()
	if err != nil {
		t.Fatal(err)
	}

	conn, err := net.DialTimeout("tcp", srv.addrs[1], replyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const unauth = "CLIENT_ERROR unauthenticated\r\n"
	for _, step := range []struct{ send, want string }{
		{"get key:1\r\n", unauth},
		{"set key:1 0 0 6\r\nhacked\r\n", "CLIENT_ERROR bad authentication token format\r\n"},
		{"set key:2 0 0 7\r\nhack ed\r\n", "CLIENT_ERROR authentication failure\r\n"},
		{"delete key:3\r\n", unauth},
		{"flush_all\r\n", unauth},
		{"cache_memlimit 8\r\n", unauth},
		{"ms key:4 6\r\nhacked\r\n", unauth},
	} {
		if _, err := conn.Write([]byte(step.send)); err != nil {
			t.Fatal(err)
		}
		got, closed, err := readIdle(conn)
		if err != nil || closed || got != step.want {
			t.Fatalf("%q: got %q (closed %v, %v), want %q", step.send, got, closed, err, step.want)
		}
	}

	if n := rc.DBSize(ctx).Val(); n != keys {
		t.Errorf("DBSIZE %d after the unauthenticated client, want %d", n, keys)
	}
	for _, k := range []string{"key:1", "key:2", "key:3", "key:4"} {
		if v := rc.Get(ctx, k).Val(); v != strings.Repeat("v", 1000) {
			t.Errorf("%s = %.20q, want the value written through Redis", k, v)
		}
	}
	if after := rc.ConfigGet(ctx, "maxmemory").Val(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("maxmemory %v, was %v", after, before)
	}

	// Logged in, the same client may do all of it.
	if _, err := conn.Write([]byte(login("auth") + "get key:1\r\n")); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := readIdle(conn); got != "STORED\r\nVALUE key:1 0 1000\r\n"+strings.Repeat("v", 1000)+"\r\nEND\r\n" {
		t.Errorf("after login: %.60q", got)
	}
}
