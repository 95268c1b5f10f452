package jsonx

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// skipAll validates one complete JSON text the way every caller does:
// one value, then only whitespace.
func skipAll(data string, maxDepth int) error {
	var s Scanner
	s.MaxDepth = maxDepth
	s.Reset([]byte(data))
	if err := s.Skip(); err != nil {
		return err
	}
	return s.End()
}

// TestScannerAcceptsRFC8259 lists texts that RFC 8259 calls JSON.
func TestScannerAcceptsRFC8259(t *testing.T) {
	for _, in := range []string{
		`0`, `-0`, `1`, `-1`, `10`, `0.5`, `-0.5`, `1e5`, `1E5`, `1e+5`, `1e-5`, `1.25E-05`,
		`123456789012345678901234567890`, `0e0`, `-0.0e-0`,
		`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\uD83D\uDE00"`, `"é😀"`,
		`"\u0000"`, "\"\x7f\"", `"\uFFFF"`, "\"\xef\xbf\xbd\"", // U+FFFD written literally is valid UTF-8
		`true`, `false`, `null`,
		`[]`, `{}`, `[1,"a",null,true,false,{},[]]`, `{"a":1,"b":[{"c":null}]}`,
		" \t\r\n[ 1 , 2 ] \t\r\n", `{ "a" : 1 }`,
		`{"a":1,"a":2}`, // duplicate names are the caller's business, not the scanner's
	} {
		if err := skipAll(in, 0); err != nil {
			t.Errorf("%q refused: %v", in, err)
		}
	}
}

// TestScannerRejects lists texts RFC 8259 does not allow, and the UTF-8 and
// surrogate rules agwire adds because a protobuf string must be valid UTF-8.
func TestScannerRejects(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"empty", ``},
		{"only space", `   `},
		{"leading zero", `01`},
		{"leading zeros", `-007`},
		{"leading plus", `+1`},
		{"bare minus", `-`},
		{"bare point", `.5`},
		{"trailing point", `1.`},
		{"point exponent", `1.e5`},
		{"empty exponent", `1e`},
		{"signed empty exponent", `1e+`},
		{"hex", `0x10`},
		{"NaN", `NaN`},
		{"Infinity", `Infinity`},
		{"-Infinity", `-Infinity`},
		{"array trailing comma", `[1,]`},
		{"object trailing comma", `{"a":1,}`},
		{"array leading comma", `[,1]`},
		{"missing comma", `[1 2]`},
		{"missing colon", `{"a" 1}`},
		{"unquoted key", `{a:1}`},
		{"single quotes", `'a'`},
		{"single quoted key", `{'a':1}`},
		{"unterminated string", `"abc`},
		{"unterminated array", `[1`},
		{"unterminated object", `{"a":1`},
		{"two values", `1 2`},
		{"trailing garbage", `{} x`},
		{"comment", `[1 /* c */]`},
		{"truncated true", `tru`},
		{"capital True", `True`},
		{"truex", `truex`},
		{"nul", `nul`},
		{"bad escape", `"\a"`},
		{"short unicode escape", `"\u12"`},
		{"bad hex in unicode escape", `"\u12G4"`},
		{"escape at end", `"\`},
		{"lone high surrogate", `"\ud800"`},
		{"lone high surrogate then text", `"\ud800x"`},
		{"lone low surrogate", `"\udc00"`},
		{"high surrogate then non-surrogate escape", `"\ud800\u0041"`},
		{"two high surrogates", `"\ud800\ud800"`},
		{"reversed pair", `"\ude00\ud83d"`},
		{"raw NUL", "\"\x00\""},
		{"raw newline", "\"a\nb\""},
		{"raw tab", "\"a\tb\""},
		{"raw 0x1f", "\"\x1f\""},
		{"invalid UTF-8 byte", "\"\xff\""},
		{"truncated UTF-8", "\"\xc3\""},
		{"overlong NUL", "\"\xc0\x80\""},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\""},
		{"invalid UTF-8 after escape", "\"\\n\xff\""},
		{"invalid UTF-8 in key", "{\"\xff\":1}"},
		{"form feed is not whitespace", "\f1"},
		{"vertical tab is not whitespace", "\v1"},
		{"NBSP is not whitespace", "\u00a01"},
		{"BOM", "\ufeff1"},
	} {
		err := skipAll(tc.in, 0)
		if err == nil {
			t.Errorf("%s: %q accepted", tc.name, tc.in)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: %q: error %v is not ErrSyntax", tc.name, tc.in, err)
		}
		var e *Error
		if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(tc.in) {
			t.Errorf("%s: %q: error %#v has no offset inside the input", tc.name, tc.in, err)
		}
	}
}

// TestScannerStringDecoding checks unescaping, including surrogate pairs.
func TestScannerStringDecoding(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`"\u0041"`, "A"},
		{`"\u00e9"`, "é"},
		{`"\u00E9"`, "é"},
		{`"\u2028"`, "\u2028"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"\udbff\udfff"`, "\U0010FFFF"},
		{`"\ud800\udc00"`, "\U00010000"},
		{`"a\u0000b"`, "a\x00b"},
		{`"é😀"`, "é😀"},
		{`"\uFFFD"`, "\uFFFD"},
		{"\"\xef\xbf\xbd\"", "\uFFFD"},
	} {
		var s Scanner
		s.Reset([]byte(tc.in))
		got, err := s.String()
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
		s.Reset([]byte(tc.in))
		gotb, err := s.StringBytes()
		if err != nil || string(gotb) != tc.want {
			t.Errorf("%s: StringBytes got %q, %v; want %q", tc.in, gotb, err, tc.want)
		}
	}
}

// TestScannerErrorPaths: an error inside nested values names the path to it
// (keys dotted, indexes bracketed) and the byte offset of the failure.
func TestScannerErrorPaths(t *testing.T) {
	for _, tc := range []struct {
		in, path string
		offset   int
	}{
		{`{"a":{"b":[0,1,{"c":tru}]}}`, "a.b[2].c", 20},
		{`[0,{"x":[1,[2,bad]]}]`, "[1].x[1][1]", 14},
		{`{"a":[[0,"\ud800"]]}`, "a[0][1]", 16},
		{`{"k.y":{"0":-}}`, `["k.y"].0`, 13}, // a key with a dot is bracketed: the path stays unambiguous
		{`{"a":[{"[":-}]}`, `a[0]["["]`, 12},
		{`{"a":1,"b":{"c":[1,2,3,]}}`, "b.c[3]", 23},
		{`{"a":x}`, "a", 5},
	} {
		err := skipAll(tc.in, 0)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", tc.in, err)
			continue
		}
		if e.Path != tc.path {
			t.Errorf("%s: path %q, want %q", tc.in, e.Path, tc.path)
		}
		if e.Offset != tc.offset {
			t.Errorf("%s: offset %d, want %d", tc.in, e.Offset, tc.offset)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.path) {
			t.Errorf("%s: message %q does not name the path %q", tc.in, msg, tc.path)
		}
	}
}

func TestWithKeyWithIndex(t *testing.T) {
	base := errors.New("boom")
	err := WithKey(WithIndex(WithKey(WithIndex(WithIndex(base, 1), 0), "b"), 2), "a")
	var e *Error
	if !errors.As(err, &e) || e.Path != "a[2].b[0][1]" {
		t.Fatalf("path of %v, want a[2].b[0][1]", err)
	}
	if !errors.Is(err, base) {
		t.Errorf("%v lost its cause", err)
	}
	if WithKey(nil, "a") != nil || WithIndex(nil, 1) != nil {
		t.Error("nil error must stay nil")
	}
	if got := (&Error{Path: "a.b", Offset: 7, Err: base}).Error(); got != "a.b (byte 7): boom" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Offset: -1, Err: base}).Error(); got != "boom" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Offset: 3, Err: base}).Error(); got != "at byte 3: boom" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Path: "x", Offset: -1, Err: base}).Error(); got != "x: boom" {
		t.Errorf("Error() = %q", got)
	}
}

// TestScannerMaxDepth: arrays and objects both count; the limit itself is allowed.
func TestScannerMaxDepth(t *testing.T) {
	nest := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	for _, tc := range []struct {
		max, n int
		ok     bool
	}{
		{3, 3, true},
		{3, 4, false},
		{1, 1, true},
		{1, 2, false},
		{0, DefaultMaxDepth, true},
		{0, DefaultMaxDepth + 1, false},
		{0, 300, false},
		{1000, 300, true},
	} {
		for _, kind := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}} {
			err := skipAll(nest(tc.n, kind.open, kind.close), tc.max)
			if tc.ok && err != nil {
				t.Errorf("max %d, %d levels of %s: %v", tc.max, tc.n, kind.open, err)
			}
			if !tc.ok && !errors.Is(err, ErrTooDeep) {
				t.Errorf("max %d, %d levels of %s: got %v, want ErrTooDeep", tc.max, tc.n, kind.open, err)
			}
		}
	}
	// Mixed nesting counts both kinds.
	mixed := strings.Repeat(`[{"a":`, 3) + "1" + strings.Repeat("}]", 3)
	if err := skipAll(mixed, 6); err != nil {
		t.Errorf("6 mixed levels with limit 6: %v", err)
	}
	if err := skipAll(mixed, 5); !errors.Is(err, ErrTooDeep) {
		t.Errorf("6 mixed levels with limit 5: %v", err)
	}
	// Depth is released when a container closes: many siblings are fine.
	wide := "[" + strings.Repeat("[[1]],", 500) + "[[1]]]"
	if err := skipAll(wide, 3); err != nil {
		t.Errorf("wide but shallow: %v", err)
	}
}

// TestScannerRawAndNumber: Raw keeps the exact text of a value (no
// surrounding whitespace), Number its exact spelling.
func TestScannerRawAndNumber(t *testing.T) {
	in := ` { "z" : 1.50 , "a" : [ 1e2 , null ] , "s" : "\u00e9" } `
	var s Scanner
	s.Reset([]byte(in))
	var got []string
	err := s.Object(func(key string) error {
		raw, err := s.Raw()
		got = append(got, key+"="+string(raw))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	want := []string{`z=1.50`, `a=[ 1e2 , null ]`, `s="\u00e9"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, num := range []string{"0", "-0", "1.50", "1e2", "-1.25E+05", "123456789012345678901234567890"} {
		s.Reset([]byte(num + ","))
		text, err := s.Number()
		if err != nil || string(text) != num {
			t.Errorf("Number(%q) = %q, %v", num, text, err)
		}
	}
}

func TestScannerPeek(t *testing.T) {
	for in, want := range map[string]Kind{
		` {`: Object, "\n[": Array, `"x"`: String, `-1`: Number, `7`: Number,
		`true`: True, `false`: False, `null`: Null, ``: Invalid, `x`: Invalid, `+1`: Invalid,
	} {
		var s Scanner
		s.Reset([]byte(in))
		if got := s.Peek(); got != want {
			t.Errorf("Peek(%q) = %v, want %v", in, got, want)
		}
	}
}

// skipRef skips by reading every key with Object under the scanner's own
// AliasStrings: Skip, which reads keys in place whatever AliasStrings says,
// must accept, refuse and name keys in errors exactly as it does.
func skipRef(s *Scanner) error {
	switch s.Peek() {
	case Object:
		return s.Object(func(string) error { return skipRef(s) })
	case Array:
		return s.Array(func(int) error { return skipRef(s) })
	}
	return s.Skip()
}

func TestSkipObjectAsReadingKeys(t *testing.T) {
	for _, in := range []string{
		`{}`, `{"a":1}`, `{"a":{"b":[1,{"c":tru}]}}`, `{"a\"b":{"c\u00e9":nul}}`, `{"a":1,}`,
		`{"a" 1}`, `{"a":1 "b":2}`, `{"\ud800":1}`, `{"k":"\x01"}`, `{"a":{"b":{}},"c":[]}`,
		`{"x":[{"y":{"z":"é"}},"bad\q"]}`, `{"a":`, `{`, `{"a":1`, "{\"\xff\":1}",
	} {
		var a, b Scanner
		a.Reset([]byte(in))
		b.Reset([]byte(in))
		errA, errB := a.Skip(), skipRef(&b)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || a.Offset() != b.Offset() {
			t.Errorf("%s: Skip = %v at %d; reading keys = %v at %d", in, errA, a.Offset(), errB, b.Offset())
		}
	}
	// Skipping copies no key, AliasStrings unset and no arena.
	in := []byte(`{"alpha":{"beta":[1,{"gamma":null}],"delta":"x"},"epsilon":true}`)
	var s Scanner
	if a := testing.AllocsPerRun(100, func() {
		s.Reset(in)
		if err := s.Skip(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("Skip allocated %v times", a)
	}
}
