package resp

// Argument and reply helpers of the commands that name their keys after a
// count (numkeys key [key ...]): LMPOP, BLMPOP, ZMPOP, BZMPOP and
// SINTERCARD. The pops share the rest of their grammar too, numkeys key...
// WHERE [COUNT count], and their reply, [key, [elements]].

// numkeysArg reads numkeys at args[at] and returns the keys after it, as
// Redis's lmpop, zmpop and sintercard commands: anything but an integer >=
// 1 replies bad; numkeys keys that would leave fewer than after arguments
// behind them reply tooFew.
func (c *Client) numkeysArg(args [][]byte, at, after int, bad, tooFew string) ([][]byte, bool) {
	n, ok := c.countArg(args[at], 1, bad)
	if !ok {
		return nil, false
	}
	if n > int64(len(args)-at-1-after) {
		c.w.Error(tooFew)
		return nil, false
	}
	return args[at+1 : at+1+int(n)], true
}

// mpopCountArg reads the optional COUNT count that ends a pop's arguments
// at args[from:]: the count, 1 when there is none; anything but an integer
// >= 1 replies bad, and another word or a second COUNT is a syntax error.
func (c *Client) mpopCountArg(args [][]byte, from int, bad string) (int64, bool) {
	count := int64(-1)
	for j := from; j < len(args); j++ {
		if count == -1 && argIsC(args[j], "COUNT") && j+1 < len(args) {
			j++
			var ok bool
			if count, ok = c.countArg(args[j], 1, bad); !ok {
				return 0, false
			}
			continue
		}
		c.w.Error(ErrSyntax)
		return 0, false
	}
	if count == -1 {
		count = 1
	}
	return count, true
}

// mpopHeader begins a pop's reply [key, [n elements]]; the caller writes
// the elements.
func (c *Client) mpopHeader(key []byte, n int) {
	c.w.Array(2)
	c.w.Bulk(key)
	c.w.Array(n)
}
