package jsonx

import (
	"math"
	"slices"
	"strconv"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. It escapes what JSON requires
// (quote, backslash, control characters) and nothing else, the way
// JavaScript's JSON.stringify does, so that text from a JavaScript peer and
// from agwire reads the same. Invalid UTF-8 is replaced by U+FFFD.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, false) }

// AppendValidString is AppendString for s already known to be valid UTF-8
// (checked by the caller, once): it skips the validation pass. Given invalid
// UTF-8 it writes it unchanged, which makes invalid JSON text.
func AppendValidString(dst []byte, s string) []byte { return appendString(dst, s, true) }

func appendString(dst []byte, s string, valid bool) []byte {
	if n := len(s) + 2; cap(dst)-len(dst) < n {
		dst = slices.Grow(dst, n)
	}
	dst = append(dst, '"')
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	for len(b) > 0 {
		// Plain runs are found 8 bytes at a time and copied in bulk; only
		// a run with non-ASCII bytes is validated, in one pass.
		n, high := plainRun(b)
		if high && !valid && !ValidUTF8(b[:n]) {
			dst = appendReplacingInvalid(dst, b[:n])
		} else {
			dst = append(dst, b[:n]...)
		}
		if n == len(b) {
			break
		}
		switch c := b[n]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		b = b[n+1:]
	}
	return append(dst, '"')
}

// appendReplacingInvalid appends b with each byte that does not begin a
// valid UTF-8 sequence replaced by U+FFFD.
func appendReplacingInvalid(dst, b []byte) []byte {
	for len(b) > 0 {
		i := firstInvalid(b)
		dst = append(dst, b[:i]...)
		if i == len(b) {
			break
		}
		dst = append(dst, "\ufffd"...)
		b = b[i+1:]
	}
	return dst
}

// AppendFloat appends f as a JSON number in the spelling JavaScript's
// Number.prototype.toString uses: the shortest digits that round-trip, plain
// decimal notation for exponents from -7 to 20 and "1e+21" style beyond.
// The one departure is negative zero, written "-0" so that its sign survives
// a JSON round trip (JavaScript writes "0"). f must be finite.
func AppendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, '-', '0')
		}
		return append(dst, '0')
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	// e is like "-1.2345e+06" or "5e-324".
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	var digits [24]byte
	nd := 0
	i := 0
	for ; i < len(e) && e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	// Value is 0.d1d2...dn × 10^(exp+1); n is the decimal point position.
	n := exp + 1
	if neg {
		dst = append(dst, '-')
	}
	d := digits[:nd]
	switch {
	case nd <= n && n <= 21:
		dst = append(dst, d...)
		for j := nd; j < n; j++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for j := 0; j < -n; j++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if nd > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
