package rdb

// CRC-64/Jones as Redis computes it: reflected polynomial 0xad93d23594c935a9
// (0x95ac9329ac4bc9b5 bit-reversed), initial value 0, no final xor. The check
// value for "123456789" is 0xe9c6d914c4b8d9ca. The table is computed here
// and applied eight bytes at a time ("slicing by 8").

const crcPolyReflected = 0x95ac9329ac4bc9b5

var crcTable = makeCRCTable()

func makeCRCTable() *[8][256]uint64 {
	t := new([8][256]uint64)
	for i := 0; i < 256; i++ {
		c := uint64(i)
		for k := 0; k < 8; k++ {
			if c&1 == 1 {
				c = c>>1 ^ crcPolyReflected
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := 0; i < 256; i++ {
		c := t[0][i]
		for s := 1; s < 8; s++ {
			c = t[0][c&0xff] ^ c>>8
			t[s][i] = c
		}
	}
	return t
}

// crc64Update continues a CRC-64/Jones over p.
func crc64Update(crc uint64, p []byte) uint64 {
	t := crcTable
	for len(p) >= 8 {
		crc ^= uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
			uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24&0xff] ^
			t[3][crc>>32&0xff] ^ t[2][crc>>40&0xff] ^ t[1][crc>>48&0xff] ^ t[0][crc>>56]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return crc
}

// CRC64 returns the CRC-64/Jones checksum of p as Redis computes it for RDB
// files and DUMP payloads.
func CRC64(p []byte) uint64 { return crc64Update(0, p) }
