package resp

import (
	"fmt"

	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/users"
)

// connectionCommands is the connection family (Redis group "connection").
// Arity, flags, since and summary are redis 7.0's (src/commands/*.json).
func connectionCommands() []*Command {
	return []*Command{
		{Name: "ping", Arity: -1, Flags: FlagFast, Internal: AllowedSubscribed | RefusedOnMisconf, Group: "connection", Since: "1.0.0", Summary: "Ping the server", Run: cmdPing},
		{Name: "echo", Arity: 2, Flags: FlagLoading | FlagStale | FlagFast, Group: "connection", Since: "1.0.0", Summary: "Echo the given string", Run: cmdEcho},
		{Name: "quit", Arity: -1, Flags: FlagAllowBusy | FlagNoAuth | FlagFast | FlagNoScript | FlagLoading | FlagStale, Internal: RunsInMulti | AllowedSubscribed | EndsMulti, Group: "connection", Since: "1.0.0", Summary: "Close the connection", Run: cmdQuit},
		{Name: "auth", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Group: "connection", Since: "1.0.0", Summary: "Authenticate to the server", Run: cmdAuth},
		{Name: "hello", Arity: -1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Group: "connection", Since: "6.0.0", Summary: "Handshake with Redis", Run: cmdHello},
		{Name: "select", Arity: 2, Flags: FlagLoading | FlagStale | FlagFast, Group: "connection", Since: "1.0.0", Summary: "Change the selected database for the current connection", Run: cmdSelect},
		{Name: "reset", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth | FlagAllowBusy, Internal: RunsInMulti | AllowedSubscribed | EndsMulti, Group: "connection", Since: "6.2.0", Summary: "Reset the connection", Run: cmdReset},
		{Name: "client", Arity: -2, Group: "connection", Since: "2.4.0", Summary: "A container for client connection commands", Subcommands: clientSubcommands()},
	}
}

func cmdPing(c *Client, args [][]byte) {
	if len(args) <= 2 && c.ps != nil && c.pubsubPing(args) { // RESP2 subscribe mode
		return
	}
	switch len(args) {
	case 1:
		c.w.Status("PONG")
	case 2:
		c.w.Bulk(args[1])
	default:
		c.w.Error(WrongArgs("ping"))
	}
}

func cmdEcho(c *Client, args [][]byte) { c.w.Bulk(args[1]) }

func cmdQuit(c *Client, _ [][]byte) {
	c.w.Status("OK")
	c.closeAfter = true
}

// defaultUser is Redis's "default" user, whose password is requirepass and
// whom AUTH <password> logs in as. A client runs as the user it
// authenticated as (Client.user, acl.go).
const defaultUser = users.DefaultName

// checkPassword authenticates user/pass through the user store (package
// users), as Redis's ACLAuthenticateUser: an unknown or disabled user and
// a wrong password all fail alike. On success the client is authenticated;
// on failure it keeps whatever state it had (a failed AUTH does not log a
// client out).
func (c *Client) checkPassword(cmdName, user, pass []byte) bool {
	u, err := c.fe.users.Authenticate(string(user), string(pass))
	if err != nil {
		c.aclLog("auth", string(cmdName), string(user)) // ACL LOG (object: the command as sent), as Redis's ACLAuthenticateUser
		return false
	}
	c.bindUser(u)
	c.setAuthenticated(true)
	return true
}

// setAuthenticated records the authentication state, which also sets the
// parser's pre-AUTH request limits.
func (c *Client) setAuthenticated(ok bool) {
	c.authenticated = ok
	c.parser.SetAuthRequired(!ok)
}

// cmdAuth is AUTH [username] password.
func cmdAuth(c *Client, args [][]byte) {
	var user, pass []byte
	switch len(args) {
	case 2:
		if c.fe.users.Default().NoPass() { // as Redis: the one-argument form needs a password configured
			c.w.Error(ErrAuthNoPassword)
			return
		}
		user, pass = []byte(defaultUser), args[1]
	case 3:
		user, pass = args[1], args[2]
	default:
		c.w.Error(ErrSyntax)
		return
	}
	if !c.checkPassword(args[0], user, pass) {
		c.w.Error(ErrWrongPass)
		return
	}
	c.w.Status("OK")
}

// cmdHello is HELLO [protover [AUTH username password] [SETNAME clientname]].
// As Redis: the version is checked first, then every option's syntax, then
// AUTH, then that the client is authenticated, then SETNAME; only when all
// pass does the protocol switch, and the reply is in the new protocol.
func cmdHello(c *Client, args [][]byte) {
	ver := int64(0)
	next := 1
	if len(args) >= 2 {
		v, ok := num.ParseInt(args[1])
		if !ok {
			c.w.Error(ErrProtoVersion)
			return
		}
		if v < 2 || v > 3 {
			c.w.Error(ErrNoProto)
			return
		}
		ver, next = v, 2
	}
	var user, pass, name []byte
	var setName bool
	for j := next; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case argIs(args[j], "AUTH") && more >= 2:
			user, pass = args[j+1], args[j+2]
			j += 2
		case argIs(args[j], "SETNAME") && more >= 1:
			name, setName = args[j+1], true
			j++
		default:
			c.w.Error(fmt.Sprintf(ErrHelloOption, cutC(string(args[j]), len(args[j]))))
			return
		}
	}
	if user != nil && !c.checkPassword(args[0], user, pass) {
		c.w.Error(ErrWrongPass)
		return
	}
	if !c.authenticated {
		c.w.Error(ErrHelloNoAuth)
		return
	}
	if setName && !c.setName(name) {
		return
	}
	if ver != 0 {
		c.setProto(int(ver))
	}
	c.w.Map(7)
	c.w.BulkString("server")
	c.w.BulkString("redis")
	c.w.BulkString("version")
	c.w.BulkString(Version)
	c.w.BulkString("proto")
	c.w.Int(int64(c.w.Proto))
	c.w.BulkString("id")
	c.w.Int(int64(c.id))
	c.w.BulkString("mode")
	c.w.BulkString("standalone")
	c.w.BulkString("role")
	c.w.BulkString("master")
	c.w.BulkString("modules")
	c.w.Array(0)
}

// setProto switches the protocol replies are written in (2 or 3).
func (c *Client) setProto(v int) {
	if c.ps != nil && v != c.w.Proto {
		c.pubsubSetProto(v) // queued messages keep their protocol
	}
	c.w.Proto = v
	c.proto.Store(int32(v))
}

// cmdSelect is SELECT index.
func cmdSelect(c *Client, args [][]byte) {
	n, ok := c.int32Arg(args[1])
	if !ok {
		return
	}
	if n < 0 || n >= c.fe.databases() {
		c.w.Error(ErrDBIndex)
		return
	}
	c.selectDB(n)
	c.w.Status("OK")
}

// databases is the number of databases SELECT and SWAPDB accept: the
// configured count, bounded by what the engine holds.
func (f *Frontend) databases() int {
	return min(f.cfg.Databases(), f.eng.Databases())
}

// cmdReset is RESET: back to a fresh connection's state, as Redis's
// clearClientConnectionState: database 0, RESP2, no name, replies on,
// NO-EVICT and NO-TOUCH off, and authenticated only if the default user
// needs no password. The library name and version stay: they describe the
// client library, not the session.
func cmdReset(c *Client, _ [][]byte) {
	c.discard()
	c.monitorStop()
	c.resetPubSub()
	c.trackingOff()
	c.selectDB(0)
	c.setProto(2)
	c.setAuthenticated(!c.fe.users.AuthRequired())
	c.bindUser(c.fe.users.Default())
	c.mu.Lock()
	c.name = ""
	c.noEvict = false
	c.noTouch = false
	c.mu.Unlock()
	c.db.NoTouch = false
	c.replyOff, c.replySkip, c.replySkipNext = false, false, false
	c.w.Status("RESET")
}
