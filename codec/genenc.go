package codec

import (
	"fmt"
	"reflect"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// Support for the generated encoders (coders_gen.go, written by
// internal/codecgen from the field tables).
//
// A generated encoder makes two passes over an event. The size pass
// validates everything (UTF-8 once per string, allowed names, the type's
// rule, safe integers, dynamic values) and computes every length; the
// write pass cannot fail and writes each length before its payload, so
// nothing is moved after it is written. What the size pass learns is
// kept in visit order for the write pass: the sizes of nested messages
// (a slot reserved before the children are sized, so that the write pass
// reads them in the order it writes them) and the protobuf bodies of
// dynamic values. A dynamic value is converted from JSON once, into
// scratch, with one byte for the length of each nested message (Struct
// entries, Values, lists), filled once the message ends; a length that
// needs more is recorded as a hole, and the write pass copies the body
// with each such length in place of its byte, so nothing is moved after
// it is written.

// genc is the state of one generated encode. The pooled encoder is taken
// only when a nested message or a dynamic value needs scratch, so a small
// flat event costs no pool round trip.
type genc struct {
	lossy, unsafeInts bool
	validUTF8         bool // every string of the event is known to be UTF-8
	maxDepth          int
	e                 *encoder
	// Read positions of the write pass in e.sizes, e.spans, e.dyn and
	// e.holes.
	sizeAt, spanAt, dynAt, holeAt int
}

func newGenc(c *Codec) genc {
	return genc{lossy: c.LossyNumbers, unsafeInts: c.UnsafeIntegers, maxDepth: c.maxDepth()}
}

// enc returns the encoder's scratch, taking it from the pool on first use.
func (g *genc) enc() *encoder {
	if g.e == nil {
		e := encoders.Get().(*encoder)
		e.lossy, e.unsafeInts = g.lossy, g.unsafeInts
		e.s.MaxDepth = g.maxDepth
		e.s.AliasStrings = true // keys are only compared, never kept
		e.keys, e.keyEnds = e.keys[:0], e.keyEnds[:0]
		e.slots, e.tables = e.slots[:0], e.tables[:0]
		e.sizes, e.spans, e.dyn = e.sizes[:0], e.spans[:0], e.dyn[:0]
		e.holes, e.extra = e.holes[:0], 0
		g.e = e
	}
	return g.e
}

// release returns the scratch to the pool, unless a huge event grew it.
func (g *genc) release() {
	if e := g.e; e != nil {
		if cap(e.dyn) > 64<<10 {
			e.dyn = nil
		}
		if cap(e.holes) > 4<<10 {
			e.holes = nil
		}
		if cap(e.sizes) > 4<<10 {
			e.sizes = nil
		}
		if cap(e.spans) > 4<<10 {
			e.spans = nil
		}
		encoders.Put(e)
		g.e = nil
	}
}

// slot reserves the size of a nested message, filled once it is known.
func (g *genc) slot() int {
	e := g.enc()
	e.sizes = append(e.sizes, 0)
	return len(e.sizes) - 1
}

// fill records the size of the nested message of slot i and returns the
// size of the field that carries it (tag excluded).
func (g *genc) fill(i, n int) int {
	g.e.sizes[i] = n
	return protowire.SizeBytes(n)
}

// nested writes the length of the next nested message.
func (g *genc) nested(b []byte) []byte {
	n := g.e.sizes[g.sizeAt]
	g.sizeAt++
	return appendLen(b, n)
}

// valueBody converts the JSON value v to a google.protobuf.Value body in
// scratch and returns the size of the field that carries it (tag
// excluded).
func (g *genc) valueBody(v []byte) (int, error) {
	return g.dynBody(v, false)
}

// structBody is valueBody for a google.protobuf.Struct.
func (g *genc) structBody(v []byte) (int, error) {
	return g.dynBody(v, true)
}

func (g *genc) dynBody(v []byte, object bool) (int, error) {
	e := g.enc()
	start, holes, extra := len(e.dyn), len(e.holes), e.extra
	if cap(e.dyn)-start < len(v) {
		// Room for the usual body (about as long as the text) in one
		// allocation rather than a chain of doublings.
		e.dyn = slices.Grow(e.dyn, len(v)+len(v)/2)
	}
	var err error
	if object {
		e.dyn, err = e.structBodyOf(e.dyn, v)
	} else {
		e.dyn, err = e.valueBody(e.dyn, v)
	}
	if err != nil {
		e.dyn, e.holes, e.extra = e.dyn[:start], e.holes[:holes], extra
		return 0, err
	}
	n := len(e.dyn) - start + e.extra - extra
	// Holes were recorded as their messages ended, inner ones first; the
	// write pass takes them in the order of the bytes.
	slices.SortFunc(e.holes[holes:], func(a, b hole) int { return a.at - b.at })
	e.spans = append(e.spans, dynSpan{end: len(e.dyn), holes: len(e.holes), n: n})
	return protowire.SizeBytes(n), nil
}

// dynSpan is one dynamic value of the size pass: its body ends at end in
// e.dyn, its holes at holes in e.holes, and it is n bytes on the wire.
type dynSpan struct{ end, holes, n int }

// dynamic writes the length and body of the next dynamic value, the
// lengths of its nested messages in their holes.
func (g *genc) dynamic(b []byte) []byte {
	e := g.e
	sp := e.spans[g.spanAt]
	g.spanAt++
	b = appendLen(b, sp.n)
	at := g.dynAt
	for _, h := range e.holes[g.holeAt:sp.holes] {
		b = protowire.AppendVarint(append(b, e.dyn[at:h.at]...), uint64(h.n))
		at = h.at + 1 // the byte left for the length
	}
	g.dynAt, g.holeAt = sp.end, sp.holes
	return append(b, e.dyn[at:sp.end]...)
}

// checkString validates a string the wire will carry, unless the event's
// strings are known to be valid UTF-8 already (parsed from JSON, whose
// reader checked them): each string is checked once.
func (g *genc) checkString(s string) error {
	if !g.validUTF8 && !jsonx.ValidUTF8String(s) {
		return invalidf("string is not valid UTF-8")
	}
	return nil
}

// unknownName is the error for s, a string outside the names field (its
// JSON name) allows; known lists them.
func unknownName(field string, enum bool, s, known string) error {
	return invalidf("%s", schema.UnknownName(field, enum, s, known))
}

// requiredObject is v, or the empty object for nil: a required object is
// never left out.
func requiredObject(v event.Object) event.Object {
	if v == nil {
		return event.Object("{}")
	}
	return v
}

// checkInt64 refuses an integer JavaScript peers cannot read exactly.
func (g *genc) checkInt64(v int64) error {
	if !jsonx.SafeInteger(v) && !g.unsafeInts {
		return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %d", ErrUnsafeInteger, v)}
	}
	return nil
}

// appendStr writes a length-delimited string payload (tag excluded).
func appendStr(b []byte, s string) []byte {
	return append(appendLen(b, len(s)), s...)
}

// appendLen writes a length, most often a single byte.
func appendLen(b []byte, n int) []byte {
	if n < 0x80 {
		return append(b, byte(n))
	}
	return protowire.AppendVarint(b, uint64(n))
}

// rule runs the validation rule of plan on the struct at p, if it has one.
func rule(plan *schema.Plan, p schema.Pointer) error {
	if plan.Check == nil {
		return nil
	}
	return plan.Check(p)
}

// planFor returns the table of T that package event prepared.
func planFor[T any]() *schema.Plan { return schema.For(reflect.TypeFor[T]()) }

// Content parts and their sources are a oneof whose arms number their
// fields differently; they are mapped by hand, here, once, and the
// generated encoders call these functions.

// InputContent arms and InputContentSource arms.
var partArms = map[string]protowire.Number{
	event.PartText: 1, event.PartImage: 2, event.PartAudio: 3, event.PartVideo: 4, event.PartDocument: 5,
}

var sourceArms = map[string]protowire.Number{event.SourceData: 1, event.SourceURL: 2, event.SourceFile: 3}

// partTypes and sourceTypes name each arm number, for the decoder: the
// same mapping read the other way.
var partTypes, sourceTypes = byArm(partArms, 5), byArm(sourceArms, 3)

func byArm(arms map[string]protowire.Number, last int) []string {
	out := make([]string, last+1)
	for name, n := range arms {
		out[n] = name
	}
	return out
}

var planContentPart = planFor[event.ContentPart]()

// sizePart validates a content part and returns its InputContent body size.
func sizePart(g *genc, cp *event.ContentPart) (int, error) {
	if err := planContentPart.Check(schema.PointerTo(cp)); err != nil {
		return 0, err
	}
	// The rule (checkPart, which checks the source too) holds from here: a
	// known type, text only on a text part, a valid source on a media part.
	arm := partArms[cp.Type]
	slot := g.slot()
	n := 0
	if arm == 1 {
		if cp.Text != "" {
			if err := g.checkString(cp.Text); err != nil {
				return 0, jsonx.WithKey(err, "text")
			}
			n += 1 + protowire.SizeBytes(len(cp.Text))
		}
		if cp.ID != nil {
			if err := g.checkString(*cp.ID); err != nil {
				return 0, jsonx.WithKey(err, "id")
			}
			n += 1 + protowire.SizeBytes(len(*cp.ID))
		}
		if cp.Metadata != nil && !jsonx.IsNull(cp.Metadata) {
			m, err := g.valueBody(cp.Metadata)
			if err != nil {
				return 0, jsonx.WithKey(err, "metadata")
			}
			n += 1 + m
		}
	} else {
		m, err := sizeSource(g, cp.Source)
		if err != nil {
			return 0, jsonx.WithKey(err, "source")
		}
		n += 1 + m
		if cp.Metadata != nil && !jsonx.IsNull(cp.Metadata) {
			m, err := g.valueBody(cp.Metadata)
			if err != nil {
				return 0, jsonx.WithKey(err, "metadata")
			}
			n += 1 + m
		}
		if cp.ID != nil {
			if err := g.checkString(*cp.ID); err != nil {
				return 0, jsonx.WithKey(err, "id")
			}
			n += 1 + protowire.SizeBytes(len(*cp.ID))
		}
	}
	// The part's arm, a message of n bytes, is the InputContent body.
	return 1 + g.fill(slot, n), nil
}

// writePart writes the InputContent body sizePart sized.
func writePart(g *genc, b []byte, cp *event.ContentPart) []byte {
	arm := partArms[cp.Type]
	b = protowire.AppendTag(b, arm, protowire.BytesType)
	b = g.nested(b)
	if arm == 1 {
		if cp.Text != "" {
			b = appendStr(append(b, 0x0a), cp.Text)
		}
		if cp.ID != nil {
			b = appendStr(append(b, 0x12), *cp.ID)
		}
		if cp.Metadata != nil && !jsonx.IsNull(cp.Metadata) {
			b = g.dynamic(append(b, 0x1a))
		}
		return b
	}
	b = writeSource(g, append(b, 0x0a), cp.Source)
	if cp.Metadata != nil && !jsonx.IsNull(cp.Metadata) {
		b = g.dynamic(append(b, 0x12))
	}
	if cp.ID != nil {
		b = appendStr(append(b, 0x1a), *cp.ID)
	}
	return b
}

// sizeSource returns the size of the field carrying a checked source
// (tag excluded): an InputContentSource whose arm holds the source.
func sizeSource(g *genc, s *event.Source) (int, error) {
	outer, inner := g.slot(), g.slot()
	n := 0
	if s.Value != "" {
		if err := g.checkString(s.Value); err != nil {
			return 0, err
		}
		n += 1 + protowire.SizeBytes(len(s.Value))
	}
	fs, k := sourceFields(s)
	for _, f := range fs[:k] {
		if err := g.checkString(*f.v); err != nil {
			return 0, err
		}
		n += 1 + protowire.SizeBytes(len(*f.v))
	}
	m := 1 + g.fill(inner, n)
	return g.fill(outer, m), nil
}

func writeSource(g *genc, b []byte, s *event.Source) []byte {
	b = g.nested(b)
	b = protowire.AppendTag(b, sourceArms[s.Type], protowire.BytesType)
	b = g.nested(b)
	if s.Value != "" {
		b = appendStr(append(b, 0x0a), s.Value)
	}
	fs, k := sourceFields(s)
	for _, f := range fs[:k] {
		b = appendStr(protowire.AppendTag(b, f.num, protowire.BytesType), *f.v)
	}
	return b
}

type sourceField struct {
	num protowire.Number
	v   *string
}

// sourceFields lists the fields after value that the source's arm
// carries, in number order: a data source's MIME type (a plain string,
// left out when empty); a URL's optional MIME type; a file's optional
// provider and MIME type.
func sourceFields(s *event.Source) (fs [2]sourceField, n int) {
	switch sourceArms[s.Type] {
	case 1:
		if *s.MimeType != "" {
			fs[0], n = sourceField{2, s.MimeType}, 1
		}
	case 2:
		if s.MimeType != nil {
			fs[0], n = sourceField{2, s.MimeType}, 1
		}
	case 3:
		if s.Provider != nil {
			fs[n], n = sourceField{2, s.Provider}, n+1
		}
		if s.MimeType != nil {
			fs[n], n = sourceField{3, s.MimeType}, n+1
		}
	}
	return fs, n
}
