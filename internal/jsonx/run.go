package jsonx

import (
	"encoding/binary"
	"unicode/utf8"
)

// SWAR ("SIMD within a register") constants: a byte value repeated in each
// of the 8 bytes of a uint64.
const (
	lsb   = 0x0101010101010101
	msb   = 0x8080808080808080
	quote = lsb * '"'
	bslsh = lsb * '\\'
	space = lsb * 0x20
)

// plainRun returns the length of the longest prefix of b that a JSON string
// carries verbatim — no '"', no '\\', no control character — and whether
// that prefix has a byte ≥ 0x80 (and so needs UTF-8 validation). It reads 8
// bytes at a time.
func plainRun(b []byte) (n int, high bool) {
	var seen uint64
	for ; n+8 <= len(b); n += 8 {
		x := binary.LittleEndian.Uint64(b[n:])
		q, s := x^quote, x^bslsh
		// A byte is special if it is zero in q or s, or below 0x20 in x.
		// Each term sets the top bit of at least one byte exactly when
		// such a byte exists (borrows only carry past a match).
		special := ((q - lsb) &^ q) | ((s - lsb) &^ s) | ((x - space) &^ x)
		if special&msb != 0 {
			break
		}
		seen |= x
	}
	high = seen&msb != 0
	for ; n < len(b); n++ {
		c := b[n]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			high = true
		}
	}
	return n, high
}

// firstInvalid returns the offset of the first byte of b that does not begin
// a valid UTF-8 sequence, or len(b).
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
