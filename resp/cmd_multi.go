package resp

import (
	"strings"
	"unsafe"

	"github.com/tandemkv/tandem/engine"
)

// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
//
// Inside MULTI, exec queues every command after the usual checks but those
// marked RunsInMulti (MULTI, EXEC, DISCARD, WATCH, QUIT, RESET); a command refused by a check flags the transaction, and
// EXEC then answers EXECABORT, as Redis's flagTransaction. EXEC compares
// the watched keys' marks (engine/watch.go) and runs the queue inside one
// exclusive section of the engine's gate (exclusive.go), so no command of
// any other client, of either protocol, runs in between — across all
// shards. Blocking commands run as non-blocking ones (canBlock), and
// blocked clients made ready by the queue are served after it.

func transactionCommands() []*Command {
	return []*Command{
		{Name: "multi", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy, Internal: RunsInMulti, Group: "transactions", ACL: []string{"@transaction"}, Since: "1.2.0", Summary: "Mark the start of a transaction block", Run: cmdMulti},
		{Name: "exec", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagSkipSlowlog, Internal: RunsInMulti | RunsQueue | EndsMulti, Group: "transactions", ACL: []string{"@transaction"}, Since: "1.2.0", Summary: "Execute all commands issued after MULTI", Run: cmdExec},
		{Name: "discard", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy, Internal: RunsInMulti | EndsMulti, Group: "transactions", ACL: []string{"@transaction"}, Since: "2.0.0", Summary: "Discard all commands issued after MULTI", Run: cmdDiscard},
		{Name: "watch", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy, Internal: RunsInMulti, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: "transactions", ACL: []string{"@transaction"}, Since: "2.2.0", Summary: "Watch the given keys to determine execution of the MULTI/EXEC block", Run: cmdWatch},
		{Name: "unwatch", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy, Group: "transactions", ACL: []string{"@transaction"}, Since: "2.2.0", Summary: "Forget about all watched keys", Run: cmdUnwatch},
	}
}

// txState is a client's open transaction.
type txState struct {
	queue   [][][]byte // copies of the queued commands' arguments
	aborted bool       // a queued command was refused: EXEC answers EXECABORT
	denyOOM bool       // a queued command is denyoom: EXEC is, too
	// writes: a queued command is a write (isWrite), so EXEC is refused
	// as one when writes are (MISCONF, READONLY, NOREPLICAS).
	writes bool
	// denyStale: a queued command is not allowed on a stale replica
	// (deniedWhenStale), so EXEC is not.
	denyStale bool
	// mayReplicate: a queued command may write, so CLIENT PAUSE WRITE
	// holds EXEC back (cmd_pause.go).
	mayReplicate bool
}

// watchedKey is one WATCH.
type watchedKey struct {
	db   engine.DB
	key  string
	mark engine.WatchMark
}

// queue adds a command to the transaction and answers QUEUED.
func (c *Client) queue(cmd *Command, args [][]byte) {
	tx := c.tx
	f := c.commandFlags(cmd, args)
	tx.denyOOM = tx.denyOOM || f&FlagDenyOOM != 0
	tx.mayReplicate = tx.mayReplicate || f&(FlagWrite|FlagMayReplicate) != 0
	tx.writes = tx.writes || f&FlagWrite != 0
	tx.denyStale = tx.denyStale || f&FlagStale == 0
	if !tx.aborted {
		q := copyArgs(args)
		tx.queue = append(tx.queue, q)
		c.txCount.Add(1)
		c.txMem.Add(argsMem(q))
	}
	c.w.Status("QUEUED")
}

// argsMem is what copyArgs's copy holds: the bytes and the slice headers.
func argsMem(args [][]byte) int64 {
	n := int64(len(args)) * int64(unsafe.Sizeof([]byte(nil)))
	for _, a := range args {
		n += int64(len(a))
	}
	return n
}

// setTx opens (tx) or ends (nil) the client's transaction, and what
// CLIENT LIST on other loops reads of it.
func (c *Client) setTx(tx *txState) {
	c.tx = tx
	if tx == nil {
		c.txCount.Store(-1)
	} else {
		c.txCount.Store(0)
	}
	c.txMem.Store(0)
}

// copyArgs copies arguments out of the read buffer into one allocation.
func copyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}

// reject answers a command refused before it ran, flagging an open
// transaction. A refused EXEC, inside MULTI or not, discards the
// transaction with its reason, as Redis's execCommandAbort ("ERR " left
// out, other codes kept).
func (c *Client) reject(cmd *Command, msg string) {
	if cmd != nil {
		cmd.stats.rejectedOne(c.stripe)
	}
	if cmd != nil && cmd.Internal&RunsQueue != 0 {
		c.discard()
		c.w.Error("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR "))
		return
	}
	if c.tx != nil {
		c.tx.aborted = true
	}
	c.w.Error(msg)
}

func cmdMulti(c *Client, _ [][]byte) {
	if c.tx != nil {
		c.w.Error("ERR MULTI calls can not be nested")
		return
	}
	c.setTx(&txState{})
	c.w.Status("OK")
}

func cmdExec(c *Client, _ [][]byte) {
	tx := c.tx
	if tx == nil {
		c.w.Error("ERR EXEC without MULTI")
		return
	}
	if tx.aborted {
		c.discard()
		c.w.Error("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	c.setTx(nil)
	c.exclusive(func() {
		defer c.stopExpiry()()
		intact := c.watchIntact()
		c.unwatch()
		if !intact {
			c.w.NullArray()
			return
		}
		c.w.Array(len(tx.queue))
		for _, args := range tx.queue {
			mark := len(c.w.Buf)
			c.exec(args)
			if len(c.w.Buf) > mark && c.w.Buf[mark] == '-' {
				c.countReplyError(c.w.Buf[mark+1:])
			}
		}
	})
}

func cmdDiscard(c *Client, _ [][]byte) {
	if c.tx == nil {
		c.w.Error("ERR DISCARD without MULTI")
		return
	}
	c.discard()
	c.w.Status("OK")
}

// discard drops the open transaction and the watches (DISCARD, RESET, a
// refused EXEC).
func (c *Client) discard() {
	c.setTx(nil)
	c.unwatch()
}

func cmdWatch(c *Client, args [][]byte) {
	if c.tx != nil {
		c.w.Error("ERR WATCH inside MULTI is not allowed")
		return
	}
	for _, k := range args[1:] {
		if c.watching(k) {
			continue
		}
		c.watched = append(c.watched, watchedKey{db: c.db, key: string(k), mark: c.db.Watch(k)})
	}
	c.w.Status("OK")
}

// watching reports whether key is already watched in the current database
// (a second WATCH keeps the first mark, as Redis keeps the first watch).
func (c *Client) watching(key []byte) bool {
	for _, wk := range c.watched {
		if wk.db.Num() == c.db.Num() && wk.key == string(key) {
			return true
		}
	}
	return false
}

func cmdUnwatch(c *Client, _ [][]byte) {
	c.unwatch()
	c.w.Status("OK")
}

// unwatch forgets every watched key.
func (c *Client) unwatch() {
	for _, wk := range c.watched {
		wk.db.Unwatch([]byte(wk.key))
	}
	c.watched = c.watched[:0]
}

// watchIntact reports whether no watched key changed since WATCH. It runs
// inside the exclusive section, so nothing can change them before the
// queue runs.
func (c *Client) watchIntact() bool {
	for _, wk := range c.watched {
		if !wk.db.Unchanged([]byte(wk.key), wk.mark) {
			return false
		}
	}
	return true
}
