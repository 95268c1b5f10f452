package codec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// Append appends the protobuf encoding of ev (one Event message, no length
// prefix) to dst. On error the returned slice has dst's length and nothing
// of ev was kept.
//
// Every event type has a coder generated from its table (coders_gen.go);
// what has none — a nil event, a THINKING_* event, a type defined outside
// package event, a type the profile does not carry — goes to the reference
// encoder, which reports it.
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
		return c.appendReference(dst, ev)
	}
	g := newGenc(&c)
	g.validUTF8 = validUTF8
	b, err, ok := appendGenerated(&g, dst, ev)
	nested := 0
	if g.e != nil {
		nested = len(g.e.sizes) // one slot per nested message
	}
	g.release()
	switch {
	case !ok:
		return c.appendReference(dst, ev)
	case err != nil:
		return dst, toError("encode", ev.Type(), err)
	}
	if err := c.checkBudget(ev.Type(), b[len(dst):], nested); err != nil {
		return dst, err
	}
	return b, nil
}

// appendReference is the reference encoder: it walks the field tables at
// run time. The generated coders must agree with it byte for byte and
// error for error (FuzzGeneratedEncode, fuzz/).
func (c Codec) appendReference(dst []byte, ev event.Event) ([]byte, error) {
	plan, ptr, err := planOf(ev)
	if err != nil {
		return dst, toError("encode", "", err)
	}
	t := ev.Type()
	ti, ok := typeInfos[t]
	if !ok {
		why := "not an AG-UI 1.0 event type"
		if t.IsThinking() {
			why = "THINKING_* events were removed in AG-UI 1.0 and never had a protobuf form; send REASONING_* events, or use SSE"
		}
		return dst, &Error{Op: "encode", Type: t, Offset: -1, Err: fmt.Errorf("%w: %s", event.ErrUnsupportedEvent, why)}
	}
	if !c.Profile.Supports(t) {
		return dst, &Error{Op: "encode", Type: t, Offset: -1, Err: fmt.Errorf("%w: %s peers know only the first %d envelope arms", ErrNotInProfile, c.Profile, preV1MaxArm)}
	}
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	e.lossy = c.LossyNumbers
	e.unsafeInts = c.UnsafeIntegers
	e.s.MaxDepth = c.maxDepth()
	e.s.AliasStrings = true // keys are only compared, never kept
	e.keys, e.keyEnds = e.keys[:0], e.keyEnds[:0]
	e.slots, e.tables = e.slots[:0], e.tables[:0]
	b, arm := beginLen(dst, protowire.Number(ti.arm))
	b, base := beginLen(b, 1)
	if ti.enum != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(ti.enum))
	}
	b, err = e.fields(b, plan.Base, ptr)
	if err == nil {
		b = endLen(b, base)
		b, err = e.fields(b, plan, ptr)
	}
	if err != nil {
		return dst, toError("encode", t, err)
	}
	b = endLen(b, arm)
	if err := c.checkBudget(t, b[len(dst):], -1); err != nil {
		return dst, err
	}
	return b, nil
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

// maxSafeInt is 2^53−1, JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInt = 1<<53 - 1

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
	// values in dyn, each ending at the next offset of spans.
	sizes []int
	spans []int
	dyn   []byte
}

// beginLen starts a length-delimited field: it writes the tag and a
// one-byte length placeholder and returns the payload's start offset.
func beginLen(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// endLen fills in the length of the field begun at start, moving the
// payload when the length needs more than one byte.
func endLen(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	sz := protowire.SizeVarint(uint64(n))
	for i := 1; i < sz; i++ {
		b = append(b, 0)
	}
	copy(b[start+sz-1:], b[start:start+n])
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

func appendString(b []byte, num protowire.Number, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return b, invalidf("string is not valid UTF-8")
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s), nil
}

// fields writes the wire fields of the struct at ptr in field-number order.
func (e *encoder) fields(b []byte, plan *schema.Plan, ptr schema.Pointer) ([]byte, error) {
	if plan.Check != nil {
		if err := plan.Check(ptr); err != nil {
			return b, err
		}
	}
	var err error
	for i := range plan.Wire {
		f := &plan.Wire[i]
		base := ptr
		if f.Via != nil {
			if base = ptr.Field(f.Via).Elem(); base.IsNil() {
				continue
			}
			if i == 0 || plan.Wire[i-1].Via != f.Via {
				// The flat container's own rule, checked once.
				if check := f.Via.Elem.Check; check != nil {
					if err := check(base); err != nil {
						return b, jsonx.WithKey(err, f.Via.Name)
					}
				}
			}
		}
		b, err = e.field(b, f, base)
		if err != nil {
			if f.Via != nil {
				return b, jsonx.WithKey(jsonx.WithKey(err, f.Name), f.Via.Name)
			}
			return b, jsonx.WithKey(err, f.Name)
		}
	}
	return b, nil
}

func (e *encoder) field(b []byte, f *schema.Field, base schema.Pointer) ([]byte, error) {
	p := base.Field(f)
	num := protowire.Number(f.Num)
	switch f.Kind {
	case schema.String:
		v := *p.String()
		if !f.Allows(v) {
			return b, invalidf("%s", f.Unknown(v))
		}
		if v == "" {
			return b, nil
		}
		return appendString(b, num, v)
	case schema.Enum:
		v := *p.String()
		n := f.NameIndex(v)
		if n < 0 {
			return b, invalidf("%s", f.Unknown(v))
		}
		if n == 0 {
			return b, nil // proto3 does not write an enum's zero value
		}
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(n)), nil
	case schema.OptString:
		if v := *p.OptString(); v != nil {
			if !f.Allows(*v) {
				return b, invalidf("%s", f.Unknown(*v))
			}
			return appendString(b, num, *v)
		}
	case schema.OptBool:
		if v := *p.OptBool(); v != nil {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, protowire.EncodeBool(*v))
		}
	case schema.OptInt64:
		if v := *p.OptInt64(); v != nil {
			if (*v > maxSafeInt || *v < -maxSafeInt) && !e.unsafeInts {
				return b, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %d", ErrUnsafeInteger, *v)}
			}
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(*v))
		}
	case schema.Value:
		// On an optional value, null is absence (as Parse and Unmarshal
		// read it): it is not written.
		if v := event.RawValue(*p.Bytes()); v != nil && !(f.Opt && jsonx.IsNull(v)) {
			return e.valueField(b, num, v)
		}
	case schema.Object:
		v := event.Object(*p.Bytes())
		if v == nil && f.Req {
			v = event.Object("{}") // a required object is never left out
		}
		if v != nil {
			return e.structField(b, num, v)
		}
	case schema.Message:
		var start int
		b, start = beginLen(b, num)
		b, err := e.fields(b, f.Elem, p)
		return endLen(b, start), err
	case schema.OptMessage:
		if v := p.Elem(); !v.IsNil() {
			var start int
			b, start = beginLen(b, num)
			b, err := e.fields(b, f.Elem, v)
			return endLen(b, start), err
		}
	case schema.Strings:
		for i, s := range *p.Strings() {
			var err error
			if b, err = appendString(b, num, s); err != nil {
				return b, jsonx.WithIndex(err, i)
			}
		}
	case schema.Messages, schema.Parts:
		for i := range p.Len() {
			ep := p.Index(i, f.Elem)
			var start int
			var err error
			b, start = beginLen(b, num)
			if f.Kind == schema.Parts {
				b, err = e.contentPart(b, schema.As[event.ContentPart](ep))
			} else {
				b, err = e.fields(b, f.Elem, ep)
			}
			if err != nil {
				return b, jsonx.WithIndex(err, i)
			}
			b = endLen(b, start)
		}
	}
	return b, nil
}

// contentPart writes a content part field's payload with the shared
// two-pass part coder (genenc.go), so that the mapping of parts is stated
// once.
func (e *encoder) contentPart(b []byte, cp *event.ContentPart) ([]byte, error) {
	s0, p0, d0 := len(e.sizes), len(e.spans), len(e.dyn)
	g := genc{lossy: e.lossy, unsafeInts: e.unsafeInts, maxDepth: e.s.MaxDepth, e: e, sizeAt: s0, spanAt: p0, dynAt: d0}
	_, err := sizePart(&g, cp)
	if err == nil {
		b = writePart(&g, b, cp)
	}
	e.sizes, e.spans, e.dyn = e.sizes[:s0], e.spans[:p0], e.dyn[:d0]
	return b, err
}

// valueField writes JSON text as a google.protobuf.Value field.
func (e *encoder) valueField(b []byte, num protowire.Number, v []byte) ([]byte, error) {
	b, start := beginLen(b, num)
	b, err := e.valueBody(b, v)
	if err != nil {
		return b, err
	}
	return endLen(b, start), nil
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

// structField writes JSON object text as a google.protobuf.Struct field.
func (e *encoder) structField(b []byte, num protowire.Number, v []byte) ([]byte, error) {
	b, start := beginLen(b, num)
	b, err := e.structBodyOf(b, v)
	if err != nil {
		return b, err
	}
	return endLen(b, start), nil
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
		b = protowire.AppendTag(b, 4, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v)), err
	case jsonx.Number:
		text, err := e.s.Number()
		if err != nil {
			return b, err
		}
		f, exact := jsonx.ParseNumber(text)
		if !exact && !e.lossy {
			return b, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %s would become %s", ErrLossyNumber, shortNumber(text), describeDouble(f))}
		}
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(f)), nil
	case jsonx.String:
		s, err := e.s.StringBytes()
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		return protowire.AppendBytes(b, s), err
	case jsonx.Object:
		b, start := beginLen(b, 5)
		b, err := e.structBody(b)
		return endLen(b, start), err
	case jsonx.Array:
		b, start := beginLen(b, 6)
		err := e.s.Array(func(int) error {
			var err error
			var el int
			b, el = beginLen(b, 1)
			if b, err = e.value(b); err != nil {
				return err
			}
			b = endLen(b, el)
			return nil
		})
		return endLen(b, start), err
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
	b, entry := beginLen(b, 1)
	if key != "" {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, key)
	}
	b, val := beginLen(b, 2)
	b, err := e.value(b)
	if err != nil {
		return b, err
	}
	return endLen(endLen(b, val), entry), nil
}
