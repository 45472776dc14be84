package resp

import (
	"bytes"
	"time"
)

// Cross-protocol scripting. A web page can make a browser POST to
// 127.0.0.1:6379: the request line, the headers and the body arrive as
// inline commands, and without a guard a "SET pwned 1" in the body runs.
// Redis 7.0's processCommand treats a command named "POST" or "Host:"
// (any case, inline or multibulk, before AUTH too) as an attack: it
// logs a warning, at most once a minute, and closes the connection at
// once (freeClientAsync): the client receives nothing, not even the
// replies of the commands before it in the same read, and the command
// is counted nowhere (no command, error or commandstats counter). Neither
// is a command: COMMAND COUNT and COMMAND INFO do not know them.

// ErrCrossProtocol is the warning Redis logs.
const ErrCrossProtocol = "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted."

// crossProtocolWarnEvery is how often Redis logs the warning at most.
const crossProtocolWarnEvery = 60 * time.Second

// isCrossProtocol reports whether a command named name is an HTTP
// request line or header that Redis refuses.
func isCrossProtocol(name []byte) bool {
	return bytes.EqualFold(name, []byte("post")) || bytes.EqualFold(name, []byte("host:"))
}

// abortCrossProtocol closes the client as Redis does on POST or Host:
// the replies of this read (out[:start] was there before it) are dropped.
func (c *Client) abortCrossProtocol(start int) {
	c.w.Buf = c.w.Buf[:start]
	c.closeAfter = true
	now := time.Now().UnixNano()
	last := c.fe.crossProtocolWarned.Load()
	if (last == 0 || now-last > int64(crossProtocolWarnEvery)) && c.fe.crossProtocolWarned.CompareAndSwap(last, now) {
		c.fe.log.Warn(ErrCrossProtocol, "addr", c.peer.RemoteAddr())
	}
}
