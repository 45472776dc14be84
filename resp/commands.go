package resp

// Commands returns the commands the Redis front-end serves, in declaration
// order, each container with its Subcommands: the table New builds, without
// the services a front-end needs. internal/readme checks the README's
// command lists against it.
func Commands() []*Command { return NewTable(commandFamilies()...).All() }
