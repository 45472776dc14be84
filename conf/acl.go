package conf

import (
	"path/filepath"
	"strings"

	"github.com/tandemkv/tandem/users"
)

// Redis ACL users in the configuration: "user <name> <rule>…" lines, as
// redis.conf declares them, start-up only and not a CONFIG GET value, as
// in redis. aclfile is an immutable directive of the table, acllog-max-len
// and acl-pubsub-default mutable ones (directives.go). Rules are not
// checked here: they
// name commands of the Redis front-end's table, so the user store (package
// users) applies them when that table is built and refuses a bad line
// there.

const dirUser = "user"

// ACLUser is one user line: the name and its rules, in order.
type ACLUser struct {
	Name  string
	Rules []string
}

// ACLUsers returns the user lines in the order given (file lines, then
// the environment, then the flags).
func (c *Config) ACLUsers() []ACLUser { return c.load().aclUsers }

// ACLFile is the aclfile path as configured, "" when none is.
func (c *Config) ACLFile() string { return c.load().str[dACLFile] }

// ACLFilePath is the aclfile to open: a relative path is relative to dir,
// as in Redis, which changes its working directory to dir.
func (c *Config) ACLFilePath() string {
	p := c.ACLFile()
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir(), p)
}

// aclPubsubNames are acl-pubsub-default's values, in Redis's order (its
// error lists them so).
var aclPubsubNames = []string{"allchannels", "resetchannels"}

// ACLPubsubAllChannels reports whether acl-pubsub-default is allchannels:
// a new user or selector, and "reset", then grant every channel.
func (c *Config) ACLPubsubAllChannels() bool { return c.load().num[dACLPubsubDefault] == 0 }

// ACLLogMaxLen is acllog-max-len: how many entries ACL LOG keeps
// (mutable; services follows it into the user store).
func (c *Config) ACLLogMaxLen() int { return int(c.load().num[dACLLogMaxLen]) }

// aclDirective handles user lines; handled is false for any other name.
// resplit splits a single word (flags, the environment), as for
// rename-command.
func (ld *loader) aclDirective(name string, args []string, resplit bool) (handled bool, reason string) {
	if name != dirUser {
		return false, ""
	}
	if resplit && len(args) == 1 && args[0] != "" {
		words, ok := splitArgs(args[0])
		if !ok {
			return true, reasonUnbalanced
		}
		args = words
	}
	if len(args) < 1 || args[0] == "" || strings.ContainsAny(args[0], " \x00") {
		return true, reasonBadDirective
	}
	// As Redis's ACLAppendUserForLoading: a user declared twice, or a rule
	// that is wrong whatever the command table (unknown commands are only
	// known later, when the users store applies the lines), stops start-up.
	// Redis names the word at the failing rule's index among the whole
	// line's words, "user" for the first rule: so does Tandem.
	for _, o := range ld.s.aclUsers {
		if o.Name == args[0] {
			return true, "Error in user declaration '" + args[0] + "': Duplicate user found. A user can only be defined once in config files"
		}
	}
	if i, err := users.CheckRules(args[1:]); err != nil {
		word := append([]string{dirUser}, args...)[min(i, len(args))]
		return true, "Error in user declaration '" + word + "': " + err.Error()
	}
	u := ACLUser{Name: args[0], Rules: append([]string(nil), args[1:]...)}
	// Never append into a slice another snapshot may share.
	ld.s.aclUsers = append(append(make([]ACLUser, 0, len(ld.s.aclUsers)+1), ld.s.aclUsers...), u)
	return true, ""
}
