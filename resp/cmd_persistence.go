package resp

import (
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tandemkv/tandem/services"
	"github.com/tandemkv/tandem/snapshot"
)

// Persistence: SAVE, BGSAVE, SHUTDOWN and DEBUG RELOAD (LASTSAVE is in
// cmd_server.go). The work is snapshot.Manager's; a dump is always a
// point-in-time one (engine.Snapshot) taken without fork, so SAVE differs
// from BGSAVE only in answering when the file is on disk.

func persistenceCommands() []*Command {
	admin := []string{"@admin", "@dangerous"}
	return []*Command{
		{Name: "save", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading | FlagNoMulti, ACL: admin, Group: "server", Since: "1.0.0", Summary: "Synchronously save the dataset to disk", Run: cmdSave},
		{Name: "bgsave", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading, ACL: admin, Group: "server", Since: "1.0.0", Summary: "Asynchronously save the dataset to disk", Run: cmdBGSave},
		{Name: "bgrewriteaof", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading, ACL: admin, Group: "server", Since: "1.0.0", Summary: "Asynchronously rewrite the append-only file", Run: cmdBGRewriteAOF},
		{Name: "shutdown", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagNoMulti | FlagAllowBusy, ACL: admin, Group: "server", Since: "1.0.0", Summary: "Synchronously save the dataset to disk and then shut down the server", Run: cmdShutdown},
	}
}

// withoutGate runs fn with this client out of the engine's gate: a dump's
// barrier is an exclusive section, which a client inside the gate would
// wait for forever. Other clients of the loop wait meanwhile, as they do
// for Redis's SAVE.
func (c *Client) withoutGate(fn func()) {
	if c.inExclusive || !c.gateHeld {
		fn()
		return
	}
	// Nor holding the write stream's order: the barrier waits for the
	// other loops' batches, which may wait for it (effects.go).
	ordered := c.releaseOrder()
	gate := c.fe.eng.Gate()
	gate.Leave()
	defer func() {
		gate.EnterWait()
		if ordered {
			c.orderCommand()
		}
	}()
	fn()
}

func cmdSave(c *Client, _ [][]byte) {
	var err error
	c.withoutGate(func() { err = c.fe.persist.Save() })
	switch err {
	case nil:
		c.w.Status("OK")
	case snapshot.ErrInProgress:
		c.w.Error(err.Error())
	default:
		c.w.Error("ERR")
	}
}

func cmdBGSave(c *Client, args [][]byte) {
	schedule := false
	if len(args) > 1 {
		if len(args) > 2 || !strings.EqualFold(string(args[1]), "schedule") {
			c.w.Error(ErrSyntax)
			return
		}
		schedule = true
	}
	status, err := c.fe.persist.BGSave(schedule)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Status(status)
}

// cmdBGRewriteAOF is BGREWRITEAOF: a rewrite of the AOF from the
// keyspace's point-in-time capture (services.AppendOnly), in the
// background, or scheduled after a running BGSAVE.
func cmdBGRewriteAOF(c *Client, _ [][]byte) {
	status, err := c.fe.svc.AppendOnly.BGRewrite()
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.Status(status)
}

// cmdShutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. With SAVE,
// or with save rules and no NOSAVE, it saves first; a failed save keeps
// the server up unless FORCE. On success the connection closes unanswered,
// as Redis's does.
func cmdShutdown(c *Client, args [][]byte) {
	var o services.ShutdownOptions
	abort := false
	for _, a := range args[1:] {
		switch strings.ToLower(string(a)) {
		case "save":
			o.Save = true
		case "nosave":
			o.NoSave = true
		case "now":
			o.Now = true
		case "force":
			o.Force = true
		case "abort":
			abort = true
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	if o.Save && o.NoSave || abort && len(args) > 2 {
		c.w.Error(ErrSyntax)
		return
	}
	if abort {
		if !c.fe.svc.AbortShutdown() {
			c.w.Error("ERR No shutdown in progress.")
			return
		}
		c.w.Status("OK")
		return
	}
	if !o.Now && !c.canBlock() { // in EXEC: waiting for the replicas would block
		c.w.Error("ERR SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client")
		return
	}
	if c.outsideGate {
		// A busy script holds the keyspace: Redis refuses to save then,
		// and nothing can be paused or waited for; NOSAVE exits at once.
		if !o.NoSave && (o.Save || c.fe.persist.HasRules()) {
			c.w.Error(services.ErrShutdown.Error())
			return
		}
	} else {
		c.exclusive(c.fe.svc.PauseWritesForShutdown)
		if c.gateHeld && !c.inExclusive && c.fe.svc.ShutdownWaits(o) {
			c.shutdownOffLoop(o)
			return
		}
		var err error
		c.withoutGate(func() { err = c.fe.svc.FinishShutdown(o) })
		if err != nil {
			c.w.Error(err.Error())
			return
		}
	}
	c.endShutdown()
}

// endShutdown stops the server after a SHUTDOWN that prepared it.
func (c *Client) endShutdown() {
	c.fe.log.Warn("User requested shutdown...")
	c.closeAfter = true
	c.fe.shutdown()
}

// shutdownOffLoop waits for the replicas and saves on a goroutine of its
// own, the client parked as a blocked one (as WAIT's): the event loop
// must go on serving the replicas' links, which may be on it.
func (c *Client) shutdownOffLoop(o services.ShutdownOptions) {
	done := make(chan error, 1)
	peer := c.peer
	go func() {
		done <- c.fe.svc.FinishShutdown(o)
		_ = peer.Wake()
	}()
	c.blk = &blockState{skipReply: c.replyOff || c.replySkip, resume: func() bool {
		select {
		case err := <-done:
			if err != nil {
				c.w.Error(err.Error())
			} else {
				c.endShutdown()
			}
			return true
		default:
			return false
		}
	}}
	c.blocked.Store(blockedParked)
}

// debugReload is DEBUG RELOAD [MERGE|NOFLUSH|NOSAVE] (the DEBUG family is
// cmd_debug.go): save, flush, load, the round trip tests use.
func debugReload(c *Client, args [][]byte) {
	flush, merge, save := true, false, true
	for _, a := range args[2:] {
		switch strings.ToLower(string(a)) {
		case "merge":
			merge = true
		case "noflush":
			flush = false
		case "nosave":
			save = false
		default:
			c.w.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if save {
		var err error
		c.withoutGate(func() { err = c.fe.persist.Save() })
		if err != nil {
			c.w.Error("ERR") // redis 7.0.15 replies its bare shared.err
			return
		}
	}
	log, persist, eng := c.fe.log, c.fe.persist, c.fe.eng
	c.loadingSection(func(w *Writer) {
		if flush {
			eng.FlushAll()
		}
		// Load takes a missing dump for an empty one (a first start);
		// Redis's reload fails on it, after the flush.
		onto := snapshot.OntoEmpty // MERGE alone: flushed, nothing to merge with
		switch {
		case !flush && merge:
			onto = snapshot.OntoMerge
		case !flush:
			onto = snapshot.OntoKeep
		}
		var err error
		if _, err = os.Stat(persist.Path()); err == nil {
			_, err = persist.LoadOnto(onto)
		}
		if err != nil {
			log.Warn("DEBUG RELOAD could not load the dump", "err", err)
			w.Error("ERR Error trying to load the RDB dump")
			return
		}
		w.Status("OK")
	})
}

// loadingSection runs a reload, which writes its reply to w, as Redis's
// DEBUG RELOAD and LOADAOF load (startLoading): exclusively, the keyspace
// marked as loading, so that other clients, once the section has held
// the keyspace past busy-reply-threshold and they are served again (as
// beside a busy script), get LOADING; INFO shows the progress.
func (c *Client) loadingSection(run func(w *Writer)) {
	fe := c.fe
	threshold := max(fe.cfg.BusyReplyThreshold(), time.Millisecond)
	c.exclusiveDetached(threshold, func(w *Writer) {
		fe.svc.Loading.Begin()
		defer fe.svc.Loading.Done()
		var mu sync.Mutex
		running := true
		busy := time.AfterFunc(threshold, func() {
			mu.Lock()
			defer mu.Unlock()
			if running {
				fe.eng.Gate().SetBusy()
			}
		})
		defer func() {
			mu.Lock()
			running = false
			mu.Unlock()
			busy.Stop()
		}()
		run(w)
	})
}

// debugLoadAOF is DEBUG LOADAOF: the AOF written out, the keyspace
// emptied and the AOF loaded back, every other client of both ports held
// off meanwhile (services.AppendOnly.Reload, which says where Tandem
// refuses what makes Redis exit).
func debugLoadAOF(c *Client, _ [][]byte) {
	fe := c.fe
	c.loadingSection(func(w *Writer) {
		if err := fe.svc.AppendOnly.Reload(fe.NewSectionReplay()); err != nil {
			fe.log.Warn("DEBUG LOADAOF could not load the append only file", "err", err)
			msg := err.Error()
			if !strings.HasPrefix(msg, "ERR ") {
				msg = "ERR " + msg
			}
			w.Error(msg)
			return
		}
		w.Status("OK")
	})
}
