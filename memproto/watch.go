package memproto

import (
	"net"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/mclog"
)

// watch: memcached's log stream (package mclog, services.MCLog). "watch
// [fetchers] [mutations] [evictions] [connevents] ..." answers OK and
// turns the connection into a watcher: from then on it is sent log lines
// and runs no more commands (what it sends is read and dropped, as
// memcached's logger thread reads a watcher only to see it close).
//
// What is logged, as memcached 1.6.18 logs it:
//   - fetchers: an item_get for every key a command looks up: each key of
//     get gets gat gats, and the key of every storage command (the old
//     item, before the store), incr decr delete touch, mg ms md ma me.
//     Only memcached-port requests: a Redis GET is not a memcached fetch.
//     Binary requests log as their text commands do.
//   - mutations: an item_store for set add replace append prepend cas and
//     ms, with the status, the command, the ttl and the size memcached
//     shows (an append that stores: the new length and the old expiry).
//   - evictions: every key the engine evicts from database 0, whichever
//     protocol's write made room (services wires the engine's hook).
//   - connevents: conn_new and conn_close of memcached-port clients.
//
// Items carry no slab class: found and stored items show clsid=1 (the one
// class "stats items" and "me" show), missing ones clsid=0 as memcached.
// Each event costs one atomic load while nobody watches its kind.

// Replies of watch.
const (
	replyWatchOK      = "OK"
	errWatchPipelined = "ERROR cannot pipeline other commands before watch"
	errWatchTooMany   = "WATCHER_TOO_MANY log watcher limit reached"
	watchRetryMin     = time.Millisecond
	watchRetryMax     = 64 * time.Millisecond
	itemClass         = 1 // the clsid of every item (see above)
	missingClass      = 0
)

// watchCmd serves watch.
func (s *session) watchCmd(r *Request) {
	r.NoReply = r.isNoReply(r.nt - 2)
	if s.fe.cfg.MemcachedDisableWatch() {
		s.line(r, errWatchDenied)
		return
	}
	if len(s.out) > s.flushed {
		// memcached refuses while replies of earlier requests are queued.
		s.line(r, errWatchPipelined)
		return
	}
	flags, ok := mclog.ParseFlags(r.Args())
	if !ok {
		s.line(r, errUnknown)
		return
	}
	peer := s.peer
	w, err := s.fe.log.Add(flags, func() { _ = peer.Wake() })
	if err != nil {
		s.line(r, errWatchTooMany)
		return
	}
	s.watcher = w
	// memcached queues OK in the watcher's buffer, even under noreply.
	s.out = append(s.out, replyWatchOK...)
	s.crlf()
}

// serveWatch is Serve once the session watches: input is dropped, and the
// lines buffered go out when the socket has taken the last ones, so the
// watcher's bound is what a watcher that does not read holds.
func (s *session) serveWatch(in, out []byte) (int, []byte, bool) {
	if s.peer.OutboundBuffered() > 0 {
		if s.watcher.Buffered() > 0 {
			s.retryWatch()
		}
		return len(in), out, false
	}
	s.watchDelay = 0
	return len(in), s.watcher.Take(out), false
}

// retryWatch serves the watcher again later: nothing tells the session when
// its socket drains, so it looks again after 1 ms, 2, 4… up to 64 ms.
func (s *session) retryWatch() {
	s.watchDelay = min(max(2*s.watchDelay, watchRetryMin), watchRetryMax)
	if s.watchTimer == nil {
		peer := s.peer
		s.watchTimer = time.AfterFunc(s.watchDelay, func() { _ = peer.Wake() })
		return
	}
	s.watchTimer.Reset(s.watchDelay)
}

// stopWatching ends the session's watch when its connection goes.
func (s *session) stopWatching() {
	if s.watcher == nil {
		return
	}
	s.fe.log.Remove(s.watcher)
	if s.watchTimer != nil {
		s.watchTimer.Stop()
	}
	// memcached's logger thread closes a watcher with no reason set:
	// its conn_close shows the first one, error.
	s.closeReason = mclog.CloseError
}

// IdleExempt spares a watcher from the idle timeout: it only reads.
func (s *session) IdleExempt() bool { return s.watcher != nil }

// connInfo is the client as connection events show it.
func (s *session) connInfo() mclog.Conn {
	c := mclog.Conn{IP: s.peer.RemoteAddr(), FD: s.peer.FD()}
	if host, port, err := net.SplitHostPort(c.IP); err == nil {
		p, _ := strconv.ParseUint(port, 10, 16)
		c.IP, c.Port = host, uint16(p)
	}
	return c
}

// logLookup logs the item_get memcached logs before a single-key command
// (storage, arithmetic, delete, touch, meta): the key as it is before the
// command runs. Keys of other types are not items: not_found.
func (s *session) logLookup(r *Request) {
	if !s.fe.log.Wants(mclog.Fetchers) || r.Err != "" || r.Cmd == nil || !r.Cmd.looksUpKey() {
		return
	}
	s.logLookupKey(r.Key)
}

// logLookupKey logs key's item_get as it is now.
func (s *session) logLookupKey(key []byte) {
	info, ok := s.fe.db.Info(key)
	s.logGet(key, ok && info.Type == engine.TypeString, info.Len)
}

// logGet logs one fetch of key.
func (s *session) logGet(key []byte, found bool, size int) {
	if found {
		s.fe.log.ItemGet(key, mclog.Found, itemClass, s.peer.FD(), size)
		return
	}
	s.fe.log.ItemGet(key, mclog.NotFound, missingClass, s.peer.FD(), 0)
}

// storeCmds are the item_store cmd= of each storage op.
var storeCmds = [...]mclog.StoreCmd{opSet: mclog.CmdSet, opAdd: mclog.CmdAdd, opReplace: mclog.CmdReplace,
	opAppend: mclog.CmdAppend, opPrepend: mclog.CmdPrepend, opCAS: mclog.CmdCAS}

// logStore logs a store's outcome: err is the engine's error, if any. A
// stored item shows its length and time to live as they now are (an append
// keeps the old expiry); one not stored the command's.
func (s *session) logStore(key, data []byte, op storeOp, exptime int32, st storeStatus, err error) {
	fe := s.fe
	if !fe.log.Wants(mclog.Mutations) {
		return
	}
	status := [...]mclog.StoreStatus{statusStored: mclog.Stored, statusNotStored: mclog.NotStored,
		statusExists: mclog.Exists, statusNotFound: mclog.StoreNotFound}[st]
	if err != nil {
		status = mclog.NoMemory
	}
	size := len(data)
	ttl := fe.ttlSeconds(fe.expireAt(exptime), exptime)
	if status == mclog.Stored {
		if info, ok := fe.db.Info(key); ok {
			size, ttl = info.Len, fe.ttlSeconds(info.ExpireAt, 0)
		}
	}
	fe.log.ItemStore(key, status, storeCmds[op], uint32(max(ttl, 0)), itemClass, s.peer.FD(), size)
}

// logTooLarge logs a store refused as too large (its data swallowed).
// memcached 1.6.18 passes its arguments one short there, so its line shows
// the client's socket as clsid= (and whatever follows on its stack as
// cfd=): Tandem shows the socket as clsid= too, and as cfd=.
func (s *session) logTooLarge(r *Request) {
	if s.fe.log.Wants(mclog.Mutations) {
		cmd, ok := tooLargeCmds[r.Cmd.name]
		if !ok {
			cmd = mclog.CmdSet // ms: memcached logs its mode's command; Tandem set
		}
		fd := s.peer.FD()
		s.fe.log.ItemStore(r.Key, mclog.TooLarge, cmd, 0, uint8(fd), fd, 0)
	}
}

var tooLargeCmds = map[string]mclog.StoreCmd{"set": mclog.CmdSet, "add": mclog.CmdAdd, "replace": mclog.CmdReplace,
	"append": mclog.CmdAppend, "prepend": mclog.CmdPrepend, "cas": mclog.CmdCAS}

// logConnNew and logConnClose are the connection events.
func (s *session) logConnNew() {
	if s.fe.log.Wants(mclog.ConnEvents) {
		s.fe.log.ConnNew(s.connInfo())
	}
}

func (s *session) logConnClose() {
	if !s.fe.log.Wants(mclog.ConnEvents) {
		return
	}
	why := s.closeReason
	if t := s.fe.cfg.Timeout(); why == mclog.CloseNormal && t > 0 && s.peer.Idle() >= t {
		// The server's idle sweep closed it (the session is not told why).
		why = mclog.CloseIdleTimeout
	}
	s.fe.log.ConnClose(s.connInfo(), why)
}
