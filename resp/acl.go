package resp

import (
	"strings"
	"time"

	"github.com/tandemkv/tandem/users"
)

// Redis ACL enforcement: every command a client runs is checked against
// the user it is bound to (AUTH, HELLO AUTH and RESET bind it; see
// cmd_connection.go) right after the NOAUTH check, as Redis's
// processCommand calls ACLCheckAllPerm. The user's root selector and each
// "(…)" selector is tried in turn (users.Spec.Check); one must allow all
// of the command:
//
//  1. the command (or subcommand) in its bitmap over the command table
//     (users.Catalog, built from this table's names and ACL categories),
//     or a +cmd|first-arg rule matching args[1]; AUTH, HELLO, QUIT and
//     RESET always run;
//  2. each key argument (KeysOf) with the access its key-spec flags need
//     (keyspec.go: "access" needs %R~, "insert", "update" or "delete"
//     %W~, as Redis's ACLSelectorCheckKey), so %R~src* %W~dst* allows
//     COPY src1 dst1; shard channels (not_key) are not keys;
//  3. each channel of PUBLISH, SUBSCRIBE, PSUBSCRIBE, SPUBLISH and
//     SSUBSCRIBE must match a channel pattern (a PSUBSCRIBE pattern must
//     equal one literally).
//
// A denial answers NOPERM with Redis 7.0's text and adds an ACL LOG entry.

// NOPERM texts, redis 7.0's getAclErrorMessage.
const (
	errNoPermKey     = "NOPERM this user has no permissions to access one of the keys used as arguments"
	errNoPermChannel = "NOPERM this user has no permissions to access one of the channels used as arguments"
)

func errNoPermCommand(name string) string {
	return "NOPERM this user has no permissions to run the '" + name + "' command"
}

// newACLCatalog is the users.Catalog of t: every command, then each
// container's subcommands after it, with the categories ACLCategories
// derives.
func newACLCatalog(t *Table) *users.Catalog {
	var cmds []users.CatalogCommand
	add := func(cmd *Command) {
		var bits uint32
		for _, c := range cmd.ACLCategories() {
			bits |= users.CategoryBit(strings.TrimPrefix(c, "@"))
		}
		cmds = append(cmds, users.CatalogCommand{Name: cmd.Name, Categories: bits, NoAuth: cmd.Flags&FlagNoAuth != 0,
			Later: cmd.Since > "7.0.15"}) // the table's versions compare as strings (7.2.0)
	}
	for _, cmd := range t.All() {
		add(cmd)
		for _, sc := range cmd.Subcommands {
			add(sc)
		}
	}
	return users.NewCatalog(cmds)
}

// aclDenial is why a command may not run: a reason of ACL LOG ("command",
// "key", "channel") and the object, "" when it may.
type aclDenial struct {
	reason, object string
}

// aclCheck checks cmd with args against sp, as Redis's
// ACLCheckAllUserCommandPerm.
func aclCheck(sp *users.Spec, cmd *Command, args [][]byte) aclDenial {
	r := aclRequest(cmd, args)
	switch d := sp.Check(&r); d.Reason {
	case users.Allowed:
		return aclDenial{}
	case users.DeniedCommand:
		return aclDenial{"command", cmd.Name}
	default:
		return aclDenial{d.Reason.String(), string(args[d.Pos])}
	}
}

// aclRequest is cmd with args as the ACL rules check it: its keys with
// the access their key-spec flags need, and its channels.
func aclRequest(cmd *Command, args [][]byte) users.Request {
	r := users.Request{Name: cmd.Name, Args: args, Channels: channelArgs(cmd, args)}
	if keys := cmd.KeysOf(args); len(keys) > 0 {
		flags := cmd.KeyFlagsFor(args, keys)
		r.Keys = make([]users.KeyRef, 0, len(keys))
		for i, k := range keys {
			if k < len(args) && flags[i]&KeyNotKey == 0 {
				r.Keys = append(r.Keys, users.KeyRef{Pos: k, Need: aclKeyAccess(flags[i])})
			}
		}
	}
	return r
}

// readsAnyKey reports whether the client's user may run cmd with args and
// read every key, as SORT requires before its BY and GET patterns name
// keys of their own (Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess
// with CMD_KEY_ACCESS).
func (c *Client) readsAnyKey(cmd *Command, args [][]byte) bool {
	if c.user == nil {
		return true
	}
	r := aclRequest(cmd, args)
	return c.user.ACL().CheckUnrestrictedKeys(&r, users.KeyRead)
}

// channelArgs returns the channels a pub/sub command names, as Redis's
// commands_with_channels (UNSUBSCRIBE's are not checked); nil for any
// other command.
func channelArgs(cmd *Command, args [][]byte) []users.ChannelRef {
	from, to, pattern := 1, len(args), false
	switch cmd.Name {
	case "publish", "spublish":
		to = min(2, len(args))
	case "subscribe", "ssubscribe":
	case "psubscribe":
		pattern = true
	default:
		return nil
	}
	refs := make([]users.ChannelRef, 0, to-from)
	for i := from; i < to; i++ {
		refs = append(refs, users.ChannelRef{Pos: i, Pattern: pattern})
	}
	return refs
}

// userDenial is why the client's user may not run cmd with args; no
// reason when it may (no user bound, or one without restrictions).
func (c *Client) userDenial(cmd *Command, args [][]byte) aclDenial {
	if c.user == nil {
		return aclDenial{}
	}
	sp := c.user.ACL()
	if sp.Unrestricted() {
		return aclDenial{}
	}
	return aclCheck(sp, cmd, args)
}

// aclDenied checks the command against the client's user and returns the
// NOPERM reply, logging the denial, or "" when it may run.
func (c *Client) aclDenied(cmd *Command, args [][]byte) string {
	d := c.userDenial(cmd, args)
	if d.reason == "" {
		return ""
	}
	c.lastCmd.Store(cmd) // CLIENT INFO's cmd= in the entry is the refused command, as in Redis
	if c.inExclusive {   // EXEC runs its queue: the rules changed since it was queued
		c.aclLogContext(d.reason, d.object, c.user.Name(), "multi")
		return errNoPermExec + execReasons[d.reason]
	}
	c.aclLog(d.reason, d.object, c.user.Name())
	switch d.reason {
	case "command":
		return errNoPermCommand(cmd.Name)
	case "key":
		return errNoPermKey
	}
	return errNoPermChannel
}

// errNoPermExec and execReasons are redis 7.0's execCommand refusal of a
// queued command the user may no longer run.
const errNoPermExec = "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: "

var execReasons = map[string]string{
	"command": "no permission to execute the command or subcommand",
	"key":     "no permission to touch the specified keys",
	"channel": "no permission to access one of the channels used as arguments",
}

// aclLog adds an ACL LOG entry for this client.
func (c *Client) aclLog(reason, object, username string) {
	ctx := "toplevel"
	if c.tx != nil {
		ctx = "multi"
	}
	c.aclLogContext(reason, object, username, ctx)
}

// aclLogContext adds an ACL LOG entry with the given context.
func (c *Client) aclLogContext(reason, object, username, ctx string) {
	now := time.Now()
	c.fe.users.Log(users.LogEntry{Reason: reason, Context: ctx, Object: object, Username: username,
		ClientInfo: string(c.appendInfoLine(nil, now, c, nil))}, now)
}

// bindUser makes u the user the client runs as (AUTH, HELLO AUTH, RESET,
// a new connection). Only the loop writes it, under mu so that CLIENT
// LIST on another loop reads it safely; the loop reads it without.
func (c *Client) bindUser(u *users.User) {
	c.mu.Lock()
	c.user = u
	c.mu.Unlock()
}

// boundUser is the client's user, for another client's CLIENT KILL USER.
func (c *Client) boundUser() *users.User {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.user
}

// Refusals of redis.call by the caller's ACL rules, redis 7.0's
// scriptVerifyACL texts, before the "ERR " the script adds.
const (
	errScriptNoPermCommand = "The user executing the script can't run this command or subcommand"
	errScriptNoPermKey     = "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	errScriptNoPermChannel = "The user executing the script can't publish to the channel mentioned in the command"
)

// scriptACLDenied checks a command a script of this client calls against
// the client's user, logging a denial with context "lua".
func (c *Client) scriptACLDenied(cmd *Command, args [][]byte) string {
	d := c.userDenial(cmd, args)
	if d.reason == "" {
		return ""
	}
	c.aclLogContext(d.reason, d.object, c.user.Name(), "lua")
	switch d.reason {
	case "command":
		return errScriptNoPermCommand
	case "key":
		return errScriptNoPermKey
	}
	return errScriptNoPermChannel
}
