package resp

import "github.com/tandemkv/tandem/engine"

// hllCommands is the HyperLogLog family (Redis group "hyperloglog"). HLLs
// are strings in Redis's own representation (engine/hll.go), so PFCOUNT
// answers what redis-server answers for the same elements, and an HLL
// copied between the two servers with GET and SET stays usable. Arity,
// flags, key positions, since and summary are redis 7.0.15's (COMMAND INFO
// and COMMAND DOCS). PFDEBUG and PFSELFTEST, Redis's internal testing
// commands, are not provided.
func hllCommands() []*Command {
	const g = "hyperloglog"
	acl := []string{"@hyperloglog"}
	return []*Command{
		{Name: "pfadd", Arity: -2, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWInsert}, Group: g, ACL: acl, Since: "2.8.9", Summary: "Adds the specified elements to the specified HyperLogLog.", Run: cmdPFAdd},
		{Name: "pfcount", Arity: -2, Flags: FlagReadonly | FlagMayReplicate, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccess}, Group: g, ACL: acl, Since: "2.8.9", Summary: "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", Run: cmdPFCount},
		{Name: "pfmerge", Arity: -2, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessIns, ksROAccess}, Group: g, ACL: acl, Since: "2.8.9", Summary: "Merge N different HyperLogLogs into a single one.", Run: cmdPFMerge},
	}
}

// hllError replies an engine error of the HyperLogLog commands.
func (c *Client) hllError(err error) {
	switch err {
	case engine.ErrNotHLL:
		c.w.Error(ErrNotHLL)
	case engine.ErrCorruptHLL:
		c.w.Error(ErrCorruptHLL)
	default:
		c.engineError(err)
	}
}

// cmdPFAdd is PFADD key [element ...]: 1 when the HLL changed (or was
// created), else 0.
func cmdPFAdd(c *Client, args [][]byte) {
	changed, err := c.db.PFAdd(args[1], args[2:], c.fe.cfg.HLLSparseMaxBytes())
	if err == nil && changed {
		c.notify(evString, "pfadd", args[1])
	}
	switch {
	case err != nil:
		c.hllError(err)
	case changed:
		c.w.Int(1)
	default:
		c.w.Int(0)
	}
}

// cmdPFCount is PFCOUNT key [key ...]: the estimated cardinality of one
// HLL (refreshing its cached value, which changes its bytes, as Redis
// does) or of the union of several (changing none).
func cmdPFCount(c *Client, args [][]byte) {
	var n int64
	var err error
	if len(args) == 2 {
		n, err = c.db.PFCount(args[1])
	} else {
		n, err = c.db.PFCountUnion(args[1:])
	}
	intReply(c, n, err, c.hllError)
}

// cmdPFMerge is PFMERGE destkey [sourcekey ...]: destkey becomes the union
// of itself and the sources.
func cmdPFMerge(c *Client, args [][]byte) {
	if err := c.db.PFMerge(args[1], args[2:], c.fe.cfg.HLLSparseMaxBytes()); err != nil {
		c.hllError(err)
		return
	}
	c.notify(evString, "pfadd", args[1])
	c.w.Status("OK")
}
