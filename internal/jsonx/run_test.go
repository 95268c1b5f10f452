package jsonx

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plainRunRef is plainRun one byte at a time.
func plainRunRef(b []byte) (int, bool) {
	high := false
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			return i, high
		}
		if c >= utf8.RuneSelf {
			high = true
		}
	}
	return len(b), high
}

func checkPlainRun(t *testing.T, b []byte) {
	t.Helper()
	n, high := plainRun(b)
	wn, whigh := plainRunRef(b)
	if n != wn || high != whigh {
		t.Fatalf("plainRun(%q) = %d, %v; want %d, %v", b, n, high, wn, whigh)
	}
}

func TestPlainRun(t *testing.T) {
	// Every special byte at every position of a 0..24-byte run, with and
	// without non-ASCII bytes before it.
	for _, special := range []byte{'"', '\\', 0, 0x1f, '\n'} {
		for _, fill := range []string{"a", "é", "\x7f", " ", "!", "#", "[", "]"} {
			for n := 0; n <= 24; n++ {
				for pos := 0; pos <= n; pos++ {
					b := []byte(strings.Repeat(fill, n))[:n]
					if pos < n {
						b[pos] = special
					}
					checkPlainRun(t, b)
				}
			}
		}
	}
	// Bytes next to the specials (0x20, 0x21, 0x23, 0x5b, 0x5d, 0x80, 0xff)
	// must never match.
	for c := 0; c < 256; c++ {
		for n := 1; n <= 17; n++ {
			b := []byte(strings.Repeat("x", n))
			b[n-1] = byte(c)
			checkPlainRun(t, b)
			b[0] = byte(c)
			checkPlainRun(t, b)
		}
	}
}

func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`hello "world"`))
	f.Add([]byte("caf\xc3\xa9 \\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPlainRun(t, b)
		if e := stringEnd(b); e >= 0 && (b[e] != '"') {
			t.Fatalf("stringEnd(%q) = %d, not a quote", b, e)
		}
	})
}

func TestStringEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`"`, 0},
		{`abc"`, 3},
		{`a\"b"`, 4},
		{`a\\"b"`, 3},
		{`a\\\"b"`, 6},
		{`abc`, -1},
		{`a\"`, -1},
	} {
		if got := stringEnd([]byte(c.in)); got != c.want {
			t.Errorf("stringEnd(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
