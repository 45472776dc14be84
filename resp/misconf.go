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

// scriptMayWrite reports whether args, a call of cmd, runs a script that
// declared it may write: what Redis's evalGetCommandFlags and
// fcallGetCommandFlags add CMD_WRITE for. An unknown script or function,
// and a shebang that does not parse, add nothing (the command then fails
// on its own). It looks only while writes are refused, so that EVAL does
// not hash its script twice when they are not.
func scriptMayWrite(fe *Frontend, cmd *Command, args [][]byte) bool {
	if cmd.Group != "scripting" || len(args) < 2 || !fe.persist.WritesRefused() {
		return false
	}
	var flags scripting.Flags
	eng := fe.scripts()
	switch cmd.Name {
	case "eval", "eval_ro":
		if s := eng.Cache.Get(scripting.SHA1Hex(args[1])); s != nil {
			flags = s.Flags
		} else {
			var msg string
			if flags, _, msg = scripting.ShebangFlags(string(args[1])); msg != "" {
				return false
			}
		}
	case "evalsha", "evalsha_ro":
		s := eng.Cache.Get(string(args[1]))
		if len(args[1]) != 40 || s == nil {
			return false
		}
		flags = s.Flags
	case "fcall", "fcall_ro":
		f := eng.Functions.Get(string(args[1]))
		if f == nil {
			return false
		}
		flags = f.Flags
	default:
		return false
	}
	return flags&(scripting.FlagEvalCompat|scripting.FlagNoWrites) == 0
}
