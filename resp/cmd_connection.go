package resp

// connectionCommands is the connection family (Redis group "connection").
func connectionCommands() []*Command {
	return []*Command{
		{Name: "ping", Arity: -1, Flags: FlagFast | FlagStale, Group: "connection", Since: "1.0.0", Summary: "Returns the server's liveliness response.", Run: cmdPing},
		{Name: "quit", Arity: -1, Flags: FlagAllowBusy | FlagNoAuth | FlagFast | FlagNoScript | FlagLoading | FlagStale, Group: "connection", Since: "1.0.0", Summary: "Closes the connection.", Run: cmdQuit},
	}
}

func cmdPing(c *Client, args [][]byte) {
	switch len(args) {
	case 1:
		c.w.Status("PONG")
	case 2:
		c.w.Bulk(args[1])
	default:
		c.w.Error(WrongArgs("ping"))
	}
}

func cmdQuit(c *Client, _ [][]byte) {
	c.w.Status("OK")
	c.closeAfter = true
}
