package compat

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// replStream is the replication stream of a server as a replica reads it
// after SYNC, as the upstream suite's attach_to_replication_stream: the
// commands a scenario makes, in the order the server propagates them.
type replStream struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
}

// attachReplStream sets the stream's PING period to an hour (as the
// upstream helper does, until close), sends SYNC and skips the RDB.
func attachReplStream(addr string, timeout time.Duration) (*replStream, error) {
	if _, err := controlFor(addr).roundTrip(cmd("CONFIG", "SET", "repl-ping-replica-period", "3600")); err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	s := &replStream{addr: addr, c: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte("SYNC\r\n")); err != nil {
		s.close()
		return nil, err
	}
	line := ""
	for line == "" { // newlines keep the link alive while the RDB is made
		if line, err = s.r.ReadString('\n'); err != nil {
			s.close()
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
	}
	n, err := strconv.Atoi(strings.TrimPrefix(line, "$"))
	if err != nil || line[0] != '$' {
		s.close()
		return nil, errors.New("SYNC answered " + strconv.Quote(line))
	}
	if _, err := io.CopyN(io.Discard, s.r, int64(n)); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// read returns the commands the stream carried until it is quiet for
// 300 ms, one per line of text, the command's name in lower case and
// PEXPIREAT's time (each server's clock) as <ms>. PINGs are left out:
// each server's cron sends them on its own uptime's schedule.
func (s *replStream) read() string {
	var cmds []string
	for {
		s.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		rep, err := readReply(s.r)
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				cmds = append(cmds, "error: "+err.Error())
			}
			break
		}
		var args []string
		for _, e := range rep.elems {
			args = append(args, e.text)
		}
		if len(args) == 0 {
			cmds = append(cmds, "not a command: "+strconv.Quote(string(rep.raw)))
			continue
		}
		args[0] = strings.ToLower(args[0])
		if args[0] == "ping" {
			continue
		}
		if args[0] == "pexpireat" && len(args) > 2 {
			args[2] = "<ms>"
		}
		cmds = append(cmds, strings.Join(args, " "))
	}
	return strings.Join(cmds, " | ")
}

// close ends the stream and gives the server back its defaults: the
// PING period, active expiry.
func (s *replStream) close() {
	s.c.Close()
	ctl := controlFor(s.addr)
	ctl.roundTrip(cmd("CONFIG", "SET", "repl-ping-replica-period", "10"))
	ctl.roundTrip(cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"))
}
