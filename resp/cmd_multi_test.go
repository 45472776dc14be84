package resp

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMultiExecQueuesAndRuns(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "SET", "a", "1")
	c.expect("+QUEUED\r\n", "INCR", "a")
	c.expect("+QUEUED\r\n", "LPUSH", "a", "x")
	c.expect("*3\r\n+OK\r\n:2\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", "EXEC")
	c.expect("$1\r\n2\r\n", "GET", "a")
}

func TestMultiQueueErrorAbortsExec(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "SET", "a", "1")
	c.expect("-ERR wrong number of arguments for 'get' command\r\n", "GET")
	c.expect("-EXECABORT Transaction discarded because of previous errors.\r\n", "EXEC")
	c.expect("$-1\r\n", "GET", "a")
	c.expect("-ERR EXEC without MULTI\r\n", "EXEC")
}

func TestWatchAbortsOnOtherClientsWrite(t *testing.T) {
	env := newTestEnv(t)
	a, b := env.client(), env.client()
	a.expect("+OK\r\n", "WATCH", "k")
	b.expect("+OK\r\n", "SET", "other", "1")
	a.expect("+OK\r\n", "MULTI")
	a.expect("+QUEUED\r\n", "SET", "k", "a")
	a.expect("*1\r\n+OK\r\n", "EXEC") // an unwatched key changed: runs

	a.expect("+OK\r\n", "WATCH", "k")
	b.expect("+OK\r\n", "SET", "k", "b")
	a.expect("+OK\r\n", "MULTI")
	a.expect("+QUEUED\r\n", "SET", "k", "a")
	a.expect("*-1\r\n", "EXEC")
	a.expect("$1\r\nb\r\n", "GET", "k")
}

func TestWatchSeesExpiryChangesButNotNoOps(t *testing.T) {
	env := newTestEnv(t)
	a := env.client()
	a.expect(":1\r\n", "SADD", "s", "m")
	a.expect("+OK\r\n", "WATCH", "s")
	a.expect(":0\r\n", "SADD", "s", "m") // changes nothing: not a modification
	a.expect("+OK\r\n", "MULTI")
	a.expect("*0\r\n", "EXEC")

	// The same expiry twice in one millisecond is still a modification.
	a.expect(":1\r\n", "EXPIRE", "s", "100")
	a.expect("+OK\r\n", "WATCH", "s")
	a.expect(":1\r\n", "EXPIRE", "s", "100")
	a.expect("+OK\r\n", "MULTI")
	a.expect("*-1\r\n", "EXEC")
}

func TestWatchedKeyExpiringAbortsExec(t *testing.T) {
	env := newTestEnv(t)
	a := env.client()
	a.expect("+OK\r\n", "SET", "k", "v", "PX", "100")
	a.expect("+OK\r\n", "WATCH", "k")
	env.clock.Advance(200 * time.Millisecond)
	a.expect("+OK\r\n", "MULTI")
	a.expect("*-1\r\n", "EXEC")

	// Already expired when watched: its later reclaim is no modification.
	a.expect("+OK\r\n", "SET", "j", "v", "PX", "100")
	env.clock.Advance(200 * time.Millisecond)
	a.expect("+OK\r\n", "WATCH", "j")
	a.expect(":0\r\n", "EXISTS", "j") // reclaims it
	a.expect("+OK\r\n", "MULTI")
	a.expect("*0\r\n", "EXEC")
}

func TestExecServesBlockedClientsAfterTheQueue(t *testing.T) {
	env := newTestEnv(t)
	a, b := env.client(), env.client()
	if got := b.do("BLPOP", "l", "0"); got != "" {
		t.Fatalf("BLPOP on an empty list replied %q", got)
	}
	a.expect("+OK\r\n", "MULTI")
	a.expect("+QUEUED\r\n", "RPUSH", "l", "x")
	a.expect("+QUEUED\r\n", "LPOP", "l")
	a.expect("*2\r\n:1\r\n$1\r\nx\r\n", "EXEC") // the transaction's LPOP got it
	if got := b.raw(""); got != "" || b.c.blk == nil {
		t.Fatalf("blocked client got %q after EXEC; want still blocked", got)
	}
	a.expect(":1\r\n", "RPUSH", "l", "y")
	if got := b.raw(""); got != "*2\r\n$1\r\nl\r\n$1\r\ny\r\n" {
		t.Fatalf("blocked client got %q after RPUSH", got)
	}
}

func TestBlockingCommandInsideMultiDoesNotBlock(t *testing.T) {
	env := newTestEnv(t)
	a := env.client()
	a.expect("+OK\r\n", "MULTI")
	a.expect("+QUEUED\r\n", "BLPOP", "empty", "0")
	a.expect("*1\r\n*-1\r\n", "EXEC")
	if env.eng.Waiting() != 0 {
		t.Fatal("BLPOP inside EXEC queued a waiter")
	}
}

// TestExecIsAtomicAcrossShards moves units between counters in
// transactions from many clients while others read all counters in one
// transaction: every read must see the same total.
func TestExecIsAtomicAcrossShards(t *testing.T) {
	env := newTestEnv(t)
	const counters, writers, readers, rounds = 8, 6, 3, 300
	init := env.client()
	for i := 0; i < counters; i++ {
		init.expect("+OK\r\n", "SET", "c"+strconv.Itoa(i), "100")
	}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		c := env.client()
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				from, to := "c"+strconv.Itoa((w+r)%counters), "c"+strconv.Itoa((w+2*r+1)%counters)
				in := encodeCommand("MULTI") + encodeCommand("DECRBY", from, "3") + encodeCommand("INCRBY", to, "3") + encodeCommand("EXEC")
				if out := c.raw(in); !strings.HasSuffix(out, "\r\n") || strings.Contains(out, "-") && !strings.Contains(out, ":-") {
					t.Errorf("transfer replied %q", out)
					return
				}
			}
		}(w)
	}
	for r := 0; r < readers; r++ {
		c := env.client()
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := encodeCommand("MULTI")
			for i := 0; i < counters; i++ {
				in += encodeCommand("GET", "c"+strconv.Itoa(i))
			}
			in += encodeCommand("EXEC")
			for n := 0; n < rounds; n++ {
				out := c.raw(in)
				sum := 0
				for _, line := range strings.Split(out, "\r\n") {
					if v, err := strconv.Atoi(line); err == nil {
						sum += v
					}
				}
				if sum != 100*counters {
					t.Errorf("a transaction read a total of %d, want %d: %q", sum, 100*counters, out)
					return
				}
			}
		}()
	}
	wg.Wait()
}
