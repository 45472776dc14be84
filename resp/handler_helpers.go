package resp

import "github.com/tandemkv/tandem/engine"

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
