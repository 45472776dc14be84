package resp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tandemkv/tandem/users"
)

// aclCommands is the ACL container (Redis group "server"). Arity, flags,
// since and summary are redis 7.0's (src/commands/acl-*.json). The users
// live in the store both front-ends share (package users); enforcement is
// in acl.go.
func aclCommands() []*Command {
	return []*Command{
		{Name: "acl", Arity: -2, Group: "server", Since: "6.0.0", Summary: "A container for Access List Control commands ", Subcommands: aclSubcommands()},
	}
}

func aclSubcommands() []*Command {
	const admin = FlagAdmin | FlagNoScript | FlagLoading | FlagStale
	const plain = FlagNoScript | FlagLoading | FlagStale
	return []*Command{
		{Name: "acl|cat", Arity: -2, Flags: plain, Group: "server", Since: "6.0.0", Summary: "List the ACL categories or the commands inside a category", Run: cmdACLCat},
		{Name: "acl|deluser", Arity: -3, Flags: admin, Group: "server", Since: "6.0.0", Summary: "Remove the specified ACL users and the associated rules", Run: cmdACLDelUser},
		{Name: "acl|dryrun", Arity: -4, Flags: admin, Group: "server", Since: "7.0.0", Summary: "Returns whether the user can execute the given command without executing the command.", Run: cmdACLDryRun},
		{Name: "acl|genpass", Arity: -2, Flags: plain, Group: "server", Since: "6.0.0", Summary: "Generate a pseudorandom secure password to use for ACL users", Run: cmdACLGenPass},
		{Name: "acl|getuser", Arity: 3, Flags: admin, Group: "server", Since: "6.0.0", Summary: "Get the rules for a specific ACL user", Run: cmdACLGetUser},
		{Name: "acl|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Since: "6.0.0", Summary: "Show helpful text about the different subcommands", Run: cmdACLHelp},
		{Name: "acl|list", Arity: 2, Flags: admin, Group: "server", Since: "6.0.0", Summary: "List the current ACL rules in ACL config file format", Run: cmdACLList},
		{Name: "acl|load", Arity: 2, Flags: admin, Group: "server", Since: "6.0.0", Summary: "Reload the ACLs from the configured ACL file", Run: cmdACLLoad},
		{Name: "acl|log", Arity: -2, Flags: admin, Group: "server", Since: "6.0.0", Summary: "List latest events denied because of ACLs in place", Run: cmdACLLog},
		{Name: "acl|save", Arity: 2, Flags: admin, Group: "server", Since: "6.0.0", Summary: "Save the current ACL rules in the configured ACL file", Run: cmdACLSave},
		{Name: "acl|setuser", Arity: -3, Flags: admin, Group: "server", Since: "6.0.0", Summary: "Modify or create the rules for a specific ACL user", Run: cmdACLSetUser},
		{Name: "acl|users", Arity: 2, Flags: admin, Group: "server", Since: "6.0.0", Summary: "List the username of all the configured ACL rules", Run: cmdACLUsers},
		{Name: "acl|whoami", Arity: 2, Flags: plain, Group: "server", Since: "6.0.0", Summary: "Return the name of the user associated to the current connection", Run: cmdACLWhoAmI},
	}
}

var aclHelp = []string{
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
}

// ACL reply texts, redis 7.0's.
const (
	errACLNoFile     = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."
	errACLGenPass    = "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096"
	errACLDelDefault = "ERR The 'default' user cannot be removed"
	errACLUserSpaces = "ERR Usernames can't contain spaces or null characters"
)

// aclSyntaxError is Redis's addReplySubcommandSyntaxError for ACL.
func (c *Client) aclSyntaxError(sub []byte) {
	c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + cutC(string(sub), 128) + "'. Try ACL HELP.")
}

func cmdACLHelp(c *Client, args [][]byte) { c.help(args[0], aclHelp) }

func cmdACLWhoAmI(c *Client, _ [][]byte) { c.w.BulkString(c.user.Name()) }

func cmdACLUsers(c *Client, _ [][]byte) {
	names := c.fe.users.Names()
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdACLList(c *Client, _ [][]byte) {
	lines := c.fe.aclUserLines() // config_rewrite.go
	c.w.Array(len(lines))
	for _, l := range lines {
		c.w.BulkString(l)
	}
}

func cmdACLSetUser(c *Client, args [][]byte) {
	name := string(args[2])
	if strings.ContainsAny(name, " \x00") {
		c.w.Error(errACLUserSpaces)
		return
	}
	ops := make([]string, len(args)-3)
	for i, a := range args[3:] {
		ops[i] = string(a)
	}
	if err := c.fe.users.SetUser(name, ops...); err != nil {
		c.w.Error("ERR " + mapNewlines(err.Error()))
		return
	}
	c.w.Status("OK")
}

func cmdACLGetUser(c *Client, args [][]byte) {
	u := c.fe.users.Lookup(string(args[2]))
	if u == nil {
		c.w.Null()
		return
	}
	sp := u.ACL()
	c.w.Map(6)
	c.w.BulkString("flags")
	flags := sp.Flags()
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("passwords")
	c.w.Array(len(sp.Passwords))
	for _, p := range sp.Passwords {
		c.w.BulkString(p)
	}
	c.writeSelector(&sp.Selector)
	c.w.BulkString("selectors")
	c.w.Array(len(sp.Selectors))
	for _, sel := range sp.Selectors {
		c.w.Map(3)
		c.writeSelector(sel)
	}
}

// writeSelector writes a selector's commands, keys and channels fields,
// Redis's aclAddReplySelectorDescription.
func (c *Client) writeSelector(sel *users.Selector) {
	c.w.BulkString("commands")
	c.w.BulkString(sel.CommandRules())
	c.w.BulkString("keys")
	c.w.BulkString(sel.KeysRule())
	c.w.BulkString("channels")
	c.w.BulkString(sel.ChannelsRule())
}

func cmdACLDelUser(c *Client, args [][]byte) {
	for _, a := range args[2:] {
		if string(a) == users.DefaultName {
			c.w.Error(errACLDelDefault)
			return
		}
	}
	names := make([]string, len(args)-2)
	for i, a := range args[2:] {
		names[i] = string(a)
	}
	// The users' connections close (this one after its reply), as Redis
	// 7.0's ACLFreeUserAndKillClients: see closeRemovedUsers.
	c.w.Int(int64(c.fe.users.DeleteUsers(c, names...)))
}

// cmdACLCat is ACL CAT [category]: the categories, or the commands (and
// subcommands) in one, in table order (Redis's is its dict's).
func cmdACLCat(c *Client, args [][]byte) {
	switch len(args) {
	case 2:
		c.w.Array(len(users.Categories))
		for _, cat := range users.Categories {
			c.w.BulkString(cat)
		}
	case 3:
		names, ok := c.fe.users.Catalog().InCategory(string(args[2]))
		if !ok {
			c.w.Error("ERR Unknown category '" + cutC(string(args[2]), len(args[2])) + "'")
			return
		}
		c.w.Array(len(names))
		for _, n := range names {
			c.w.BulkString(n)
		}
	default:
		c.aclSyntaxError(args[1])
	}
}

func cmdACLGenPass(c *Client, args [][]byte) {
	bits := int64(256)
	switch len(args) {
	case 2:
	case 3:
		n, err := strconv.ParseInt(string(args[2]), 10, 64)
		if err != nil {
			c.w.Error(ErrNotInteger)
			return
		}
		if n <= 0 || n > 4096 {
			c.w.Error(errACLGenPass)
			return
		}
		bits = n
	default:
		c.aclSyntaxError(args[1])
		return
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	_, _ = rand.Read(buf)
	c.w.BulkString(hex.EncodeToString(buf)[:chars])
}

// cmdACLLog is ACL LOG [count | RESET], with redis 7.0's seven fields.
func cmdACLLog(c *Client, args [][]byte) {
	count := 10
	switch len(args) {
	case 2:
	case 3:
		if argIs(args[2], "RESET") {
			c.fe.users.ResetLog()
			c.w.Status("OK")
			return
		}
		n, err := strconv.ParseInt(string(args[2]), 10, 64)
		if err != nil {
			c.w.Error(ErrNotInteger)
			return
		}
		count = int(max(n, 0))
	default:
		c.aclSyntaxError(args[1])
		return
	}
	entries := c.fe.users.LogEntries(count)
	now := time.Now()
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Map(7)
		c.w.BulkString("count")
		c.w.Int(e.Count)
		c.w.BulkString("reason")
		c.w.BulkString(e.Reason)
		c.w.BulkString("context")
		c.w.BulkString(e.Context)
		c.w.BulkString("object")
		c.w.BulkString(e.Object)
		c.w.BulkString("username")
		c.w.BulkString(e.Username)
		c.w.BulkString("age-seconds")
		c.w.Double(float64(now.Sub(e.Updated).Milliseconds()) / 1000)
		c.w.BulkString("client-info")
		c.w.BulkString(e.ClientInfo)
	}
}

// cmdACLDryRun is ACL DRYRUN user command [arg...]: whether user may run
// it, with Redis's verbose texts.
func cmdACLDryRun(c *Client, args [][]byte) {
	u := c.fe.users.Lookup(string(args[2]))
	if u == nil {
		c.w.Error(fmt.Sprintf("ERR User '%s' not found", cutC(string(args[2]), len(args[2]))))
		return
	}
	cargs := args[3:]
	cmd := c.fe.table.Lookup(cargs[0], c.scratch[:])
	if cmd != nil && cmd.sub != nil && len(cargs) >= 2 {
		cmd = cmd.subcommand(cargs[1], c.scratch[:])
	}
	if cmd == nil {
		c.w.Error(fmt.Sprintf("ERR Command '%s' not found", cutC(string(cargs[0]), len(cargs[0]))))
		return
	}
	if !cmd.arityOK(len(cargs)) {
		c.w.Error(WrongArgs(cmd.Name))
		return
	}
	switch d := aclCheck(u.ACL(), cmd, cargs); d.reason {
	case "":
		c.w.Status("OK")
	case "command":
		c.w.BulkString("This user has no permissions to run the '" + cmd.Name + "' command")
	default:
		c.w.BulkString("This user has no permissions to access the '" + d.object + "' " + d.reason)
	}
}

// cmdACLLoad is ACL LOAD: the aclfile replaces every user, or nothing
// changes when a line is refused.
func cmdACLLoad(c *Client, _ [][]byte) {
	path := c.fe.cfg.ACLFile()
	if path == "" {
		c.w.Error(errACLNoFile)
		return
	}
	if err := c.fe.users.LoadFile(c, path, c.fe.cfg.ACLFilePath()); err != nil {
		c.w.Error("ERR " + mapNewlines(err.Error()))
		return
	}
	c.w.Status("OK")
}

// cmdACLSave is ACL SAVE: ACL LIST's lines written to the aclfile.
func cmdACLSave(c *Client, _ [][]byte) {
	path := c.fe.cfg.ACLFile()
	if path == "" {
		c.w.Error(errACLNoFile)
		return
	}
	if err := c.fe.users.SaveFile(c.fe.cfg.ACLFilePath()); err != nil {
		c.w.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		c.fe.log.Error("ACL SAVE", "file", path, "err", err)
		return
	}
	c.w.Status("OK")
}
