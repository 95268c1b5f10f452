package jsonx

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// ValidUTF8 agrees with utf8.Valid on every sequence of up to three bytes
// from a set that holds every boundary of the encoding, at every offset
// from a word boundary, and on long texts with a bad byte anywhere.
func TestValidUTF8AsTheStandardLibrary(t *testing.T) {
	edge := []byte{0x00, 0x20, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	check := func(b []byte) {
		t.Helper()
		if got, want := ValidUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("ValidUTF8(%q) = %v, utf8.Valid %v", b, got, want)
		}
		if got, want := ValidUTF8String(string(b)), utf8.Valid(b); got != want {
			t.Fatalf("ValidUTF8String(%q) = %v, utf8.Valid %v", b, got, want)
		}
	}
	for _, pad := range []int{0, 1, 5, 7, 8, 9, 15, 16, 17} {
		prefix := strings.Repeat("a", pad)
		for _, a := range edge {
			for _, b := range edge {
				for _, c := range edge {
					for _, tail := range []string{"", "é", "zzzzzzzzz"} {
						check([]byte(prefix + string([]byte{a, b, c}) + tail))
						check([]byte(prefix + string([]byte{a, b}) + tail))
					}
				}
			}
		}
	}
	for _, s := range []string{"\xf0\x9f\x99\x82", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xed\x9f\xbf", "\xed\xa0\x80", "\xe0\xa0\x80", "\xe0\x9f\xbf", "\xf0\x90\x80\x80", "\xf0\x8f\xbf\xbf"} {
		for pad := range 20 {
			b := []byte(strings.Repeat("x", pad) + s + strings.Repeat("y", 20-pad))
			check(b)
			for cut := pad; cut < pad+len(s); cut++ {
				check(b[:cut])
			}
		}
	}
	// Long ASCII runs (the 32-byte stride) with one sequence, valid or
	// not, at every offset.
	ascii := strings.Repeat("abcdefgh", 40)
	for _, s := range []string{"é", "🙂", "ÿ", "Ã", "â", "í "} {
		for pad := range 200 {
			check([]byte(ascii[:pad] + s + ascii[pad:]))
		}
	}
	long := []byte(strings.Repeat("naïve café 🙂 Straße ", 400))
	check(long)
	for i := 0; i < len(long); i += 97 {
		bad := append([]byte(nil), long...)
		bad[i] = 0xff
		check(bad)
	}
}

func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "é", "\xff", "🙂abcdefgh\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := ValidUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("ValidUTF8(%q) = %v, utf8.Valid %v", b, got, want)
		}
	})
}

func BenchmarkValidUTF8(b *testing.B) {
	prose := benchProse(64<<10, false)
	prose = prose[1 : len(prose)-1]
	ascii := []byte(strings.Repeat("plain ascii text ", 4000))
	for _, c := range []struct {
		name string
		in   []byte
	}{{"Prose64K", prose}, {"ASCII64K", ascii}, {"Short", []byte("msg_01JD8Y3K2V")}} {
		b.Run("case="+c.name+"/impl=jsonx", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				ValidUTF8(c.in)
			}
		})
		b.Run("case="+c.name+"/impl=utf8", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				utf8.Valid(c.in)
			}
		})
	}
}
