package resp

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/users"
)

// clientSubcommands are CLIENT's subcommands. Arity, flags, since and
// summary are redis 7.0's; SETINFO and NO-TOUCH are redis 7.2's (clients
// such as go-redis v9 send CLIENT SETINFO when they connect).
func clientSubcommands() []*Command {
	const (
		conn  = FlagNoScript | FlagLoading | FlagStale
		admin = FlagAdmin | conn
	)
	return []*Command{
		{Name: "client|getname", Arity: 2, Flags: conn, Group: "connection", Since: "2.6.9", Summary: "Get the current connection name", Run: cmdClientGetName},
		{Name: "client|id", Arity: 2, Flags: conn, Group: "connection", Since: "5.0.0", Summary: "Returns the client ID for the current connection", Run: cmdClientID},
		{Name: "client|info", Arity: 2, Flags: conn, Group: "connection", Since: "6.2.0", Summary: "Returns information about the current client connection.", Run: cmdClientInfo},
		{Name: "client|kill", Arity: -3, Flags: admin, Group: "connection", Since: "2.4.0", Summary: "Kill the connection of a client", Run: cmdClientKill},
		{Name: "client|list", Arity: -2, Flags: admin, Group: "connection", Since: "2.4.0", Summary: "Get the list of client connections", Run: cmdClientList},
		{Name: "client|reply", Arity: 3, Flags: conn, Group: "connection", Since: "3.2.0", Summary: "Instruct the server whether to reply to commands", Run: cmdClientReply},
		{Name: "client|setname", Arity: 3, Flags: conn, Group: "connection", Since: "2.6.9", Summary: "Set the current connection name", Run: cmdClientSetName},
		{Name: "client|setinfo", Arity: 4, Flags: conn, Group: "connection", Since: "7.2.0", Summary: "Sets information specific to the client or connection.", Run: cmdClientSetInfo},
		{Name: "client|no-evict", Arity: 3, Flags: admin, Group: "connection", Since: "7.0.0", Summary: "Set client eviction mode for the current connection", Run: cmdClientNoEvict},
		{Name: "client|no-touch", Arity: 3, Flags: conn, Group: "connection", Since: "7.2.0", Summary: "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", Run: cmdClientNoTouch},
		{Name: "client|tracking", Arity: -3, Flags: conn, Group: "connection", Since: "6.0.0", Summary: "Enable or disable server assisted client side caching support", Run: cmdClientTracking},
		{Name: "client|caching", Arity: 3, Flags: conn, Group: "connection", Since: "6.0.0", Summary: "Instruct the server about tracking or not keys in the next request", Run: cmdClientCaching},
		{Name: "client|getredir", Arity: 2, Flags: conn, Group: "connection", Since: "6.0.0", Summary: "Get tracking notifications redirection client ID if any", Run: cmdClientGetRedir},
		{Name: "client|trackinginfo", Arity: 2, Flags: conn, Group: "connection", Since: "6.2.0", Summary: "Return information about server assisted client side caching for the current connection", Run: cmdClientTrackingInfo},
		{Name: "client|pause", Arity: -3, Flags: admin, Group: "connection", Since: "2.9.50", Summary: "Stop processing commands from clients for some time", Run: cmdClientPause},
		{Name: "client|unpause", Arity: 2, Flags: admin, Group: "connection", Since: "6.2.0", Summary: "Resume processing of clients that were paused", Run: cmdClientUnpause},
		{Name: "client|unblock", Arity: -3, Flags: admin, Group: "connection", Since: "5.0.0", Summary: "Unblock a client blocked in a blocking command from a different connection", Run: cmdClientUnblock},
		{Name: "client|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "connection", Since: "5.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdClientHelp},
	}
}

// clientHelp is CLIENT HELP's text for the subcommands Tandem serves, in
// Redis's words and order (7.0's, with 7.2's lines for SETINFO and NO-TOUCH).
var clientHelp = []string{
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"SETINFO <option> <value>",
	"    Set client meta attr. Options are:",
	"    * LIB-NAME: the client lib name.",
	"    * LIB-VER: the client lib version.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"NO-TOUCH (ON|OFF)",
	"    Will not touch LRU/LFU stats when this mode is on.",
}

func cmdClientHelp(c *Client, args [][]byte) { c.help(args[0], clientHelp) }

// help writes a container's HELP reply as Redis's addReplyHelp: a header
// naming the container as sent (upper-cased), the lines, and HELP's own
// entry, each a simple string.
func (c *Client) help(container []byte, lines []string) {
	c.w.Array(len(lines) + 3)
	c.w.Status(strings.ToUpper(string(container)) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.w.Status(l)
	}
	c.w.Status("HELP")
	c.w.Status("    Prints this help.")
}

func cmdClientID(c *Client, _ [][]byte) { c.w.Int(int64(c.id)) }

func cmdClientGetName(c *Client, _ [][]byte) {
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	if name == "" {
		c.w.Null()
		return
	}
	c.w.BulkString(name)
}

func cmdClientSetName(c *Client, args [][]byte) {
	if c.setName(args[2]) {
		c.w.Status("OK")
	}
}

// validClientAttr reports whether s may be a client name, library name or
// version: printable ASCII without spaces, so that CLIENT LIST stays
// splittable on spaces. Redis tests each byte as a signed char against
// '!'..'~', which refuses every byte >= 0x80 as well.
func validClientAttr(s []byte) bool {
	for _, b := range s {
		if b < '!' || b > '~' {
			return false
		}
	}
	return true
}

// setName sets the connection name ("" clears it) or replies the error and
// returns false.
func (c *Client) setName(name []byte) bool {
	if !validClientAttr(name) {
		c.w.Error(ErrClientName)
		return false
	}
	c.mu.Lock()
	c.name = string(name)
	c.mu.Unlock()
	return true
}

// cmdClientSetInfo is CLIENT SETINFO LIB-NAME|LIB-VER value (redis 7.2).
func cmdClientSetInfo(c *Client, args [][]byte) {
	attr := args[2]
	var dst *string
	switch {
	case argIs(attr, "LIB-NAME"):
		dst = &c.libName
	case argIs(attr, "LIB-VER"):
		dst = &c.libVer
	default:
		c.w.Error(fmt.Sprintf(ErrClientAttrUnknown, cutC(string(attr), len(attr))))
		return
	}
	if !validClientAttr(args[3]) {
		c.w.Error(fmt.Sprintf(ErrClientAttr, cutC(string(attr), len(attr))))
		return
	}
	c.mu.Lock()
	*dst = string(args[3])
	c.mu.Unlock()
	c.w.Status("OK")
}

// onOffArg parses CLIENT NO-EVICT/NO-TOUCH's ON|OFF or replies a syntax
// error.
func (c *Client) onOffArg(a []byte) (on, ok bool) {
	switch {
	case argIs(a, "ON"):
		return true, true
	case argIs(a, "OFF"):
		return false, true
	}
	c.w.Error(ErrSyntax)
	return false, false
}

func cmdClientNoEvict(c *Client, args [][]byte) {
	on, ok := c.onOffArg(args[2])
	if !ok {
		return
	}
	c.mu.Lock()
	c.noEvict = on
	c.mu.Unlock()
	c.w.Status("OK")
}

// cmdClientNoTouch is CLIENT NO-TOUCH ON|OFF (redis 7.2): reads by this
// client leave the keys' access time alone.
func cmdClientNoTouch(c *Client, args [][]byte) {
	on, ok := c.onOffArg(args[2])
	if !ok {
		return
	}
	c.db.NoTouch = on
	c.mu.Lock()
	c.noTouch = on
	c.mu.Unlock()
	c.w.Status("OK")
}

// cmdClientReply is CLIENT REPLY ON|OFF|SKIP. OFF and SKIP reply nothing
// themselves; SKIP is ignored while replies are off. execReply applies the
// state.
func cmdClientReply(c *Client, args [][]byte) {
	switch a := args[2]; {
	case argIs(a, "ON"):
		c.replyOff, c.replySkip = false, false
		c.w.Status("OK")
	case argIs(a, "OFF"):
		c.replyOff = true
	case argIs(a, "SKIP"):
		if !c.replyOff {
			c.replySkipNext = true
		}
	default:
		c.w.Error(ErrSyntax)
	}
}

func cmdClientInfo(c *Client, args [][]byte) {
	c.w.Verbatim(string(c.appendInfoLine(nil, time.Now(), c, args)) + "\n")
}

// Client types, as CLIENT LIST TYPE and CLIENT KILL TYPE name them.
const (
	clientNormal = "normal"
	clientPubSub = "pubsub"
	clientMaster = "master"
	clientSlave  = "slave"
)

// clientTypeByName maps a TYPE argument to a client type, as Redis's
// getClientTypeByName ("replica" is "slave").
func clientTypeByName(b []byte) (string, bool) {
	switch {
	case argIs(b, "NORMAL"):
		return clientNormal, true
	case argIs(b, "PUBSUB"):
		return clientPubSub, true
	case argIs(b, "MASTER"):
		return clientMaster, true
	case argIs(b, "SLAVE"), argIs(b, "REPLICA"):
		return clientSlave, true
	}
	return "", false
}

// clientType is the client's type: pubsub while it has a subscription
// (RESP3 ones included, as Redis), else normal (Tandem has no
// replication). Any goroutine.
func (c *Client) clientType() string {
	switch {
	case c.isMaster(): // master_client.go
		return clientMaster
	case c.isReplica.Load():
		return clientSlave
	case c.isPubSub():
		return clientPubSub
	}
	return clientNormal
}

// cmdClientList is CLIENT LIST [TYPE type | ID id [id ...]]: one filter
// only, as redis 7.0. ID lists clients in argument order, repeats included.
func cmdClientList(c *Client, args [][]byte) {
	now := time.Now()
	var b []byte
	switch {
	case len(args) == 4 && argIs(args[2], "TYPE"):
		typ, ok := clientTypeByName(args[3])
		if !ok {
			c.w.Error(fmt.Sprintf(ErrUnknownClientType, cutC(string(args[3]), len(args[3]))))
			return
		}
		c.fe.forEachClient(func(o *Client) {
			if o.clientType() == typ {
				b = append(o.appendInfoLine(b, now, c, args), '\n')
			}
		})
	case len(args) > 3 && argIs(args[2], "ID"):
		ids := make([]int64, 0, len(args)-3)
		for _, a := range args[3:] {
			id, ok := num.ParseInt(a)
			if !ok {
				c.w.Error(ErrInvalidClientID)
				return
			}
			ids = append(ids, id)
		}
		for _, id := range ids {
			if v, ok := c.fe.clients.Load(uint64(id)); ok && id > 0 {
				b = append(v.(*Client).appendInfoLine(b, now, c, args), '\n')
			}
		}
	case len(args) != 2:
		c.w.Error(ErrSyntax)
		return
	default:
		c.fe.forEachClient(func(o *Client) {
			b = append(o.appendInfoLine(b, now, c, args), '\n')
		})
	}
	c.w.Verbatim(string(b))
}

// appendInfoLine appends the client's CLIENT LIST line (without the
// newline): redis 7.0's fields in its order, then 7.2's lib-name and
// lib-ver. caller is the client running the command that asks, on its own
// loop, and args that command's arguments: its own line shows its live
// buffers (infoBuffers).
func (c *Client) appendInfoLine(b []byte, now time.Time, caller *Client, args [][]byte) []byte {
	c.mu.Lock()
	name, libName, libVer := c.name, c.libName, c.libVer
	user := "(superuser)" // a replaying client, as Redis's master client
	if c.user != nil {
		user = c.user.Name()
	}
	noEvict, noTouch := c.noEvict, c.noTouch
	c.mu.Unlock()
	nSub, nPSub, nSSub := c.pubsubCounts()

	flags := make([]byte, 0, 4)
	switch {
	case c.isMonitor(): // cmd_monitor.go
		flags = append(flags, 'O')
	case c.isReplica.Load():
		flags = append(flags, 'S')
	case c.isMaster():
		flags = append(flags, 'M')
	}
	if nSub+nPSub+nSSub > 0 {
		flags = append(flags, 'P')
	}
	multi := c.txCount.Load()
	if multi >= 0 {
		flags = append(flags, 'x')
	}
	if c.blocked.Load() != notBlocked { // a paused client is blocked too, as Redis's postponed ones
		flags = append(flags, 'b')
	}
	trackFlags, redir := c.trackingListFlags()
	flags = append(flags, trackFlags...)
	if noEvict {
		flags = append(flags, 'e')
	}
	if noTouch {
		flags = append(flags, 'T')
	}
	if len(flags) == 0 {
		flags = append(flags, 'N')
	}
	cmd := "NULL"
	if lc := c.lastCmd.Load(); lc != nil {
		cmd = lc.Name
	}
	field := func(k, v string) {
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, ' ')
		}
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	field("id", strconv.FormatUint(c.id, 10))
	field("addr", c.peer.RemoteAddr())
	field("laddr", c.peer.LocalAddr())
	field("fd", itoa(int64(c.peer.FD())))
	field("name", name)
	field("age", itoa(int64(now.Sub(c.created)/time.Second)))
	field("idle", itoa(int64(c.peer.Idle()/time.Second)))
	field("flags", string(flags))
	field("db", itoa(int64(c.dbNum.Load())))
	field("sub", itoa(int64(nSub)))
	field("psub", itoa(int64(nPSub)))
	field("ssub", itoa(int64(nSSub)))
	field("multi", itoa(multi))
	m := c.infoBuffers(caller, args)
	field("qbuf", itoa(m.qbuf))
	field("qbuf-free", itoa(m.qbufFree))
	field("argv-mem", itoa(m.argvMem))
	field("multi-mem", itoa(m.multiMem))
	field("rbs", itoa(m.rbs))
	field("rbp", itoa(m.rbp))
	field("obl", itoa(m.obl))
	field("oll", itoa(m.oll))
	field("omem", itoa(m.omem))
	field("tot-mem", itoa(m.totMem))
	field("events", "r")
	field("cmd", cmd)
	field("user", user)
	field("redir", itoa(redir))
	field("resp", itoa(int64(c.proto.Load())))
	field("lib-name", libName)
	field("lib-ver", libVer)
	return b
}

// clientMem is a client's buffer figures for CLIENT LIST.
type clientMem struct {
	qbuf, qbufFree, argvMem, multiMem int64
	rbs, rbp, obl, oll, omem, totMem  int64
}

// clientStructSize is what a Client and its parser take, for tot-mem.
var clientStructSize = int64(unsafe.Sizeof(Client{}) + unsafe.Sizeof(Parser{}))

// infoBuffers returns the client's buffer figures, as Redis's CLIENT LIST
// computes them from its buffers:
//   - qbuf and qbuf-free: the unconsumed request bytes the server holds
//     for the connection and the free capacity of their buffer, as of the
//     end of its last event; for the caller, the bytes its running Serve
//     was given (its pipeline, as Redis's query buffer holds it until the
//     pipeline is run) and their buffer's free room;
//   - argv-mem: the caller's running command's argument bytes (other
//     clients run none while they are listed: 0, as in Redis, except that
//     a blocked client's arguments are not counted);
//   - multi-mem: the queued commands' argument bytes and slice headers;
//   - rbs and rbp: the capacity of the reply buffer the server reuses for
//     the connection and its largest batch of replies over the last 5
//     seconds (Redis's reply-buffer-peak-reset-time);
//   - obl: reply bytes built and not yet handed to the server (the
//     caller's replies so far in its pipeline; pub/sub messages waiting
//     for a subscriber's loop);
//   - omem: replies written but not yet taken by the socket, plus those
//     waiting messages; oll is 1 while there are such bytes (gnet queues
//     them in one buffer, not in Redis's list of 16 KB blocks), else 0;
//   - tot-mem: all of the above buffers plus the Client itself.
func (c *Client) infoBuffers(caller *Client, args [][]byte) clientMem {
	var m clientMem
	var cb server.ConnBuffers
	if c.bufs != nil {
		cb = c.bufs.Buffers()
	}
	m.qbuf, m.qbufFree = int64(cb.Query), int64(cb.QueryFree)
	m.rbs, m.rbp = int64(cb.Reply), int64(cb.ReplyPeak)
	m.omem = int64(cb.Queued)
	queryHeld := m.qbuf + m.qbufFree
	if c == caller {
		m.qbuf, m.qbufFree = int64(c.inLen), int64(c.inCap-c.inLen)
		for _, a := range args {
			m.argvMem += int64(len(a))
		}
		m.obl = int64(len(c.w.Buf))
		m.rbs = max(m.rbs, int64(cap(c.w.Buf)))
		m.rbp = max(m.rbp, m.obl)
	}
	c.mu.Lock()
	s := c.ps
	c.mu.Unlock()
	if s != nil {
		s.mu.Lock()
		waiting := int64(len(s.outbox))
		s.mu.Unlock()
		m.obl += waiting
		m.omem += waiting
	}
	if m.omem > 0 {
		m.oll = 1
	}
	m.multiMem = c.txMem.Load()
	m.totMem = clientStructSize + queryHeld + m.rbs + m.omem + m.argvMem + m.multiMem
	return m
}

// killFilter is CLIENT KILL's set of conditions; a client must meet all.
type killFilter struct {
	addr, laddr *string
	typ         string // "" = any
	id          uint64 // 0 = any
	skipMe      bool
	user        *users.User // nil = any
}

func (f *killFilter) matches(o, self *Client) bool {
	switch {
	case f.addr != nil && o.peer.RemoteAddr() != *f.addr,
		f.laddr != nil && o.peer.LocalAddr() != *f.laddr,
		f.typ != "" && o.clientType() != f.typ,
		f.id != 0 && o.id != f.id,
		f.skipMe && o == self,
		f.user != nil && o.boundUser() != f.user:
		return false
	}
	return true
}

// cmdClientKill is CLIENT KILL ip:port (old form: may kill the caller,
// replies OK or an error) or CLIENT KILL <filter> <value> ... (new form:
// ID, TYPE, USER, ADDR, LADDR, SKIPME; replies the number killed). The
// caller, when killed, gets its reply before the connection closes.
func cmdClientKill(c *Client, args [][]byte) {
	f := killFilter{skipMe: true}
	oldForm := len(args) == 3
	if oldForm {
		addr := string(args[2])
		f.addr, f.skipMe = &addr, false
	} else {
		for i := 2; i < len(args); i += 2 {
			opt := args[i]
			if i+1 >= len(args) {
				c.w.Error(ErrSyntax)
				return
			}
			val := args[i+1]
			switch {
			case argIs(opt, "ID"):
				id, ok := num.ParseInt(val)
				if !ok || id < 1 {
					c.w.Error(ErrClientIDPositive)
					return
				}
				f.id = uint64(id)
			case argIs(opt, "TYPE"):
				typ, ok := clientTypeByName(val)
				if !ok {
					c.w.Error(fmt.Sprintf(ErrUnknownClientType, cutC(string(val), len(val))))
					return
				}
				f.typ = typ
			case argIs(opt, "ADDR"):
				s := string(val)
				f.addr = &s
			case argIs(opt, "LADDR"):
				s := string(val)
				f.laddr = &s
			case argIs(opt, "USER"):
				if f.user = c.fe.users.Lookup(string(val)); f.user == nil {
					c.w.Error(fmt.Sprintf(ErrNoSuchUser, cutC(string(val), len(val))))
					return
				}
			case argIs(opt, "SKIPME"):
				switch {
				case argIs(val, "YES"):
					f.skipMe = true
				case argIs(val, "NO"):
					f.skipMe = false
				default:
					c.w.Error(ErrSyntax)
					return
				}
			default:
				c.w.Error(ErrSyntax)
				return
			}
		}
	}
	killed := 0
	c.fe.forEachClient(func(o *Client) {
		if !f.matches(o, c) {
			return
		}
		killed++
		if o == c {
			c.closeAfter = true
			return
		}
		o.kill()
	})
	switch {
	case !oldForm:
		c.w.Int(int64(killed))
	case killed == 0:
		c.w.Error(ErrNoSuchClient)
	default:
		c.w.Status("OK")
	}
}

// kill closes another client's connection: it leaves the client list at
// once (as Redis frees it at once), runs no further command, and its
// connection is closed on its own loop.
func (c *Client) kill() {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	c.fe.clients.Delete(c.id)
	c.dropSubscriptions() // at once, as Redis frees the client at once
	c.peer.Close()
}
