package compat

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// MONITOR, differential: a monitor connection on each server watches
// while another connection runs a scripted sequence (escaping, a script,
// MULTI/EXEC and an aborted EXEC, AUTH, HELLO AUTH and MIGRATE AUTH/AUTH2
// redaction, admin and
// refused commands, SELECT); the monitor's lines, read up to a sentinel,
// are compared with each line's time and the client's port loosened. The
// monitor's own commands (PING is shown to itself, a keyspace command is
// refused, RESET leaves monitor mode) are compared exactly, in RESP2 and
// RESP3.

var (
	monTime = regexp.MustCompile(`(?m)^\+\d+\.\d{6} `)
	monAddr = regexp.MustCompile(`\[(\d+) 127\.0\.0\.1:\d+\]`)
)

func monLoosen(s string) string {
	return monAddr.ReplaceAllString(monTime.ReplaceAllString(s, "+T "), "[$1 C]")
}

// monitorScript is what the watched connection sends.
var monitorScript = cmds(
	cmd("SET", "a\"b\\", "x\n\r\t\a\b\x00\x7f\xff é~"),
	cmd("EVAL", "redis.call('set','k','v') return redis.call('get','k')", "0"),
	cmd("EVALSHA", "0000000000000000000000000000000000000000", "0"),
	mbs("MULTI", "SET q 1", "INCR q", "EXEC", "MULTI", "INCR", "EXEC", "MULTI", "MONITOR", "EXEC",
		"AUTH foo", "AUTH u p", "HELLO 2 AUTH u p", "CONFIG GET maxmemory", "DEBUG SLEEP 0", "SELECT 2", "SET x 1",
		"SELECT 0", "GET nosuch", "NOSUCHCMD a", "GET", "DEL a\"b\\ k q",
		"MIGRATE 127.0.0.1 1 k 0 10 COPY AUTH pw BADOPT", "MIGRATE 127.0.0.1 1 k 0 10 AUTH2 u pw REPLACE AUTH", "MIGRATE 127.0.0.1 1 \"\" 0 10 AUTH pw x KEYS",
		"ECHO monitor-end"),
)

func TestRedisMonitor(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			ref, sut := both(func(addr string) string { return monitorTranscript(t, addr, proto) }, refRedis, sutRedis)
			if ref != sut {
				t.Fatalf("monitor transcripts differ\nredis:  %q\ntandem: %q", ref, sut)
			}
		})
	}
}

// readLines reads status lines from r until one contains end.
func readLines(t *testing.T, conn net.Conn, r *bufio.Reader, end string) string {
	t.Helper()
	var b strings.Builder
	conn.SetReadDeadline(time.Now().Add(timeoutFor(conn.RemoteAddr().String())))
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			t.Fatalf("reading monitor lines: %v after %q", err, b.String())
		}
		if strings.Contains(line, end) {
			return b.String()
		}
	}
}

func monitorTranscript(t *testing.T, addr string, proto int) string {
	if err := flushRedis(addr); err != nil {
		t.Fatal(err)
	}
	mon := dialRESP(t, addr)
	var out strings.Builder
	if proto == 3 {
		mon.do("HELLO", "3")
	}
	out.WriteString(mon.do("MONITOR").String())
	mon.conn.Write([]byte(cmd("MONITOR") + cmd("PING") + cmd("GET", "x") + cmd("ECHO", "self-end")))
	out.WriteString(monLoosen(readLines(t, mon.conn, mon.r, "self-end")))

	c := dialRESP(t, addr)
	if proto == 3 {
		c.do("HELLO", "3")
	}
	c.pipeline(monitorScript)
	out.WriteString(monLoosen(readLines(t, mon.conn, mon.r, "monitor-end")))

	id := mon.do("CLIENT", "ID").text // a monitor may run it; CLIENT LIST (admin) is not shown
	out.WriteString(monitorFlags(c.do("CLIENT", "LIST").text, id))
	readLines(t, mon.conn, mon.r, "\"CLIENT\" \"ID\"")
	out.WriteString(mon.do("RESET").String())
	c.do("SET", "after", "reset")
	out.WriteString(mon.do("PING").String())
	return out.String()
}

// TestMonitorMemcached: memcached text and binary requests appear on a
// Redis monitor of Tandem, in db 0 with the memcached client's address.
func TestMonitorMemcached(t *testing.T) {
	mustNotSelfTest(t)
	mon := dialRESP(t, sutRedis)
	if got := mon.do("MONITOR").String(); got != `"+OK\r\n"` {
		t.Fatalf("MONITOR: %s", got)
	}
	mc := dialMemc(t, sutMemc)
	mc.do("set mk 0 0 5\r\nhello\r\n")
	mc.do("get mk mk2\r\n")
	mc.do("delete mk\r\n")
	bin, err := net.DialTimeout("tcp", sutMemc, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	bin.Write(binaryRequest(0x01, "bk", "\x00\x00\x00\x00\x00\x00\x00\x00", "v")) // SET
	bin.Write(binaryRequest(0x00, "bk", "", ""))                                  // GET
	bin.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(bin)
	for i := 0; i < 2; i++ { // both replies: the requests ran
		h := make([]byte, 24)
		if _, err := ioReadFull(br, h); err != nil {
			t.Fatal(err)
		}
		body := make([]byte, binary.BigEndian.Uint32(h[8:]))
		if _, err := ioReadFull(br, body); err != nil {
			t.Fatal(err)
		}
	}
	dialRESP(t, sutRedis).do("ECHO", "mc-end")
	got := monAddr.ReplaceAllString(monTime.ReplaceAllString(readLines(t, mon.conn, mon.r, "mc-end"), "+T "), "[$1 C]")
	want := "+T [0 C] \"mc:set\" \"mk\" \"0\" \"0\" \"5\"\r\n" +
		"+T [0 C] \"mc:mn\"\r\n" + // dialMemc's end of each reply
		"+T [0 C] \"mc:get\" \"mk\" \"mk2\"\r\n" +
		"+T [0 C] \"mc:mn\"\r\n" +
		"+T [0 C] \"mc:delete\" \"mk\"\r\n" +
		"+T [0 C] \"mc:mn\"\r\n" +
		"+T [0 C] \"mc:set\" \"bk\"\r\n" +
		"+T [0 C] \"mc:get\" \"bk\"\r\n" +
		"+T [0 C] \"ECHO\" \"mc-end\"\r\n"
	if got != want {
		t.Fatalf("monitor lines\ngot  %q\nwant %q", got, want)
	}
}

// TestMonitorOutputLimit: a monitor that does not read is closed once its
// pending output passes the normal client-output-buffer-limit, on both
// servers, while the writer goes on unharmed.
func TestMonitorOutputLimit(t *testing.T) {
	for _, addr := range []string{refRedis, sutRedis} {
		t.Run(sideOf(addr), func(t *testing.T) {
			c := dialRESP(t, addr)
			c.do("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
			defer c.do("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0")
			mon := dialRESP(t, addr)
			if got := mon.do("MONITOR").String(); got != `"+OK\r\n"` {
				t.Fatalf("MONITOR: %s", got)
			}
			val := strings.Repeat("v", 64<<10)
			batch := make([]string, 50)
			for i := range batch {
				batch[i] = cmd("SET", "big", val)
			}
			for i := 0; i < 20; i++ { // 64 MB of lines: far past the socket buffers
				c.pipeline(batch)
			}
			if got := c.do("PING").String(); got != `"+PONG\r\n"` {
				t.Fatalf("writer: %s", got)
			}
			mon.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, err := ioCopyCount(mon.r)
			if isTimeout(err) {
				t.Fatalf("monitor not closed: read %d bytes, %v", n, err)
			}
			if n >= 20*50*len(val) {
				t.Fatalf("monitor got everything (%d bytes): not limited", n)
			}
			c.do("DEL", "big")
		})
	}
}

func sideOf(addr string) string {
	if isSUT(addr) {
		return "tandem"
	}
	return "redis"
}

func ioReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ioCopyCount reads r to its end: the bytes read and what ended the read
// (io.EOF when the server closed the connection).
func ioCopyCount(r io.Reader) (int, error) {
	n, err := io.Copy(io.Discard, r)
	if err == nil {
		err = io.EOF
	}
	return int(n), err
}

// monitorFlags is the flags field of client id in a CLIENT LIST reply.
func monitorFlags(list, id string) string {
	for _, l := range strings.Split(list, "\n") {
		if strings.HasPrefix(l, "id="+id+" ") {
			for _, f := range strings.Fields(l) {
				if strings.HasPrefix(f, "flags=") {
					return f + "\n"
				}
			}
		}
	}
	return "no client " + id + "\n"
}

// binaryRequest is a memcached binary-protocol request frame: opcode op,
// then extras, key and value after the 24-byte header.
func binaryRequest(op byte, key, extras, value string) []byte {
	h := make([]byte, 24)
	h[0], h[1] = 0x80, op
	binary.BigEndian.PutUint16(h[2:], uint16(len(key)))
	h[4] = byte(len(extras))
	binary.BigEndian.PutUint32(h[8:], uint32(len(extras)+len(key)+len(value)))
	return append(h, extras+key+value...)
}
