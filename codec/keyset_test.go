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
