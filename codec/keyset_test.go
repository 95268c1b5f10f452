package codec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// The duplicate-key check behaves the same at every object size and nesting:
// each level's table grows while nested levels come and go.
func TestDuplicateKeysAnySize(t *testing.T) {
	obj := func(n, dupOf int, nested bool) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":`, i)
			if nested && i%7 == 3 {
				// A nested object reusing the outer names, itself large.
				b.WriteByte('{')
				for j := range i % 40 {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `"k%d":%d`, j, j)
				}
				b.WriteByte('}')
			} else {
				fmt.Fprintf(&b, "%d", i)
			}
		}
		if dupOf >= 0 {
			fmt.Fprintf(&b, `,"k%d":true`, dupOf)
		}
		b.WriteByte('}')
		return b.String()
	}
	for _, n := range []int{1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 5000} {
		for _, nested := range []bool{false, true} {
			in := `{"type":"CUSTOM","name":"c","metadata":` + obj(n, -1, nested) + `}`
			if _, err := codec.AppendFromJSON(nil, []byte(in)); err != nil {
				t.Fatalf("n=%d nested=%v: distinct keys refused: %v", n, nested, err)
			}
			for _, dup := range []int{0, n / 2, n - 1} {
				in := `{"type":"CUSTOM","name":"c","metadata":` + obj(n, dup, nested) + `}`
				_, err := codec.AppendFromJSON(nil, []byte(in))
				var ce *codec.Error
				if !errors.Is(err, event.ErrDuplicateKey) || !errors.As(err, &ce) || ce.Path != fmt.Sprintf("metadata.k%d", dup) {
					t.Fatalf("n=%d nested=%v dup=k%d: got %v", n, nested, dup, err)
				}
			}
		}
	}
}

// Decoding merges a repeated Struct key into its first place, last value
// wins, at every size (the entry index grows while entries are collected).
func TestDecodeStructRepeatedKeysAnySize(t *testing.T) {
	for _, n := range []int{1, 2, 7, 8, 9, 16, 17, 33, 100, 1000, 3000} {
		var entries [][]byte
		vals := make([]string, n)
		for i := range n {
			entries = append(entries, wsEntry(fmt.Sprintf("k%d", i), wvNum(float64(i))))
			vals[i] = fmt.Sprint(i)
		}
		for _, dup := range []int{0, n / 3, n - 1} {
			entries = append(entries, wsEntry(fmt.Sprintf("k%d", dup), wvNum(float64(-dup-1))))
			vals[dup] = fmt.Sprint(-dup - 1)
		}
		var want strings.Builder
		want.WriteString(`{"type":"CUSTOM","name":"c","value":{`)
		for i, v := range vals {
			if i > 0 {
				want.WriteByte(',')
			}
			fmt.Fprintf(&want, `"k%d":%s`, i, v)
		}
		want.WriteString(`}}`)
		got := hDecodeJSON(t, codec.Codec{}, hCustom(wvStruct(entries...)))
		if string(got) != want.String() {
			t.Fatalf("n=%d:\n got %.300s\nwant %.300s", n, got, want.String())
		}
	}
}
