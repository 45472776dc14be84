package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/conf"
)

func load(t *testing.T, args ...string) *conf.Config {
	t.Helper()
	cfg, err := conf.Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// log-format json writes one JSON object a line, with the record's
// attributes as fields.
func TestLogFormatJSON(t *testing.T) {
	var out bytes.Buffer
	log := loggerTo(load(t, "--log-format", "json"), &out)
	log.Info("hello", "port", 6379, "file", "a b")
	var rec map[string]any
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if rec["msg"] != "hello" || rec["level"] != "INFO" || rec["port"] != float64(6379) || rec["file"] != "a b" {
		t.Errorf("record %v", rec)
	}
	out.Reset()
	loggerTo(load(t), &out).Info("hello", "port", 6379)
	if s := out.String(); !strings.Contains(s, "msg=hello port=6379") || json.Valid(out.Bytes()) {
		t.Errorf("text format: %q", s)
	}
	if _, err := conf.Load([]string{"--log-format", "xml"}, nil); err == nil {
		t.Error("log-format xml accepted")
	}
}

// loglevel sets the threshold, and CONFIG SET loglevel moves it.
func TestLogLevelFilters(t *testing.T) {
	var out bytes.Buffer
	cfg := load(t, "--loglevel", "warning")
	log := loggerTo(cfg, &out)
	log.Info("info-hidden")
	log.Warn("warn-shown")
	log.Debug("debug-hidden")
	if s := out.String(); strings.Contains(s, "hidden") || !strings.Contains(s, "warn-shown") {
		t.Errorf("warning: %q", s)
	}
	out.Reset()
	if err := cfg.Set([2]string{"loglevel", "debug"}); err != nil {
		t.Fatal(err)
	}
	log.Debug("debug-shown")
	if s := out.String(); !strings.Contains(s, "debug-shown") {
		t.Errorf("after CONFIG SET loglevel debug: %q", s)
	}
	out.Reset()
	if err := cfg.Set([2]string{"loglevel", "notice"}); err != nil {
		t.Fatal(err)
	}
	log.Debug("debug-hidden")
	log.Info("info-shown")
	if s := out.String(); strings.Contains(s, "hidden") || !strings.Contains(s, "info-shown") {
		t.Errorf("notice: %q", s)
	}
}
