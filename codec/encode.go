package codec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// Append appends the protobuf encoding of ev (one Event message, no length
// prefix) to dst. On error the returned slice has dst's length and nothing
// of ev was kept.
//
// Every event type has a coder generated from its table (coders_gen.go);
// what has none — a nil event, a THINKING_* event, a type defined outside
// package event — is refused with ErrUnsupportedEvent (a nil event with
// ErrInvalid), and a type the profile does not carry with ErrNotInProfile.
//
// Append writes only what Unmarshal with the same Codec reads back: an
// event whose decoding would take more than Codec.MemoryBudget (tens of
// thousands of empty tools, interrupts or patch operations, each two bytes
// on the wire and a Go struct of 80 to 192 bytes) is refused with an error
// wrapping ErrBudget, rather than written for every reader to refuse. See
// Codec.Servable.
func (c Codec) Append(dst []byte, ev event.Event) ([]byte, error) {
	return c.appendEvent(dst, ev, false)
}

// Servable reports whether ev can be written and read back by agwire's
// readers with the same options (by default those of the zero Codec, which
// every agwire reader uses unless configured otherwise): nil and the size
// of its wire form (one frame's payload), or the error Append gives, such
// as ErrBudget for an event whose decoding would exceed the memory budget,
// or ErrInvalid. A server calls it before it commits to serving an event,
// for instance to refuse a run's input with a client error instead of
// answering 200 and then failing to write the run's first event.
func (c Codec) Servable(ev event.Event) (int, error) {
	b := servableBufs.Get().(*[]byte)
	defer servableBufs.Put(b)
	out, err := c.appendEvent((*b)[:0], ev, false)
	if cap(out) <= 64<<10 {
		*b = out[:0]
	}
	if err != nil {
		return 0, err
	}
	return len(out), nil
}

var servableBufs = sync.Pool{New: func() any { return new([]byte) }}

// What the decoder charges to the memory budget, bounded from what the
// encoder knows (TestDecodeAmplification checks both bounds on the
// densest elements of every repeated field): per byte of frame at most
// chargePerByte (the frame's copy, string headers, the JSON text of
// dynamic values), plus per nested message at most chargePerMessage (the
// Go struct of an element, 40 to 192 bytes); and in all at most
// maxDecodeAmplification per byte (an empty element: two bytes on the
// wire). Only a frame whose bound exceeds the budget is decoded again by
// checkBudget: frames of real events (long text, tools with schemas) cost
// one comparison.
const (
	chargePerByte          = 16
	chargePerMessage       = 256
	maxDecodeAmplification = 128
)

// checkBudget refuses wire, the encoding of an event of type t holding
// nested messages (-1: not counted), if Unmarshal with c would refuse it
// for its memory budget. A frame whose bound fits the budget costs
// nothing; the others are decoded once.
func (c Codec) checkBudget(t event.Type, wire []byte, nested int) error {
	ratio := int64(c.MemoryBudget)
	switch {
	case ratio < 0:
		return nil
	case ratio == 0:
		ratio = DefaultMemoryBudget
	}
	n := int64(len(wire))
	bound := n * maxDecodeAmplification
	if nested >= 0 {
		bound = min(bound, n*chargePerByte+int64(nested)*chargePerMessage)
	}
	if bound <= n*ratio+budgetFloor {
		return nil
	}
	_, err := c.Unmarshal(wire)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrBudget):
		var ce *Error
		path := ""
		if errors.As(err, &ce) {
			path = ce.Path
		}
		return &Error{Op: "encode", Type: t, Path: path, Offset: -1, Err: fmt.Errorf(
			"%w: decoding its %d-byte frame needs more than the %d bytes a reader may allocate (Codec.MemoryBudget: %d× the frame + %d), so readers would refuse it; send fewer or fuller elements",
			ErrBudget, len(wire), c.budget(len(wire)), ratio, budgetFloor)}
	}
	// The encoder wrote what its own decoder refuses: a defect, reported
	// rather than sent.
	return &Error{Op: "encode", Type: t, Offset: -1, Err: fmt.Errorf("%w: the encoding does not decode: %v", ErrInvalid, err)}
}

// appendEvent is Append; validUTF8 says the event's strings are known to be
// UTF-8 (the JSON reader checked them), so that they are not checked again.
func (c Codec) appendEvent(dst []byte, ev event.Event, validUTF8 bool) ([]byte, error) {
	if ev == nil || (c.Profile != V1 && !c.Profile.Supports(ev.Type())) {
		return dst, c.refusal(ev)
	}
	if event.MayHoldLater(ev) {
		if err := c.later(ev, validUTF8); err != nil {
			return dst, err
		}
	}
	g := newGenc(&c)
	g.validUTF8 = validUTF8
	b, ok, err := appendGenerated(&g, dst, ev)
	nested := 0
	if g.e != nil {
		nested = len(g.e.sizes) // one slot per nested message
	}
	g.release()
	switch {
	case !ok:
		return dst, c.refusal(ev)
	case err != nil:
		return dst, toError("encode", ev.Type(), err)
	}
	if err := c.checkBudget(ev.Type(), b[len(dst):], nested); err != nil {
		return dst, err
	}
	return b, nil
}

// refusal is the error for an event that has no generated coder — a nil
// event, a THINKING_* event, a type defined outside package event — or
// that the profile does not carry.
func (c Codec) refusal(ev event.Event) error {
	if _, _, err := planOf(ev); err != nil {
		return toError("encode", "", err)
	}
	t := ev.Type()
	if _, ok := typeInfos[t]; !ok {
		why := "not an AG-UI 1.0 event type"
		if t.IsThinking() {
			why = "THINKING_* events were removed in AG-UI 1.0 and never had a protobuf form; send REASONING_* events, or use SSE"
		}
		return &Error{Op: "encode", Type: t, Offset: -1, Err: fmt.Errorf("%w: %s", event.ErrUnsupportedEvent, why)}
	}
	if !c.Profile.Supports(t) {
		return &Error{Op: "encode", Type: t, Offset: -1, Err: fmt.Errorf("%w: %s peers know only the first %d envelope arms", ErrNotInProfile, c.Profile, preV1MaxArm)}
	}
	// A *event.Thinking whose Kind names an event type of the wire.
	return &Error{Op: "encode", Type: t, Offset: -1, Err: fmt.Errorf("%w: a %T carries only THINKING_* events, which have no protobuf form", event.ErrUnsupportedEvent, ev)}
}

// toError turns an internal path-carrying error into an *Error.
func toError(op string, t event.Type, err error) error {
	out := &Error{Op: op, Type: t, Offset: -1, Err: err}
	var pe *jsonx.Error
	if errors.As(err, &pe) {
		out.Path, out.Err = pe.Path, pe.Err
		if op == "decode" {
			out.Offset = pe.Offset
		}
	}
	// A broken AG-UI rule (event's validation, shared by every path) is
	// also the codec's own sentinel for the direction.
	if errors.Is(out.Err, event.ErrInvalidField) || errors.Is(out.Err, event.ErrMissingField) {
		sentinel := ErrInvalid
		if op == "decode" {
			sentinel = ErrMalformed
		}
		out.Err = fmt.Errorf("%w: %w", sentinel, out.Err)
	}
	return out
}

func invalidf(format string, args ...any) error {
	return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)}
}

// encoders recycles encoder scratch space (the key arena) across calls.
var encoders = sync.Pool{New: func() any { return new(encoder) }}

type encoder struct {
	lossy      bool
	unsafeInts bool
	s          jsonx.Scanner
	// keys holds the object keys seen so far at every open nesting level,
	// for refusing duplicates; keyEnds[i] is the end of key i in keys.
	keys    []byte
	keyEnds []int
	// slots and tables index the keys of each open level (keyset.go).
	slots  []uint32
	tables []keyTable
	// The generated encoders' size pass results (genenc.go): nested
	// message sizes in visit order, and the protobuf bodies of dynamic
	// values in dyn (spans), where a nested message's length of more than
	// one byte is recorded in holes rather than moving what follows it;
	// extra counts the bytes those lengths add so far.
	sizes []int
	spans []dynSpan
	dyn   []byte
	holes []hole
	extra int
}

// hole is the length of a nested message of a dynamic value that needs
// more than the one byte the size pass left for it, at offset at of
// encoder.dyn: the write pass writes it there in place of that byte.
type hole struct{ at, n int }

// open starts a nested message of field tag (a one-byte tag of a
// length-delimited field), leaving one byte for its length: it returns
// where the body starts and the encoder's extra at that point, for close.
func (e *encoder) open(b []byte, tag byte) ([]byte, int, int) {
	b = append(b, tag, 0)
	return b, len(b), e.extra
}

// close ends the nested message that open began at start, b holding its
// body: a length under 128 is written in its byte; a longer one is left
// to the write pass as a hole.
func (e *encoder) close(b []byte, start, extra int) {
	n := len(b) - start + e.extra - extra
	if n < 0x80 {
		b[start-1] = byte(n)
		return
	}
	e.holes = append(e.holes, hole{at: start - 1, n: n})
	e.extra += protowire.SizeVarint(uint64(n)) - 1
}

// valueBody appends the google.protobuf.Value body of the JSON text v.
func (e *encoder) valueBody(b, v []byte) ([]byte, error) {
	e.s.Reset(v)
	b, err := e.value(b)
	if err == nil {
		err = e.s.End()
	}
	return b, markInvalidJSON(err)
}

// structBodyOf appends the google.protobuf.Struct body of the JSON object
// text v.
func (e *encoder) structBodyOf(b, v []byte) ([]byte, error) {
	e.s.Reset(v)
	if k := e.s.Peek(); k != jsonx.Object {
		return b, invalidf("must be a JSON object, found %s", k)
	}
	b, err := e.structBody(b)
	if err == nil {
		err = e.s.End()
	}
	return b, markInvalidJSON(err)
}

// markInvalidJSON makes JSON syntax errors in a dynamic value ErrInvalid too.
func markInvalidJSON(err error) error {
	if err == nil {
		return nil // before pe, which escapes
	}
	var pe *jsonx.Error
	if errors.Is(err, jsonx.ErrSyntax) && errors.As(err, &pe) {
		pe.Err = fmt.Errorf("%w: %w", ErrInvalid, pe.Err)
	}
	return err
}

// value converts the JSON value at the scanner to a Value message body.
func (e *encoder) value(b []byte) ([]byte, error) {
	switch e.s.Peek() {
	case jsonx.Null:
		b = append(b, 0x08, 0x00) // null_value: NULL_VALUE
		return b, e.s.Null()
	case jsonx.True, jsonx.False:
		v, err := e.s.Bool()
		if v {
			return append(b, 0x20, 1), err // bool_value
		}
		return append(b, 0x20, 0), err
	case jsonx.Number:
		text, err := e.s.Number()
		if err != nil {
			return b, err
		}
		f, exact := jsonx.ParseNumber(text)
		if !exact && !e.lossy {
			return b, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %s would become %s", ErrLossyNumber, shortNumber(text), describeDouble(f))}
		}
		return protowire.AppendFixed64(append(b, 0x11), math.Float64bits(f)), nil // number_value
	case jsonx.String:
		s, err := e.s.StringBytes()
		return protowire.AppendBytes(append(b, 0x1a), s), err // string_value
	case jsonx.Object:
		b, start, x := e.open(b, 0x2a) // struct_value
		b, err := e.structBody(b)
		e.close(b, start, x)
		return b, err
	case jsonx.Array:
		b, start, x := e.open(b, 0x32) // list_value
		err := e.s.Array(func(int) error {
			var err error
			var el, ex int
			b, el, ex = e.open(b, 0x0a) // values
			if b, err = e.value(b); err != nil {
				return err
			}
			e.close(b, el, ex)
			return nil
		})
		e.close(b, start, x)
		return b, err
	}
	return b, e.s.Skip() // reports the syntax error
}

// shortNumber quotes a number's text in an error, cut short when long.
func shortNumber(text []byte) string {
	if len(text) <= 64 {
		return string(text)
	}
	return string(text[:48]) + "… (" + strconv.Itoa(len(text)) + " digits)"
}

func describeDouble(f float64) string {
	if math.IsInf(f, 0) {
		return fmt.Sprint(f) + " (overflow)"
	}
	if f == 0 {
		return "0 (underflow)"
	}
	return string(jsonx.AppendFloat(nil, f))
}

// structBody converts the JSON object at the scanner to Struct entries.
func (e *encoder) structBody(b []byte) ([]byte, error) {
	e.openKeys()
	err := e.s.Object(func(key string) error {
		if e.duplicate(key) {
			return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w %s: a protobuf Struct holds each key once", jsonx.ErrDuplicateKey, jsonx.Quote(key))}
		}
		var err error
		b, err = e.entry(b, key)
		return err
	})
	e.closeKeys()
	return b, err
}

func (e *encoder) entry(b []byte, key string) ([]byte, error) {
	b, entry, x := e.open(b, 0x0a) // fields
	if key != "" {
		b = appendStr(append(b, 0x0a), key) // key
	}
	b, val, xv := e.open(b, 0x12) // value
	b, err := e.value(b)
	if err != nil {
		return b, err
	}
	e.close(b, val, xv)
	e.close(b, entry, x)
	return b, nil
}
