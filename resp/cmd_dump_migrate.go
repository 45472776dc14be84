package resp

import (
	"bufio"
	"errors"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/tidwall/redcon"

	"github.com/tandemkv/tandem/snapshot/rdb"
)

// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw |
// AUTH2 user pw] [KEYS key...], as redis-server 7.0's migrateCommand:
//
//  1. On the client's loop: the options, the timeout and db, then the
//     keys are dumped (missing ones skipped; none: +NOKEY) and the
//     target's commands encoded: AUTH when asked, SELECT db, and a
//     RESTORE key ttl payload [REPLACE] per key, ttl the milliseconds left
//     (at least 1) or 0.
//  2. Off the loop, on a goroutine of its own: connect, write, and read
//     one reply line per command, each step bounded by the timeout. The
//     client is parked meanwhile, as a blocked one (exclusive.go does the
//     same for long scripts), so its loop goes on serving the others;
//     Redis blocks its whole server instead. Inside MULTI or a script the
//     exchange runs on the spot, as there is no parking there.
//  3. Back on the loop: the keys the target took are deleted ("del"
//     events) unless COPY, and the reply written: OK, the target's first
//     error ("ERR Target instance replied with error: …"; an AUTH or
//     SELECT error fails every key), or an IOERR.
//
// A key is deleted only if it still holds what was sent (engine
// DeleteIfDumped), so a write that came while the target answered is not
// lost with it; without such a write this is Redis's outcome exactly.
// Like Redis, a failure to write or read that is not a timeout, before
// any RESTORE was answered, is retried once on a new connection; and as
// Redis's connect waits for the socket only to become writable, a refused
// or unanswered connection is reported as a write error ("connecting" is
// for an address that does not resolve). Redis
// caches its connections for 10 seconds and skips SELECT on a cached one
// already in db; Tandem connects each time (the cache is an optimization a
// client cannot tell, but for the target's connection counts).

// migrateKeys is Redis's migrateGetKeys: the key argument, or with KEYS
// everything after it (nothing when the key argument is not empty, the
// case MIGRATE refuses), the option words skipped with their values.
func migrateKeys(args [][]byte) []int {
	first, num := 3, 1
	skip := map[string]int{"COPY": 0, "REPLACE": 0, "AUTH": 1, "AUTH2": 2}
	for i := 6; i < len(args); i++ {
		if argIsC(args[i], "KEYS") {
			if len(args[3]) > 0 {
				return nil
			}
			first, num = i+1, len(args)-i-1
			break
		}
		for w, n := range skip {
			if argIsC(args[i], w) {
				i += n
				break
			}
		}
	}
	out := make([]int, num)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// migration is one MIGRATE: what step 1 prepared, and step 2's outcome.
type migration struct {
	addr        string
	timeout     time.Duration
	copy        bool
	auth        bool     // AUTH or AUTH2 is sent (its reply comes first)
	keys        [][]byte // the keys sent, in order
	payloads    [][]byte
	expireAt    []int64
	commands    []byte // AUTH, SELECT and the RESTOREs, encoded
	dumpOptions rdb.DumpOptions

	// Step 2: the target's reply lines (auth, selected, then one per key
	// answered), or the transport error reply (ErrMigrate*).
	authReply, selectReply []byte
	replies                [][]byte
	ioErr                  string
}

// cmdMigrate is MIGRATE.
func cmdMigrate(c *Client, args [][]byte) {
	var user, pass []byte
	replace := false
	m := &migration{dumpOptions: c.dumpOptions()}
	firstKey, numKeys := 3, 1
options:
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch a := args[j]; {
		case argIsC(a, "COPY"):
			m.copy = true
		case argIsC(a, "REPLACE"):
			replace = true
		case argIsC(a, "AUTH"):
			if more < 1 {
				c.w.Error(ErrSyntax)
				return
			}
			j++
			pass = args[j]
			m.auth = true
		case argIsC(a, "AUTH2"):
			if more < 2 {
				c.w.Error(ErrSyntax)
				return
			}
			user, pass = args[j+1], args[j+2]
			j += 2
			m.auth = true
		case argIsC(a, "KEYS"):
			if len(args[3]) != 0 {
				c.w.Error(ErrMigrateKeysArg)
				return
			}
			firstKey, numKeys = j+1, len(args)-j-1
			break options
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	timeout, ok := c.intArg(args[5])
	if !ok {
		return
	}
	db, ok := c.intArg(args[4])
	if !ok {
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	m.timeout = time.Duration(min(timeout, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	// Redis takes the port with atoi and hands its decimal to getaddrinfo,
	// which refuses a negative one and keeps the low 16 bits of others.
	if port := cAtoi(args[2]); port >= 0 {
		m.addr = net.JoinHostPort(string(args[1]), strconv.Itoa(port&0xFFFF))
	}

	now := c.nowMs()
	for _, key := range args[firstKey : firstKey+numKeys] {
		payload, expireAt, found, err := c.dumpKey(key, m.dumpOptions)
		if err != nil {
			c.w.Error("ERR " + err.Error())
			return
		}
		if !found {
			continue
		}
		m.keys = append(m.keys, key)
		m.payloads = append(m.payloads, payload)
		m.expireAt = append(m.expireAt, expireAt)
	}
	if len(m.keys) == 0 {
		c.w.Status("NOKEY")
		return
	}
	m.encode(user, pass, db, replace, now)
	if c.inExclusive || !c.gateHeld {
		m.exchange()
		c.finishMigrate(m)
		return
	}
	// The keys' bytes outlive this call: the read buffer does not.
	m.keys = copyArgs(m.keys)
	done := make(chan struct{})
	peer := c.peer
	go func() {
		m.exchange()
		close(done)
		_ = peer.Wake()
	}()
	c.blk = &blockState{skipReply: c.replyOff || c.replySkip, resume: func() bool {
		select {
		case <-done:
			c.finishMigrate(m)
			return true
		default:
			return false
		}
	}}
}

// encode writes the target's commands: AUTH [user] pass when given,
// SELECT db, then RESTORE key ttl payload [REPLACE] for each key.
func (m *migration) encode(user, pass []byte, db int64, replace bool, now int64) {
	b := m.commands[:0]
	var num [20]byte
	if m.auth {
		if user != nil {
			b = redcon.AppendArray(b, 3)
			b = redcon.AppendBulkString(b, "AUTH")
			b = redcon.AppendBulk(b, user)
		} else {
			b = redcon.AppendArray(b, 2)
			b = redcon.AppendBulkString(b, "AUTH")
		}
		b = redcon.AppendBulk(b, pass)
	}
	b = redcon.AppendArray(b, 2)
	b = redcon.AppendBulkString(b, "SELECT")
	b = redcon.AppendBulk(b, strconv.AppendInt(num[:0], db, 10))
	for i, key := range m.keys {
		ttl := int64(0)
		if m.expireAt[i] != 0 {
			ttl = max(m.expireAt[i]-now, 1)
		}
		n := 4
		if replace {
			n = 5
		}
		b = redcon.AppendArray(b, n)
		b = redcon.AppendBulkString(b, "RESTORE")
		b = redcon.AppendBulk(b, key)
		b = redcon.AppendBulk(b, strconv.AppendInt(num[:0], ttl, 10))
		b = redcon.AppendBulk(b, m.payloads[i])
		if replace {
			b = redcon.AppendBulkString(b, "REPLACE")
		}
	}
	m.commands = b
}

// exchange sends the commands and reads the replies (step 2), retrying
// once on a new connection as Redis does when a transport error that is
// not a timeout comes before any RESTORE was answered.
func (m *migration) exchange() {
	for attempt := 0; ; attempt++ {
		retry := m.attempt()
		if !retry || attempt == 1 {
			return
		}
	}
}

// migrateWriteChunk is how much of the commands one write sends, each
// with its own deadline, as Redis's 64 KB chunks.
const migrateWriteChunk = 64 << 10

// migrateLineMax is the longest reply line kept, as Redis's 1024-byte
// buffers (the terminating NUL aside).
const migrateLineMax = 1023

// attempt is one connection's exchange. It reports whether a retry may
// fix what failed.
func (m *migration) attempt() (retry bool) {
	m.authReply, m.selectReply, m.replies, m.ioErr = nil, nil, nil, ""
	fail := func(msg string, err error) bool {
		m.ioErr = msg
		return !errors.Is(err, os.ErrDeadlineExceeded)
	}
	if m.addr == "" {
		m.ioErr = ErrMigrateConnect
		return false
	}
	conn, err := net.DialTimeout("tcp", m.addr, m.timeout)
	if err != nil {
		// Redis's connect only fails when the address does not resolve;
		// a refused or unanswered connection fails its first write.
		var dnsErr *net.DNSError
		var addrErr *net.AddrError
		if errors.As(err, &dnsErr) || errors.As(err, &addrErr) {
			m.ioErr = ErrMigrateConnect
			return false
		}
		return fail(ErrMigrateWrite, err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	for p := m.commands; len(p) > 0; {
		n := min(len(p), migrateWriteChunk)
		conn.SetWriteDeadline(time.Now().Add(m.timeout))
		if _, err := conn.Write(p[:n]); err != nil {
			return fail(ErrMigrateWrite, err)
		}
		p = p[n:]
	}
	r := bufio.NewReader(conn)
	line := func() ([]byte, error) {
		conn.SetReadDeadline(time.Now().Add(m.timeout))
		return readReplyLine(r)
	}
	if m.auth {
		if m.authReply, err = line(); err != nil {
			return fail(ErrMigrateRead, err)
		}
	}
	if m.selectReply, err = line(); err != nil {
		return fail(ErrMigrateRead, err)
	}
	for range m.keys {
		l, err := line()
		if err != nil {
			m.ioErr = ErrMigrateRead
			return len(m.replies) == 0 && !errors.Is(err, os.ErrDeadlineExceeded)
		}
		m.replies = append(m.replies, l)
	}
	return false
}

// readReplyLine reads one line as Redis's syncReadLine: up to '\n', the
// '\r' before it dropped, at most migrateLineMax bytes (a longer line's
// rest is read as the next one). An empty line is an error, as Redis's
// caller takes a zero length.
func readReplyLine(r *bufio.Reader) ([]byte, error) {
	var out []byte
	for len(out) < migrateLineMax {
		ch, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		if ch == '\n' {
			if n := len(out); n > 0 && out[n-1] == '\r' {
				out = out[:n-1]
			}
			break
		}
		out = append(out, ch)
	}
	if len(out) == 0 {
		return nil, errEmptyLine
	}
	return out, nil
}

var errEmptyLine = errors.New("empty reply line")

// finishMigrate is step 3: delete what the target took, unless COPY, and
// reply.
func (c *Client) finishMigrate(m *migration) {
	refused := func(l []byte) bool { return len(l) > 0 && l[0] == '-' }
	// An AUTH or SELECT refused fails every key, reported first; else a
	// refused RESTORE fails its key and the first one is reported.
	var before []byte
	switch {
	case m.auth && refused(m.authReply):
		before = m.authReply
	case refused(m.selectReply):
		before = m.selectReply
	}
	targetErr := ""
	deleted := [][]byte{argDEL} // MIGRATE propagates as the DEL of what it moved, as Redis's
	for i, l := range m.replies {
		if before != nil || refused(l) {
			if targetErr == "" {
				targetErr = string(l[1:])
				if before != nil {
					targetErr = string(before[1:])
				}
			}
			continue
		}
		if !m.copy {
			if c.db.DeleteIfDumped(m.keys[i], sameDump(m.payloads[i], m.expireAt[i], m.dumpOptions)) {
				c.notify(evGeneric, "del", m.keys[i])
				deleted = append(deleted, m.keys[i])
			}
		}
	}
	if len(deleted) > 1 {
		c.propagateAs(deleted...)
	} else {
		c.propagateNothing()
	}
	switch {
	case targetErr != "":
		c.w.Error(ErrMigrateTarget + targetErr)
	case m.ioErr != "":
		c.w.Error(m.ioErr)
	default:
		c.w.Status("OK")
	}
}
