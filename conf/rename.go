package conf

import "strings"

// Command renames: redis's rename-command and Tandem's
// memcached-rename-command. They are start-up only, as in redis (CONFIG GET
// shows nothing for them and CONFIG SET answers "Unknown option"): each
// front-end applies them once, in order, when it builds its command table,
// which stays immutable afterwards.
//
// conf checks the syntax; whether the command exists, and whether the new
// name is taken, only the front-end knows. It reports those with
// CommandRename.Fail, which words the error as any other start-up error,
// at the line, flag or variable that asked for the rename.
//
// memcached's commands get their own directive rather than a prefix on
// rename-command ("memcached:flush_all"): a redis.conf's rename-command
// keeps exactly redis's meaning (renaming FLUSHALL for Redis clients must
// not touch memcached's flush_all), and memcached names are
// case-sensitive while redis's are not.

// Ports a rename applies to.
const (
	PortRedis     = "redis"
	PortMemcached = "memcached"
)

// directive names of the renames.
const (
	dirRenameCommand          = "rename-command"
	dirMemcachedRenameCommand = "memcached-rename-command"
)

// CommandRename is one rename-command (Port PortRedis) or
// memcached-rename-command (PortMemcached) line: the command Old is served
// as New only; New "" removes it.
type CommandRename struct {
	Port     string
	Old, New string
	where    LoadError // Source, File, Line, Name, Text of the asking line
}

// Fail returns the start-up error for a rename the front-end refuses, with
// redis's reason ("No such command in rename-command", "Target command name
// already exists").
func (r CommandRename) Fail(reason string) error {
	e := r.where
	e.Reason = reason
	return &e
}

// Reasons the front-ends give, as redis 7.0's config.c words them.
const (
	ReasonRenameNoSuchCommand = "No such command in rename-command"
	ReasonRenameTargetExists  = "Target command name already exists"
	// Redis asserts (crashes) on a subcommand; Tandem refuses it.
	reasonRenameSubcommand = "rename-command cannot rename a subcommand; rename its container command"
)

// CommandRenames returns the renames for port, in the order given (file
// lines, then the environment, then the flags).
func (c *Config) CommandRenames(port string) []CommandRename {
	var out []CommandRename
	for _, r := range c.load().renames {
		if r.Port == port {
			out = append(out, r)
		}
	}
	return out
}

// renameDirective handles rename-command and memcached-rename-command;
// handled is false for any other name. args are the words after the name;
// where locates the line for a later Fail. resplit splits a single word
// (flags and the environment: --rename-command "get g"), not a file's.
func (ld *loader) renameDirective(name string, args []string, resplit bool, where LoadError) (handled bool, reason string) {
	var port string
	switch name {
	case dirRenameCommand:
		port = PortRedis
	case dirMemcachedRenameCommand:
		port = PortMemcached
	default:
		return ld.aclDirective(name, args, resplit) // user, aclfile (acl.go)
	}
	if resplit && len(args) == 1 && args[0] != "" { // --rename-command "get g" or TANDEM_RENAME_COMMAND="get g"
		words, ok := splitArgs(args[0])
		if !ok {
			return true, reasonUnbalanced
		}
		args = words
	}
	if len(args) != 2 || args[0] == "" {
		return true, reasonBadDirective
	}
	if port == PortRedis && strings.Contains(args[0], "|") {
		return true, reasonRenameSubcommand
	}
	r := CommandRename{Port: port, Old: args[0], New: args[1], where: where}
	// Never append into a slice another snapshot may share.
	ld.s.renames = append(append(make([]CommandRename, 0, len(ld.s.renames)+1), ld.s.renames...), r)
	return true, ""
}
