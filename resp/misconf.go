package resp

import "github.com/tandemkv/tandem/scripting"

// MISCONF and scripts. After a failed BGSAVE (snapshot.Manager.
// WritesRefused) Redis 7.0 refuses writes in two places, and so does
// Tandem:
//
//   - up front, in processCommand: EVAL, EVALSHA, FCALL and their _RO
//     forms count as writes when the script they would run declared its
//     flags (a shebang, or a function) without no-writes
//     (getCommandFlags, scriptFlagsToCmdFlags); exec refuses them with
//     MISCONF like any write, before numkeys is even read. A script
//     without a shebang (EVAL compatibility mode) is not refused;
//   - in scriptCall: redis.call and redis.pcall of a write command get
//     the MISCONF error, unless the script already wrote
//     (scriptHost.Call).

// diskError is the MISCONF reply writes get while persistence cannot
// write — a failed BGSAVE's, or the AOF's (services.DiskError) — or "".
func (f *Frontend) diskError() string {
	rdb, aofMsg := f.svc.DiskError()
	if rdb {
		return ErrMisconf
	}
	return aofMsg
}

// isWrite is Redis's is_write_command in processCommand: cmd is a write
// command, or runs a script that declared its flags (a shebang, a
// function) without no-writes — evalGetCommandFlags and
// fcallGetCommandFlags put CMD_WRITE in place of the command's own — or
// is EXEC with such a command queued (mstate.cmd_flags). Callers ask it
// only once writes would be refused, so that EVAL does not hash its
// script twice when they are not.
func (c *Client) isWrite(cmd *Command, args [][]byte) bool {
	if cmd.Internal&RunsQueue != 0 {
		return c.tx != nil && c.tx.writes
	}
	if flags, declared := declaredScriptFlags(c.fe, cmd, args); declared {
		return flags&scripting.FlagNoWrites == 0
	}
	return cmd.Flags&FlagWrite != 0
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
