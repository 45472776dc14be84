package resp

// While a script runs past busy-reply-threshold it holds the keyspace
// (engine.Gate is busy) and other clients get BUSY, except for the
// commands flagged allow-busy (SCRIPT KILL, FUNCTION KILL, FUNCTION STATS,
// SHUTDOWN NOSAVE…), which must not touch the keyspace. The running
// script (cmd_scripting.go) sets busyText before marking the gate busy:
// busyScriptError for EVAL, scripting.ErrBusyFunc ("…You can only call
// FUNCTION KILL…") for FCALL.

// busyScriptError is Redis's reply while a busy EVAL script runs.
const busyScriptError = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

// busyError is the BUSY reply for the script that holds the keyspace.
func (f *Frontend) busyError() string {
	if msg := f.busyText.Load(); msg != nil {
		return *msg
	}
	return busyScriptError
}
