package mclog

import "strconv"

// The events, each with logger.c's line. Keys are URI-encoded as memcached
// encodes them (letters, digits and -._~ as they are, every other byte
// %XX), so a binary key reads as its bytes. Sizes are the value's length;
// cfd is the client's socket descriptor.

// GetStatus is an item_get's status= (logger.c's was_found).
type GetStatus uint8

// Fetch results.
const (
	NotFound GetStatus = iota
	Found
	Flushed
	Expired
)

var getStatusNames = [...]string{"not_found", "found", "flushed", "expired"}

// StoreStatus is an item_store's status= (memcached's store_item_type).
type StoreStatus uint8

// Store results.
const (
	NotStored StoreStatus = iota
	Stored
	Exists
	StoreNotFound
	TooLarge
	NoMemory
)

var storeStatusNames = [...]string{"not_stored", "stored", "exists", "not_found", "too_large", "no_memory"}

// StoreCmd is an item_store's cmd= (memcached's NREAD_* codes).
type StoreCmd uint8

// Store commands.
const (
	CmdNull StoreCmd = iota
	CmdAdd
	CmdSet
	CmdReplace
	CmdAppend
	CmdPrepend
	CmdCAS
)

var storeCmdNames = [...]string{"null", "add", "set", "replace", "append", "prepend", "cas"}

// ItemGet logs a fetch (Fetchers): "type=item_get key=<k> status=<s>
// clsid=<c> cfd=<fd> size=<n>".
func (l *Log) ItemGet(key []byte, st GetStatus, clsid uint8, cfd, size int) {
	if !l.Wants(Fetchers) {
		return
	}
	l.publish(Fetchers, func(b []byte) []byte {
		b = append(b, "type=item_get key="...)
		b = AppendKey(b, key)
		b = append(b, " status="...)
		b = append(b, getStatusNames[st]...)
		return appendTail(b, clsid, cfd, size)
	})
}

// ItemStore logs a store (Mutations): "type=item_store key=<k>
// status=<s> cmd=<c> ttl=<t> clsid=<c> cfd=<fd> size=<n>"; ttl is the
// seconds left, 0 for none, printed unsigned as memcached's %u.
func (l *Log) ItemStore(key []byte, st StoreStatus, cmd StoreCmd, ttl uint32, clsid uint8, cfd, size int) {
	if !l.Wants(Mutations) {
		return
	}
	l.publish(Mutations, func(b []byte) []byte {
		b = append(b, "type=item_store key="...)
		b = AppendKey(b, key)
		b = append(b, " status="...)
		b = append(b, storeStatusNames[st]...)
		b = append(b, " cmd="...)
		b = append(b, storeCmdNames[cmd]...)
		b = append(b, " ttl="...)
		b = strconv.AppendUint(b, uint64(ttl), 10)
		return appendTail(b, clsid, cfd, size)
	})
}

// appendTail appends " clsid=<c> cfd=<fd> size=<n>".
func appendTail(b []byte, clsid uint8, cfd, size int) []byte {
	b = append(b, " clsid="...)
	b = strconv.AppendUint(b, uint64(clsid), 10)
	b = append(b, " cfd="...)
	b = strconv.AppendInt(b, int64(cfd), 10)
	b = append(b, " size="...)
	return strconv.AppendInt(b, int64(size), 10)
}

// Eviction is an evicted item, as the eviction line shows it.
type Eviction struct {
	Key     []byte
	Fetched bool  // read since it was written
	TTL     int64 // seconds left; -1: no expiry
	Idle    int64 // la=: seconds since the last access
	ClsID   uint8
	Size    int
}

// Evicted logs an eviction (Evictions): "type=eviction key=<k>
// fetch=<yes|no> ttl=<t> la=<s> clsid=<c> size=<n>".
func (l *Log) Evicted(e *Eviction) {
	if !l.Wants(Evictions) {
		return
	}
	l.publish(Evictions, func(b []byte) []byte {
		b = append(b, "type=eviction key="...)
		b = AppendKey(b, e.Key)
		b = append(b, " fetch="...)
		if e.Fetched {
			b = append(b, "yes"...)
		} else {
			b = append(b, "no"...)
		}
		b = append(b, " ttl="...)
		b = strconv.AppendInt(b, e.TTL, 10)
		b = append(b, " la="...)
		b = strconv.AppendInt(b, e.Idle, 10)
		b = append(b, " clsid="...)
		b = strconv.AppendUint(b, uint64(e.ClsID), 10)
		b = append(b, " size="...)
		return strconv.AppendInt(b, int64(e.Size), 10)
	})
}

// CloseReason is a conn_close's reason= (memcached's close_reasons).
type CloseReason uint8

// Why a connection closed.
const (
	CloseError CloseReason = iota
	CloseNormal
	CloseIdleTimeout
	CloseShutdown
)

var closeReasonNames = [...]string{"error", "normal", "idle_timeout", "shutdown"}

// Conn is a client connection as connection events show it.
type Conn struct {
	IP   string // rip=
	Port uint16 // rport=
	FD   int    // cfd=
}

// ConnNew logs a new connection (ConnEvents): "type=conn_new rip=<ip>
// rport=<port> transport=tcp cfd=<fd>".
func (l *Log) ConnNew(c Conn) {
	if !l.Wants(ConnEvents) {
		return
	}
	l.publish(ConnEvents, func(b []byte) []byte {
		b = append(b, "type=conn_new "...)
		b = appendConn(b, c)
		b = append(b, " cfd="...)
		return strconv.AppendInt(b, int64(c.FD), 10)
	})
}

// ConnClose logs a closed connection (ConnEvents): "type=conn_close
// rip=<ip> rport=<port> transport=tcp reason=<r> cfd=<fd>".
func (l *Log) ConnClose(c Conn, why CloseReason) {
	if !l.Wants(ConnEvents) {
		return
	}
	l.publish(ConnEvents, func(b []byte) []byte {
		b = append(b, "type=conn_close "...)
		b = appendConn(b, c)
		b = append(b, " reason="...)
		b = append(b, closeReasonNames[why]...)
		b = append(b, " cfd="...)
		return strconv.AppendInt(b, int64(c.FD), 10)
	})
}

// appendConn appends "rip=<ip> rport=<port> transport=tcp": Tandem serves
// TCP only (no UDP, no unix socket).
func appendConn(b []byte, c Conn) []byte {
	b = append(b, "rip="...)
	b = append(b, c.IP...)
	b = append(b, " rport="...)
	b = strconv.AppendUint(b, uint64(c.Port), 10)
	return append(b, " transport=tcp"...)
}

// AppendKey appends key URI-encoded as memcached's uriencode does.
func AppendKey(b, key []byte) []byte {
	const hex = "0123456789ABCDEF"
	for _, c := range key {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return b
}
