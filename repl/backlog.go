package repl

// backlog is the replication backlog: a ring of the last size bytes of
// the stream. Bytes are numbered by replication offset: the first byte
// ever fed is offset 1, so after n bytes the master offset is n.
//
// Redis 7.0 keeps the backlog as a list of shared blocks that replicas
// reference; a ring gives the same answers (which offsets can be served)
// with one allocation and no per-block bookkeeping, because here each
// replica's pending bytes live in its connection, not in the backlog.
type backlog struct {
	buf     []byte
	first   int64 // offset of the oldest byte held (repl_backlog->offset)
	histlen int64 // bytes held
}

// newBacklog starts an empty backlog after offset: its first byte will be
// offset+1, as createReplicationBacklog.
func newBacklog(size int64, offset int64) *backlog {
	if size < 1 {
		size = 1
	}
	return &backlog{buf: make([]byte, size), first: offset + 1}
}

func (b *backlog) size() int64 { return int64(len(b.buf)) }

// last is the offset of the newest byte held, first-1 when empty.
func (b *backlog) last() int64 { return b.first + b.histlen - 1 }

// write appends p, dropping the oldest bytes beyond the ring's size.
func (b *backlog) write(p []byte) {
	size := b.size()
	next := b.last() + 1 // offset of p[0]
	if int64(len(p)) > size {
		skip := int64(len(p)) - size
		next += skip
		p = p[skip:]
		b.histlen += skip // counted as written, then trimmed below
	}
	for len(p) > 0 {
		pos := next % size
		n := copy(b.buf[pos:], p)
		p = p[n:]
		next += int64(n)
		b.histlen += int64(n)
	}
	if b.histlen > size {
		b.first += b.histlen - size
		b.histlen = size
	}
}

// canServe reports whether a replica asking for offset (the first byte it
// lacks) can be served from the backlog: offset within [first,
// first+histlen], the right end meaning "nothing to send".
func (b *backlog) canServe(offset int64) bool {
	return offset >= b.first && offset <= b.first+b.histlen
}

// appendFrom appends to dst the bytes from offset to the newest; the
// caller checked canServe.
func (b *backlog) appendFrom(dst []byte, offset int64) []byte {
	size := b.size()
	for o := offset; o <= b.last(); {
		pos := o % size
		end := int64(len(b.buf))
		if n := b.last() - o + 1; end-pos > n {
			end = pos + n
		}
		dst = append(dst, b.buf[pos:end]...)
		o += end - pos
	}
	return dst
}

// resize keeps the newest min(histlen, size) bytes in a ring of size, as
// CONFIG SET repl-backlog-size.
func (b *backlog) resize(size int64) *backlog {
	if size < 1 {
		size = 1
	}
	keep := b.histlen
	if keep > size {
		keep = size
	}
	from := b.last() + 1 - keep
	nb := &backlog{buf: make([]byte, size), first: from}
	nb.write(b.appendFrom(nil, from))
	return nb
}
