package resp

import "github.com/tandemkv/tandem/scripting"

// A command's flags as the server's state checks read them (Redis's
// getCommandFlags): EVAL, EVALSHA, FCALL and their _RO forms running a
// script that declared its flags (a shebang, a function) take write,
// denyoom, stale and may-replicate from the script instead
// (scriptFlagsToCmdFlags), and EXEC is judged by what it queued
// (mstate.cmd_flags, cmd_inv_flags).

// commandFlags is getCommandFlags for args, a call of cmd.
func (c *Client) commandFlags(cmd *Command, args [][]byte) Flag {
	f := cmd.Flags
	sf, declared := declaredScriptFlags(c.fe, cmd, args)
	if !declared {
		return f
	}
	f &^= FlagStale | FlagDenyOOM | FlagWrite | FlagMayReplicate
	if sf&(scripting.FlagAllowOOM|scripting.FlagNoWrites) == 0 {
		f |= FlagDenyOOM
	}
	if sf&scripting.FlagNoWrites == 0 {
		f |= FlagWrite
	}
	if sf&scripting.FlagAllowStale != 0 {
		f |= FlagStale
	}
	return f
}

// mayBeWrite is what the table alone says of isWrite: cmd may be one (a
// write command, EXEC, or a scripting command whose script may declare
// writes). Reads stop at it, before any server state is looked at.
func mayBeWrite(cmd *Command) bool {
	return cmd.Flags&FlagWrite != 0 || cmd.Internal&RunsQueue != 0 || cmd.Group == "scripting"
}

// isWrite is Redis's is_write_command: a write (commandFlags), or EXEC
// with one queued. Callers ask it only once writes would be refused, so
// that EVAL does not hash its script twice when they are not.
func (c *Client) isWrite(cmd *Command, args [][]byte) bool {
	if cmd.Internal&RunsQueue != 0 {
		return c.tx != nil && c.tx.writes
	}
	return c.commandFlags(cmd, args)&FlagWrite != 0
}

// mayReplicate is Redis's is_may_replicate_command: what CLIENT PAUSE
// WRITE holds back — a write or may-replicate command (commandFlags), or
// EXEC with one queued.
func (c *Client) mayReplicate(cmd *Command, args [][]byte) bool {
	if cmd.Internal&RunsQueue != 0 && c.tx != nil && c.tx.mayReplicate {
		return true
	}
	return c.commandFlags(cmd, args)&(FlagWrite|FlagMayReplicate) != 0
}

// deniedWhenStale is Redis's is_denystale_command: a command without the
// stale flag (commandFlags), or EXEC with one queued.
func (c *Client) deniedWhenStale(cmd *Command, args [][]byte) bool {
	if cmd.Internal&RunsQueue != 0 && c.tx != nil && c.tx.denyStale {
		return true
	}
	return c.commandFlags(cmd, args)&FlagStale == 0
}

// deniedWhenLoading is Redis's is_denyloading_command: a command without
// the loading flag (commandFlags). EXEC has it, and queues only commands
// that have it, since the others were refused while loading as they came.
func (c *Client) deniedWhenLoading(cmd *Command, args [][]byte) bool {
	return c.commandFlags(cmd, args)&FlagLoading == 0
}

// declaredScriptFlags returns the flags of the script args, a call of cmd,
// would run, when it declared them (a shebang, or a function): Redis's
// getCommandFlags then puts them in place of the command's own
// (scriptFlagsToCmdFlags). declared is false for a command that runs no
// script, an unknown script or function, a shebang that does not parse
// (the command then fails on its own) and a script without a shebang
// (EVAL compatibility mode): the command's flags stand.
func declaredScriptFlags(fe *Frontend, cmd *Command, args [][]byte) (flags scripting.Flags, declared bool) {
	if cmd.Group != "scripting" || len(args) < 2 {
		return 0, false
	}
	eng := fe.scripts()
	switch cmd.Name {
	case "eval", "eval_ro":
		if s := eng.Cache.Get(scripting.SHA1Hex(args[1])); s != nil {
			flags = s.Flags
		} else {
			var msg string
			if flags, _, msg = scripting.ShebangFlags(string(args[1])); msg != "" {
				return 0, false
			}
		}
	case "evalsha", "evalsha_ro":
		s := eng.Cache.Get(string(args[1]))
		if len(args[1]) != 40 || s == nil {
			return 0, false
		}
		flags = s.Flags
	case "fcall", "fcall_ro":
		f := eng.Functions.Get(string(args[1]))
		if f == nil {
			return 0, false
		}
		flags = f.Flags
	default:
		return 0, false
	}
	return flags, flags&scripting.FlagEvalCompat == 0
}
