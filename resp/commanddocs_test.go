package resp

import (
	"slices"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/resp/commanddocs"
)

// The table's key flags (GETKEYSANDFLAGS, ACL key checks) agree with the
// key specs COMMAND INFO prints from redis 7.0.15's docs: the i-th spec
// that locates keys has the flags of the i-th key the table's flags
// describe (the last covering the rest). Specs of unknown begin (SORT's
// BY, GET and STORE) locate none; "incomplete" says how far a spec finds
// keys, not how a key is used. A command whose flags depend on its
// arguments (VarKeyFlags) is skipped.
func TestKeyFlagsMatchDocKeySpecs(t *testing.T) {
	docs, checked := 0, 0
	eachCommand(NewTable(commandFamilies()...), func(cmd *Command) {
		d := commanddocs.Lookup(cmd.Name)
		if d == nil {
			return
		}
		docs++
		specs := d.KeySpecs
		if len(specs) == 0 || cmd.VarKeyFlags != nil {
			return
		}
		flags := cmd.specKeyFlags()
		i := 0
		for j, ks := range specs {
			if ks.BeginSearch == "unknown" {
				continue
			}
			f := flags[min(i, len(flags)-1)] &^ KeyIncomplete
			i++
			want := strings.Join(slices.DeleteFunc(slices.Clone(ks.Flags), func(n string) bool { return n == "incomplete" }), " ")
			if got := strings.Join(f.Names(), " "); got != want {
				t.Errorf("%s: key spec %d: table %q, redis %q", cmd.Name, j, got, want)
			}
		}
		checked++
	})
	if docs < 300 || checked < 150 {
		t.Fatalf("only %d documented commands, %d checked", docs, checked)
	}
}

// Every command the table serves is documented, but those newer than
// redis 7.0.15, which keep the table's summary; the docs hold no command
// the table lacks.
func TestEveryCommandDocumented(t *testing.T) {
	newer := map[string]bool{"client|no-touch": true, "client|setinfo": true}
	served := map[string]bool{}
	eachCommand(NewTable(commandFamilies()...), func(cmd *Command) {
		served[cmd.Name] = true
		if d := commanddocs.Lookup(cmd.Name); (d == nil) != newer[cmd.Name] {
			t.Errorf("%s: documented %v", cmd.Name, d != nil)
		}
		if newer[cmd.Name] && cmd.Summary == "" {
			t.Errorf("%s: no summary of its own", cmd.Name)
		}
	})
	for name := range commanddocs.All() {
		if !served[name] {
			t.Errorf("docs hold %q, which the table does not serve", name)
		}
	}
}

// The table's group, since and summary (ACL categories and ACL's
// 7.0.15-or-later test read the first two) agree with the docs.
func TestTableAgreesWithDocs(t *testing.T) {
	eachCommand(NewTable(commandFamilies()...), func(cmd *Command) {
		d := commanddocs.Lookup(cmd.Name)
		if d == nil {
			return
		}
		if cmd.Group != d.Group || cmd.Since != d.Since || cmd.Summary != d.Summary {
			t.Errorf("%s: table %q %q %q, docs %q %q %q", cmd.Name, cmd.Group, cmd.Since, cmd.Summary, d.Group, d.Since, d.Summary)
		}
	})
}
