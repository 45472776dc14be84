package resp

import (
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/num"
)

// bitmapCommands is the bitmap family (Redis group "bitmap"): bit
// operations on string values. Arity, flags, key positions, since and
// summary are redis 7.0.15's (COMMAND INFO and COMMAND DOCS).
func bitmapCommands() []*Command {
	const (
		g  = "bitmap"
		wd = FlagWrite | FlagDenyOOM
		ro = FlagReadonly
	)
	acl := []string{"@bitmap"}
	return []*Command{
		{Name: "setbit", Arity: 4, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksRWAccessUpd}, Group: g, ACL: acl, Since: "2.2.0", Summary: "Sets or clears the bit at offset in the string value stored at key", Run: cmdSetBit},
		{Name: "getbit", Arity: 3, Flags: ro | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.2.0", Summary: "Returns the bit value at offset in the string value stored at key", Run: cmdGetBit},
		{Name: "bitcount", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.6.0", Summary: "Count set bits in a string", Run: cmdBitCount},
		{Name: "bitpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "2.8.7", Summary: "Find first bit set or clear in a string", Run: cmdBitPos},
		{Name: "bitop", Arity: -4, Flags: wd, FirstKey: 2, LastKey: -1, KeyStep: 1, KeyFlags: []KeyFlag{ksOWUpdate, ksROAccess}, Group: g, ACL: acl, Since: "2.6.0", Summary: "Perform bitwise operations between strings", Run: cmdBitOp},
		{Name: "bitfield", Arity: -2, Flags: wd, FirstKey: 1, LastKey: 1, KeyStep: 1, KeyFlags: []KeyFlag{ksVarAccessUpd}, VarKeyFlags: bitfieldKeyFlags, Group: g, ACL: acl, Since: "3.2.0", Summary: "Perform arbitrary bitfield integer operations on strings", Run: cmdBitField},
		{Name: "bitfield_ro", Arity: -2, Flags: ro | FlagFast, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: g, ACL: acl, Since: "6.0.0", Summary: "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", Run: cmdBitFieldRO},
	}
}

// bitOffsetArg parses a bit offset as Redis 7.0's getBitOffsetFromArgument:
// a strict integer (with BITFIELD, "#n" means n times the field width),
// not negative, whose byte lies below proto-max-bulk-len. It replies the
// error itself.
func (c *Client) bitOffsetArg(arg []byte, fieldBits int) (uint64, bool) {
	hash := fieldBits > 0 && len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	off, ok := num.ParseInt(arg)
	if ok && hash {
		off *= int64(fieldBits) // wraps like Redis's long long multiply
	}
	if !ok || off < 0 || uint64(off)>>3 >= uint64(c.fe.cfg.ProtoMaxBulkLen()) {
		c.w.Error(ErrBitOffset)
		return 0, false
	}
	return uint64(off), true
}

// cmdSetBit is SETBIT key offset value: the bit's previous value. The
// offset is checked before the value, both before the key is looked at.
func cmdSetBit(c *Client, args [][]byte) {
	off, ok := c.bitOffsetArg(args[2], 0)
	if !ok {
		return
	}
	on, ok := num.ParseInt(args[3])
	if !ok || on&^1 != 0 {
		c.w.Error(ErrBitValue)
		return
	}
	old, changed, err := c.db.SetBit(args[1], off, int(on))
	if err != nil {
		c.engineError(err)
		return
	}
	if changed {
		c.notify(evString, "setbit", args[1])
	}
	c.w.Int(int64(old))
}

// cmdGetBit is GETBIT key offset: 0 for a missing key or a bit past the end.
func cmdGetBit(c *Client, args [][]byte) {
	off, ok := c.bitOffsetArg(args[2], 0)
	if !ok {
		return
	}
	it, _, err := c.db.Get(args[1])
	if err != nil {
		c.engineError(err)
		return
	}
	c.w.Int(int64(engine.GetBit(it.Value, off)))
}

// bitUnitArg reads the BYTE|BIT word (as C's strcasecmp sees it); it
// replies a syntax error for anything else.
func (c *Client) bitUnitArg(arg []byte) (isBit, ok bool) {
	switch {
	case argIsC(arg, "BIT"):
		return true, true
	case argIsC(arg, "BYTE"):
		return false, true
	}
	c.w.Error(ErrSyntax)
	return false, false
}

// cmdBitCount is BITCOUNT key [start end [BYTE|BIT]]. Redis 7.0 looks the
// key up first: a missing key answers 0 and another type WRONGTYPE
// whatever the other arguments are.
func cmdBitCount(c *Client, args [][]byte) {
	it, found, err := c.db.Get(args[1])
	switch {
	case err != nil:
		c.engineError(err)
		return
	case !found:
		c.w.Int(0)
		return
	}
	var r engine.BitRange
	switch len(args) {
	case 2:
	case 4, 5:
		var ok bool
		if r.Start, r.End, ok = c.rangeArgs(args[2], args[3]); !ok {
			return
		}
		if r.Start < 0 && r.End < 0 && r.Start > r.End {
			c.w.Int(0) // empty whatever the unit: Redis answers before reading it
			return
		}
		if len(args) == 5 {
			if r.Bit, ok = c.bitUnitArg(args[4]); !ok {
				return
			}
		}
		r.HasStart, r.HasEnd = true, true
	default:
		c.w.Error(ErrSyntax)
		return
	}
	c.w.Int(engine.BitCount(it.Value, r))
}

// cmdBitPos is BITPOS key bit [start [end [BYTE|BIT]]]. The bit is checked
// first; then, in Redis 7.0, the key: a missing key answers 0 for a clear
// bit and -1 for a set bit whatever the range says.
func cmdBitPos(c *Client, args [][]byte) {
	bit, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if bit != 0 && bit != 1 {
		c.w.Error(ErrBitArgument)
		return
	}
	it, found, err := c.db.Get(args[1])
	switch {
	case err != nil:
		c.engineError(err)
		return
	case !found:
		c.w.Int(-bit)
		return
	}
	var r engine.BitRange
	switch len(args) {
	case 3:
	case 4, 5, 6:
		if r.Start, ok = c.intArg(args[3]); !ok {
			return
		}
		r.HasStart = true
		if len(args) == 6 {
			if r.Bit, ok = c.bitUnitArg(args[5]); !ok {
				return
			}
		}
		if len(args) >= 5 {
			if r.End, ok = c.intArg(args[4]); !ok {
				return
			}
			r.HasEnd = true
		}
	default:
		c.w.Error(ErrSyntax)
		return
	}
	c.w.Int(engine.BitPos(it.Value, int(bit), r))
}

// cmdBitOp is BITOP AND|OR|XOR|NOT destkey key [key ...]: the length of
// the result, stored at destkey (deleted when the result is empty).
func cmdBitOp(c *Client, args [][]byte) {
	var op engine.BitOpKind
	switch name := args[1]; {
	case argIsC(name, "AND"):
		op = engine.BitAnd
	case argIsC(name, "OR"):
		op = engine.BitOr
	case argIsC(name, "XOR"):
		op = engine.BitXor
	case argIsC(name, "NOT"):
		op = engine.BitNot
	default:
		c.w.Error(ErrSyntax)
		return
	}
	if op == engine.BitNot && len(args) != 4 {
		c.w.Error(ErrBitOpNot)
		return
	}
	n, err := c.db.BitOp(op, args[2], args[3:])
	changedReply(c, n, err, c.engineError, evString, "set", args[2])
}

func cmdBitField(c *Client, args [][]byte)   { c.bitField(args, false) }
func cmdBitFieldRO(c *Client, args [][]byte) { c.bitField(args, true) }

// bitField is BITFIELD key [GET type offset] [SET type offset value]
// [INCRBY type offset increment] [OVERFLOW WRAP|SAT|FAIL] ... and
// BITFIELD_RO (GET only), as Redis 7.0's bitfieldGeneric: every operation
// is parsed (and any error replied) before the key is looked at; with
// only GETs a missing key reads as zeros and nothing is written.
func (c *Client) bitField(args [][]byte, readOnly bool) {
	var ops []engine.BitFieldOp
	overflow := engine.OverflowWrap
	writes := false
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		sub := args[j]
		var op engine.BitFieldOp
		switch {
		case argIsC(sub, "GET") && rem >= 2:
			op.Kind = engine.BitFieldGet
		case argIsC(sub, "SET") && rem >= 3:
			op.Kind = engine.BitFieldSet
		case argIsC(sub, "INCRBY") && rem >= 3:
			op.Kind = engine.BitFieldIncrBy
		case argIsC(sub, "OVERFLOW") && rem >= 1:
			j++
			switch w := args[j]; {
			case argIsC(w, "WRAP"):
				overflow = engine.OverflowWrap
			case argIsC(w, "SAT"):
				overflow = engine.OverflowSat
			case argIsC(w, "FAIL"):
				overflow = engine.OverflowFail
			default:
				c.w.Error(ErrBitFieldOverflow)
				return
			}
			continue
		default:
			c.w.Error(ErrSyntax)
			return
		}
		signed, bits, ok := bitFieldType(args[j+1])
		if !ok {
			c.w.Error(ErrBitFieldType)
			return
		}
		op.Signed, op.Bits, op.Overflow = signed, uint8(bits), overflow
		if op.Offset, ok = c.bitOffsetArg(args[j+2], bits); !ok {
			return
		}
		if op.Kind != engine.BitFieldGet {
			writes = true
			if op.Value, ok = c.intArg(args[j+3]); !ok {
				return
			}
			j++
		}
		j += 2
		ops = append(ops, op)
	}
	var results []engine.BitFieldResult
	if !writes {
		it, _, err := c.db.Get(args[1])
		if err != nil {
			c.engineError(err)
			return
		}
		results = engine.BitFieldRead(it.Value, ops, make([]engine.BitFieldResult, 0, len(ops)))
	} else {
		if readOnly {
			c.w.Error(ErrBitFieldRO)
			return
		}
		var err error
		var modified bool
		results, modified, err = c.db.BitField(args[1], ops, make([]engine.BitFieldResult, 0, len(ops)))
		if err != nil {
			c.engineError(err)
			return
		}
		if modified {
			c.notify(evString, "setbit", args[1])
		}
	}
	c.w.Array(len(results))
	for _, r := range results {
		if r.Failed {
			c.w.Null()
		} else {
			c.w.Int(r.Value)
		}
	}
}

// bitFieldType parses a BITFIELD type as Redis's
// getBitfieldTypeFromArgument: 'i' (signed, 1 to 64 bits) or 'u'
// (unsigned, 1 to 63 bits), case sensitive, then a strict integer read up
// to the first NUL byte.
func bitFieldType(arg []byte) (signed bool, bits int, ok bool) {
	if len(arg) == 0 || (arg[0] != 'i' && arg[0] != 'u') {
		return false, 0, false
	}
	signed = arg[0] == 'i'
	n, ok := num.ParseInt(cWord(arg[1:]))
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, false
	}
	return signed, int(n), true
}
