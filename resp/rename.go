package resp

import (
	"strings"

	"github.com/tandemkv/tandem/conf"
)

// Renames: redis's rename-command, applied once when the front-end builds
// its table, which stays immutable afterwards (redis renames at start-up
// only; CONFIG SET cannot). As in redis 7.0:
//
//   - the command answers only under the new name (any case); the old
//     name is an unknown command, in scripts too;
//   - rename-command X "" removes X;
//   - the Command keeps its name: COMMAND INFO <new> and COMMAND DOCS
//     <new> describe it under its original name, COMMAND LIST lists the
//     original name, and COMMAND COUNT counts the commands still served;
//   - renames apply in order, so a renamed command can be renamed again
//     under its new name, and a freed name can be taken by another command
//     (rename-command get a, rename-command set get);
//   - a name that is not a command, or a new name already taken, stops
//     start-up ("No such command in rename-command", "Target command name
//     already exists").
//
// Redis crashes on a subcommand (config|get); conf refuses it.

// NewTableRenamed is NewTable with renames applied in order; the error is
// the first rename refused, worded for start-up.
func NewTableRenamed(renames []conf.CommandRename, families ...[]*Command) (*Table, error) {
	t := NewTable(families...)
	for _, r := range renames {
		if err := t.rename(r); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// CheckRenames reports whether cfg's rename-command lines would all apply,
// so that the binary can stop before serving, as redis stops reading its
// configuration.
func CheckRenames(cfg *conf.Config) error {
	_, err := NewTableRenamed(cfg.CommandRenames(conf.PortRedis), commandFamilies()...)
	return err
}

func (t *Table) rename(r conf.CommandRename) error {
	old, to := strings.ToLower(r.Old), strings.ToLower(r.New)
	cmd := t.byName[old]
	if cmd == nil {
		return r.Fail(conf.ReasonRenameNoSuchCommand)
	}
	delete(t.byName, old)
	if to == "" {
		for i, c := range t.sorted {
			if c == cmd {
				t.sorted = append(t.sorted[:i:i], t.sorted[i+1:]...)
				break
			}
		}
		return nil
	}
	if t.byName[to] != nil {
		return r.Fail(conf.ReasonRenameTargetExists)
	}
	t.byName[to] = cmd
	return nil
}
