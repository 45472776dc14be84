package resp

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tandemkv/tandem/conf"
)

// TestMonitorConcurrentServer: writers on several event loops while two
// monitors watch and a third comes and goes; each watching monitor sees
// every writer's commands once, in that writer's order.
func TestMonitorConcurrentServer(t *testing.T) {
	addr, _ := startRESPServer(t, conf.Default())
	mons := []*respConn{dialRESP(t, addr), dialRESP(t, addr)}
	for _, m := range mons {
		if got := m.do("MONITOR"); got != "+OK\r\n" {
			t.Fatalf("MONITOR: %q", got)
		}
	}
	const writers, n = 4, 200
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := dialRESP(t, addr)
			for i := 0; i < n; i++ {
				if got := c.do("SET", fmt.Sprintf("k%d", w), fmt.Sprint(i)); got != "+OK\r\n" {
					t.Errorf("SET: %q", got)
					return
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() { // a monitor that comes and goes
		defer wg.Done()
		for i := 0; i < 20; i++ {
			m := dialRESP(t, addr)
			m.do("MONITOR")
			m.Close()
		}
	}()
	wg.Wait()
	for _, m := range mons {
		next := make([]int, writers)
		for seen := 0; seen < writers*n; {
			line := m.read()
			var w, i int
			j := strings.Index(line, `"SET" "k`)
			if j < 0 {
				t.Fatalf("unexpected line %q", line)
			}
			if _, err := fmt.Sscanf(line[j:], `"SET" "k%d" "%d"`, &w, &i); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if i != next[w] {
				t.Fatalf("writer %d: got %d, want %d", w, i, next[w])
			}
			next[w]++
			seen++
		}
		m.send("RESET") // the other monitor's RESET may come first, as a line
		for got := m.read(); got != "+RESET\r\n"; got = m.read() {
			if !strings.Contains(got, `"RESET"`) {
				t.Fatalf("RESET: %q", got)
			}
		}
	}
}

func TestMonitorRefusals(t *testing.T) {
	e := newTestEnv(t)
	c := e.client()
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "MONITOR")
	c.expect("*1\r\n-"+errMonitorDenyBlocking+"\r\n", "EXEC")
	c.expect("+OK\r\n", "MONITOR")
	c.expect("-"+errMonitorKeyspace+"\r\n", "GET", "k")
	c.expect("-"+errMonitorKeyspace+"\r\n", "SET", "k", "v")
	c.expect("+RESET\r\n", "RESET")
	c.expect("$-1\r\n", "GET", "k")
}
