package resp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/services"
)

// Without a server, the client buffer fields are 0.
func TestInfoClientBuffersNoServer(t *testing.T) {
	env := newTestEnv(t)
	_, f := memoryInfo(t, env)
	if f["mem_clients_normal"] != "0" {
		t.Errorf("mem_clients_normal = %q", f["mem_clients_normal"])
	}
}

// mem_clients_normal sums what the connections of both protocols hold:
// here two requests whose data has not all arrived, one per protocol.
func TestInfoMemClientsNormal(t *testing.T) {
	cfg := conf.Default()
	svc := services.New(services.Options{Config: cfg})
	var srv *server.Server
	fe := New(Options{Services: svc, ClientBuffers: func() server.ClientBuffers { return srv.ClientBuffers() },
		Facts: ServerFacts{TCPPort: 6379, StartTime: time.Now(), ClientsCounter: func() int { return 1 }}})
	mc := memproto.New(memproto.Options{Services: svc, Version: "1.6.18"})
	var respAddr, mcAddr string
	for attempt := 0; ; attempt++ {
		respAddr, mcAddr = freeLoopbackAddr(t), freeLoopbackAddr(t)
		srv = server.New(server.Options{Multicore: true})
		srv.Listeners([]server.Listener{{Addrs: []string{respAddr}, Frontend: fe}, {Addrs: []string{mcAddr}, Frontend: mc}})
		done := make(chan error, 1)
		go func() { done <- srv.Run() }()
		<-srv.Ready()
		select {
		case err := <-done:
			if attempt < 3 {
				continue
			}
			t.Fatalf("server: %v", err)
		default:
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Stop(ctx)
			<-done
		})
		break
	}
	dial := func(addr string) net.Conn {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	const part = 100_000
	r := dial(respAddr)
	fmt.Fprintf(r, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s", 2*part, strings.Repeat("r", part))
	m := dial(mcAddr)
	fmt.Fprintf(m, "set k 0 0 %d\r\n%s", 2*part, strings.Repeat("m", part))

	info := dial(respAddr)
	br := bufio.NewReader(info)
	field := func(section, name string) int64 {
		t.Helper()
		fmt.Fprintf(info, "INFO %s\r\n", section)
		info.SetReadDeadline(time.Now().Add(10 * time.Second))
		head, err := br.ReadString('\n')
		if err != nil || head[0] != '$' {
			t.Fatalf("INFO reply %q, %v", head, err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(head[1:]))
		body := make([]byte, n+2)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(body), "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				x, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("%s = %q", name, v)
				}
				return x
			}
		}
		t.Fatalf("no %s in INFO %s", name, section)
		return 0
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := field("memory", "mem_clients_normal")
		if got >= 2*part {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mem_clients_normal = %d, want >= %d (two pending requests of %d bytes)", got, 2*part, part)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := field("clients", "client_recent_max_input_buffer"); got < part {
		t.Errorf("client_recent_max_input_buffer = %d, want >= %d", got, part)
	}
	// The requests complete: the buffers go and both are answered.
	fmt.Fprintf(r, "%s\r\n", strings.Repeat("r", part))
	fmt.Fprintf(m, "%s\r\n", strings.Repeat("m", part))
	for _, c := range []net.Conn{r, m} {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || (line != "+OK\r\n" && line != "STORED\r\n") {
			t.Fatalf("reply %q, %v", line, err)
		}
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		got := field("memory", "mem_clients_normal")
		if got < part {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mem_clients_normal = %d after the requests completed", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
