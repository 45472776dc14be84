package compat

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// Cross-protocol scripting (issue 12, defect 8): an HTTP request sent to
// the Redis port. redis-server 7.0 closes the connection on a command
// named POST or Host: (any case, inline or multibulk) and sends nothing
// for it. Cases that send a command before it run one by one only: in one
// write, Redis drops the earlier replies with the connection, which the
// runner cannot align.
func TestRedisCrossProtocol(t *testing.T) { runRedisCases(t, crossProtoCases) }

const httpPost = "POST / HTTP/1.1\r\nHost: 127.0.0.1:6379\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nSET pwned 1\r\n"

var crossProtoCases = []redisCase{
	{name: "http post request line", cmds: []string{"POST / HTTP/1.1\r\n"}, closes: true},
	{name: "whole http request", cmds: []string{httpPost}, closes: true},
	{name: "host header", cmds: []string{"Host: 127.0.0.1:6379\r\n"}, closes: true},
	{name: "host header lowercase", cmds: []string{"host: x\r\n"}, closes: true},
	{name: "post alone lowercase", cmds: []string{"post\r\n"}, closes: true},
	{name: "post multibulk", cmds: []string{cmd("POST", "/")}, closes: true},
	{name: "host multibulk uppercase", cmds: []string{cmd("HOST:", "x")}, closes: true},
	{name: "set then post", cmds: cmds(mbs("SET k v"), "POST / HTTP/1.1\r\n"), closes: true, noPipeline: true},
	{name: "post inside multi", cmds: cmds(mbs("MULTI", "SET k v"), "POST\r\n"), closes: true, noPipeline: true},
	{name: "post after failed auth", cmds: cmds(mbs("AUTH nopass"), cmd("post")), closes: true, noPipeline: true},
	{name: "not commands", cmds: mbs("COMMAND INFO post host: get", "COMMAND GETKEYS post")},
	{name: "look-alikes are unknown commands", cmds: mbs("host x", "posts", "host:x", "GET k")},
}

// TestRedisHTTPRequestRunsNothing is the reproducer: the body of an HTTP
// POST did run on Tandem. After the request (one write) the connection is
// closed with nothing sent, and pwned is not set, on both servers.
func TestRedisHTTPRequestRunsNothing(t *testing.T) {
	type outcome struct {
		got    string
		closed string
		exists string
	}
	ref, sut := both(func(addr string) outcome {
		if err := flushRedis(addr); err != nil {
			return outcome{closed: err.Error()}
		}
		conn, err := net.DialTimeout("tcp", addr, timeoutFor(addr))
		if err != nil {
			return outcome{closed: err.Error()}
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(timeoutFor(addr)))
		if _, err := conn.Write([]byte(httpPost)); err != nil {
			return outcome{closed: err.Error()}
		}
		got, err := readToEOF(bufio.NewReader(conn))
		o := outcome{got: string(got), closed: "closed"}
		if err != nil {
			o.closed = err.Error()
		}
		c := dialRESP(t, addr)
		o.exists = string(c.do("EXISTS", "pwned").raw)
		return o
	}, refRedis, sutRedis)
	if ref != (outcome{closed: "closed", exists: ":0\r\n"}) {
		t.Fatalf("reference redis-server: %+v (the test is wrong)", ref)
	}
	if sut != ref {
		t.Errorf("%s: %+v, want %+v", sideName(), sut, ref)
	}
}
