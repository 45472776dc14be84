package scripting

import (
	"context"
	"log/slog"
)

// LogTo writes a redis.log message to log at the slog level of Redis's
// level (LogDebug … LogWarning), marked as coming from Lua. Every Host's
// Log can be this.
func LogTo(log *slog.Logger, level int, msg string) {
	lv := slog.LevelInfo
	switch level {
	case LogDebug, LogVerbose:
		lv = slog.LevelDebug
	case LogWarning:
		lv = slog.LevelWarn
	}
	log.Log(context.Background(), lv, msg, "source", "lua")
}

// LogHost returns a Host that can only log: for loading FUNCTION libraries
// from a dump, whose bodies see the loading API alone (redis.log and
// redis.register_function), never redis.call.
func LogHost(log *slog.Logger) Host { return logHost{log} }

type logHost struct{ log *slog.Logger }

func (h logHost) Call([][]byte, int) ([]byte, string) {
	return nil, "This Redis command is not allowed from script"
}
func (h logHost) Log(level int, msg string)      { LogTo(h.log, level, msg) }
func (h logHost) ACLCheck([][]byte) (bool, bool) { return false, false }
