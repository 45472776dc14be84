package resp

// streamGroupCommands are the consumer-group commands and XINFO.
func streamGroupCommands() []*Command { return nil }

// streamGroupError replies an engine error of the group commands.
func (c *Client) streamGroupError(err error) { c.engineError(err) }
