// Package cmdbase is the command form of an AOF base: what an AOF
// rewrite writes as appendonly.aof.N.base.aof under
// aof-use-rdb-preamble no. It turns an RDB stream (Tandem's point-in-time
// dump, which already holds every type) into the commands redis-server
// 7.0's rewriteAppendOnlyFileRio writes for the same data:
//
//   - FUNCTION LOAD for each library, before any key;
//   - SELECT n before the first key of each database that has keys;
//   - SET for strings; RPUSH, SADD, ZADD and HMSET for the collections,
//     at most 64 items (AOF_REWRITE_ITEMS_PER_CMD) a command;
//   - for streams, XADD per entry (XADD key MAXLEN 0 0-1 x y for an empty
//     one), XSETID with ENTRIESADDED and MAXDELETEDID, XGROUP CREATE …
//     ENTRIESREAD per group, XCLAIM … FORCE per pending entry of each
//     consumer, XGROUP CREATECONSUMER for a consumer with none pending;
//   - PEXPIREAT after a key that expires.
//
// A memcached item (a string with flags or a CAS unique, the RDB's
// tandem-mc AUX field) is written as the write stream writes it: the note
// PING "MC <flags> <cas>" (propagate.NoteOf), then SET key value [PXAT ms],
// which Tandem's loader (resp.Replay) restores with its flags and CAS
// and redis-server loads as a plain string.
//
// What commands cannot say is dropped, as Redis drops it: LRU idle time,
// LFU frequency, consumers' seen times.
package cmdbase

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"
	"strconv"

	"github.com/tandemkv/tandem/aof"
	"github.com/tandemkv/tandem/internal/num"
	"github.com/tandemkv/tandem/propagate"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// ItemsPerCommand is how many elements (or field-value pairs, or
// score-member pairs) one RPUSH, SADD, HMSET or ZADD carries: Redis's
// AOF_REWRITE_ITEMS_PER_CMD.
const ItemsPerCommand = 64

// Write reads the RDB stream rdbStream to its end and writes its data to
// w as commands. The stream's own errors (corruption, a failed read) are
// returned as they come.
func Write(w io.Writer, rdbStream io.Reader) error {
	rd, err := rdb.NewReader(rdbStream)
	if err != nil {
		return err
	}
	e := &encoder{w: w, db: -1}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch rec.Kind {
		case rdb.KindFunction:
			e.command(bFUNCTION, bLOAD, rec.Code)
		case rdb.KindKey:
			e.key(rec)
		}
		// SELECTDB, RESIZEDB and AUX say nothing a command must: a
		// database is selected at its first key, so one without keys is
		// never selected, as in Redis's rewrite.
		if e.err != nil {
			return e.err
		}
	}
}

// WriteBase writes an AOF base of kind to w from the dump writeRDB
// writes: the dump itself for aof.BaseRDB (aof-use-rdb-preamble yes), its
// commands for aof.BaseAOF (FromRDB).
func WriteBase(w io.Writer, kind aof.BaseKind, writeRDB func(rdbStream io.Writer) error) error {
	if kind == aof.BaseAOF {
		return FromRDB(w, writeRDB)
	}
	return writeRDB(w)
}

// FromRDB runs writeRDB, which writes an RDB stream to the writer it is
// given, and writes that stream's data to w as commands (Write), through
// a pipe: the dump is never held whole. An error on either side stops the
// other — the dump's writes fail once the commands cannot be written, and
// the conversion sees the dump's error as its read error — and FromRDB
// returns once both ended, with the error that came first.
func FromRDB(w io.Writer, writeRDB func(rdbStream io.Writer) error) error {
	pr, pw := io.Pipe()
	dumped := make(chan error, 1)
	go func() {
		err := writeRDB(pw)
		pw.CloseWithError(err) // nil: the conversion reads EOF
		dumped <- err
	}()
	convErr := Write(w, pr)
	if convErr == nil {
		// The dump ends with the RDB's EOF and checksum; anything the
		// writer still sends is read off, so it ends without an error.
		_, convErr = io.Copy(io.Discard, pr)
	}
	pr.CloseWithError(errConversionStopped(convErr)) // unblocks a dump still writing
	dumpErr := <-dumped
	switch {
	case dumpErr != nil && (convErr == nil || errors.Is(convErr, dumpErr)):
		return dumpErr // the dump failed first: the conversion's error only wraps it
	case convErr != nil:
		return convErr
	}
	return dumpErr
}

// errConversionStopped is what the dump's writes fail with once the
// conversion returned.
func errConversionStopped(err error) error {
	if err != nil {
		return err
	}
	return errors.New("cmdbase: RDB stream written after its end")
}

var (
	bFUNCTION       = []byte("FUNCTION")
	bLOAD           = []byte("LOAD")
	bSET            = []byte("SET")
	bPXAT           = []byte("PXAT")
	bPING           = []byte("PING")
	bPEXPIREAT      = []byte("PEXPIREAT")
	bRPUSH          = []byte("RPUSH")
	bSADD           = []byte("SADD")
	bZADD           = []byte("ZADD")
	bHMSET          = []byte("HMSET")
	bXADD           = []byte("XADD")
	bMAXLEN         = []byte("MAXLEN")
	bXSETID         = []byte("XSETID")
	bENTRIESADDED   = []byte("ENTRIESADDED")
	bMAXDELETEDID   = []byte("MAXDELETEDID")
	bXGROUP         = []byte("XGROUP")
	bCREATE         = []byte("CREATE")
	bENTRIESREAD    = []byte("ENTRIESREAD")
	bCREATECONSUMER = []byte("CREATECONSUMER")
	bXCLAIM         = []byte("XCLAIM")
	bTIME           = []byte("TIME")
	bRETRYCOUNT     = []byte("RETRYCOUNT")
	bJUSTID         = []byte("JUSTID")
	bFORCE          = []byte("FORCE")
	bZero           = []byte("0")
)

// encoder writes commands to w, keeping the first write error.
type encoder struct {
	w    io.Writer
	db   int // the database the last SELECT chose; -1 before any
	buf  []byte
	args [][]byte
	num  []byte // numbers' text, which args point into until the command is written
	err  error
}

// command writes one command.
func (e *encoder) command(args ...[]byte) {
	if e.err != nil {
		return
	}
	e.buf = propagate.AppendCommand(e.buf[:0], args...)
	_, e.err = e.w.Write(e.buf)
}

// key writes the commands that rebuild one key, after a SELECT when it is
// the first key of its database.
func (e *encoder) key(rec *rdb.Record) {
	if rec.DB != e.db {
		e.db = rec.DB
		if e.err == nil {
			e.buf = propagate.Select(e.buf[:0], rec.DB)
			_, e.err = e.w.Write(e.buf)
		}
	}
	k := rec.Key
	switch rec.Type {
	case rdb.String:
		if m := rec.Meta; m.MCFlags != 0 || m.MCCAS != 0 {
			e.memcachedItem(rec)
			return
		}
		e.command(bSET, k, rec.Str)
	case rdb.List:
		e.chunked(bRPUSH, k, rec.Elems, nil)
	case rdb.Set:
		e.chunked(bSADD, k, rec.Elems, nil)
	case rdb.Hash:
		e.chunked(bHMSET, k, rec.Fields, rec.Values)
	case rdb.ZSet:
		e.zset(k, rec.Members)
	case rdb.StreamType:
		e.stream(k, rec.Stream)
	}
	if at := rec.Meta.ExpireAtMs; at != 0 {
		e.command(bPEXPIREAT, k, strconv.AppendInt(nil, at, 10))
	}
}

// memcachedItem writes a string with memcached state as the write stream
// does: its note, then SET with the expiry as PXAT (the one form the
// loader gives the note's flags and CAS to).
func (e *encoder) memcachedItem(rec *rdb.Record) {
	m := rec.Meta
	e.command(bPING, propagate.AppendMemcachedNote(nil, m.MCFlags, m.MCCAS))
	if m.ExpireAtMs != 0 {
		e.command(bSET, rec.Key, rec.Str, bPXAT, strconv.AppendInt(nil, m.ExpireAtMs, 10))
		return
	}
	e.command(bSET, rec.Key, rec.Str)
}

// chunked writes name key items… (with values[i] after items[i] when
// values is not nil), ItemsPerCommand items a command.
func (e *encoder) chunked(name, key []byte, items, values [][]byte) {
	for start := 0; start < len(items); start += ItemsPerCommand {
		end := min(start+ItemsPerCommand, len(items))
		e.args = append(e.args[:0], name, key)
		for i := start; i < end; i++ {
			e.args = append(e.args, items[i])
			if values != nil {
				e.args = append(e.args, values[i])
			}
		}
		e.command(e.args...)
	}
}

// zset writes ZADD key score member…, the scores as Redis's
// rioWriteBulkDouble prints them.
func (e *encoder) zset(key []byte, members []rdb.Member) {
	for start := 0; start < len(members); start += ItemsPerCommand {
		end := min(start+ItemsPerCommand, len(members))
		e.num = e.num[:0]
		offs := make([]int, 0, end-start+1)
		for _, m := range members[start:end] {
			offs = append(offs, len(e.num))
			e.num = num.AppendG17(e.num, m.Score)
		}
		offs = append(offs, len(e.num))
		e.args = append(e.args[:0], bZADD, key)
		for i, m := range members[start:end] {
			e.args = append(e.args, e.num[offs[i]:offs[i+1]], m.Member)
		}
		e.command(e.args...)
	}
}

// streamID is an ID's text, ms-seq.
func streamID(id rdb.StreamID) []byte {
	b := strconv.AppendUint(nil, id.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, id.Seq, 10)
}

func compareIDs(a, b rdb.StreamID) int {
	return cmp.Or(cmp.Compare(a.Ms, b.Ms), cmp.Compare(a.Seq, b.Seq))
}

// stream writes the commands of rewriteStreamObject. Groups, consumers
// and pending entries go in Redis's order (its radix trees': names
// bytewise, IDs ascending) whatever order the dump holds them in.
func (e *encoder) stream(key []byte, s *rdb.Stream) {
	if s.Length > 0 {
		for _, n := range s.Nodes {
			for _, en := range n.Entries {
				if en.Deleted {
					continue
				}
				e.args = append(e.args[:0], bXADD, key, streamID(en.ID))
				e.args = append(e.args, en.Fields...)
				e.command(e.args...)
			}
		}
	} else {
		// An empty stream: XADD of one entry that MAXLEN 0 trims at once.
		e.command(bXADD, key, bMAXLEN, bZero, streamID(rdb.StreamID{Seq: 1}), []byte("x"), []byte("y"))
	}
	added, maxDeleted := s.EntriesAdded, s.MaxDeleted
	if s.V1 { // a Redis 5/6 stream has neither: derived as Redis's loader does
		added, maxDeleted = s.Length, rdb.StreamID{}
	}
	e.command(bXSETID, key, streamID(s.LastID), bENTRIESADDED, strconv.AppendUint(nil, added, 10),
		bMAXDELETEDID, streamID(maxDeleted))

	groups := slices.Clone(s.Groups)
	slices.SortFunc(groups, func(a, b rdb.StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	for _, g := range groups {
		e.command(bXGROUP, bCREATE, key, g.Name, streamID(g.LastID), bENTRIESREAD, strconv.AppendInt(nil, g.EntriesRead, 10))
		nacks := make(map[rdb.StreamID]rdb.StreamNACK, len(g.PEL))
		for _, p := range g.PEL {
			nacks[p.ID] = p
		}
		consumers := slices.Clone(g.Consumers)
		slices.SortFunc(consumers, func(a, b rdb.StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
		for _, c := range consumers {
			if len(c.PEL) == 0 {
				e.command(bXGROUP, bCREATECONSUMER, key, g.Name, c.Name)
				continue
			}
			ids := slices.Clone(c.PEL)
			slices.SortFunc(ids, compareIDs)
			for _, id := range ids {
				p := nacks[id]
				e.command(bXCLAIM, key, g.Name, c.Name, bZero, streamID(id),
					bTIME, strconv.AppendInt(nil, p.DeliveryTime, 10),
					bRETRYCOUNT, strconv.AppendUint(nil, p.DeliveryCount, 10), bJUSTID, bFORCE)
			}
		}
	}
}
