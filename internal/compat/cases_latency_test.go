package compat

import "testing"

// LATENCY, differential: each case turns latency-monitor-threshold to 20
// ms on both servers and makes a command that slow with DEBUG SLEEP, so
// both record one "command" sample; LATEST and HISTORY are compared by
// shape (event names exact, times and latencies free), the rest exactly.

func TestRedisLatency(t *testing.T) { runSlowlogCases(t, latencyCases) }

var (
	latencyOn  = mbs("CONFIG SET latency-monitor-threshold 20", "LATENCY RESET")
	latencyOff = mbs("CONFIG SET latency-monitor-threshold 0", "LATENCY RESET")
)

var latencyCases = []slowlogCase{
	{name: "latency latest history reset", on: latencyOn, off: latencyOff,
		cmds: mbs("LATENCY LATEST", "LATENCY HISTORY command", "DEBUG SLEEP 0.05", "LATENCY LATEST", "LATENCY HISTORY command",
			"LATENCY HISTORY COMMAND", "LATENCY HISTORY nosuch", "LATENCY RESET nosuch", "LATENCY RESET COMMAND nosuch",
			"LATENCY LATEST", "DEBUG SLEEP 0.05", "LATENCY RESET", "LATENCY RESET"),
		shapes: []int{3, 4}},
	{name: "latency off", on: latencyOn, off: latencyOff,
		cmds: mbs("CONFIG SET latency-monitor-threshold 0", "DEBUG SLEEP 0.05", "LATENCY LATEST", "CONFIG SET latency-monitor-threshold 1000",
			"DEBUG SLEEP 0.05", "LATENCY LATEST")},
	{name: "latency help and errors", on: latencyOn, off: latencyOff,
		cmds: mbs("LATENCY HELP", "latency help", "LATENCY", "LATENCY HELP x", "LATENCY LATEST x", "LATENCY HISTORY",
			"LATENCY HISTORY a b", "LATENCY nosuch")},
}
