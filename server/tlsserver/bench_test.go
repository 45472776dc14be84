package tlsserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process (client and server) has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ns/op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkPipelinedGET measures what TLS costs next to the plain port, in
// the same run against the same node: pipelines of 100 GETs of a 100-byte
// value, one connection (serial) and one per GOMAXPROCS (parallel). An
// op is one GET; SetBytes counts the reply bytes; cpu-ns/op is the CPU
// time the whole process (client and server) spent per GET, steadier
// than wall time on a busy machine.
//
//	go test -run '^$' -bench PipelinedGET -benchtime 2s ./server/tlsserver
func BenchmarkPipelinedGET(b *testing.B) {
	td := startTandem(b, "--tls-auth-clients", "no")
	const depth, size = 100, 100
	ctx := context.Background()
	if err := td.redis(b, nil).Set(ctx, "key", strings.Repeat("v", size), 0).Err(); err != nil {
		b.Fatal(err)
	}
	req := bytes.Repeat([]byte("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n"), depth)
	replyLen := depth * len("$"+strconv.Itoa(size)+"\r\n"+strings.Repeat("v", size)+"\r\n")
	dial := func(useTLS bool) net.Conn {
		var (
			c   net.Conn
			err error
		)
		if useTLS {
			c, err = tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.tlsPort), td.pki.clientConfig(b, ""))
		} else {
			c, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(td.port))
		}
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	round := func(c net.Conn, buf []byte) error {
		if _, err := c.Write(req); err != nil {
			return err
		}
		_, err := io.ReadFull(c, buf)
		return err
	}
	for _, mode := range []string{"plain", "tls"} {
		useTLS := mode == "tls"
		b.Run(mode+"/serial", func(b *testing.B) {
			c := dial(useTLS)
			defer c.Close()
			buf := make([]byte, replyLen)
			b.SetBytes(int64(replyLen / depth))
			b.ResetTimer()
			defer reportCPU(b, cpuTime())
			for i := 0; i < b.N; i += depth {
				if err := round(c, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(mode+"/parallel", func(b *testing.B) {
			b.SetBytes(int64(replyLen / depth))
			defer reportCPU(b, cpuTime())
			b.RunParallel(func(pb *testing.PB) {
				c := dial(useTLS)
				defer c.Close()
				buf := make([]byte, replyLen)
				for n := 0; pb.Next(); n++ {
					if n%depth == 0 {
						if err := round(c, buf); err != nil {
							b.Error(err)
							return
						}
					}
				}
			})
		})
	}
}
