package memproto

import (
	"maps"
	"slices"
)

// CommandNames returns the names of the commands the memcached front-end
// serves, sorted: the command table's keys, exactly as a client sends
// them. internal/readme checks the README's command list against it.
func CommandNames() []string { return slices.Sorted(maps.Keys(commandTable)) }
