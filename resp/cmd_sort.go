package resp

import (
	"bytes"

	"github.com/tandemkv/tandem/engine"
)

// sortCommands is SORT and SORT_RO (Redis group "generic"). Arity, flags,
// key positions, since and summary are redis 7.0.15's. Redis also flags
// both movablekeys (STORE and the BY/GET patterns name keys): the legacy
// key triple is the source key, and sortKeys and sortROKeys find the keys.
func sortCommands() []*Command {
	acl := []string{"-@keyspace", "@set", "@sortedset", "@list", "@dangerous"} // generic, yet not @keyspace in Redis
	return []*Command{
		{Name: "sort", Arity: -2, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: sortKeys, KeyFlags: []KeyFlag{ksROAccess, ksOWUpdate}, Group: "generic", ACL: acl, Since: "1.0.0", Summary: "Sort the elements in a list, set or sorted set", Run: cmdSort},
		{Name: "sort_ro", Arity: -2, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, KeyStep: 1, Keys: sortROKeys, Group: "generic", ACL: acl, Since: "7.0.0", Summary: "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", Run: cmdSortRO},
	}
}

// sortKeys finds SORT's keys as Redis's sortGetKeys: the source key, then
// the destination of the last STORE with an argument after it. Options are
// skipped by their argument count (LIMIT 2, BY and GET 1, others 0), so a
// "store" that is BY's pattern is no STORE. BY and GET patterns are not
// reported, as in Redis.
func sortKeys(args [][]byte) []int {
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case argIs(args[i], "LIMIT"):
			i += 2
		case argIs(args[i], "GET"), argIs(args[i], "BY"):
			i++
		case argIs(args[i], "STORE") && i+1 < len(args):
			store = i + 1
		}
	}
	if store == 0 {
		return []int{1}
	}
	return []int{1, store}
}

// sortROKeys finds SORT_RO's key, the source, as Redis's sortROGetKeys.
func sortROKeys([][]byte) []int { return []int{1} }

// SORT's refusals of BY and GET patterns to a user who may not read every
// key, redis 7.0's texts.
const (
	errSortByACL  = "ERR BY option of SORT denied due to insufficient ACL permissions."
	errSortGetACL = "ERR GET option of SORT denied due to insufficient ACL permissions."
)

func cmdSort(c *Client, args [][]byte)   { sortGeneric(c, args, false) }
func cmdSortRO(c *Client, args [][]byte) { sortGeneric(c, args, true) }

// sortGeneric parses the options as Redis's sortCommandGeneric does: one
// pass, the first error wins; the key's type is checked only after.
func sortGeneric(c *Client, args [][]byte, readonly bool) {
	spec := engine.SortSpec{Count: -1, ForScript: c.inScript()}
	var store []byte
	// BY and GET patterns read keys no ACL key pattern was checked
	// against: only a user who may read every key may use them (acl.go).
	fullKeyRead := c.readsAnyKey(c.fe.table.Lookup(args[0], c.scratch[:]), args)
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case argIsC(a, "ASC"):
			spec.Desc = false
		case argIsC(a, "DESC"):
			spec.Desc = true
		case argIsC(a, "ALPHA"):
			spec.Alpha = true
		case argIsC(a, "LIMIT") && left >= 2:
			off, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			cnt, ok := c.intArg(args[j+2])
			if !ok {
				return
			}
			spec.Offset, spec.Count = off, cnt
			j += 2
		case !readonly && argIsC(a, "STORE") && left >= 1:
			store = args[j+1]
			j++
		case argIsC(a, "BY") && left >= 1:
			spec.By = args[j+1]
			// A pattern without '*' (as C sees it) names no weights.
			if bytes.IndexByte(cBytes(spec.By), '*') < 0 {
				spec.DontSort = true
			} else if !fullKeyRead {
				c.w.Error(errSortByACL)
				return
			}
			j++
		case argIsC(a, "GET") && left >= 1:
			if !fullKeyRead {
				c.w.Error(errSortGetACL)
				return
			}
			spec.Gets = append(spec.Gets, args[j+1])
			j++
		default:
			c.w.Error(ErrSyntax)
			return
		}
	}
	if store != nil {
		n, err := c.db.SortStore(args[1], store, &spec)
		changedReply(c, n, err, c.sortError, evList, "sortstore", store)
		return
	}
	res, err := c.db.Sort(args[1], &spec)
	if err != nil {
		c.sortError(err)
		return
	}
	c.w.Array(len(res))
	for _, v := range res {
		if v == nil {
			c.w.Null()
		} else {
			c.w.Bulk(v)
		}
	}
}

func (c *Client) sortError(err error) {
	if err == engine.ErrSortNotDouble {
		c.w.Error(ErrSortNotDouble)
		return
	}
	c.engineError(err)
}

// cBytes is b as a C string: the bytes before its first NUL.
func cBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
