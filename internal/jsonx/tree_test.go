package jsonx

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseTreeRoundTrip(t *testing.T) {
	for _, in := range []string{
		`null`, `true`, `false`, `0`, `-0`, `1.50`, `1e2`, `""`, `"a\"b"`,
		`[]`, `{}`, `[1,[2,[3]],{"a":{}}]`, `{"z":1,"a":2,"m":[true,null]}`,
	} {
		v, err := ParseTree([]byte(" "+in+"\n"), TreeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(v.AppendJSON(nil)); got != in {
			t.Errorf("%s written back as %s", in, got)
		}
	}
}

// What agwire's encoder refuses in a dynamic value, the tree refuses.
func TestParseTreeStrict(t *testing.T) {
	for _, c := range []struct {
		in   string
		want error
	}{
		{"\xEF\xBB\xBF{}", ErrSyntax},
		{`{"a":1,"a":2}`, ErrDuplicateKey},
		{`{"a":{"b":1,"b":1}}`, ErrDuplicateKey},
		{`{` + manyKeys(40) + `,"k7":0}`, ErrDuplicateKey}, // found through the map
		{`12345678901234567890`, ErrInexactNumber},
		{`[0.1000000000000000055511151231257827]`, ErrInexactNumber},
		{`1e400`, ErrInexactNumber},
		{`{"a":1}x`, ErrSyntax},
		{`[1,]`, ErrSyntax},
		{`"\ud800"`, ErrSyntax},
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), ErrTooDeep},
	} {
		_, err := ParseTree([]byte(c.in), TreeOptions{})
		if !errors.Is(err, c.want) {
			t.Errorf("%.60q: got %v, want %v", c.in, err, c.want)
		}
		var je *Error
		if err != nil && !errors.As(err, &je) {
			t.Errorf("%.60q: %T is not a *jsonx.Error", c.in, err)
		}
	}
	if _, err := ParseTree([]byte(`12345678901234567890`), TreeOptions{Inexact: true}); err != nil {
		t.Errorf("Inexact: %v", err)
	}
	if _, err := ParseTree([]byte(`{`+manyKeys(40)+`}`), TreeOptions{}); err != nil {
		t.Errorf("distinct keys: %v", err)
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":0`)
	}
	return b.String()
}

// Strings are written back as JSON.stringify writes them (the jsStringify
// table of write_test.go), whatever escapes they arrived with.
func TestParseTreeWritesLikeJSONStringify(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		in := `"\u` + strconv.FormatInt(int64(r)+0x10000, 16)[1:] + `"`
		v, err := ParseTree([]byte(in), TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, ok := jsStringify[r]
		if !ok {
			want = string(r)
		}
		if got := string(v.AppendJSON(nil)); got != `"`+want+`"` {
			t.Errorf("U+%04X: got %s, want \"%s\"", r, got, want)
		}
	}
}

// Many members: the cost of finding repeated keys stays linear (values
// read per object member, counted as bytes allocated for a 4x larger input).
func TestParseTreeManyKeysLinear(t *testing.T) {
	allocs := func(n int) float64 {
		text := []byte(`{` + manyKeys(n) + `}`)
		return testing.AllocsPerRun(3, func() {
			if _, err := ParseTree(text, TreeOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, big := allocs(20000), allocs(80000)
	if big > 5*small {
		t.Errorf("allocations: %v for 20000 keys, %v for 80000", small, big)
	}
}

func TestValueSize(t *testing.T) {
	v, err := ParseTree([]byte(`{"ab":[1,"xyz"]}`), TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bytes, n := v.Size()
	if n != 4 || bytes != 4*ValueSize+MemberSize+len("ab")+len("1")+len("xyz") {
		t.Errorf("Size = %d, %d", bytes, n)
	}
}

// CheckValue agrees with ParseTree on every case of the strict table and on
// good values.
func TestCheckValueAgreesWithParseTree(t *testing.T) {
	for _, in := range []string{
		"\xEF\xBB\xBF{}", `{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `{` + manyKeys(40) + `,"k7":0}`,
		`{` + manyKeys(40) + `}`, `12345678901234567890`, `[1e400]`, `{"a":[1,{"b":2}]}`, `[1,]`, `"x"`,
	} {
		_, perr := ParseTree([]byte(in), TreeOptions{})
		cerr := CheckValue([]byte(in), TreeOptions{})
		if (perr == nil) != (cerr == nil) || (perr != nil && perr.Error() != cerr.Error()) {
			t.Errorf("%.60q: ParseTree %v, CheckValue %v", in, perr, cerr)
		}
	}
}

// FuzzParseTree: what ParseTree accepts, CheckValue accepts, and the tree
// written back reads back to the same text (a fixed point after one write);
// what it refuses, CheckValue refuses with the same error.
func FuzzParseTree(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u0008"}`, `[1e400]`, `{"a":1,"a":2}`, "\xEF\xBB\xBF{}", `"\ud83d\ude00"`, `-0.0e+0`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTree([]byte(s), TreeOptions{})
		cerr := CheckValue([]byte(s), TreeOptions{})
		if (err == nil) != (cerr == nil) || (err != nil && err.Error() != cerr.Error()) {
			t.Fatalf("ParseTree %v, CheckValue %v", err, cerr)
		}
		if err != nil {
			return
		}
		once := v.AppendJSON(nil)
		w, err := ParseTree(once, TreeOptions{})
		if err != nil {
			t.Fatalf("written back as %q, which does not read: %v", once, err)
		}
		if twice := w.AppendJSON(nil); string(twice) != string(once) {
			t.Fatalf("%q -> %q -> %q", s, once, twice)
		}
	})
}
