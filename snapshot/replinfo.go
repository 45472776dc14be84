package snapshot

import (
	"strconv"

	"github.com/tandemkv/tandem/snapshot/rdb"
)

// ReplInfo is the replication position a dump records in its
// repl-stream-db, repl-id and repl-offset AUX fields, as Redis's
// rdbPopulateSaveInfo: the dump holds exactly the write stream up to
// Offset of history ID, which goes on in database StreamDB. A replica
// restarted from it asks its master to continue from there; a master
// keeps it as its secondary history, so its replicas continue (Redis's
// loadDataFromDisk).
type ReplInfo struct {
	StreamDB int
	ID       string
	Offset   int64
}

// Replication is the replication's side of the dumps the Manager saves
// and loads at start (Options.Replication).
type Replication interface {
	// SaveCut is called before a save's instant. at is called at the
	// instant, while no command runs, and returns the position the dump
	// records (ok false: none, as Redis without a replication history);
	// release is called once the instant passed, whether at ran or not.
	SaveCut() (at func() (info ReplInfo, ok bool), release func())
	// Restore is given the position the dump loaded at start recorded,
	// and the keys the load dropped as expired: a master feeds their
	// deletion to its replicas, which still hold them (Redis's
	// RDBFLAGS_FEED_REPL).
	Restore(info ReplInfo, expired []DroppedKey)
}

// DroppedKey is a key a load dropped as expired.
type DroppedKey struct {
	DB  int
	Key []byte
}

// replIDLen is the length of a replication ID (CONFIG_RUN_ID_SIZE).
const replIDLen = 40

// auxFields are the AUX fields recording ri, in Redis's order.
func (ri ReplInfo) auxFields() [][2]string {
	return [][2]string{
		{"repl-stream-db", strconv.Itoa(ri.StreamDB)},
		{"repl-id", ri.ID},
		{"repl-offset", strconv.FormatInt(ri.Offset, 10)},
	}
}

// replAux collects the replication AUX fields of a dump being loaded.
type replAux struct {
	info                 ReplInfo
	idSet, offSet, dbSet bool
}

// take reads one AUX field, ignoring the others. As Redis's rdbLoad, a
// repl-id of the wrong length is ignored.
func (a *replAux) take(rec *rdb.Record) {
	switch string(rec.AuxKey) {
	case "repl-id":
		if len(rec.AuxValue) == replIDLen {
			a.info.ID, a.idSet = string(rec.AuxValue), true
		}
	case "repl-offset":
		off, err := strconv.ParseInt(string(rec.AuxValue), 10, 64)
		a.info.Offset, a.offSet = off, err == nil && off != -1
	case "repl-stream-db":
		db, err := strconv.Atoi(string(rec.AuxValue))
		a.info.StreamDB, a.dbSet = db, err == nil && db != -1
	}
}

// result is the position recorded, if the dump recorded a whole one
// (loadDataFromDisk's test: an ID, an offset and a stream db not -1).
func (a *replAux) result() (ReplInfo, bool) {
	if !a.idSet || !a.offSet || !a.dbSet {
		return ReplInfo{}, false
	}
	return a.info, true
}
