package resp

import (
	"bytes"

	"github.com/tandemkv/tandem/engine"
)

// Keyspace notifications (notify-keyspace-events).
//
// Each write command reports what it did through c.notify, with the event
// names, classes, order and conditions of the notifyKeyspaceEvent calls in
// Redis 7.0's command; the engine reports "expired" and blocked-client
// hand-offs itself (engine/notify.go). The engine delivers an event only
// when its class is enabled, to the sink services.NotifySink, which
// publishes it on Redis's channels for subscribers of both protocols'
// writes.

// Event classes, short names for the handlers.
const (
	evGeneric = engine.ClassGeneric
	evString  = engine.ClassString
	evList    = engine.ClassList
	evSet     = engine.ClassSet
	evHash    = engine.ClassHash
	evZSet    = engine.ClassZSet
)

// notify reports event name of class on key in the client's database.
func (c *Client) notify(class engine.Class, name string, key []byte) {
	c.db.Notify(class, name, key)
}

// notifyEnabled reports whether events of class are delivered, for
// handlers that must do extra work to know what to report.
func (c *Client) notifyEnabled(class engine.Class) bool { return c.db.NotifyEnabled(class) }

// notifySet reports a string write as Redis's SET does: "set", then
// "expire" when it came with an expiry. An expiry already past leaves no
// key in Tandem; Redis stores the key and expires it on the next access,
// so its "expired" follows at once here.
func (c *Client) notifySet(key []byte, withExpire, expired bool) {
	c.notify(evString, "set", key)
	if withExpire {
		c.notify(evGeneric, "expire", key)
		if expired {
			c.notify(engine.ClassExpired, "expired", key)
		}
	}
}

// notifyMSet reports "set" for every key of MSET's key/value pairs.
func (c *Client) notifyMSet(pairs [][]byte) {
	if !c.notifyEnabled(evString) {
		return
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		c.notify(evString, "set", pairs[i])
	}
}

// notifyRename reports a RENAME that moved src to dst (not RENAME k k).
func (c *Client) notifyRename(src, dst []byte) {
	if bytes.Equal(src, dst) {
		return
	}
	c.notify(evGeneric, "rename_from", src)
	c.notify(evGeneric, "rename_to", dst)
}

// pushEvent and popEvent name a list operation at end.
func pushEvent(end engine.ListEnd) string {
	if end == engine.ListLeft {
		return "lpush"
	}
	return "rpush"
}

func popEvent(end engine.ListEnd) string {
	if end == engine.ListLeft {
		return "lpop"
	}
	return "rpop"
}

// notifyMove reports LMOVE's events as Redis's lmoveGenericCommand: the
// push on dst, then the pop on src ("del" of an emptied src follows from
// the engine's queue).
func (c *Client) notifyMove(src, dst []byte, from, to engine.ListEnd) {
	c.notify(evList, pushEvent(to), dst)
	c.notify(evList, popEvent(from), src)
}

// setStoreEvent names SINTERSTORE, SUNIONSTORE and SDIFFSTORE's event.
func setStoreEvent(op engine.SetOp) string {
	switch op {
	case engine.SetInter:
		return "sinterstore"
	case engine.SetUnion:
		return "sunionstore"
	}
	return "sdiffstore"
}

// zpopEvent names ZPOPMIN/ZPOPMAX's event (ZMPOP and the blocking pops
// report the same).
func zpopEvent(max bool) string {
	if max {
		return "zpopmax"
	}
	return "zpopmin"
}

// zremRangeEvent names ZREMRANGEBYRANK/SCORE/LEX's event.
func zremRangeEvent(by engine.ZRangeBy) string {
	switch by {
	case engine.ZByRank:
		return "zremrangebyrank"
	case engine.ZByScore:
		return "zremrangebyscore"
	}
	return "zremrangebylex"
}
