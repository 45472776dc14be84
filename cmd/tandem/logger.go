package main

import (
	"io"
	"log/slog"
	"os"

	"github.com/tandemkv/tandem/conf"
)

// newLogger builds the one logger of the process, which both front-ends,
// the server and every service log through: to logfile (standard output
// when unset or when it cannot be opened; conf refuses an unopenable one
// at load) in log-format.
func newLogger(cfg *conf.Config) *slog.Logger {
	out := io.Writer(os.Stdout)
	if f := cfg.LogFile(); f != "" {
		if fh, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			out = fh
		}
	}
	return loggerTo(cfg, out)
}

// loggerTo is newLogger writing to out. Its threshold is loglevel's, and
// follows CONFIG SET loglevel, as Redis: the logger is the process's, not a
// shared service's, so its follower lives here.
func loggerTo(cfg *conf.Config, out io.Writer) *slog.Logger {
	level := new(slog.LevelVar)
	level.Set(slogLevel(cfg.LogLevel()))
	cfg.OnChange("loglevel", func(c *conf.Config) { level.Set(slogLevel(c.LogLevel())) })
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat() == conf.LogJSON {
		return slog.New(slog.NewJSONHandler(out, opts))
	}
	return slog.New(slog.NewTextHandler(out, opts))
}

// slogLevel maps Redis's levels onto slog's: debug and verbose both log
// Debug records, notice Info and above, warning Warn and above.
func slogLevel(l conf.LogLevel) slog.Level {
	switch l {
	case conf.LogDebug, conf.LogVerbose:
		return slog.LevelDebug
	case conf.LogWarning:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
