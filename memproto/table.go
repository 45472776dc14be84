package memproto

// shape is how a command's line is parsed (parser.go) — the command's
// syntax, shared by commands that differ only in what they do.
type shape uint8

const (
	shapeOther         shape = iota // tokens handed to the handler as they are
	shapeRetrieve                   // get, gets, bget: <key>*
	shapeRetrieveTouch              // gat, gats: <exptime> <key>*
	shapeStore                      // set, add, replace, append, prepend + data block
	shapeStoreCAS                   // cas + data block
	shapeArith                      // incr, decr
	shapeDelete                     // delete
	shapeTouch                      // touch
	shapeMetaGet                    // mg
	shapeMetaSet                    // ms + data block
	shapeMetaDelete                 // md
	shapeMetaArith                  // ma
	shapeMetaDebug                  // me
)

// command is one entry of the command table.
type command struct {
	name  string
	shape shape
	// minTokens and maxTokens bound memcached's ntokens (the tokens, at
	// most 23, plus one); 0 = no bound. Outside them the reply is ERROR.
	minTokens, maxTokens int
	run                  func(s *session, r *Request)
	// flushes: memcached writes its queued replies right after this
	// command (get and its variants, mn).
	flushes bool
	// write: the command changes data whatever its shape (flush_all);
	// see writes.
	write bool
	// idx numbers the commands of commandTable from 0, for the
	// front-end's per-command latency histograms (latency.go).
	idx int
}

// writes reports whether r may change data, so it is refused while a
// failed BGSAVE stops writes (misconf.go): every storage, arithmetic,
// delete and touch command, gat and gats (they set the expiry, as Redis's
// GETEX, a write), ms md ma, flush_all, and mg with T or N.
func (c *command) writes(r *Request) bool {
	switch c.shape {
	case shapeStore, shapeStoreCAS, shapeArith, shapeDelete, shapeTouch, shapeRetrieveTouch,
		shapeMetaSet, shapeMetaDelete, shapeMetaArith:
		return true
	case shapeMetaGet:
		return r.Meta.HasTTL || r.Meta.HasVivify
	}
	return c.write
}

// looksUpKey reports whether memcached looks the command's one key up
// (do_item_get) before acting, which "watch fetchers" shows: storage,
// arithmetic, delete, touch and the meta commands. The get family logs
// each of its keys itself (retrieve).
func (c *command) looksUpKey() bool {
	switch c.shape {
	case shapeStore, shapeStoreCAS, shapeArith, shapeDelete, shapeTouch,
		shapeMetaGet, shapeMetaSet, shapeMetaDelete, shapeMetaArith, shapeMetaDebug:
		return true
	}
	return false
}

// grows reports whether the command may store more data, so maxmemory
// eviction must make room before it runs.
func (c *command) grows() bool {
	switch c.shape {
	case shapeStore, shapeStoreCAS, shapeArith, shapeMetaSet, shapeMetaArith:
		return true
	}
	return false
}

// commandTable maps a command name, exactly as sent (memcached commands
// are case-sensitive), to its entry. Each family declares its commands in
// one function; to find a command's handler, open the family's file.
var commandTable = func() map[string]*command {
	t := map[string]*command{}
	for _, family := range [][]*command{textCommands(), metaCommands(), adminCommands()} {
		for _, c := range family {
			if t[c.name] != nil {
				panic("memproto: command declared twice: " + c.name)
			}
			c.idx = len(t)
			t[c.name] = c
		}
	}
	return t
}()
