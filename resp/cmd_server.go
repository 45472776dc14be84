package resp

import (
	"net"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// serverCommands is the server family (Redis group "server"). Arity, flags,
// since and summary are redis 7.0's (src/commands/*.json).
func serverCommands() []*Command {
	return []*Command{
		{Name: "command", Arity: -1, Flags: FlagLoading | FlagStale, ACL: []string{"@connection"}, Group: "server", Since: "2.8.13", Summary: "Get array of Redis command details", Run: cmdCommand, Subcommands: commandSubcommands()},
		{Name: "config", Arity: -2, Group: "server", Since: "2.0.0", Summary: "A container for server configuration commands", Subcommands: configSubcommands()},
		{Name: "info", Arity: -1, Flags: FlagLoading | FlagStale, ACL: []string{"@dangerous"}, Group: "server", Since: "1.0.0", Summary: "Get information and statistics about the server", Run: cmdInfo},
		{Name: "dbsize", Arity: 1, Flags: FlagReadonly | FlagFast, ACL: []string{"@keyspace"}, Group: "server", Since: "1.0.0", Summary: "Return the number of keys in the selected database", Run: cmdDBSize},
		{Name: "flushdb", Arity: -1, Flags: FlagWrite, Internal: PropagatedOnSuccess, ACL: []string{"@keyspace", "@dangerous"}, Group: "server", Since: "1.0.0", Summary: "Remove all keys from the current database", Run: cmdFlushDB},
		{Name: "flushall", Arity: -1, Flags: FlagWrite, Internal: PropagatedOnSuccess, ACL: []string{"@keyspace", "@dangerous"}, Group: "server", Since: "1.0.0", Summary: "Remove all keys from all databases", Run: cmdFlushAll},
		{Name: "swapdb", Arity: 3, Flags: FlagWrite | FlagFast, Internal: PropagatedOnSuccess, ACL: []string{"@keyspace", "@dangerous"}, Group: "server", Since: "4.0.0", Summary: "Swaps two Redis databases", Run: cmdSwapDB},
		{Name: "lastsave", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, ACL: []string{"@admin", "@dangerous"}, Group: "server", Since: "1.0.0", Summary: "Get the UNIX time stamp of the last successful save to disk", Run: cmdLastSave},
		{Name: "time", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, Group: "server", Since: "2.6.0", Summary: "Return the current server time", Run: cmdTime},
	}
}

func configSubcommands() []*Command {
	const admin = FlagAdmin | FlagNoScript | FlagLoading | FlagStale
	return []*Command{
		{Name: "config|get", Arity: -3, Flags: admin, Group: "server", Since: "2.0.0", Summary: "Get the values of configuration parameters", Run: cmdConfigGet},
		{Name: "config|set", Arity: -4, Flags: admin, Group: "server", Since: "2.0.0", Summary: "Set configuration parameters to the given values", Run: cmdConfigSet},
		{Name: "config|resetstat", Arity: 2, Flags: admin, Group: "server", Since: "2.0.0", Summary: "Reset the stats returned by INFO", Run: cmdConfigResetStat},
		{Name: "config|rewrite", Arity: 2, Flags: admin, Group: "server", Since: "2.8.0", Summary: "Rewrite the configuration file with the in memory configuration", Run: cmdConfigRewrite},
		{Name: "config|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Since: "5.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdConfigHelp},
	}
}

// configHelp is CONFIG HELP's text, redis 7.0's.
var configHelp = []string{
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
}

func cmdConfigHelp(c *Client, args [][]byte) { c.help(args[0], configHelp) }

// cmdConfigGet is CONFIG GET pattern [pattern ...]: a map in RESP3.
func cmdConfigGet(c *Client, args [][]byte) {
	patterns := make([]string, len(args)-2)
	for i, a := range args[2:] {
		patterns[i] = string(a)
	}
	pairs := c.fe.cfg.Get(patterns...)
	c.w.Map(len(pairs))
	for _, p := range pairs {
		c.w.BulkString(p[0])
		c.w.BulkString(p[1])
	}
}

// cmdConfigSet is CONFIG SET name value [name value ...], all or nothing;
// conf words the errors.
func cmdConfigSet(c *Client, args [][]byte) {
	words := make([]string, len(args)-2)
	for i, a := range args[2:] {
		words[i] = string(a)
	}
	pairs, err := conf.Pairs(words)
	if err == nil {
		err = c.fe.cfg.SetFrom(c.isLocal(), pairs...)
	}
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Status("OK")
}

// isLocal reports whether the client connects from the loopback interface
// or a unix socket (enable-protected-configs local).
func (c *Client) isLocal() bool {
	host, _, err := net.SplitHostPort(c.peer.RemoteAddr())
	if err != nil {
		return true // not host:port: a unix socket
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func cmdConfigResetStat(c *Client, _ [][]byte) {
	c.fe.resetStats(time.Now())
	c.w.Status("OK")
}

func cmdDBSize(c *Client, _ [][]byte) { c.w.Int(int64(c.db.Size())) }

// flushArgOK checks FLUSHDB/FLUSHALL's optional ASYNC|SYNC, as Redis's
// getFlushCommandFlags. Both modes free synchronously: the engine drops a
// database's shards one by one under their locks, which is short.
func (c *Client) flushArgOK(args [][]byte) bool {
	if len(args) == 1 || (len(args) == 2 && (argIs(args[1], "ASYNC") || argIs(args[1], "SYNC"))) {
		return true
	}
	c.w.Error(ErrSyntax)
	return false
}

func cmdFlushDB(c *Client, args [][]byte) {
	if !c.flushArgOK(args) {
		return
	}
	c.db.Flush()
	c.w.Status("OK")
}

func cmdFlushAll(c *Client, args [][]byte) {
	if !c.flushArgOK(args) {
		return
	}
	c.fe.eng.FlushAll()
	c.flushedAll()
	c.w.Status("OK")
}

// flushedAll is FLUSHALL's effect on the dump (snapshot.Manager's
// FlushedAll: a running BGSAVE is aborted, and with save rules the empty
// keyspace is saved): at once and out of the gate, as Redis saves before
// it replies; inside a transaction or a script, whose exclusive section a
// dump's barrier would wait for, right after it ends. Not while the AOF
// loads at start, whose own data follows.
func (c *Client) flushedAll() {
	p, log := c.fe.persist, c.fe.log
	if c.fe.svc.Loading.Active() {
		return
	}
	if c.inExclusive {
		go func() {
			if err := p.FlushedAll(); err != nil {
				log.Warn("saving the DB after FLUSHALL", "err", err)
			}
		}()
		return
	}
	var err error
	c.withoutGate(func() { err = p.FlushedAll() })
	if err != nil {
		log.Warn("saving the DB after FLUSHALL", "err", err)
	}
}

// dbIndexArg parses SWAPDB's index as Redis's getIntFromObjectOrReply with
// a message: not an integer and out of int32 both reply msg.
func (c *Client) dbIndexArg(b []byte, msg string) (int, bool) {
	v, ok := num.ParseInt(b)
	if !ok || v < -1<<31 || v > 1<<31-1 {
		c.w.Error(msg)
		return 0, false
	}
	return int(v), true
}

func cmdSwapDB(c *Client, args [][]byte) {
	a, ok := c.dbIndexArg(args[1], ErrInvalidFirstDB)
	if !ok {
		return
	}
	b, ok := c.dbIndexArg(args[2], ErrInvalidSecondDB)
	if !ok {
		return
	}
	n := c.fe.databases()
	if a < 0 || a >= n || b < 0 || b >= n {
		c.w.Error(ErrDBIndex)
		return
	}
	c.fe.eng.SwapDB(a, b, func() {
		c.propagateAs(args...)
		c.emitNow()
	})
	c.w.Status("OK")
}

// cmdTime is TIME: seconds and microseconds, two bulk strings. It reads the
// engine's clock, so that tests which move time see it move; with the
// system clock it has microsecond precision.
// cmdLastSave is LASTSAVE: the unix time of the last successful save. With
// no save yet it is the start time, as Redis sets server.lastsave at start.
func cmdLastSave(c *Client, _ [][]byte) {
	c.w.Int(c.fe.lastSave().Unix())
}

func cmdTime(c *Client, _ [][]byte) {
	var sec, usec int64
	if _, system := c.fe.eng.Clock().(engine.SystemClock); system {
		now := time.Now().UnixMicro()
		sec, usec = now/1e6, now%1e6
	} else {
		ms := c.fe.eng.Clock().NowMs()
		sec, usec = ms/1000, ms%1000*1000
	}
	c.w.Array(2)
	c.w.BulkString(strconv.FormatInt(sec, 10))
	c.w.BulkString(strconv.FormatInt(usec, 10))
}
