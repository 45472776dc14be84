package users

import "strings"

// Categories are Redis 7.0's ACL command categories, in its order (the
// order ACL CAT lists them and ACL GETUSER's category fitting tries them).
var Categories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// CategoryBit is the bit of a category name (without '@') in a
// CatalogCommand's Categories, 0 for an unknown name.
func CategoryBit(name string) uint32 {
	for i, c := range Categories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// CatalogCommand is one command as ACL rules see it.
type CatalogCommand struct {
	Name       string // lower case; "client|id" for a subcommand
	Categories uint32 // CategoryBit of each category
	NoAuth     bool   // runs whatever the rules say (AUTH, HELLO…), as Redis's CMD_NO_AUTH
	Later      bool   // a command of a Redis after 7.0 (CLIENT SETINFO): out of ACL GETUSER's category fitting, which counts 7.0's commands
	parent     int    // index of the container, -1 for a top-level command
	subs       []int
}

// Catalog is the set of commands ACL rules name: the command table of the
// Redis front-end, each command (and subcommand) with an index that is its
// bit in a Spec's permission bitmap. A Catalog is read-only once built.
type Catalog struct {
	cmds   []CatalogCommand
	byName map[string]int
}

// NewCatalog indexes commands in the order given; a subcommand
// ("client|id") must come after its container ("client").
func NewCatalog(cmds []CatalogCommand) *Catalog {
	c := &Catalog{byName: map[string]int{}}
	for _, cc := range cmds {
		cc.parent = -1
		cc.subs = nil
		if i := strings.IndexByte(cc.Name, '|'); i > 0 {
			if p, ok := c.byName[cc.Name[:i]]; ok {
				cc.parent = p
				c.cmds[p].subs = append(c.cmds[p].subs, len(c.cmds))
			}
		}
		c.byName[cc.Name] = len(c.cmds)
		c.cmds = append(c.cmds, cc)
	}
	return c
}

// Index returns the bit of the command called name (any case), or -1.
func (c *Catalog) Index(name string) int {
	if i, ok := c.byName[name]; ok {
		return i
	}
	if i, ok := c.byName[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// Len is the number of commands and subcommands.
func (c *Catalog) Len() int { return len(c.cmds) }

// Command returns the command at index i.
func (c *Catalog) Command(i int) CatalogCommand { return c.cmds[i] }

// InCategory lists the names of the commands in the category (without
// '@'), in catalog order, and reports whether the category exists.
func (c *Catalog) InCategory(name string) ([]string, bool) {
	bit := CategoryBit(name)
	if bit == 0 {
		return nil, false
	}
	var out []string
	for _, cc := range c.cmds {
		if cc.Categories&bit != 0 {
			out = append(out, cc.Name)
		}
	}
	return out, true
}
