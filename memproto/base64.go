package memproto

// Base64 for meta keys (the b flag), with memcached's own decoder rules,
// which are looser than RFC 4648 in some ways and stricter in others:
//
//   - bytes outside the alphabet (and '=') are ignored anywhere;
//   - the count of alphabet bytes, '=' included, must be a non-zero
//     multiple of 4;
//   - '=' decodes as zero wherever it is; the first 4-byte group holding
//     any '=' ends the key: one '=' drops one byte, two drop two, more
//     is an error; whatever follows that group is ignored.
//
// Encoding is standard, with padding.

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// b64Invalid marks bytes the decoder skips.
const b64Invalid = 0xff

var b64Decode = func() (t [256]byte) {
	for i := range t {
		t[i] = b64Invalid
	}
	for i := 0; i < len(b64Alphabet); i++ {
		t[b64Alphabet[i]] = byte(i)
	}
	t['='] = 0
	return t
}()

// decodeKey decodes src into dst (len(dst) >= len(src)*3/4 suffices) and
// returns the decoded length; 0 means src is not a key memcached accepts.
func decodeKey(dst, src []byte) int {
	count := 0
	for _, c := range src {
		if b64Decode[c] != b64Invalid {
			count++
		}
	}
	if count == 0 || count%4 != 0 || count/4*3 > len(dst) {
		return 0
	}
	var block [4]byte
	n, pos, pad := 0, 0, 0
	for _, c := range src {
		v := b64Decode[c]
		if v == b64Invalid {
			continue
		}
		if c == '=' {
			pad++
		}
		block[n] = v
		n++
		if n < 4 {
			continue
		}
		dst[pos] = block[0]<<2 | block[1]>>4
		dst[pos+1] = block[1]<<4 | block[2]>>2
		dst[pos+2] = block[2]<<6 | block[3]
		pos += 3
		n = 0
		if pad > 0 {
			if pad > 2 {
				return 0
			}
			return pos - pad
		}
	}
	return pos
}

// appendKeyBase64 appends the standard padded encoding of key.
func appendKeyBase64(b, key []byte) []byte {
	i := 0
	for ; len(key)-i >= 3; i += 3 {
		v := uint(key[i])<<16 | uint(key[i+1])<<8 | uint(key[i+2])
		b = append(b, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], b64Alphabet[v>>6&63], b64Alphabet[v&63])
	}
	switch len(key) - i {
	case 1:
		v := uint(key[i]) << 16
		b = append(b, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], '=', '=')
	case 2:
		v := uint(key[i])<<16 | uint(key[i+1])<<8
		b = append(b, b64Alphabet[v>>18&63], b64Alphabet[v>>12&63], b64Alphabet[v>>6&63], '=')
	}
	return b
}
