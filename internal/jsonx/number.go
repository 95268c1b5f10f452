package jsonx

import (
	"math"
	"strconv"
)

// ParseNumber converts the text of a JSON number (as returned by
// Scanner.Number) to the nearest float64 and reports whether that double
// stands for exactly the same decimal number: parsing the text and printing
// the double's shortest round-trip form give the same value. Overflow to
// infinity and underflow to zero are not exact. The sign of zero is part of
// the value: "-0" is exact and yields negative zero.
func ParseNumber(text []byte) (f float64, exact bool) {
	if f, ok := fastNumber(text); ok {
		return f, true
	}
	return parseNumber(text)
}

// parseNumber is ParseNumber for any number text.
func parseNumber(text []byte) (f float64, exact bool) {
	// Up to 15 significant digits and a modest exponent always survive a
	// double (DBL_DIG is 15).
	if quickExact(text) {
		f, err := strconv.ParseFloat(string(text), 64)
		return f, err == nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil || math.IsInf(f, 0) {
		return f, false
	}
	var tmp [32]byte
	short := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	return f, sameDecimal(text, short)
}

// exactPow10 are the powers of ten a double holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastNumber converts the number text in one pass when its significant
// digits number 15 at most and its scale is within 10^±22: the digits are
// then a double exactly, and so is the power of ten, and one IEEE
// multiplication or division rounds the quotient or product correctly
// (Clinger's fast path). Such a number lies far inside the normal range,
// so its shortest form prints its digits again: it is exact. Any other
// text, malformed included, is left to parseNumber (ok false).
func fastNumber(text []byte) (f float64, ok bool) {
	i, neg := 0, false
	if len(text) > 0 && text[0] == '-' {
		i, neg = 1, true
	}
	var m uint64
	sig, scale, digits := 0, 0, 0 // digits: of the integer part
	for ; i < len(text) && text[i]-'0' <= 9; i++ {
		digits++
		if m == 0 && text[i] == '0' {
			continue
		}
		if sig++; sig > 15 {
			return 0, false
		}
		m = m*10 + uint64(text[i]-'0')
	}
	if digits == 0 {
		return 0, false // no integer part
	}
	if i < len(text) && text[i] == '.' {
		if i+1 == len(text) || text[i+1]-'0' > 9 {
			return 0, false // a point needs a digit after it
		}
		for i++; i < len(text) && text[i]-'0' <= 9; i++ {
			scale--
			if m == 0 && text[i] == '0' {
				continue
			}
			if sig++; sig > 15 {
				return 0, false
			}
			m = m*10 + uint64(text[i]-'0')
		}
	}
	if i < len(text) && text[i]|0x20 == 'e' {
		i++
		eneg := false
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			eneg = text[i] == '-'
			i++
		}
		e, n := 0, 0
		for ; i < len(text) && text[i]-'0' <= 9 && n < 3; i, n = i+1, n+1 {
			e = e*10 + int(text[i]-'0')
		}
		if n == 0 {
			return 0, false
		}
		if eneg {
			e = -e
		}
		scale += e
	}
	if i != len(text) {
		return 0, false // more exponent digits, or not a number
	}
	switch f = float64(m); {
	case m == 0:
	case scale == 0:
	case scale > 0 && scale <= 22:
		f *= exactPow10[scale]
	case scale < 0 && scale >= -22:
		f /= exactPow10[-scale]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// quickExact reports whether text has at most 15 significant digits and an
// exponent small enough that no overflow or underflow can happen.
func quickExact(text []byte) bool {
	sig := 0
	leading := true
	i := 0
	if i < len(text) && text[i] == '-' {
		i++
	}
	for ; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			if c == '0' && leading {
				continue
			}
			leading = false
			sig++
		case c == '.':
		default: // exponent
			rest := text[i+1:]
			if len(rest) > 0 && (rest[0] == '+' || rest[0] == '-') {
				rest = rest[1:]
			}
			// Up to two exponent digits and a short mantissa keep the
			// value far inside the normal double range.
			return sig <= 15 && len(rest) <= 2 && i <= 40
		}
	}
	// Plain decimals may still have many digits after the point, but
	// sig <= 15 bounds the value well inside the double range unless there
	// are hundreds of leading zeros; count total length as a guard.
	return sig <= 15 && len(text) <= 40
}

// decimal is a normalized decimal number: 0.digits × 10^point, digits
// without leading or trailing zeros (empty for zero).
type decimal struct {
	neg    bool
	digits []byte
	point  int64
}

func parseDecimal(text []byte, buf []byte) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(text) && text[i] == '-' {
		d.neg = true
		i++
	}
	digits := buf[:0]
	var point int64
	seenPoint := false
	for ; i < len(text); i++ {
		c := text[i]
		if c >= '0' && c <= '9' {
			if c == '0' && len(digits) == 0 {
				// leading zero: shifts the point if before it
				if seenPoint {
					point--
				}
				continue
			}
			digits = append(digits, c)
			if !seenPoint {
				point++
			}
			continue
		}
		if c == '.' {
			seenPoint = true
			continue
		}
		break
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		// Zero, whatever the exponent says.
		d.digits = digits
		return d, true
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		exp, err := strconv.ParseInt(string(text[i+1:]), 10, 64)
		if err != nil {
			return d, false
		}
		if exp > math.MaxInt32 || exp < math.MinInt32 {
			return d, false
		}
		point += exp
	}
	d.digits = digits
	d.point = point
	return d, true
}

func sameDecimal(a, b []byte) bool {
	var ba, bb [64]byte
	da, ok1 := parseDecimal(a, ba[:0])
	db, ok2 := parseDecimal(b, bb[:0])
	if !ok1 || !ok2 {
		return false
	}
	return da.neg == db.neg && da.point == db.point && string(da.digits) == string(db.digits)
}

// ParseInt64 converts the text of a JSON number to an int64 when it denotes
// an integer exactly, whatever its spelling ("1000", "1e3", "1000.0",
// "9.007199254740993e15"); ok is false for a fraction or a value outside the
// int64 range.
func ParseInt64(text []byte) (v int64, ok bool) {
	if v, err := strconv.ParseInt(string(text), 10, 64); err == nil {
		return v, true
	}
	var buf [64]byte
	d, ok := parseDecimal(text, buf[:0])
	if !ok {
		return 0, false
	}
	if len(d.digits) == 0 {
		return 0, true
	}
	if d.point < int64(len(d.digits)) || d.point > 19 {
		return 0, false // a fraction, or more than 19 digits
	}
	s := make([]byte, 0, 20)
	if d.neg {
		s = append(s, '-')
	}
	s = append(s, d.digits...)
	for i := int64(len(d.digits)); i < d.point; i++ {
		s = append(s, '0')
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	return v, err == nil
}

// MaxSafeInteger is 2^53−1, JavaScript's Number.MAX_SAFE_INTEGER: the
// largest integer that a double and every smaller integer beside it hold
// exactly.
const MaxSafeInteger = 1<<53 - 1

// SafeInteger reports whether v is a safe integer, |v| ≤ 2^53−1: one that
// a peer carrying integers as doubles (JavaScript) reads exactly. The rule
// is stated here once; every path that bounds an integer calls it.
func SafeInteger(v int64) bool { return -MaxSafeInteger <= v && v <= MaxSafeInteger }
