package compat

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// FAILOVER, against redis-server 7.0: the same scripts run on a
// redis-server pair and on Tandem pairs, their replies compared byte for
// byte; and the roles mixed (Tandem failing over to redis-server, and
// redis-server to Tandem), checked for what a failover promises: the
// target a master, the old master its replica continuing its history,
// no acknowledged write lost, the writes held by the pause answered
// -READONLY.

// foPair is a master and a would-be replica of kinds "redis" or
// "tandem", started unlinked.
type foPair struct {
	m, r         *server
	mAddr, rAddr string
	mPort, rPort string
	mMemc        string // the master's memcached port, a Tandem's
}

func startFoPair(t *testing.T, mkind, rkind string) *foPair {
	t.Helper()
	p := &foPair{m: startKind(t, mkind, "master"), r: startKind(t, rkind, "replica")}
	p.mAddr, p.rAddr = p.m.addrs[0], p.r.addrs[0]
	_, p.mPort, _ = strings.Cut(p.mAddr, ":")
	_, p.rPort, _ = strings.Cut(p.rAddr, ":")
	if len(p.m.addrs) > 1 {
		p.mMemc = p.m.addrs[1]
	}
	return p
}

// startKind starts a server of kind "redis" or "tandem" for role, on a
// directory of its own, with diskless syncs that start at once.
func startKind(t *testing.T, kind, role string, extra ...string) *server {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"--repl-diskless-sync-delay", "0"}, extra...)
	var s *server
	if kind == "redis" {
		s = startFor(t, dir, "redis-"+role, 1, redisArgsIn(dir, args...))
	} else {
		s = startFor(t, dir, "tandem-"+role, 2, tandemArgs(dir, args...))
	}
	// A test that fails while s is stopped must not leave it so:
	// cleanups run last first, so this runs before s.stop.
	t.Cleanup(func() { s.cmd.Process.Signal(syscall.SIGCONT) })
	return s
}

// link makes r a replica of m and waits until it caught up.
func (p *foPair) link(t *testing.T) {
	t.Helper()
	if got := dialRESP(t, p.rAddr).do("REPLICAOF", "127.0.0.1", p.mPort); got.text != "OK" {
		t.Fatalf("REPLICAOF: %v", got)
	}
	p.waitSynced(t, p.rAddr, p.mAddr)
	p.waitOnline(t, p.mAddr, p.rPort)
}

// waitOnline waits until master counts its replica at port online: a
// replica may see its link up before its master ends the sync
// (redis-server reaps the RDB child in its cron).
func (p *foPair) waitOnline(t *testing.T, master, port string) {
	t.Helper()
	c := dialRESP(t, master)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		info := c.do("INFO", "replication").text
		if strings.Contains(info, "port="+port+",state=online") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the replica at port %s is not online:\n%s", master, port, info)
		}
	}
}

// waitSynced waits until replica's link is up and its offset is its
// master's.
func (p *foPair) waitSynced(t *testing.T, replica, master string) {
	t.Helper()
	rc, mc := client(replica), client(master)
	defer rc.Close()
	defer mc.Close()
	waitInSync(t, rc, mc)
}

func stopProc(s *server) { s.cmd.Process.Signal(syscall.SIGSTOP) }
func contProc(s *server) { s.cmd.Process.Signal(syscall.SIGCONT) }

// foInfo is one field of addr's INFO replication.
func foInfo(t *testing.T, addr, field string) string {
	t.Helper()
	return infoField(dialRESP(t, addr).do("INFO", "replication").text, field)
}

// waitFoState waits until addr's master_failover_state is want.
func waitFoState(t *testing.T, addr, want string, within time.Duration) {
	t.Helper()
	c := dialRESP(t, addr)
	for deadline := time.Now().Add(within); ; time.Sleep(5 * time.Millisecond) {
		got := infoField(c.do("INFO", "replication").text, "master_failover_state")
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: master_failover_state %q after %v, want %q", addr, got, within, want)
		}
	}
}

// heldCmd is a command sent on a connection of its own whose reply may
// be held back (by a pause).
type heldCmd struct {
	conn  net.Conn
	reply chan string
}

func sendHeld(t *testing.T, addr, raw string, memcached bool) *heldCmd {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h := &heldCmd{conn: conn, reply: make(chan string, 1)}
	if _, err := conn.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReader(conn)
		if memcached {
			line, err := br.ReadString('\n')
			h.reply <- fmt.Sprint(strings.TrimRight(line, "\r\n"), err)
			return
		}
		r, err := readReply(br)
		if err != nil {
			h.reply <- "error: " + err.Error()
			return
		}
		h.reply <- string(r.raw)
	}()
	return h
}

// heldFor reports whether no reply came within d.
func (h *heldCmd) heldFor(d time.Duration) bool {
	select {
	case <-h.reply:
		return false
	case <-time.After(d):
		return true
	}
}

// result is the reply, waited for.
func (h *heldCmd) result(t *testing.T) string {
	t.Helper()
	select {
	case r := <-h.reply:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no reply to the held command")
		return ""
	}
}

func roleOf(t *testing.T, addr string) string {
	t.Helper()
	r := dialRESP(t, addr).do("ROLE")
	if len(r.elems) == 0 {
		return r.String()
	}
	return r.elems[0].text
}

// foTranscript runs FAILOVER's error cases, then an ABORT, a TIMEOUT and
// a TO … FORCE on p (the pair unlinked), and returns what each step
// answered, in order: the same on redis-server and on Tandem.
func foTranscript(t *testing.T, p *foPair) []string {
	var out []string
	rec := func(label string, r any) {
		label = strings.ReplaceAll(label, p.rPort, "<replica port>") // the one thing told apart
		out = append(out, fmt.Sprintf("%s: %v", label, r))
	}
	m, rp := dialRESP(t, p.mAddr), dialRESP(t, p.rAddr)
	do := func(c *respClient, args ...string) string { return string(c.do(args...).raw) }

	// A master without replicas; argument errors come first.
	for _, args := range [][]string{
		{"FAILOVER"},
		{"FAILOVER", "TO", "127.0.0.1", "1"},
		{"FAILOVER", "ABORT"},
		{"failover", "abort"},
		{"FAILOVER", "BOGUS"},
		{"FAILOVER", "TO", "127.0.0.1"},
		{"FAILOVER", "TIMEOUT"},
		{"FAILOVER", "TIMEOUT", "abc"},
		{"FAILOVER", "TIMEOUT", "0"},
		{"FAILOVER", "TIMEOUT", "-5"},
		{"FAILOVER", "TIMEOUT", "99999999999999999999"},
		{"FAILOVER", "TIMEOUT", "10", "TIMEOUT", "10"},
		{"FAILOVER", "TO", "h", "notaport"},
		{"FAILOVER", "TO", "a", "1", "TO", "b", "2"},
		{"FAILOVER", "FORCE", "FORCE"},
		{"FAILOVER", "FORCE"},
		{"FAILOVER", "ABORT", "TIMEOUT", "5"},
		{"FAILOVER", "ABORT", "ABORT"},
		{"PSYNC", "?", "-1", "FAILOVER"},
	} {
		rec(strings.Join(args, " "), do(m, args...))
	}

	p.link(t)
	for _, args := range [][]string{
		{"FAILOVER"},
		{"FAILOVER", "TO", "127.0.0.1", "1", "TIMEOUT", "5", "FORCE"},
		{"PSYNC", "0000000000000000000000000000000000000000", "1", "FAILOVER"},
		{"PSYNC", "?", "-1", "FAILOVER"},
	} {
		rec("replica: "+strings.Join(args, " "), do(rp, args...))
	}
	for _, args := range [][]string{
		{"FAILOVER", "FORCE"},
		{"FAILOVER", "TIMEOUT", "100", "FORCE"},
		{"FAILOVER", "TO", "127.0.0.1", p.rPort, "FORCE"},
		{"FAILOVER", "TO", "127.0.0.1", "1"},
		{"FAILOVER", "TO", "localhost", p.rPort},
		{"FAILOVER", "TO", "127.0.0.1", p.rPort, "TIMEOUT", "0"},
	} {
		rec(strings.Join(args, " "), do(m, args...))
	}

	// A replica still waiting for its full sync is not online.
	rec("delay", do(m, "CONFIG", "SET", "repl-diskless-sync-delay", "5"))
	fake := dialRESP(t, p.mAddr)
	rec("fake replica", do(fake, "REPLCONF", "listening-port", "1234"))
	fake.conn.Write([]byte(cmd("PSYNC", "?", "-1")))
	for deadline := time.Now().Add(3 * time.Second); !strings.Contains(dialRESP(t, p.mAddr).do("INFO", "replication").text, "port=1234,state=wait_bgsave"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fake replica never waited for its sync")
		}
	}
	rec("not online", do(m, "FAILOVER", "TO", "127.0.0.1", "1234"))
	fake.conn.Close()
	for deadline := time.Now().Add(3 * time.Second); strings.Contains(dialRESP(t, p.mAddr).do("INFO", "replication").text, "port=1234"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fake replica never went away")
		}
	}
	rec("delay", do(m, "CONFIG", "SET", "repl-diskless-sync-delay", "0"))
	p.waitOnline(t, p.mAddr, p.rPort)

	// In progress (the target stopped, so it never catches up), then
	// ABORT: the write the pause held goes through.
	stopProc(p.r)
	rec("set", do(m, "SET", "k1", "v1"))
	rec("failover", do(m, "FAILOVER", "TO", "127.0.0.1", p.rPort, "TIMEOUT", "60000"))
	rec("state", foInfo(t, p.mAddr, "master_failover_state"))
	for _, args := range [][]string{
		{"FAILOVER"},
		{"FAILOVER", "TO", "127.0.0.1", "1"},
		{"FAILOVER", "ABORT", "TIMEOUT", "5"},
		{"REPLICAOF", "127.0.0.1", "1"},
		{"REPLICAOF", "NO", "ONE"},
		{"GET", "k1"},
	} {
		rec("in progress: "+strings.Join(args, " "), do(m, args...))
	}
	rec("in progress: PSYNC", do(dialRESP(t, p.mAddr), "PSYNC", "?", "-1"))
	held := sendHeld(t, p.mAddr, cmd("SET", "k2", "v2"), false)
	rec("write held", held.heldFor(150*time.Millisecond))
	rec("role", roleOf(t, p.mAddr))
	rec("abort", do(m, "FAILOVER", "ABORT"))
	rec("held write", held.result(t))
	rec("state", foInfo(t, p.mAddr, "master_failover_state"))
	rec("abort again", do(m, "FAILOVER", "ABORT"))
	contProc(p.r)
	p.waitSynced(t, p.rAddr, p.mAddr)

	// TIMEOUT without FORCE gives up: writes resume, still a master.
	stopProc(p.r)
	rec("set", do(m, "SET", "k3", "v3"))
	rec("failover timeout", do(m, "FAILOVER", "TIMEOUT", "300"))
	held = sendHeld(t, p.mAddr, cmd("SET", "k4", "v4"), false)
	rec("write held", held.heldFor(100*time.Millisecond))
	waitFoState(t, p.mAddr, "no-failover", 3*time.Second)
	rec("held write", held.result(t))
	rec("role", roleOf(t, p.mAddr))
	contProc(p.r)
	p.waitSynced(t, p.rAddr, p.mAddr)

	// ABORT once the switch started undoes it: a master again. Meanwhile
	// a write meets the read-only replica at once (Redis checks that
	// before the pause).
	stopProc(p.r)
	rec("set", do(m, "SET", "k10", "v10"))
	rec("failover force", do(m, "FAILOVER", "TO", "127.0.0.1", p.rPort, "TIMEOUT", "100", "FORCE"))
	waitFoState(t, p.mAddr, "failover-in-progress", 3*time.Second)
	rec("write in progress", do(dialRESP(t, p.mAddr), "SET", "k11", "x"))
	rec("abort in progress", do(m, "FAILOVER", "ABORT"))
	rec("write after", do(m, "SET", "k11", "v11"))
	rec("role", roleOf(t, p.mAddr))
	rec("state", foInfo(t, p.mAddr, "master_failover_state"))
	contProc(p.r)
	p.waitSynced(t, p.rAddr, p.mAddr)
	p.waitOnline(t, p.mAddr, p.rPort)
	rec("k11 on the replica", do(rp, "GET", "k11"))

	// A target refusing the PSYNC (its ACL) aborts the switch: a master
	// again, its replicas back.
	rec("acl", do(rp, "ACL", "SETUSER", "default", "-psync"))
	rec("failover refused", do(m, "FAILOVER", "TO", "127.0.0.1", p.rPort))
	waitFoState(t, p.mAddr, "no-failover", 5*time.Second)
	rec("role", roleOf(t, p.mAddr))
	rec("write", do(m, "SET", "k9", "v9"))
	rec("acl", do(rp, "ACL", "SETUSER", "default", "+psync"))
	p.waitSynced(t, p.rAddr, p.mAddr)
	p.waitOnline(t, p.mAddr, p.rPort)

	// TO … FORCE switches after the timeout though the target is behind;
	// the write held meanwhile meets a read-only replica.
	blocked := dialRESP(t, p.mAddr)
	blocked.conn.Write([]byte(cmd("BLPOP", "nolist", "0")))
	for deadline := time.Now().Add(3 * time.Second); infoField(dialRESP(t, p.mAddr).do("INFO", "clients").text, "blocked_clients") != "1"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("BLPOP never blocked")
		}
	}
	waiting := dialRESP(t, p.mAddr)
	waiting.conn.Write([]byte(cmd("WAIT", "5", "0")))
	time.Sleep(50 * time.Millisecond) // parked
	stopProc(p.r)
	rec("set", do(m, "SET", "k5", "v5"))
	rec("failover force", do(m, "FAILOVER", "TO", "127.0.0.1", p.rPort, "TIMEOUT", "100", "FORCE"))
	held = sendHeld(t, p.mAddr, cmd("SET", "k6", "v6"), false)
	waitFoState(t, p.mAddr, "failover-in-progress", 3*time.Second)
	rec("role in progress", roleOf(t, p.mAddr))
	rec("write held", held.heldFor(50*time.Millisecond))
	contProc(p.r)
	waitFoState(t, p.mAddr, "no-failover", 5*time.Second)
	rec("held write", held.result(t))
	// A client blocked before the failover is let go, and closed.
	blocked.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r, err := readReply(blocked.r)
	rec("blocked", fmt.Sprint(string(r.raw), err))
	_, err = readReply(blocked.r)
	rec("blocked then", err)
	waiting.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r, err = readReply(waiting.r)
	rec("waiting", fmt.Sprint(string(r.raw), err))
	_, err = readReply(waiting.r)
	rec("waiting then", err)
	rec("old master", roleOf(t, p.mAddr))
	rec("new master", roleOf(t, p.rAddr))
	p.waitSynced(t, p.mAddr, p.rAddr)
	// k5 reached the stopped target unacknowledged: FORCE may lose it
	// (redis-server's one loop applies it before the PSYNC that comes
	// later; Tandem's link may not have when the PSYNC arrives), but
	// both ends must agree, and k1…k4 are there.
	k5new, k5old := do(rp, "GET", "k5"), do(m, "GET", "k5")
	rec("k5 agreed", k5new == k5old)
	t.Logf("k5 on the new master: %q", k5new)
	rec("k1..k4 on the new master", do(rp, "MGET", "k1", "k2", "k3", "k4"))
	rec("write on the new master", do(rp, "SET", "k7", "v7"))
	p.waitSynced(t, p.mAddr, p.rAddr)
	rec("k7 on the old", do(m, "GET", "k7"))
	rec("write on the old", do(m, "SET", "k8", "v8"))
	// The log lines Redis's own failover test counts.
	logged, _ := os.ReadFile(p.m.logPath)
	for _, line := range []string{"Failover target rejected psync request", "time out exceeded, failing over.", "FAILOVER requested to any replica."} {
		rec("logged "+line, strings.Count(string(logged), line))
	}
	return out
}

// TestFailoverErrorsAndAborts: every refusal of FAILOVER and of PSYNC …
// FAILOVER, byte for byte, then ABORT, TIMEOUT and TO … FORCE, on a
// redis-server pair and on a Tandem pair (Tandem failing over to
// Tandem).
func TestFailoverErrorsAndAborts(t *testing.T) {
	mustNotSelfTest(t)
	var ref, got []string
	t.Run("pairs", func(t *testing.T) { // both at once, each in a subtest of its own
		t.Run("redis", func(t *testing.T) { t.Parallel(); ref = foTranscript(t, startFoPair(t, "redis", "redis")) })
		t.Run("tandem", func(t *testing.T) { t.Parallel(); got = foTranscript(t, startFoPair(t, "tandem", "tandem")) })
	})
	if t.Failed() {
		return
	}
	if len(ref) != len(got) {
		t.Fatalf("%d steps on redis-server, %d on Tandem", len(ref), len(got))
	}
	for i := range ref {
		if ref[i] != got[i] {
			t.Errorf("step %d\n redis-server %q\n Tandem       %q", i, ref[i], got[i])
		}
	}
	for _, want := range []string{
		`FAILOVER: -ERR FAILOVER requires connected replicas.`,
		`replica: FAILOVER: -ERR FAILOVER is not valid when server is a replica.`,
		`not online: -ERR FAILOVER target replica is not online.`,
		`in progress: FAILOVER: -ERR FAILOVER already in progress.`,
		`held write: -READONLY You can't write against a read only replica.`,
		`blocked: -UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)`,
		`blocked then: EOF`,
		`waiting: -UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)`,
		`waiting then: EOF`,
	} {
		found := false
		for _, l := range ref {
			found = found || strings.Contains(strings.ReplaceAll(l, "\r\n", ""), want)
		}
		if !found {
			t.Errorf("redis-server never answered %q: the script does not test what it means to", want)
		}
	}
}

// foWriters writes keys to addr until stop or an error, recording the
// keys acknowledged and the first error.
func foWriters(addr string, n int, stop chan struct{}) (wait func() (acked []string, errs []string)) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var acked, errs []string
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client(addr)
			defer c.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("w%d:%d", w, i)
				if err := c.Set(context.Background(), key, i, 0).Err(); err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
					return
				}
				mu.Lock()
				acked = append(acked, key)
				mu.Unlock()
			}
		}()
	}
	return func() ([]string, []string) {
		wg.Wait()
		return acked, errs
	}
}

// checkFailedOver checks, after a FAILOVER from p.m to p.r: roles, INFO,
// the old master continuing with a partial resync, and every acked key
// on the new master.
func checkFailedOver(t *testing.T, p *foPair, acked []string, partialBefore string) {
	t.Helper()
	p.waitSynced(t, p.mAddr, p.rAddr)
	if r := roleOf(t, p.mAddr); r != "slave" {
		t.Errorf("old master's ROLE: %s", r)
	}
	if r := roleOf(t, p.rAddr); r != "master" {
		t.Errorf("new master's ROLE: %s", r)
	}
	mi := dialRESP(t, p.mAddr).do("INFO", "replication").text
	for field, want := range map[string]string{"role": "slave", "master_port": p.rPort, "master_link_status": "up", "master_failover_state": "no-failover"} {
		if got := infoField(mi, field); got != want {
			t.Errorf("old master's INFO %s: %q, want %q", field, got, want)
		}
	}
	ri := dialRESP(t, p.rAddr).do("INFO", "replication").text
	for field, want := range map[string]string{"role": "master", "connected_slaves": "1", "master_failover_state": "no-failover"} {
		if got := infoField(ri, field); got != want {
			t.Errorf("new master's INFO %s: %q, want %q", field, got, want)
		}
	}
	if !strings.Contains(ri, "slave0:ip=127.0.0.1,port="+p.mPort+",state=online") {
		t.Errorf("the old master is not the new one's replica:\n%s", ri)
	}
	if got := infoField(dialRESP(t, p.rAddr).do("INFO", "stats").text, "sync_partial_ok"); got == partialBefore {
		t.Errorf("the old master did not continue with a partial resync (sync_partial_ok %s)", got)
	}
	rc := dialRESP(t, p.rAddr)
	missing := 0
	for _, k := range acked {
		if rc.do("EXISTS", k).text != "1" {
			missing++
		}
	}
	if missing > 0 || len(acked) < 50 {
		t.Errorf("%d of %d acknowledged writes missing on the new master", missing, len(acked))
	}
	if got := dialRESP(t, p.mAddr).do("SET", "after", "1").text; !strings.HasPrefix(got, "READONLY") {
		t.Errorf("a write on the old master: %q", got)
	}
}

// loadedFoPair is a linked master and replica (mkind, rkind) under 4
// writers for 200 ms, with the replica's sync_partial_ok before the
// failover; stopFoWriters ends the writers.
func loadedFoPair(t *testing.T, mkind, rkind string) (p *foPair, partialBefore string, stop chan struct{}, wait func() (acked, errs []string)) {
	t.Helper()
	mustNotSelfTest(t)
	p = startFoPair(t, mkind, rkind)
	p.link(t)
	partialBefore = infoField(dialRESP(t, p.rAddr).do("INFO", "stats").text, "sync_partial_ok")
	stop = make(chan struct{})
	wait = foWriters(p.mAddr, 4, stop)
	time.Sleep(200 * time.Millisecond)
	return p, partialBefore, stop, wait
}

// stopFoWriters stops loadedFoPair's writers and returns the writes they
// had acknowledged; a writer's error other than READONLY (the old master
// turned replica) fails t.
func stopFoWriters(t *testing.T, stop chan struct{}, wait func() (acked, errs []string)) []string {
	t.Helper()
	close(stop)
	acked, errs := wait()
	for _, e := range errs {
		if e != "READONLY You can't write against a read only replica." {
			t.Errorf("a writer's error: %q", e)
		}
	}
	return acked
}

// TestFailoverTandemToRedis: a Tandem master fails over to its
// redis-server replica under a write load: the writers' first error is
// READONLY, every write acknowledged is on redis-server, Tandem its
// replica. Writes held by the pause, on both ports, wait for the switch.
func TestFailoverTandemToRedis(t *testing.T) {
	p, partialBefore, stop, wait := loadedFoPair(t, "tandem", "redis")

	// The target lags (stopped) while the failover starts: the pause
	// holds a Redis write and a memcached one until the switch.
	stopProc(p.r)
	if got := dialRESP(t, p.mAddr).do("FAILOVER"); got.text != "OK" {
		contProc(p.r)
		t.Fatalf("FAILOVER: %v", got)
	}
	if got := foInfo(t, p.mAddr, "master_failover_state"); got != "waiting-for-sync" {
		t.Errorf("master_failover_state %q during the wait", got)
	}
	heldRESP := sendHeld(t, p.mAddr, cmd("SET", "held", "1"), false)
	heldMemc := sendHeld(t, p.mMemc, "set mheld 0 0 1\r\nx\r\n", true)
	if !heldRESP.heldFor(100*time.Millisecond) || !heldMemc.heldFor(10*time.Millisecond) {
		t.Error("a write ran during the failover's pause")
	}
	if got := dialRESP(t, p.mAddr).do("GET", "w0:0").text; got != "0" {
		t.Errorf("a read during the pause: %q", got)
	}
	contProc(p.r)
	waitFoState(t, p.mAddr, "no-failover", 5*time.Second)
	acked := stopFoWriters(t, stop, wait)
	if got := heldRESP.result(t); got != "-READONLY You can't write against a read only replica.\r\n" {
		t.Errorf("the held write: %q", got)
	}
	if got := heldMemc.result(t); got != "SERVER_ERROR READONLY You can't write against a read only replica.<nil>" {
		t.Errorf("the held memcached write: %q", got)
	}
	checkFailedOver(t, p, acked, partialBefore)
	t.Logf("%d writes acknowledged", len(acked))
}

// TestFailoverRedisToTandem: a redis-server master fails over to its
// Tandem replica (FAILOVER TO): Tandem gets PSYNC … FAILOVER, promotes
// itself and continues the history with the old master as its replica.
func TestFailoverRedisToTandem(t *testing.T) {
	p, partialBefore, stop, wait := loadedFoPair(t, "redis", "tandem")
	if got := dialRESP(t, p.mAddr).do("FAILOVER", "TO", "127.0.0.1", p.rPort); got.text != "OK" {
		t.Fatalf("FAILOVER: %v", got)
	}
	waitFoState(t, p.mAddr, "no-failover", 5*time.Second)
	acked := stopFoWriters(t, stop, wait)
	checkFailedOver(t, p, acked, partialBefore)
	if got := dialRESP(t, p.rAddr).do("SET", "on-tandem", "1").text; got != "OK" {
		t.Errorf("a write on the promoted Tandem: %q", got)
	}
	t.Logf("%d writes acknowledged", len(acked))
}
