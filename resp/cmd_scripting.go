package resp

import (
	"fmt"
	"sync"
	"time"

	"github.com/tandemkv/tandem/internal/glob"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/scripting"
)

// Lua scripting: EVAL, EVALSHA, their _RO variants, SCRIPT, FCALL,
// FCALL_RO and FUNCTION, as redis-server 7.0.15 (package scripting holds
// the Lua side).
//
// A script runs inside an exclusive section (exclusive.go): nothing else
// touches the keyspace meanwhile. Its redis.call runs the command on a
// script client, a *Client without a connection whose writer captures the
// reply, through the same table and handlers as clients, with the checks
// Redis's scriptCall makes (arity, noscript, read-only scripts, OOM). Past
// busy-reply-threshold the script marks the gate busy, so other loops
// answer BUSY and accept SCRIPT KILL or FUNCTION KILL (busy.go).

// scriptingCommands is the scripting family (Redis group "scripting").
// Arity, flags, since and summary are redis 7.0.15's. Redis also declares
// a keynum key spec, which the table cannot express yet: COMMAND INFO
// shows no key spec for them.
func scriptingCommands() []*Command {
	const (
		base = FlagNoScript | FlagStale | FlagSkipMonitor | FlagNoMandatoryKeys
		ro   = FlagReadonly | base
	)
	acl := []string{"@scripting"}
	aclRO := []string{"@scripting", "-@read"}
	keys := func(args [][]byte) []int { return numkeysKeys(args, 0, 2) }
	return []*Command{
		{Name: "eval", Arity: -3, Flags: base | FlagMayReplicate, Keys: keys, ACL: acl, KeyFlags: []KeyFlag{ksRWAccessUpd}, VarKeyFlags: numkeysFallbackFlags(2), Group: "scripting", Since: "2.6.0", Summary: "Execute a Lua script server side", Run: func(c *Client, a [][]byte) { c.evalGeneric(a, false, false) }},
		{Name: "evalsha", Arity: -3, Flags: base | FlagMayReplicate, Keys: keys, ACL: acl, KeyFlags: []KeyFlag{ksRWAccessUpd}, VarKeyFlags: numkeysFallbackFlags(2), Group: "scripting", Since: "2.6.0", Summary: "Execute a Lua script server side", Run: func(c *Client, a [][]byte) { c.evalGeneric(a, true, false) }},
		{Name: "eval_ro", Arity: -3, Flags: ro, Internal: NotTracked, Keys: keys, ACL: aclRO, VarKeyFlags: numkeysFallbackFlags(2), Group: "scripting", Since: "7.0.0", Summary: "Execute a read-only Lua script server side", Run: func(c *Client, a [][]byte) { c.evalGeneric(a, false, true) }},
		{Name: "evalsha_ro", Arity: -3, Flags: ro, Internal: NotTracked, Keys: keys, ACL: aclRO, VarKeyFlags: numkeysFallbackFlags(2), Group: "scripting", Since: "7.0.0", Summary: "Execute a read-only Lua script server side", Run: func(c *Client, a [][]byte) { c.evalGeneric(a, true, true) }},
		{Name: "fcall", Arity: -3, Flags: base | FlagMayReplicate, Keys: keys, ACL: acl, KeyFlags: []KeyFlag{ksRWAccessUpd}, VarKeyFlags: numkeysFallbackFlags(2), Group: "scripting", Since: "7.0.0", Summary: "Invoke a function", Run: func(c *Client, a [][]byte) { c.fcallGeneric(a, false) }},
		{Name: "fcall_ro", Arity: -3, Flags: ro, Internal: NotTracked, Keys: keys, ACL: aclRO, VarKeyFlags: numkeysFallbackFlags(2), Group: "scripting", Since: "7.0.0", Summary: "Invoke a read-only function", Run: func(c *Client, a [][]byte) { c.fcallGeneric(a, true) }},
		{Name: "script", Arity: -2, Group: "scripting", Since: "2.6.0", Summary: "A container for Lua scripts management commands", Subcommands: scriptSubcommands()},
		{Name: "function", Arity: -2, Group: "scripting", Since: "7.0.0", Summary: "A container for function commands", Subcommands: functionSubcommands()},
	}
}

func scriptSubcommands() []*Command {
	acl := []string{"@scripting"}
	ns := FlagNoScript
	return []*Command{
		{Name: "script|debug", Arity: 3, Flags: ns, ACL: acl, Group: "scripting", Since: "3.2.0", Summary: "Set the debug mode for executed scripts.", Run: cmdScriptDebug},
		{Name: "script|exists", Arity: -3, Flags: ns, ACL: acl, Group: "scripting", Since: "2.6.0", Summary: "Check existence of scripts in the script cache.", Run: cmdScriptExists},
		{Name: "script|flush", Arity: -2, Flags: ns, ACL: acl, Group: "scripting", Since: "2.6.0", Summary: "Remove all the scripts from the script cache.", Run: cmdScriptFlush},
		{Name: "script|help", Arity: 2, Flags: FlagLoading | FlagStale, ACL: acl, Group: "scripting", Since: "5.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdScriptHelp},
		{Name: "script|kill", Arity: 2, Flags: ns | FlagAllowBusy, ACL: acl, Group: "scripting", Since: "2.6.0", Summary: "Kill the script currently in execution.", Run: func(c *Client, _ [][]byte) { c.scriptKill(true) }},
		{Name: "script|load", Arity: 3, Flags: ns | FlagStale, ACL: acl, Group: "scripting", Since: "2.6.0", Summary: "Load the specified Lua script into the script cache.", Run: cmdScriptLoad},
	}
}

// functionSubcommands are FUNCTION's; DUMP and RESTORE (Redis's RDB
// payload format) are not implemented.
func functionSubcommands() []*Command {
	acl := []string{"@scripting"}
	ns := FlagNoScript
	return []*Command{
		{Name: "function|delete", Arity: 3, Flags: FlagWrite | ns, Internal: PropagatedOnSuccess, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Delete a function by name", Run: cmdFunctionDelete},
		{Name: "function|flush", Arity: -2, Flags: FlagWrite | ns, Internal: PropagatedOnSuccess, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Deleting all functions", Run: cmdFunctionFlush},
		{Name: "function|help", Arity: 2, Flags: FlagLoading | FlagStale, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdFunctionHelp},
		{Name: "function|kill", Arity: 2, Flags: ns | FlagAllowBusy, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Kill the function currently in execution.", Run: func(c *Client, _ [][]byte) { c.scriptKill(false) }},
		{Name: "function|list", Arity: -2, Flags: ns, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "List information about all the functions", Run: cmdFunctionList},
		{Name: "function|load", Arity: -3, Flags: FlagWrite | FlagDenyOOM | ns, Internal: PropagatedOnSuccess, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Create a function with the given arguments (name, code, description)", Run: cmdFunctionLoad},
		{Name: "function|dump", Arity: 2, Flags: ns, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Dump all functions into a serialized binary payload", Run: cmdFunctionDump},
		{Name: "function|restore", Arity: -3, Flags: FlagWrite | FlagDenyOOM | ns, Internal: PropagatedOnSuccess, ACL: acl,
			Group: "scripting", Since: "7.0.0", Summary: "Restore all the functions on the given payload", Run: cmdFunctionRestore},
		{Name: "function|stats", Arity: 2, Flags: ns | FlagAllowBusy, ACL: acl, Group: "scripting", Since: "7.0.0", Summary: "Return information about the function currently running (name, description, duration)", Run: cmdFunctionStats},
	}
}

// Error replies of the scripting commands, checked against redis-server
// 7.0.15.
const (
	ErrNoScript          = "NOSCRIPT No matching script. Please use EVAL."
	ErrNumkeysNegative   = "ERR Number of keys can't be negative"
	ErrNumkeysTooMany    = "ERR Number of keys can't be greater than number of args"
	ErrFcallNumkeys      = "ERR Bad number of keys provided"
	ErrFunctionNotFound  = "ERR Function not found"
	ErrScriptWriteFlagRO = "ERR Can not execute a script with write flag using *_ro command."
	ErrScriptOOMFlag     = "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'"
	// A script declaring writes, or not allow-stale, refused by the
	// server's state (scriptPrepareForRun).
	ErrScriptStaleFlag       = "MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and 'allow-stale' flag is not set on the script."
	ErrScriptReadOnlyReplica = "READONLY Can not run script with write flag on readonly replica"
	ErrScriptMisconfRDB      = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts."
	ErrScriptMisconfAOF      = "MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts. AOF error: "
	ErrScriptFlushArg        = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	ErrFunctionFlushArg      = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	ErrLibraryNotFound       = "ERR Library not found"
	ErrScriptDebugArg        = "ERR Use SCRIPT DEBUG YES/SYNC/NO"
	ErrScriptDebug           = "ERR SCRIPT DEBUG (the Lua debugger) is not supported"
	// Refusals of redis.call, before the "ERR " the script adds.
	errScriptUnknown   = "Unknown Redis command called from script"
	errScriptArity     = "Wrong number of args calling Redis command from script"
	errScriptNoScript  = "This Redis command is not allowed from script"
	errScriptReadOnly  = "Write commands are not allowed from read-only scripts."
	errScriptOOM       = "-" + ErrOOM
	busyFunctionScript = scripting.ErrBusyFunc
)

// scripts returns the scripting engine the front-end was given.
func (f *Frontend) scripts() *scripting.Engine { return f.scriptEngine }

// denyOOM reports whether a script with these flags is refused while
// used memory is over maxmemory: scripts with a shebang declare their
// writes, and Redis then treats EVAL and FCALL as denyoom unless the
// script allows OOM or does not write.
func denyOOM(flags scripting.Flags) bool {
	return flags&scripting.FlagEvalCompat == 0 && flags&(scripting.FlagAllowOOM|scripting.FlagNoWrites) == 0
}

// parseNumkeys reads EVAL's and FCALL's numkeys; bad is the reply when
// it is not an integer.
func (c *Client) parseNumkeys(args [][]byte, bad string) (int, bool) {
	n, ok := num.ParseInt(args[2])
	switch {
	case !ok:
		c.w.Error(bad)
		return 0, false
	case n > int64(len(args)-3):
		c.w.Error(ErrNumkeysTooMany)
		return 0, false
	case n < 0:
		c.w.Error(ErrNumkeysNegative)
		return 0, false
	}
	return int(n), true
}

// evalGeneric is EVAL, EVALSHA, EVAL_RO and EVALSHA_RO, as Redis 7.0's
// evalGenericCommand (with processCommand's OOM check first).
func (c *Client) evalGeneric(args [][]byte, sha, ro bool) {
	args = copyArgs(args) // the script may outlive the read buffer (exclusiveDetached)
	eng := c.fe.scripts()
	if sha && len(args[1]) != 40 {
		c.w.Error(ErrNoScript)
		return
	}
	var s *scripting.Script
	var flags scripting.Flags
	if sha {
		s = eng.Cache.Get(string(args[1]))
		if s != nil {
			flags = s.Flags
		}
	} else if s = eng.Cache.Get(scripting.SHA1Hex(args[1])); s != nil {
		flags = s.Flags
	} else {
		flags, _, _ = scripting.ShebangFlags(string(args[1]))
	}
	if (s != nil || !sha) && denyOOM(flags) && c.fe.overMemory() {
		c.w.Error(ErrOOM)
		return
	}
	numkeys, ok := c.parseNumkeys(args, ErrNotInteger)
	if !ok {
		return
	}
	if s == nil {
		if sha {
			c.w.Error(ErrNoScript)
			return
		}
		var msg string
		if s, msg = eng.Cache.Load(args[1]); s == nil {
			c.w.Error(msg)
			return
		}
	}
	if !c.scriptMayRun(s.Flags, ro) {
		return
	}
	h := c.newScriptHost(s.Flags, ro)
	run := c.newScriptRun(h, args, numkeys)
	c.runExclusive(h, false, func(w scripting.ReplyWriter, started scripting.Started) {
		eng.RunScript(s, run, w, started)
	})
}

// fcallGeneric is FCALL and FCALL_RO.
func (c *Client) fcallGeneric(args [][]byte, ro bool) {
	args = copyArgs(args) // the script may outlive the read buffer (exclusiveDetached)
	eng := c.fe.scripts()
	f := eng.Functions.Get(string(args[1]))
	if f != nil && denyOOM(f.Flags) && c.fe.overMemory() {
		c.w.Error(ErrOOM)
		return
	}
	if f == nil {
		c.w.Error(ErrFunctionNotFound)
		return
	}
	numkeys, ok := c.parseNumkeys(args, ErrFcallNumkeys)
	if !ok || !c.scriptMayRun(f.Flags, ro) {
		return
	}
	h := c.newScriptHost(f.Flags, ro)
	run := c.newScriptRun(h, args, numkeys)
	c.runExclusive(h, true, func(w scripting.ReplyWriter, started scripting.Started) {
		eng.RunFunction(f, run, w, started)
	})
}

// scriptMemoryFloor is what a script may allocate however full the
// server is: enough to run the script that frees memory.
const scriptMemoryFloor = 16 << 20

// newScriptRun is a run of EVAL's or FCALL's args, bounded: strings as
// proto-max-bulk-len, heap growth by what is left under maxmemory (at
// least scriptMemoryFloor), or scripting.DefaultMemoryLimit without one.
func (c *Client) newScriptRun(h *scriptHost, args [][]byte, numkeys int) *scripting.Run {
	run := &scripting.Run{Host: h, Keys: args[3 : 3+numkeys], Args: args[3+numkeys:], Command: args}
	h.trackKeys = run.Keys // what its reads register for a tracking caller (tracking_client.go)
	run.MaxString = c.fe.cfg.ProtoMaxBulkLen()
	if maxMem := c.fe.cfg.MaxMemory(); maxMem > 0 {
		run.MemoryLimit = max(maxMem-c.fe.eng.UsedMemory(), scriptMemoryFloor)
	}
	return run
}

// scriptMayRun is scriptPrepareForRun's checks of a script's declared
// flags against the server's state; it replies the refusal. A command
// refused by processCommand for the same state never gets here (the
// flags are the command's, commandFlags) but inside EXEC, whose queue
// may change the state it was accepted in (REPLICAOF, CONFIG SET).
func (c *Client) scriptMayRun(flags scripting.Flags, ro bool) bool {
	refuse := func(msg string) bool {
		c.w.Error(msg)
		return false
	}
	if flags&scripting.FlagEvalCompat != 0 { // no shebang: Redis's backward compatible checks
		if c.staleReplica() {
			return refuse(errMasterDown)
		}
		return true
	}
	if flags&scripting.FlagAllowStale == 0 && c.staleReplica() {
		return refuse(ErrScriptStaleFlag)
	}
	if flags&scripting.FlagNoWrites != 0 {
		return true // no-writes implies allow-oom
	}
	if c.readOnlyReplica() {
		return refuse(ErrScriptReadOnlyReplica)
	}
	if !c.obeys {
		if msg := c.fe.scriptDiskError(); msg != "" {
			return refuse(msg)
		}
	}
	if ro {
		return refuse(ErrScriptWriteFlagRO)
	}
	if c.tooFewReplicas() {
		return refuse(errNoReplicas)
	}
	if flags&scripting.FlagAllowOOM == 0 && c.fe.overMemory() {
		return refuse(ErrScriptOOMFlag)
	}
	return true
}

// scriptHost runs a script's redis.call on a script client.
type scriptHost struct {
	c            *Client // the script client
	caller       *Client
	readOnly     bool
	allowOOM     bool
	oomAtStart   bool
	running      *scripting.Running
	wroteLocally bool
	trackKeys    [][]byte // the script's keys (KEYS)
}

// newScriptHost makes the script client: no connection, the caller's
// database, replies captured, never blocking, inside the exclusive
// section already.
func (c *Client) newScriptHost(flags scripting.Flags, ro bool) *scriptHost {
	sc := &Client{fe: c.fe, peer: c.peer, id: c.id, created: c.created, authenticated: true, inExclusive: true}
	sc.events.Origin = c.id // after a SELECT too, the caller's writes
	// The script's effects join its transaction's, or are its own, fed
	// at the end of its section (runExclusive). Its writes are counted
	// apart: a busy script runs on a goroutine of its own while its
	// caller may serve SCRIPT KILL.
	sc.fx, sc.writesTo = c.fx, &sc.writes
	if !c.inExclusive {
		sc.fx = &effects{}
	}
	// A script judges expiry at its start, inside a transaction too
	// (Redis's scriptTimeSnapshot comes before the transaction's time);
	// one the master sent, or an AOF holds, sees none (NewReplay).
	sc.expiryAt = c.nowMs()
	if c.obeys {
		sc.expiryAt = c.expiryAt
	}
	sc.db = sc.countWrites(c.db.At(sc.expiryAt))
	sc.dbNum.Store(c.dbNum.Load())
	compat := flags&scripting.FlagEvalCompat != 0
	// allow-oom: the script's commands are not refused at maxmemory, by
	// Call's check nor by the engine's (Redis's commands never check).
	sc.db.MayOvershoot = !compat && flags&scripting.FlagAllowOOM != 0
	return &scriptHost{
		c:          sc,
		caller:     c,
		readOnly:   ro || (!compat && flags&scripting.FlagNoWrites != 0),
		allowOOM:   !compat && flags&scripting.FlagAllowOOM != 0,
		oomAtStart: c.fe.overMemory(),
	}
}

// Call implements scripting.Host as Redis's scriptCall.
func (h *scriptHost) Call(args [][]byte, proto int) ([]byte, string) {
	c := h.c
	fe := c.fe
	cmd := fe.table.Lookup(args[0], c.scratch[:])
	if cmd != nil && cmd.sub != nil && len(args) >= 2 {
		cmd = cmd.subcommand(args[1], c.scratch[:])
	}
	if cmd == nil {
		fe.countError("ERR")
		return nil, errScriptUnknown
	}
	refuse := func(msg string) ([]byte, string) {
		cmd.stats.rejectedOne(c.stripe)
		code := "ERR"
		if len(msg) > 0 && msg[0] == '-' {
			code = errorCode([]byte(msg[1:]))
		}
		fe.countError(code)
		return nil, msg
	}
	if !cmd.arityOK(len(args)) {
		return refuse(errScriptArity)
	}
	if cmd.Flags&FlagNoScript != 0 && !fe.debug.allowNoScript.Load() {
		return refuse(errScriptNoScript)
	}
	if cmd.Flags&FlagStale == 0 && h.caller.staleReplica() { // scriptVerifyAllowStale
		return refuse(errScriptStale)
	}
	if msg := h.caller.scriptACLDenied(cmd, args); msg != "" { // the caller's user (acl.go)
		return refuse(msg)
	}
	if h.readOnly && cmd.Flags&(FlagWrite|FlagMayReplicate) != 0 {
		return refuse(errScriptReadOnly)
	}
	if cmd.Flags&FlagWrite != 0 && !h.wroteLocally { // scriptVerifyWriteCommandAllow: not once the script wrote
		if h.caller.readOnlyReplica() {
			return refuse("-" + errReadOnlyReplica)
		}
		if msg := fe.diskError(); msg != "" {
			return refuse("-" + msg)
		}
		if h.caller.tooFewReplicas() {
			return refuse("-" + errNoReplicas)
		}
	}
	if !h.allowOOM && !h.wroteLocally && h.oomAtStart && cmd.Flags&FlagDenyOOM != 0 && fe.cfg.MaxMemory() > 0 {
		return refuse(errScriptOOM)
	}
	if cmd.Flags&FlagWrite != 0 {
		h.wroteLocally = true
		if h.running != nil {
			h.running.MarkWrite()
		}
	}
	c.w.Proto = proto
	c.w.Buf = c.w.Buf[:0]
	c.lastCmd.Store(cmd)
	start := statNow()
	writes := c.writesTo.Count()
	cmd.Run(c, args)
	c.recordEffect(cmd, args, writes, c.w.Buf) // the write stream (effects.go)
	h.caller.trackingScriptRead(cmd, h.trackKeys)
	// Keyspace events queued for after the command's own (notify.go): on
	// the caller's queue, whose database handle the script starts with,
	// and on the script client's own after a SELECT.
	h.caller.events.Flush()
	c.events.Flush()
	c.countRun(cmd, nil, start, c.w.Buf)
	if len(c.w.Buf) > 0 && c.w.Buf[0] == '-' {
		fe.countError(errorCode(c.w.Buf[1:]))
	}
	c.monitorFeed(cmd, args) // as "[<db> lua]" (cmd_monitor.go)
	return c.w.Buf, ""
}

// Log implements scripting.Host: redis.log goes to the server log.
func (h *scriptHost) Log(level int, msg string) { scripting.LogTo(h.c.fe.log, level, msg) }

// ACLCheck implements scripting.Host as Redis's acl_check_cmd: the
// caller's user against the command and its keys, with no ACL LOG entry.
func (h *scriptHost) ACLCheck(args [][]byte) (known, allowed bool) {
	cmd := h.c.fe.table.Lookup(args[0], h.c.scratch[:])
	if cmd != nil && cmd.sub != nil && len(args) >= 2 {
		cmd = cmd.subcommand(args[1], h.c.scratch[:])
	}
	if cmd == nil {
		return false, false
	}
	return true, h.caller.userDenial(cmd, args).reason == ""
}

// runExclusive runs a script inside an exclusive section, marking the
// gate busy once it has run for busy-reply-threshold.
func (c *Client) runExclusive(h *scriptHost, function bool, run func(scripting.ReplyWriter, scripting.Started)) {
	fe := c.fe
	threshold := max(fe.cfg.BusyReplyThreshold(), time.Millisecond)
	c.exclusiveDetached(threshold, func(out *Writer) {
		var mu sync.Mutex
		running := true
		var timer *time.Timer
		started := func(r *scripting.Running) {
			h.running = r
			if h.wroteLocally {
				r.MarkWrite()
			}
			timer = time.AfterFunc(threshold, func() {
				mu.Lock()
				defer mu.Unlock()
				if !running {
					return
				}
				text, kill, name := busyScriptError, "SCRIPT KILL", "f_"+r.Name
				if function {
					text, kill, name = busyFunctionScript, "FUNCTION KILL", r.Name
				}
				fe.busyText.Store(&text)
				fe.eng.Gate().SetBusy()
				fe.log.Warn(fmt.Sprintf("Slow script detected: still in execution after %d milliseconds. You can try killing the script using the %s command. Script name is: %s.",
					time.Since(r.Start).Milliseconds(), kill, name))
			})
		}
		run(scriptReply{out, c}, started)
		if h.c.fx != c.fx && fe.stream.Emit(&h.c.fx.ops) { // inside the section (effects.go)
			fe.stream.SyncWait() // before the reply, which may be sent from another goroutine
		}
		mu.Lock()
		running = false
		mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
	})
}

// scriptReply adapts the client's writer to scripting.ReplyWriter.
type scriptReply struct {
	w      *Writer
	caller *Client
}

// CountedError writes an error the script's command already counted
// (scripting.CountedErrorWriter): the caller's reply is not counted again.
func (r scriptReply) CountedError(msg string) {
	r.w.Error(msg)
	r.caller.errCounted.Store(true)
}

func (r scriptReply) Status(s string)    { r.w.Status(s) }
func (r scriptReply) Error(msg string)   { r.w.Error(msg) }
func (r scriptReply) Int(n int64)        { r.w.Int(n) }
func (r scriptReply) Bulk(b []byte)      { r.w.Bulk(b) }
func (r scriptReply) Null()              { r.w.Null() }
func (r scriptReply) Array(n int)        { r.w.Array(n) }
func (r scriptReply) Map(n int)          { r.w.Map(n) }
func (r scriptReply) Set(n int)          { r.w.Set(n) }
func (r scriptReply) Double(f float64)   { r.w.Double(f) }
func (r scriptReply) Bool(b bool)        { r.w.Bool(b) }
func (r scriptReply) BigNumber(s string) { r.w.BigNumber(s) }

// Verbatim writes a verbatim string with its format, cut or padded with
// blanks to three bytes as Redis's addReplyVerbatim.
func (r scriptReply) Verbatim(format, s string) {
	if !r.w.resp3() {
		r.w.BulkString(s)
		return
	}
	f := []byte("   ")
	copy(f, format)
	r.w.Buf = appendHeader(r.w.Buf, '=', int64(len(s))+4)
	r.w.Buf = append(r.w.Buf, f...)
	r.w.Buf = append(r.w.Buf, ':')
	r.w.Buf = append(r.w.Buf, s...)
	r.w.Buf = append(r.w.Buf, '\r', '\n')
}

// scriptKill is SCRIPT KILL (eval) and FUNCTION KILL.
func (c *Client) scriptKill(eval bool) {
	if msg := c.fe.scripts().Kill(eval); msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.Status("OK")
}

func cmdScriptLoad(c *Client, args [][]byte) {
	s, msg := c.fe.scripts().Cache.Load(args[2])
	if s == nil {
		c.w.Error(msg)
		return
	}
	c.w.BulkString(s.SHA)
}

func cmdScriptExists(c *Client, args [][]byte) {
	cache := c.fe.scripts().Cache
	c.w.Array(len(args) - 2)
	for _, a := range args[2:] {
		if cache.Get(string(a)) != nil {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

// flushMode checks the optional ASYNC|SYNC of SCRIPT FLUSH and FUNCTION
// FLUSH.
func flushMode(args [][]byte) bool {
	return len(args) == 2 || (len(args) == 3 && (argIs(args[2], "SYNC") || argIs(args[2], "ASYNC")))
}

func cmdScriptFlush(c *Client, args [][]byte) {
	if !flushMode(args) {
		c.w.Error(ErrScriptFlushArg)
		return
	}
	c.fe.scripts().FlushScripts()
	c.w.Status("OK")
}

func cmdScriptDebug(c *Client, args [][]byte) {
	switch {
	case argIs(args[2], "NO"):
		c.w.Status("OK")
	case argIs(args[2], "YES"), argIs(args[2], "SYNC"):
		c.w.Error(ErrScriptDebug)
	default:
		c.w.Error(ErrScriptDebugArg)
	}
}

var scriptHelp = []string{
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
}

func cmdScriptHelp(c *Client, args [][]byte) { c.help(args[0], scriptHelp) }

var functionHelp = []string{
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
}

func cmdFunctionHelp(c *Client, args [][]byte) { c.help(args[0], functionHelp) }

// cmdFunctionLoad is FUNCTION LOAD [REPLACE] code.
func cmdFunctionLoad(c *Client, args [][]byte) {
	replace := false
	i := 2
	for ; i < len(args)-1; i++ {
		if !argIs(args[i], "REPLACE") {
			c.w.Error("ERR Unknown option given: " + cutC(string(args[i]), len(args[i])))
			return
		}
		replace = true
	}
	name, msg := c.fe.scripts().Functions.Load(args[i], replace, &scriptHost{c: c, caller: c})
	if msg != "" {
		c.w.Error("ERR " + msg)
		return
	}
	c.w.BulkString(name)
}

func cmdFunctionDelete(c *Client, args [][]byte) {
	if !c.fe.scripts().Functions.Delete(string(args[2])) {
		c.w.Error(ErrLibraryNotFound)
		return
	}
	c.w.Status("OK")
}

func cmdFunctionFlush(c *Client, args [][]byte) {
	if len(args) > 3 { // functionFlushCommand's first test, SCRIPT FLUSH has none
		c.subcommandSyntaxError(args)
		return
	}
	if !flushMode(args) {
		c.w.Error(ErrFunctionFlushArg)
		return
	}
	c.fe.scripts().Functions.Flush()
	c.w.Status("OK")
}

// cmdFunctionList is FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern].
func cmdFunctionList(c *Client, args [][]byte) {
	withCode, havePattern := false, false
	var pattern string
	for i := 2; i < len(args); i++ {
		switch {
		case !withCode && argIs(args[i], "WITHCODE"):
			withCode = true
		case !havePattern && argIs(args[i], "LIBRARYNAME"):
			if i >= len(args)-1 {
				c.w.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern, havePattern = string(args[i]), true
		default:
			c.w.Error("ERR Unknown argument " + cutC(string(args[i]), len(args[i])))
			return
		}
	}
	var libs []*scripting.Library
	for _, l := range c.fe.scripts().Functions.Libraries() {
		if !havePattern || glob.MatchString(pattern, l.Name, true) {
			libs = append(libs, l)
		}
	}
	w := &c.w
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.Functions))
		for _, f := range l.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.Description == nil {
				w.Null()
			} else {
				w.BulkString(*f.Description)
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.Set(len(names))
			for _, n := range names {
				w.Status(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
}

// cmdFunctionStats is FUNCTION STATS: the running function (EVAL scripts
// are not shown, as in Redis) and the engine's counts.
func cmdFunctionStats(c *Client, _ [][]byte) {
	eng := c.fe.scripts()
	w := &c.w
	w.Map(2)
	w.BulkString("running_script")
	if r := eng.Running(); r != nil && !r.Eval {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(r.Name)
		w.BulkString("command")
		w.Array(len(r.Command))
		for _, a := range r.Command {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(time.Since(r.Start).Milliseconds())
	} else {
		w.Null()
	}
	libs, funcs := eng.Functions.Counts()
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(funcs))
}

// scriptingInfo are INFO memory's script fields.
func (f *Frontend) scriptingInfo() (evalMem int64, cached int, funcs, libs int, funcMem int64) {
	e := f.scripts()
	l, fn := e.Functions.Counts()
	return e.Cache.Memory(), e.Cache.Len(), fn, l, e.Functions.Memory()
}
