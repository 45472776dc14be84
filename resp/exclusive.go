package resp

// exclusive runs fn atomically with respect to every other client of both
// protocols (engine.Gate): EXEC's queue, a script. The caller is inside the
// gate (Serve entered it); it leaves, runs fn exclusively and comes back.
// A section inside a section (EVAL inside EXEC) simply runs.
func (c *Client) exclusive(fn func()) {
	if c.inExclusive {
		fn()
		return
	}
	gate := c.fe.eng.Gate()
	gate.Leave()
	c.inExclusive = true
	defer func() {
		c.inExclusive = false
		// Back to where Serve was: inside, even if a busy script started
		// meanwhile on another loop, since this client is mid-batch.
		gate.EnterWait()
	}()
	gate.Exclusive(fn)
}

// wake makes the client's loop serve it again.
func (c *Client) wake() { _ = c.peer.Wake() }
