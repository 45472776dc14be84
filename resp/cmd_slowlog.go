package resp

import (
	"strings"
)

// SLOWLOG GET/LEN/RESET/HELP over the process's one slow log
// (services.Slowlog), which the memcached port records into too. A command
// is logged after it ran (countRun), with the arguments as sent, the
// secrets Redis redacts replaced by "(redacted)".

func slowlogCommands() []*Command {
	const g = "server"
	f := FlagAdmin | FlagLoading | FlagStale
	acl := []string{"@admin", "@dangerous"}
	return []*Command{
		{Name: "slowlog", Arity: -2, Group: g, Since: "2.2.12", Summary: "A container for slow log commands", Subcommands: []*Command{
			{Name: "slowlog|get", Arity: -2, Flags: f, ACL: acl, Group: g, Since: "2.2.12", Summary: "Get the slow log's entries", Run: cmdSlowlogGet},
			{Name: "slowlog|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: g, Since: "6.2.0", Summary: "Show helpful text about the different subcommands", Run: cmdSlowlogHelp},
			{Name: "slowlog|len", Arity: 2, Flags: f, ACL: acl, Group: g, Since: "2.2.12", Summary: "Get the slow log's length", Run: cmdSlowlogLen},
			{Name: "slowlog|reset", Arity: 2, Flags: f, ACL: acl, Group: g, Since: "2.2.12", Summary: "Clear all entries from the slow log", Run: cmdSlowlogReset},
		}},
	}
}

// slowlogHelp is SLOWLOG HELP's text, redis 7.0's.
var slowlogHelp = []string{
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
}

func cmdSlowlogHelp(c *Client, args [][]byte) { c.help(args[0], slowlogHelp) }

func cmdSlowlogLen(c *Client, _ [][]byte) { c.w.Int(int64(c.fe.slow.Len())) }

func cmdSlowlogReset(c *Client, _ [][]byte) {
	c.fe.slow.Reset()
	c.w.Status("OK")
}

// errSlowlogCount is SLOWLOG GET's reply to a count that is not an
// integer of at least -1.
const errSlowlogCount = "ERR count should be greater than or equal to -1"

// cmdSlowlogGet is SLOWLOG GET [count]: count entries, newest first
// (default 10, -1 all), each id, unix time, microseconds, arguments,
// client addr:port and name.
func cmdSlowlogGet(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.subcommandSyntaxError(args)
		return
	}
	count := int64(10)
	if len(args) == 3 {
		var ok bool
		if count, ok = c.countArg(args[2], -1, errSlowlogCount); !ok {
			return
		}
	}
	entries := c.fe.slow.Get(count)
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Array(6)
		c.w.Int(e.ID)
		c.w.Int(e.Time)
		c.w.Int(e.Duration)
		c.w.Array(len(e.Args))
		for _, a := range e.Args {
			c.w.Bulk(a)
		}
		c.w.Bulk([]byte(e.Peer))
		c.w.Bulk([]byte(e.Name))
	}
}

// slowlogRecord logs a command that ran usec microseconds, if it is slow
// enough and not flagged skip_slowlog (EXEC: its commands are logged one
// by one).
func (c *Client) slowlogRecord(cmd *Command, args [][]byte, usec int64) {
	if cmd.Flags&FlagSkipSlowlog != 0 || !c.fe.slow.Slower(usec) {
		return
	}
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	c.fe.slow.Add(slowlogRedact(args), usec, c.peer.RemoteAddr(), name)
}

// redacted replaces a secret in the slow log, as Redis's
// redactClientCommandArgument.
var redacted = []byte("(redacted)")

// slowlogRedact returns args with the arguments Redis redacts replaced:
// AUTH's password (and user), HELLO AUTH's user and password, ACL
// SETUSER's arguments after the name of the command, MIGRATE's AUTH and
// AUTH2 credentials, and CONFIG SET's values of sensitive directives.
// args itself is not changed.
func slowlogRedact(args [][]byte) [][]byte {
	var hide []int
	switch {
	case argIs(args[0], "AUTH") && len(args) <= 3:
		for i := 1; i < len(args); i++ {
			hide = append(hide, i)
		}
	case argIs(args[0], "HELLO"):
		for j := 2; j < len(args); j++ {
			more := len(args) - 1 - j
			if argIs(args[j], "AUTH") && more >= 2 {
				hide = append(hide, j+1, j+2)
				j += 2
			} else if argIs(args[j], "SETNAME") && more >= 1 {
				j++
			} else {
				break
			}
		}
	case argIs(args[0], "ACL") && len(args) >= 3 && argIs(args[1], "SETUSER"):
		for i := 2; i < len(args); i++ {
			hide = append(hide, i)
		}
	case argIs(args[0], "MIGRATE"):
		hide = migrateSecrets(args)
	case argIs(args[0], "CONFIG") && len(args) >= 4 && argIs(args[1], "SET"):
		for i := 2; i+1 < len(args); i += 2 {
			switch strings.ToLower(string(args[i])) {
			case "requirepass", "masterauth", "masteruser":
				hide = append(hide, i+1)
			}
		}
	}
	if len(hide) == 0 {
		return args
	}
	out := append([][]byte(nil), args...)
	for _, i := range hide {
		out[i] = redacted
	}
	return out
}

// migrateSecrets are the indexes of MIGRATE's AUTH password and AUTH2
// user and password, found as Redis's option loop finds them: it stops
// at KEYS and at the first error.
func migrateSecrets(args [][]byte) []int {
	var hide []int
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case argIs(args[j], "COPY"), argIs(args[j], "REPLACE"):
		case argIs(args[j], "AUTH") && more >= 1:
			hide = append(hide, j+1)
			j++
		case argIs(args[j], "AUTH2") && more >= 2:
			hide = append(hide, j+1, j+2)
			j += 2
		default:
			return hide
		}
	}
	return hide
}
