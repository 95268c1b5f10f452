package jsonx

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestParseNumber: a number is exact when the double it rounds to prints
// (shortest round-trip form) as the same decimal value; overflow and
// underflow are never exact; the sign of zero is kept.
func TestParseNumber(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		text  string
		want  float64
		exact bool
	}{
		{"0", 0, true},
		{"-0", negZero, true},
		{"-0.0", negZero, true},
		{"-0e10", negZero, true},
		{"0.000", 0, true},
		{"1", 1, true},
		{"-1", -1, true},
		{"0.1", 0.1, true},
		{"0.10", 0.1, true},
		{"1.5", 1.5, true},
		{"1.50", 1.5, true},
		{"1e2", 100, true},
		{"1E2", 100, true},
		{"1e+2", 100, true},
		{"100e-2", 1, true},
		{"0.001e3", 1, true},
		{"1.5e300", 1.5e300, true},
		{"1e21", 1e21, true},
		{"9007199254740991", 9007199254740991, true},
		{"9007199254740992", 9007199254740992, true},
		{"5e-324", 5e-324, true},
		{"2.2250738585072014e-308", 2.2250738585072014e-308, true},
		{"2.225073858507201e-308", 2.225073858507201e-308, true}, // largest subnormal
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"123456789012345", 123456789012345, true},
		{"0.123456789012345", 0.123456789012345, true},
		{"12345678901234567", 12345678901234568, false},
		{"9007199254740993", 9007199254740992, false},
		{"0.12345678901234567891", 0.12345678901234568, false},
		{"1e400", math.Inf(1), false},
		{"-1e400", math.Inf(-1), false},
		{"1.7976931348623159e308", math.Inf(1), false},
		{"1e-400", 0, false},
		{"-1e-400", negZero, false},
		{"4.9e-324", 5e-324, false}, // rounds to 5e-324, a different decimal
		{"2e-324", 0, false},        // below half the smallest subnormal
		// 2^60 is a double, but it prints as 1152921504606847000: under the
		// round-trip definition the decimal text does not survive.
		{"1152921504606846976", 1152921504606846976, false},
		{"1152921504606847000", 1152921504606846976, true},
	} {
		f, exact := ParseNumber([]byte(tc.text))
		if math.Float64bits(f) != math.Float64bits(tc.want) {
			t.Errorf("ParseNumber(%s) = %v [%016x], want %v [%016x]", tc.text, f, math.Float64bits(f), tc.want, math.Float64bits(tc.want))
		}
		if exact != tc.exact {
			t.Errorf("ParseNumber(%s) exact = %v, want %v", tc.text, exact, tc.exact)
		}
	}
}

// TestParseNumberZeroWithHugeExponent: zero is zero whatever its exponent.
// "0e99999999999999999999" is valid JSON (RFC 8259 puts no bound on the
// exponent) and denotes exactly 0, which a double holds and prints as 0, so
// by ParseNumber's own definition it is exact. (Found by this suite: the
// exponent used to overflow parseDecimal; fixed in 02172c7.)
func TestParseNumberZeroWithHugeExponent(t *testing.T) {
	for _, text := range []string{"0e99999999999999999999", "0.0e-99999999999", "-0e3000000000"} {
		f, exact := ParseNumber([]byte(text))
		if f != 0 {
			t.Errorf("ParseNumber(%s) = %v, want 0", text, f)
		}
		if !exact {
			t.Errorf("ParseNumber(%s): exact = false, want true (the value is exactly zero)", text)
		}
	}
}

// TestParseNumberAgainstBigRat compares the exactness verdict with an
// independent one computed with math/big for many generated spellings.
func TestParseNumberAgainstBigRat(t *testing.T) {
	var texts []string
	for i := 0; i < 3000; i++ {
		bits := uint64(i) * 0x9E3779B97F4A7C15
		f := math.Float64frombits(bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		short := strconv.FormatFloat(f, 'g', -1, 64)
		texts = append(texts, short,
			strconv.FormatFloat(f, 'e', 17, 64),     // 18 digits: usually not the shortest
			strconv.FormatFloat(f, 'e', 20, 64),     // 21 digits
			strconv.FormatFloat(f, 'e', 14, 64),     // 15 digits: always exact when in range
			strconv.FormatFloat(f, 'g', 16, 64)+"0", // trailing zero digit
		)
	}
	for _, text := range texts {
		f, exact := ParseNumber([]byte(text))
		want := bigExact(t, text)
		if exact != want {
			t.Errorf("ParseNumber(%s) exact = %v, math/big says %v", text, exact, want)
		}
		ref, _ := strconv.ParseFloat(text, 64)
		if math.Float64bits(f) != math.Float64bits(ref) {
			t.Errorf("ParseNumber(%s) = %v, strconv says %v", text, f, ref)
		}
	}
}

// bigExact decides exactness with math/big: the text's rational value equals
// the rational value of the shortest spelling of the nearest double, and the
// double is finite and, if the text is nonzero, nonzero.
func bigExact(t *testing.T, text string) bool {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	r1, ok := new(big.Rat).SetString(text)
	if !ok {
		t.Fatalf("big.Rat cannot read %s", text)
	}
	r2, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'e', -1, 64))
	return r1.Cmp(r2) == 0
}

// TestParseInt64: a JSON number is an int64 when it denotes an integer in
// range exactly, whatever its spelling; no double is involved.
func TestParseInt64(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"0.0", 0, true}, {"0e99999999999999999999", 0, true}, {"-0.000e-5", 0, true},
		{"1", 1, true}, {"-1", -1, true}, {"1e3", 1000, true}, {"1E+3", 1000, true}, {"1000e-3", 1, true}, {"1.0", 1, true},
		{"0.5e1", 5, true}, {"1.7331408001230e12", 1733140800123, true},
		{"9007199254740993", 9007199254740993, true}, {"9.007199254740993e15", 9007199254740993, true},
		{"90071992547409930e-1", 9007199254740993, true},
		{"9223372036854775807", math.MaxInt64, true}, {"9.223372036854775807e18", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true}, {"-9.223372036854775808e18", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"9.223372036854775808e18", 0, false}, {"-9223372036854775809", 0, false},
		{"1e19", 0, false}, {"1e400", 0, false}, {"1e99999999999", 0, false},
		{"1.5", 0, false}, {"0.1", 0, false}, {"1e-1", 0, false}, {"1e-400", 0, false}, {"12345678901234567890123e-3", 0, false},
		{"1.00000000000000000001", 0, false},
	} {
		got, ok := ParseInt64([]byte(tc.text))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseInt64(%s) = %d, %v; want %d, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

// TestParseInt64AgainstBigRat: the verdict matches math/big for many
// spellings of integers and near-integers.
func TestParseInt64AgainstBigRat(t *testing.T) {
	minI, maxI := big.NewRat(math.MinInt64, 1), new(big.Rat).SetInt(new(big.Int).SetUint64(math.MaxInt64))
	for i := 0; i < 3000; i++ {
		n := int64(uint64(i) * 0x9E3779B97F4A7C15)
		s := strconv.FormatInt(n, 10)
		digits := strings.TrimPrefix(s, "-")
		sign := s[:len(s)-len(digits)]
		for _, text := range []string{
			s,
			sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(len(digits)-1), // scientific
			s + "00e-2",         // trailing zeros taken back
			s + "5e-1",          // a fraction
			sign + digits + "0", // ten times: often out of range
			sign + "0." + digits + "e" + strconv.Itoa(len(digits)), // leading zero
		} {
			r, ok := new(big.Rat).SetString(text)
			if !ok {
				t.Fatalf("big.Rat cannot read %s", text)
			}
			wantOK := r.IsInt() && r.Cmp(minI) >= 0 && r.Cmp(maxI) <= 0
			got, ok := ParseInt64([]byte(text))
			if ok != wantOK {
				t.Errorf("ParseInt64(%s) ok = %v, want %v", text, ok, wantOK)
				continue
			}
			if ok && big.NewRat(got, 1).Cmp(r) != 0 {
				t.Errorf("ParseInt64(%s) = %d", text, got)
			}
		}
	}
}

// TestSafeInteger: the bounds are ±(2^53−1), inclusive.
func TestSafeInteger(t *testing.T) {
	for v, want := range map[int64]bool{
		0: true, 1<<53 - 1: true, -(1<<53 - 1): true, 1 << 53: false, -(1 << 53): false,
		math.MaxInt64: false, math.MinInt64: false,
	} {
		if got := SafeInteger(v); got != want {
			t.Errorf("SafeInteger(%d) = %v, want %v", v, got, want)
		}
	}
}

// checkFastNumber fails when the one-pass conversion answers for text
// otherwise than strconv and the shortest-form check.
func checkFastNumber(t *testing.T, text string) (answered bool) {
	t.Helper()
	f, ok := fastNumber([]byte(text))
	want, exact := parseNumber([]byte(text))
	if ok && (math.Float64bits(f) != math.Float64bits(want) || !exact) {
		t.Fatalf("fastNumber(%s) = %v [%016x]; strconv gives %v [%016x], exact %v", text, f, math.Float64bits(f), want, math.Float64bits(want), exact)
	}
	return ok
}

// TestFastNumber holds the one-pass conversion to strconv on the edges of
// its range and on random numbers of every shape, and shows that it
// answers for the numbers events carry.
func TestFastNumber(t *testing.T) {
	for _, text := range []string{"0.703", "17", "-3.25e2", "1773411601990", "0", "-0", "0.0", "-0.0", "1e22", "1E-22",
		"123456789012345", "0.000000000000000000001", "999999999999999e22", "1.5e+7", "-9.99e-5", "100000000000000", "123456789012345e8"} {
		if !checkFastNumber(t, text) {
			t.Errorf("fastNumber(%s) left it to the slow path", text)
		}
	}
	for _, text := range []string{"1234567890123456", "9007199254740993", "1e23", "1e-23", "1e400", "0e9999", "1e0001",
		"", "-", ".5", "1.", "1e", "1e+", "--1", "1x", "0.1234567890123456"} {
		if checkFastNumber(t, text) {
			t.Errorf("fastNumber(%s) answered; the slow path should", text)
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	answered := 0
	for range 300_000 {
		text := ""
		if r.IntN(2) == 0 {
			text = "-"
		}
		switch r.IntN(3) {
		case 0: // an integer
			text += digits(1 + r.IntN(18))
		case 1: // with a fraction
			text += digits(1+r.IntN(8)) + "." + digits(1+r.IntN(12))
		default: // a leading zero, then a fraction
			text += "0." + strings.Repeat("0", r.IntN(25)) + digits(1+r.IntN(16))
		}
		if r.IntN(2) == 0 {
			text += []string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)] + strconv.Itoa(r.IntN(40))
		}
		if checkFastNumber(t, text) {
			answered++
		}
	}
	if answered < 100_000 {
		t.Errorf("fastNumber answered %d of 300,000 random numbers; the test no longer tests it", answered)
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0.703", "-0", "1e22", "1e23", "123456789012345", "0.000000000000000000001e-1", "12e-022"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFastNumber(t, text)
	})
}
