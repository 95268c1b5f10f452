package jsonx

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// ValidUTF8 reports whether b is valid UTF-8, as utf8.Valid does. Between
// non-ASCII sequences it reads a word (8 bytes) at a time, and 32 bytes at a
// time once eight words in a row were ASCII; utf8.Valid starts its ASCII
// stride over at one byte after each non-ASCII sequence. Measured with
// BenchmarkValidUTF8: prose with a non-ASCII letter every few words 1.7×
// as fast, pure ASCII 1.1×, a 14-byte id 1.2×.
func ValidUTF8(b []byte) bool {
	i := 0
	for {
		words := 0 // ASCII words in a row
		for ; i+8 <= len(b); i += 8 {
			if m := binary.LittleEndian.Uint64(b[i:]) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto multi
			}
			if words++; words == 8 {
				// A long ASCII run: 32 bytes a round after this word.
				j := i + 8
				for ; j+32 <= len(b); j += 32 {
					p := b[j : j+32]
					x := binary.LittleEndian.Uint64(p) | binary.LittleEndian.Uint64(p[8:]) |
						binary.LittleEndian.Uint64(p[16:]) | binary.LittleEndian.Uint64(p[24:])
					if x&msb != 0 {
						break
					}
				}
				i, words = j-8, 0
			}
		}
		for ; i < len(b); i++ {
			if b[i] >= 0x80 {
				goto multi
			}
		}
		return true
	multi:
		n := seqLen(b[i:])
		if n == 0 {
			return false
		}
		i += n
	}
}

// ValidUTF8String is ValidUTF8 of a string (read in place).
func ValidUTF8String(s string) bool {
	return ValidUTF8(unsafe.Slice(unsafe.StringData(s), len(s)))
}
