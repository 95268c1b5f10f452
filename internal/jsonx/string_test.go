package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// refString reads the JSON string at the start of d one byte at a time, as
// the scanner did before it read strings in one pass: the value, the offset
// after the closing quote, or the offset and message of the error.
func refString(d []byte) (val string, end int, err string) {
	fail := func(pos int, what string) (string, int, string) {
		if pos >= len(d) {
			return "", pos, fmt.Sprintf("at byte %d: invalid JSON: unexpected end of input, %s", pos, what)
		}
		return "", pos, fmt.Sprintf("at byte %d: invalid JSON: unexpected %q, %s", pos, d[pos], what)
	}
	hex4 := func(i int) (rune, bool) {
		if i+4 > len(d) {
			return 0, false
		}
		var r rune
		for _, c := range d[i : i+4] {
			var v byte
			switch {
			case '0' <= c && c <= '9':
				v = c - '0'
			case 'a' <= c && c <= 'f':
				v = c - 'a' + 10
			case 'A' <= c && c <= 'F':
				v = c - 'A' + 10
			default:
				return 0, false
			}
			r = r<<4 | rune(v)
		}
		return r, true
	}
	var out []byte
	for i := 1; ; {
		if i >= len(d) {
			return fail(i, "unterminated string")
		}
		switch c := d[i]; {
		case c == '"':
			return string(out), i + 1, ""
		case c < 0x20:
			return fail(i, "control character in string")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n == 1 {
				return "", i, fmt.Sprintf("at byte %d: invalid JSON: invalid UTF-8 in string", i)
			}
			out = append(out, d[i:i+n]...)
			i += n
		case c != '\\':
			out = append(out, c)
			i++
		case i+1 >= len(d):
			return fail(i+1, "unterminated escape")
		default:
			e := d[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(i)
				if !ok {
					return fail(i, `bad \u escape`)
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						if r2, ok = hex4(i + 2); !ok {
							return fail(i+2, `bad \u escape`)
						}
						i += 6
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return "", i, fmt.Sprintf(`at byte %d: invalid JSON: unpaired UTF-16 surrogate in \u escape (a protobuf string must be valid UTF-8)`, i)
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return fail(i-1, "bad escape")
			}
		}
	}
}

// stringReads are the ways to read a string, each returning the value
// (nil for Skip) and the offset after it.
var stringReads = []struct {
	name string
	read func(s *Scanner) (*string, error)
}{
	{"String", func(s *Scanner) (*string, error) { v, err := s.String(); return &v, err }},
	{"String/alias", func(s *Scanner) (*string, error) {
		s.AliasStrings = true
		v, err := s.String()
		return &v, err
	}},
	{"String/arena", func(s *Scanner) (*string, error) {
		s.Arena = true
		v, err := s.String()
		return &v, err
	}},
	{"String/arena+alias", func(s *Scanner) (*string, error) {
		s.Arena, s.AliasStrings = true, true
		v, err := s.String()
		return &v, err
	}},
	{"StringBytes", func(s *Scanner) (*string, error) { v, err := s.StringBytes(); str := string(v); return &str, err }},
	{"Skip", func(s *Scanner) (*string, error) { return nil, s.Skip() }},
	{"key", func(s *Scanner) (*string, error) {
		// The input after the object's '{': an object key reads the same.
		var key string
		err := s.Object(func(k string) error { key = k; return ErrStop })
		if err == ErrStop {
			err = nil
		}
		return &key, err
	}},
}

// checkString holds every way of reading the string at the start of d to
// refString, and to encoding/json where they share rules.
func checkString(t *testing.T, d []byte) {
	t.Helper()
	show := QuoteBytes(d)
	want, wantEnd, wantErr := refString(d)
	for _, r := range stringReads {
		in := d
		shift := 0
		if r.name == "key" {
			in = append([]byte("{"), d...)
			if wantErr == "" {
				in = append(append([]byte("{"), d[:wantEnd]...), ":1}"...)
			}
			shift = 1
		}
		var s Scanner
		s.Reset(in)
		got, err := r.read(&s)
		if wantErr != "" {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("%s(%s): error %v, want %s", r.name, show, err, wantErr)
			}
			e.Offset -= shift
			if msg := e.Error(); msg != wantErr {
				t.Fatalf("%s(%s): error %q, want %q", r.name, show, msg, wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s(%s): %v, want %s", r.name, show, err, Quote(want))
		}
		if got != nil && *got != want {
			t.Fatalf("%s(%s) = %s, want %s", r.name, show, Quote(*got), Quote(want))
		}
		if r.name != "key" && s.Offset() != wantEnd {
			t.Fatalf("%s(%s): offset %d after, want %d", r.name, show, s.Offset(), wantEnd)
		}
	}
	// encoding/json agrees on the text's acceptance and value except where
	// agwire is stricter: invalid UTF-8 and unpaired surrogates, which a
	// protobuf string cannot hold (encoding/json writes U+FFFD for them).
	text := d[:wantEnd]
	if wantErr != "" {
		text = d
	}
	var js string
	jsErr := json.Unmarshal(text, &js)
	if jsErr == nil != json.Valid(text) {
		t.Fatalf("json.Unmarshal and json.Valid disagree on %s", show)
	}
	switch {
	case wantErr == "" && jsErr != nil:
		t.Fatalf("%s accepted, encoding/json refuses it: %v", show, jsErr)
	case wantErr == "" && js != want:
		t.Fatalf("%s = %s, encoding/json reads %s", show, Quote(want), Quote(js))
	case wantErr != "" && jsErr == nil && !strings.Contains(wantErr, "UTF-8") && !strings.Contains(wantErr, "surrogate"):
		t.Fatalf("%s refused (%s), encoding/json accepts it", show, wantErr)
	}
}

// TestStringEveryByte puts every byte value at every offset of strings up
// to 3 words long, after plain ASCII, after non-ASCII and after an escape,
// so that it is met in the word loop, in its tail, and while unescaping.
func TestStringEveryByte(t *testing.T) {
	for _, head := range []string{"", "é", "東", `\n`, `\u00e9`} {
		for n := 0; n <= 24; n++ {
			for c := 0; c < 256; c++ {
				for _, tail := range []string{`"`, `x"`, ``, `"`} {
					b := []byte(`"` + head + strings.Repeat("a", n))
					b = append(b, byte(c))
					checkString(t, append(b, tail...))
				}
			}
		}
	}
}

// TestStringEscapes: every byte after a backslash, \u with every kind of
// hex digit and cut short, and surrogates paired, unpaired and misordered.
func TestStringEscapes(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, pre := range []string{"", "abcdefg", "é"} {
			checkString(t, []byte(`"`+pre+`\`+string(rune(c))+`"`))
			checkString(t, append([]byte(`"`+pre+`\`), byte(c), '"'))
			checkString(t, append([]byte(`"`+pre+`\u00`), byte(c), 'A', '"'))
		}
	}
	for _, in := range []string{
		`"\`, `"\u`, `"\u0`, `"\u00`, `"\u004`, `"\u0041`, `"\u0041"`, `"\u0000"`, `"\u001F"`,
		`"\uFFFF"`, `"\uFFFE"`, `"\uD7FF"`, `"\uE000"`, `"\u00e9\u00E9"`, `"\/\b\f\n\r\t\"\\"`,
		`"\ud83d\ude00"`, `"\uD83D\uDE00"`, `"\udbff\udfff"`, `"\ud800\udc00"`, `"\ud800"`,
		`"\ud800x"`, `"\ud800\"`, `"\ud800\u"`, `"\ud800\u12"`, `"\ud800\u12G4"`, `"\ud800\n"`,
		`"\ud800\u0041"`, `"\ud800\ud800"`, `"\udc00"`, `"\udc00\ud800"`, `"\ude00\ud83d"`,
		`"\ud800\udc00\udc00"`, `"a\ud83d\ude00b\ud83d\ude00c"`, `"\ud83d`, `"\ud83d\`, `"\ud83d\ude00`,
	} {
		checkString(t, []byte(in))
	}
}

// TestStringUTF8 puts valid, invalid and cut UTF-8 sequences at every
// offset relative to an 8-byte word, inside a string and at the end of the
// input, in plain strings and in strings with escapes.
func TestStringUTF8(t *testing.T) {
	seqs := []string{
		// valid, at the edges of each range
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xe0\xbf\xbf", "\xe1\x80\x80", "\xec\xbf\xbf",
		"\xed\x80\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xef\xbf\xbd",
		"\xf0\x90\x80\x80", "\xf0\xbf\xbf\xbf", "\xf1\x80\x80\x80", "\xf3\xbf\xbf\xbf",
		"\xf4\x80\x80\x80", "\xf4\x8f\xbf\xbf",
		// invalid
		"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xc2\x7f", "\xc2\xc0", "\xe0\x80\x80",
		"\xe0\x9f\xbf", "\xe1\x80", "\xe1\x80\x7f", "\xed\xa0\x80", "\xed\xbf\xbf", "\xef\xbf",
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80", "\xf0\x90", "\xf4\x90\x80\x80",
		"\xf4\x8f\xbf\x7f", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe", "\xff",
	}
	for _, seq := range seqs {
		for _, head := range []string{"", `\t`} {
			for k := 0; k <= 17; k++ {
				pre := `"` + head + strings.Repeat("b", k)
				for _, tail := range []string{`"`, `ccccccccc"`, `\"c"`, ``, "\"", "\x00\""} {
					checkString(t, []byte(pre+seq+tail))
				}
				// Cut at every byte: a sequence at the end of the input.
				for j := 1; j < len(seq); j++ {
					checkString(t, []byte(pre+seq[:j]))
					checkString(t, []byte(pre+seq[:j]+`"`))
				}
			}
		}
	}
	// Every lead byte with every second byte, and a third and fourth that
	// are continuation bytes or not.
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := 0; c1 < 0x100; c1++ {
			for _, c2 := range []byte{0x80, 0xbf, 'x'} {
				checkString(t, []byte{'"', byte(c0), byte(c1), c2, 0x80, '"'})
			}
		}
	}
}

// TestStringLong: long strings of each kind against the reference, so that
// the buffers grow more than once.
func TestStringLong(t *testing.T) {
	for _, in := range [][]byte{
		benchProse(10_000, false), benchProse(10_000, true), benchToolArgs(5_000),
		AppendString(nil, strings.Repeat("東京 서울 🙂 ", 2000)),
		AppendString(nil, strings.Repeat("\n", 3000)),
		[]byte(`"` + strings.Repeat(`\ud83d\ude00`, 1000) + `"`),
		[]byte(`"` + strings.Repeat("x", 5000) + `\n` + strings.Repeat("é", 5000) + "\xff" + `"`),
	} {
		checkString(t, in)
		checkString(t, append(in, `,"more",[1,2,3]`...))
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"é東🙂"`, `"a\nb\"c\\d"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xed\xa0\x80\"",
		"\"abcdefg\xe6\x9d\"", `"\u00`, `"abc`, "\"a\x01\"", `"{\"city\":\"Seoul\"}"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkString(t, append([]byte{'"'}, b...))
	})
}
