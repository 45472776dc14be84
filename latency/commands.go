package latency

import (
	"sync"
	"sync/atomic"
)

// Protocols a command is tracked under (Commands).
const (
	ProtocolRESP      = "resp"
	ProtocolMemcached = "memcached"
)

// Commands holds every command's latency histogram for the process (one,
// built by package services): each front-end asks for its commands'
// histograms once, when it is built, and records into them on each
// command's completion while latency-tracking is on. Exporters read them
// all with EachCommand.
type Commands struct {
	enabled atomic.Bool

	mu    sync.Mutex
	hists []trackedCommand // in the order they were asked for
	index map[commandKey]*Histogram
}

type commandKey struct{ protocol, name string }

type trackedCommand struct {
	commandKey
	h *Histogram
}

// NewCommands returns an empty set of histograms with tracking on
// (latency-tracking's default).
func NewCommands() *Commands {
	c := &Commands{index: map[commandKey]*Histogram{}}
	c.enabled.Store(true)
	return c
}

// SetEnabled turns recording on or off (latency-tracking); the histograms
// are kept either way, as Redis keeps them.
func (c *Commands) SetEnabled(on bool) { c.enabled.Store(on) }

// Enabled reports whether commands are recorded.
func (c *Commands) Enabled() bool { return c.enabled.Load() }

// Histogram returns the histogram of the command name of protocol, the
// same one for every caller asking for the same pair.
func (c *Commands) Histogram(protocol, name string) *Histogram {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := commandKey{protocol, name}
	if h := c.index[k]; h != nil {
		return h
	}
	h := new(Histogram)
	c.index[k] = h
	c.hists = append(c.hists, trackedCommand{k, h})
	return h
}

// EachCommand calls fn with every command's histogram, those that
// recorded nothing too (their Snapshot is nil), in the order the
// front-ends asked for them. The name is the command's as its protocol
// knows it: Redis's full name ("get", "client|list"), memcached's
// ("get", "mg", "set").
func (c *Commands) EachCommand(fn func(name, protocol string, h *Histogram)) {
	c.mu.Lock()
	hists := c.hists[:len(c.hists):len(c.hists)]
	c.mu.Unlock()
	for _, t := range hists {
		fn(t.name, t.protocol, t.h)
	}
}

// Reset empties the histograms of protocol's commands (CONFIG RESETSTAT,
// memcached's "stats reset").
func (c *Commands) Reset(protocol string) {
	c.EachCommand(func(_, p string, h *Histogram) {
		if p == protocol {
			h.Reset()
		}
	})
}
