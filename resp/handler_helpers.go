package resp

import (
	"strconv"

	"github.com/tandemkv/tandem/engine"
)

// Reply helpers shared by the command families.

// intReply replies the integer n, or err through fail (the family's error
// reply: listError, zsetError, engineError…).
func intReply[N int | int64](c *Client, n N, err error, fail func(error)) {
	if err != nil {
		fail(err)
		return
	}
	c.w.Int(int64(n))
}

// changedReply is intReply for a write that changed n elements: when n >
// 0 it first notifies event on key. A write that changed nothing notifies
// nothing; a STORE whose empty result deleted its destination is notified
// "del" (if the key existed) where it is deleted.
func changedReply[N int | int64](c *Client, n N, err error, fail func(error), class engine.Class, event string, key []byte) {
	if err == nil && n > 0 {
		c.notify(class, event, key)
	}
	intReply(c, n, err, fail)
}

// writeScanPage replies a page of a scan: [next cursor, [n elements]], the
// elements already encoded in elems.
func (c *Client) writeScanPage(next uint64, n int, elems []byte) {
	var digits [20]byte
	c.w.Array(2)
	c.w.Bulk(strconv.AppendUint(digits[:0], next, 10))
	c.w.Array(n)
	c.w.Raw(elems)
}

// writeEmptyScan is Redis's shared.emptyscan: cursor 0, no elements.
func (c *Client) writeEmptyScan() {
	c.w.Array(2)
	c.w.BulkString("0")
	c.w.Array(0)
}

// scanOptionError replies a bad option of SSCAN or ZSCAN as Redis does,
// after looking the key up (n elements, or err replied by fail): a
// missing key is an empty scan whatever the options, and only an existing
// one sees optErr.
func (c *Client) scanOptionError(n int, err error, fail func(error), optErr string) {
	switch {
	case err != nil:
		fail(err)
	case n == 0:
		c.writeEmptyScan()
	default:
		c.w.Error(optErr)
	}
}
