package memproto

// MetaFlags are a meta command's flags, parsed once (memcached's
// _meta_flag_preparse). Tokens keeps them in request order, because the
// reply echoes the return flags in that order.
type MetaFlags struct {
	Tokens [][]byte // the flag tokens, in order

	seen [2]uint64 // flag characters seen, for duplicate detection

	Base64     bool // b: the key is base64; it was decoded into Request.Key
	NoReply    bool // q
	Value      bool // v
	NoUpdate   bool // u
	Invalidate bool // I

	HasTTL     bool  // T
	TTL        int32 // T's exptime
	HasVivify  bool  // N
	VivifyTTL  int32 // N's exptime
	HasRecache bool  // R
	RecacheTTL int32 // R's exptime

	ClientFlags uint32 // F
	HasCAS      bool   // C
	CompareCAS  uint64 // C's value
	Mode        byte   // M's character; 0 when absent
	Initial     uint64 // J
	HasDelta    bool   // D
	Delta       uint64 // D's value
}

// Has reports whether flag character c was given.
func (m *MetaFlags) Has(c byte) bool {
	return c < 128 && m.seen[c>>6]&(1<<(c&63)) != 0
}

// opaqueTooLong reports whether an O token exceeds maxOpaqueLen.
func (m *MetaFlags) opaqueTooLong() bool {
	if !m.Has('O') {
		return false
	}
	for _, t := range m.Tokens {
		if t[0] == 'O' && len(t) > maxOpaqueLen {
			return true
		}
	}
	return false
}

// parseMetaFlags parses the flag tokens from token index start. It returns
// the error reply, or "". As in memcached, a duplicate or unknown flag
// stops at once; a bad value is remembered and the later flags are still
// read (a later bad value replaces the message).
func (r *Request) parseMetaFlags(start int) string {
	m := &r.Meta
	m.Tokens = r.toks[start : r.nt-1]
	errstr := ""
	failed := false
	fail := func(msg string) {
		failed = true
		if msg != "" {
			errstr = msg
		}
	}
	for _, tok := range m.Tokens {
		c := tok[0]
		if c >= 127 || m.Has(c) {
			return errDuplicateFlag
		}
		m.seen[c>>6] |= 1 << (c & 63)
		arg := tok[1:]
		switch c {
		case 'b':
			n := decodeKey(r.keyBuf[:], r.Key)
			if n == 0 {
				fail(errKeyDecode)
			}
			r.Key = r.keyBuf[:n]
			m.Base64 = true
		case 'N':
			if v, ok := parseInt32(arg); ok {
				m.HasVivify, m.VivifyTTL = true, v
			} else {
				fail(errBadToken)
			}
		case 'T':
			if v, ok := parseInt32(arg); ok {
				m.HasTTL, m.TTL = true, v
			} else {
				fail(errBadToken)
			}
		case 'R':
			if v, ok := parseInt32(arg); ok {
				m.HasRecache, m.RecacheTTL = true, v
			} else {
				fail(errBadToken)
			}
		case 'l', 'O', 'P', 'L', 'k', 's', 't', 'c', 'f', 'h':
		case 'v':
			m.Value = true
		case 'u':
			m.NoUpdate = true
		case 'q':
			m.NoReply = true
		case 'I':
			m.Invalidate = true
		case 'F':
			if v, ok := parseUint32(arg); ok {
				m.ClientFlags = v
			} else {
				fail("") // memcached keeps the generic message here
			}
		case 'C':
			if v, ok := parseUint64(arg); ok {
				m.HasCAS, m.CompareCAS = true, v
			} else {
				fail(errBadToken)
			}
		case 'M':
			if len(tok) != 2 {
				fail(errModeLength)
			} else {
				m.Mode = tok[1]
			}
		case 'J':
			if v, ok := parseUint64(arg); ok {
				m.Initial = v
			} else {
				fail(errBadInitial)
			}
		case 'D':
			if v, ok := parseUint64(arg); ok {
				m.HasDelta, m.Delta = true, v
			} else {
				fail(errBadMetaDelta)
			}
		default:
			return errInvalidFlag
		}
	}
	if failed {
		if errstr == "" {
			errstr = errBadFormat
		}
		return errstr
	}
	return ""
}
