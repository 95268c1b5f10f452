package difftest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"testing"
)

// Text is a JSON input, shown as text in a failure message.
type Text []byte

func (t Text) String() string { return string(t) }

// Wire is a binary input, shown in hex in a failure message.
type Wire []byte

func (w Wire) String() string { return hex.EncodeToString(w) }

// Answer is what one implementation made of an input: a value (an event,
// bytes) and an error. By names the implementation in failure messages.
type Answer struct {
	By  string
	Val any
	Err error
}

// Agree requires a and b, two implementations' answers to in (a Text or
// a Wire), to be the
// same answer: both errors nil and equal values (bytes.Equal for []byte,
// reflect.DeepEqual otherwise), or both errors non-nil with the same
// message. It stops the test otherwise.
func Agree(t testing.TB, in fmt.Stringer, a, b Answer) {
	t.Helper()
	if (a.Err == nil) != (b.Err == nil) || a.Err != nil && a.Err.Error() != b.Err.Error() {
		t.Fatalf("%s and %s answer differently\n%-12s %v\n%-12s %v\ninput %v", a.By, b.By, a.By, errOrVal(a), b.By, errOrVal(b), in)
	}
	if a.Err == nil && !Equal(a.Val, b.Val) {
		t.Fatalf("%s and %s differ\n%-12s %#v\n%-12s %#v\ninput %v", a.By, b.By, a.By, show(a.Val), b.By, show(b.Val), in)
	}
}

// Within requires fast, the answer of a fast path that answers only what
// it can (ok), to be ref's answer where it answered: ref succeeded, with
// an equal value. It reports ok.
func Within(t testing.TB, in fmt.Stringer, fast Answer, ok bool, ref Answer) bool {
	t.Helper()
	if !ok {
		return false
	}
	if ref.Err != nil {
		t.Fatalf("%s accepts what %s refuses (%v)\n%-12s %#v\ninput %v", fast.By, ref.By, ref.Err, fast.By, show(fast.Val), in)
	}
	if !Equal(fast.Val, ref.Val) {
		t.Fatalf("%s answers otherwise than %s\n%-12s %#v\n%-12s %#v\ninput %v", fast.By, ref.By, fast.By, show(fast.Val), ref.By, show(ref.Val), in)
	}
	return true
}

// Equal reports whether two answers' values are equal: bytes.Equal for
// two byte slices (nil and empty are equal), reflect.DeepEqual otherwise.
func Equal(a, b any) bool {
	if x, ok := a.([]byte); ok {
		if y, ok := b.([]byte); ok {
			return bytes.Equal(x, y)
		}
	}
	return reflect.DeepEqual(a, b)
}

func errOrVal(a Answer) any {
	if a.Err != nil {
		return a.Err
	}
	return show(a.Val)
}

// show makes bytes readable in a failure message.
func show(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

// Mutator makes the one-byte changes and cuts both differential tests
// apply to their canonical inputs, from a linear congruential sequence
// seeded by the test, so that every run makes the same ones.
type Mutator struct{ rng uint32 }

// NewMutator returns a Mutator whose sequence starts at seed.
func NewMutator(seed uint32) *Mutator { return &Mutator{rng: seed} }

// Next steps the sequence and returns a copy of b with one byte changed
// (xor with a byte of the sequence, possibly zero: then b itself) and a
// cut of b, a prefix shorter than b. b must not be empty.
func (m *Mutator) Next(b []byte) (changed, cut []byte) {
	m.rng = m.rng*1664525 + 1013904223
	changed = append([]byte(nil), b...)
	changed[int(m.rng>>8)%len(changed)] ^= byte(m.rng >> 24)
	return changed, b[:int(m.rng>>4)%len(b)]
}

// Reshape returns JSON object text b reshaped as a peer might write it
// or get it wrong: a "metadata":null inserted before the second member,
// an unknown member before "type", whitespace around every colon, and
// the members after the first repeated (when b has two members or more).
func Reshape(b []byte) [][]byte {
	out := [][]byte{
		bytes.Replace(b, []byte(`,"`), []byte(`,"metadata":null,"`), 1),
		bytes.Replace(b, []byte(`{"type"`), []byte(`{"x":1,"type"`), 1),
		bytes.ReplaceAll(b, []byte(`:`), []byte(` : `)),
	}
	if len(b) > 1 {
		if j := bytes.IndexByte(b[1:], ','); j > 0 {
			out = append(out, append(append(append([]byte(nil), b[:len(b)-1]...), b[j+1:len(b)-1]...), '}'))
		}
	}
	return out
}
