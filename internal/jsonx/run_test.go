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

// appendStringRef is AppendString one rune at a time.
func appendStringRef(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text longer than eight", "tab\there \"q\" \\ \x00\x1f", "café 東京 🙂", "bad \xff\xfe utf8 \xe2\x82", strings.Repeat("é\n", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := AppendString([]byte("x"), s), appendStringRef([]byte("x"), s)
		if string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
