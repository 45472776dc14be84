package resp

import (
	"slices"
	"testing"
)

// TestInternalFlags pins, for each Tandem-internal flag, the exact set of
// commands that carry it: the lists Redis 7.0's processCommand checks by
// function. A command that loses its flag, or one that gains it, fails
// here before it changes MULTI, subscribe mode or MISCONF.
func TestInternalFlags(t *testing.T) {
	cases := []struct {
		flag  InternalFlag
		name  string
		cmds  []string
		redis string
	}{
		{RunsInMulti, "RunsInMulti", []string{"discard", "exec", "multi", "quit", "reset", "watch"},
			"not queued inside MULTI"},
		{AllowedSubscribed, "AllowedSubscribed", []string{"ping", "psubscribe", "punsubscribe", "quit", "reset", "ssubscribe", "subscribe", "sunsubscribe", "unsubscribe"},
			"allowed in RESP2 subscribe mode"},
		{RefusedOnMisconf, "RefusedOnMisconf", []string{"ping"},
			"refused by MISCONF without being a write"},
		{RunsQueue, "RunsQueue", []string{"exec"},
			"denyoom by its queue; a refusal is EXECABORT"},
		{NotTracked, "NotTracked", []string{"eval_ro", "evalsha_ro", "fcall_ro"},
			"read-only, but client tracking registers its scripts' reads instead"},
		{EndsMulti, "EndsMulti", []string{"discard", "exec", "quit", "reset"},
			"not refused over maxmemory inside MULTI"},
		{PropagatedOnSuccess, "PropagatedOnSuccess", []string{"flushall", "flushdb", "function|delete", "function|flush", "function|load", "function|restore", "swapdb"},
			"dirty whenever it succeeds, so always propagated"},
	}
	var all InternalFlag
	table := NewTable(commandFamilies()...)
	for _, tc := range cases {
		all |= tc.flag
		var got []string
		eachCommand(table, func(cmd *Command) {
			if cmd.Internal&tc.flag != 0 {
				got = append(got, cmd.Name)
			}
		})
		slices.Sort(got)
		if !slices.Equal(got, tc.cmds) {
			t.Errorf("%s (%s): commands %v, want %v", tc.name, tc.redis, got, tc.cmds)
		}
	}
	eachCommand(table, func(cmd *Command) {
		if extra := cmd.Internal &^ all; extra != 0 {
			t.Errorf("%s: internal flag %#x has no case here", cmd.Name, extra)
		}
	})
}

// eachCommand calls f for every command of the table and every
// subcommand.
func eachCommand(t *Table, f func(*Command)) {
	for _, cmd := range t.All() {
		f(cmd)
		for _, sc := range cmd.Subcommands {
			f(sc)
		}
	}
}
