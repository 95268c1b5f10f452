package codec

import (
	"reflect"
	"unsafe"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/schema"
)

// Carving: an event's many small pieces — the JSON text of its dynamic
// values, the targets of its optional string, bool and int64 fields — are
// cut from a few blocks per decode instead of one allocation each. A block is
// never reallocated once pieces are cut from it (a full block is replaced by
// a fresh, larger one), so every piece stays where it is; the blocks belong to
// the event (the decoder forgets them when it goes back to the pool). Each
// byte piece is capped at its own length, so an append to one never writes
// over its neighbour.

// carveBytes copies b into the event's text block and returns the copy.
func (d *decoder) carveBytes(b []byte) []byte {
	if cap(d.text)-len(d.text) < len(b) {
		d.textNext = min(max(2*d.textNext, 128), 32<<10)
		d.text = make([]byte, 0, max(len(b), d.textNext))
	}
	start := len(d.text)
	d.text = append(d.text, b...)
	return d.text[start:len(d.text):len(d.text)]
}

// What a decoded optional scalar costs the memory budget: its value, in
// its slab. A bool is charged as an int64 (a word on 64-bit machines), as
// it always was.
const (
	costString = int(unsafe.Sizeof(""))
	costInt64  = int(unsafe.Sizeof(int64(0)))
	costBool   = costInt64
)

// forgetCarved drops the blocks: they belong to the decoded event.
func (d *decoder) forgetCarved() {
	d.text, d.textNext = nil, 0
	d.slabs.Forget()
}

// reuseCarved keeps the blocks for the next decode: a transient event,
// the only one pointing into them, is gone. A text block larger than the
// largest carved size (a huge dynamic value's) is dropped.
func (d *decoder) reuseCarved() {
	if cap(d.text) > 32<<10 {
		d.text, d.textNext = nil, 0
	} else {
		d.text = d.text[:0]
	}
	d.slabs.Reuse()
}

// Element types of the repeated fields, made without reflection (which
// allocates a slice header besides the array).
var (
	typeMessages     = reflect.TypeFor[[]event.Message]()
	typePatchOps     = reflect.TypeFor[[]event.PatchOp]()
	typeToolCalls    = reflect.TypeFor[[]event.ToolCall]()
	typeContentParts = reflect.TypeFor[[]event.ContentPart]()
	typeStrings      = reflect.TypeFor[[]string]()
)

// makeSlice sets the slice at target (of type t) to a new slice of n zero
// elements.
func makeSlice(t reflect.Type, n int, target schema.Pointer) {
	switch t {
	case typeMessages:
		schema.MakeSliceOf[event.Message](target, n)
	case typePatchOps:
		schema.MakeSliceOf[event.PatchOp](target, n)
	case typeToolCalls:
		schema.MakeSliceOf[event.ToolCall](target, n)
	case typeContentParts:
		schema.MakeSliceOf[event.ContentPart](target, n)
	case typeStrings:
		schema.MakeSliceOf[string](target, n)
	default:
		target.MakeSlice(t, n)
	}
}
