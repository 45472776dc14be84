package resp

// keyCommands is the generic key family (Redis group "generic").
func keyCommands() []*Command {
	return []*Command{}
}
