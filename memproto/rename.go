package memproto

import (
	"maps"
	"strings"

	"github.com/tandemkv/tandem/conf"
)

// Renames: Tandem's memcached-rename-command, the memcached port's
// counterpart of redis's rename-command (memcached itself has none). It is
// applied once when the front-end is built; the table is immutable after.
//
//   - the command answers only under the new name, exactly as spelled
//     (memcached names are case-sensitive); the old name answers ERROR, as
//     any unknown command;
//   - memcached-rename-command X "" removes X;
//   - renames apply in order, as redis's (a renamed command can be
//     renamed again under its new name; a freed name can be reused);
//   - a name that is not a command, or a new name already taken, stops
//     start-up with redis's reasons. A new name must be a memcached token
//     the parser can see as a command: at least 2 bytes, no space or
//     control character.
//
// "stats", "version" and the replies keep the commands' own names. The
// ASCII authentication login ("set <user> ..." before auth) is not a
// command and is not renamed.

// reasonRenameBadName refuses a new name no request could spell.
const reasonRenameBadName = "memcached-rename-command: the new name must be at least 2 bytes, without spaces or control characters"

// commandTableRenamed is the command table with renames applied in order.
func commandTableRenamed(renames []conf.CommandRename) (map[string]*command, error) {
	if len(renames) == 0 {
		return commandTable, nil
	}
	t := maps.Clone(commandTable)
	for _, r := range renames {
		cmd := t[r.Old]
		if cmd == nil {
			return nil, r.Fail(conf.ReasonRenameNoSuchCommand)
		}
		if r.New != "" && (len(r.New) < 2 || strings.ContainsFunc(r.New, func(c rune) bool { return c <= ' ' || c == 0x7f })) {
			return nil, r.Fail(reasonRenameBadName)
		}
		delete(t, r.Old)
		if r.New == "" {
			continue
		}
		if t[r.New] != nil {
			return nil, r.Fail(conf.ReasonRenameTargetExists)
		}
		t[r.New] = cmd
	}
	return t, nil
}

// CheckRenames reports whether cfg's memcached-rename-command lines would
// all apply, so that the binary can stop before serving.
func CheckRenames(cfg *conf.Config) error {
	_, err := commandTableRenamed(cfg.CommandRenames(conf.PortMemcached))
	return err
}
