package resp

// serverCommands is the server family (Redis group "server").
func serverCommands() []*Command {
	return []*Command{}
}
