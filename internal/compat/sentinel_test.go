package compat

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
)

// TestSentinelFailsOverTandem: redis-server 7.0 in Sentinel mode watches
// a Tandem master with a Tandem replica. It finds the replica in the
// master's INFO replication; when the master is killed it promotes the
// replica (REPLICAOF NO ONE, CONFIG REWRITE, CLIENT KILL, in MULTI),
// which then holds every write WAIT acknowledged and takes writes; the
// old master, started again, is turned into a replica of the new one.
func TestSentinelFailsOverTandem(t *testing.T) {
	mustNotSelfTest(t)
	ctx := context.Background()
	mdir, rdir, sdir := t.TempDir(), t.TempDir(), t.TempDir()
	master := startFor(t, mdir, "tandem-master", 2, tandemArgs(mdir, "--repl-diskless-sync-delay", "0"))
	mc := client(master.addrs[0])
	defer mc.Close()
	mhost, mport, _ := strings.Cut(master.addrs[0], ":")
	replica := startFor(t, rdir, "tandem-replica", 2, tandemArgs(rdir, "--repl-diskless-sync-delay", "0"))
	rc := client(replica.addrs[0])
	defer rc.Close()
	if err := rc.Do(ctx, "REPLICAOF", mhost, mport).Err(); err != nil {
		t.Fatal(err)
	}
	waitInSync(t, rc, mc)
	// Sentinel fails over again if the promoted replica leaves a PING
	// unanswered for down-after-milliseconds: what a failure reports is
	// whether Tandem itself was slow to answer, on any of its loops.
	stalls := watchPINGs(t, replica.addrs[0], 4)

	conf := filepath.Join(sdir, "sentinel.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf("sentinel monitor mymaster %s %s 1\nsentinel down-after-milliseconds mymaster 1000\n"+
		"sentinel failover-timeout mymaster 5000\nloglevel debug\n", mhost, mport)), 0o644)
	sentinel := startFor(t, sdir, "redis-sentinel", 1, func(p []int) []string {
		bin, _ := realserver.Lookup(realserver.Redis)
		return []string{bin, conf, "--sentinel", "--port", strconv.Itoa(p[0]), "--bind", "127.0.0.1"}
	})
	sc := redis.NewClient(&redis.Options{Addr: sentinel.addrs[0], Protocol: 2})
	defer sc.Close()
	waitFor := func(what string, d time.Duration, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(d); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				out, _ := os.ReadFile(sentinel.logPath)
				rlog, _ := os.ReadFile(replica.logPath)
				t.Fatalf("%s: not within %v\nsentinel's log:\n%s\nthe replica's log:\n%s\nthe replica's slow PINGs: %s",
					what, d, out, rlog, stalls.report())
			}
		}
	}
	waitFor("Sentinel lists the replica", 15*time.Second, func() bool {
		rs, _ := sc.Do(ctx, "SENTINEL", "REPLICAS", "mymaster").Slice()
		return len(rs) == 1 && strings.Contains(fmt.Sprint(rs), replica.addrs[0])
	})

	for i := range 50 {
		if err := mc.Set(ctx, fmt.Sprintf("k%d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if n, err := mc.Do(ctx, "WAIT", "1", "1000").Int(); err != nil || n != 1 {
			t.Fatalf("WAIT after write %d: %d %v", i, n, err)
		}
	}
	master.cmd.Process.Signal(syscall.SIGKILL)
	<-master.exited

	rhost, rport, _ := strings.Cut(replica.addrs[0], ":")
	waitFor("Sentinel promotes the replica", 30*time.Second, func() bool {
		addr, _ := sc.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
		return len(addr) == 2 && addr[0] == rhost && addr[1] == rport
	})
	waitFor("the promoted replica says master", 10*time.Second, func() bool {
		role, _ := rc.Do(ctx, "ROLE").Slice()
		return len(role) > 0 && role[0] == "master"
	})
	if n, _ := rc.DBSize(ctx).Result(); n != 50 {
		t.Errorf("the promoted replica has %d keys, want the 50 WAIT acknowledged", n)
	}
	if err := rc.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Errorf("a write on the promoted replica: %v", err)
	}

	old := restartOn(t, mdir, master, tandemArgs(mdir))
	oc := client(old.addrs[0])
	defer oc.Close()
	waitFor("Sentinel turns the old master into a replica of the new one", 30*time.Second, func() bool {
		role, _ := oc.Do(ctx, "ROLE").Slice()
		return len(role) >= 3 && role[0] == "slave" && role[1] == rhost && fmt.Sprint(role[2]) == rport
	})
}

// pingStalls records the PINGs a server took long to answer.
type pingStalls struct {
	mu   sync.Mutex
	slow []string
}

func (p *pingStalls) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.slow) == 0 {
		return "none over 200ms"
	}
	return strings.Join(p.slow, "; ")
}

// watchPINGs keeps conns connections to addr PINGing every 20ms until
// the test ends (each connection may land on another event loop) and
// records every PING answered after more than 200ms, or not at all.
func watchPINGs(t *testing.T, addr string, conns int) *pingStalls {
	p := &pingStalls{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conn net.Conn
			var r *bufio.Reader
			for {
				select {
				case <-done:
					if conn != nil {
						conn.Close()
					}
					return
				case <-time.After(20 * time.Millisecond):
				}
				if conn == nil {
					c, err := net.DialTimeout("tcp", addr, time.Second)
					if err != nil {
						continue
					}
					conn, r = c, bufio.NewReader(c)
				}
				start := time.Now()
				conn.SetDeadline(start.Add(5 * time.Second))
				_, err := conn.Write([]byte("PING\r\n"))
				var line string
				if err == nil {
					line, err = r.ReadString('\n')
				}
				took := time.Since(start)
				if err != nil || took > 200*time.Millisecond {
					p.mu.Lock()
					p.slow = append(p.slow, fmt.Sprintf("conn %d at %s: %v %q %v", i, start.Format("15:04:05.000"), took, line, err))
					p.mu.Unlock()
				}
				if err != nil { // a CLIENT KILL TYPE normal closes it: dial again
					conn.Close()
					conn = nil
				}
			}
		}()
	}
	t.Cleanup(func() { close(done); wg.Wait() })
	return p
}
