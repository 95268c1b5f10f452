package codec

import (
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
	"github.com/agwire/agwire/internal/slab"
)

// Unmarshal decodes one protobuf Event message (without length prefix).
//
// It follows protobuf's rules (unknown fields are skipped; a singular field
// that occurs more than once keeps its last scalar value, or merges its
// message occurrences) and AG-UI's: exactly one known envelope arm, a
// base_event whose type agrees with the arm, the rules every path applies
// (message content carriers that fit the role, outcome lists that fit the
// outcome type, known roles and patch operations). An envelope holding only
// arms from a later protocol fails with ErrUnknownEvent; anything else that
// is wrong fails with ErrMalformed, ErrNonFinite, event.ErrTooDeep or ErrBudget,
// naming the field path and byte offset.
//
// Cost is linear in len(b): every byte is read once at its own nesting
// level, repeated occurrences are never copied, and memory is bounded by
// Codec.MemoryBudget. The event does not alias b; its strings share one
// private copy of b, which stays alive while any of them does.
func (c Codec) Unmarshal(b []byte) (event.Event, error) {
	d, err := c.decoder(b)
	if err != nil {
		return nil, err
	}
	defer d.release()
	ev, err := d.decode()
	if err == nil {
		if err := c.afterDecode(ev); err != nil {
			return nil, err
		}
	}
	return ev, err
}

// decode decodes d's frame: the generated decoders read its canonical
// shape; for any other, and for any error, the reference decoder starts
// again.
func (d *decoder) decode() (event.Event, error) {
	budget := d.budget
	if ev, ok := decodeGenerated(d); ok {
		return ev, nil
	}
	d.restart(budget)
	return d.reference()
}

// unmarshalTransient decodes b into state the decoder owns and recycles:
// the event aliases b, which must not change while it is in use, and lives
// until d.release (AppendJSONFromWire writes it, then releases it). The
// budget is charged as for Unmarshal, so both refuse the same frames.
func (c Codec) unmarshalTransient(b []byte) (event.Event, *decoder, error) {
	d, err := c.decoderOf(b, true)
	if err != nil {
		return nil, nil, err
	}
	ev, err := d.decode()
	if err != nil {
		d.release()
		return nil, nil, err
	}
	if err := c.afterDecode(ev); err != nil {
		d.release()
		return nil, nil, err
	}
	return ev, d, nil
}

// decoder returns a pooled decoder set up for frame b with c's options,
// holding its private copy of b, the copy charged to the budget.
func (c Codec) decoder(b []byte) (*decoder, error) { return c.decoderOf(b, false) }

// decoderOf is decoder; a transient decoder reads b in place (the copy is
// charged all the same) and recycles the event's memory on release.
func (c Codec) decoderOf(b []byte, transient bool) (*decoder, error) {
	d := decoders.Get().(*decoder)
	d.nonFiniteAsNull = c.NonFiniteAsNull
	d.unsafeInts = c.UnsafeIntegers
	d.maxDepth = c.maxDepth()
	d.depth, d.reads = 0, 0
	d.budget = c.budget(len(b))
	if err := d.charge(len(b)); err != nil {
		d.release()
		return nil, toError("decode", "", err)
	}
	// One private copy of the input backs every string of the event;
	// a transient event dies before the caller's input may change.
	d.transient = transient
	if transient {
		d.data = b
	} else {
		d.data = append([]byte(nil), b...)
	}
	return d, nil
}

// eventSlots returns the decoder's slots, made on first use.
func (d *decoder) eventSlots() *slots {
	if d.events == nil {
		d.events = new(slots)
	}
	return d.events
}

// fresh returns the zero T a generated decoder fills: the state's own
// slot in a transient decode, else a new one for the caller to keep.
func fresh[T any](d *decoder, slot *T) *T {
	return slab.Fresh(d.transient, slot, &d.used)
}

// reference decodes d's frame with the reference decoder.
func (d *decoder) reference() (event.Event, error) {
	ev, err := d.envelope()
	if err != nil {
		t := event.Type("")
		if ev != nil {
			t = ev.Type()
		}
		return nil, toError("decode", t, err)
	}
	return ev, nil
}

// decoders recycles decoder scratch space across calls.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

type decoder struct {
	nonFiniteAsNull bool
	unsafeInts      bool
	data            []byte // a copy of the whole input: strings alias it; offsets count from it
	maxDepth        int
	depth           int
	budget          int64     // bytes the event may still allocate
	out             []byte    // scratch for JSON text of dynamic values
	entries         []entry   // stack of the Struct entries being converted, all levels
	spans           spans     // second and later occurrences of merged fields
	pend            []payload // stack of the singular message fields of each open message
	reads           int       // fields read, for the tests' measure of work
	fill            []int32   // stack of the fill positions of repeated fields
	slots           []uint32  // key index of the Struct being collected (walkStruct)

	// Blocks the event's pieces are carved from (carve.go).
	text     []byte
	textNext int
	slabs    slab.Slabs // the optional scalars of the decoded event

	// A transient decode's event is one of the decoder's slots, and its
	// blocks are reused after release.
	transient bool
	events    *slots       // made on first use
	used      slab.Clearer // the slot the event is
}

// release drops every reference into the input before the decoder goes
// back to the pool.
func (d *decoder) release() {
	d.data = nil
	if d.transient {
		if d.used != nil {
			d.used.Clear()
			d.used = nil
		}
		d.reuseCarved()
		d.transient = false
	} else {
		d.forgetCarved()
	}
	d.fill = d.fill[:0]
	d.slots = d.slots[:0]
	// entries and pend are stacks whose levels clear what they pushed as
	// they end: past their length they hold nothing (clearing the whole
	// capacity, grown by one large event, cost every small one after it).
	clear(d.entries)
	clear(d.pend)
	d.entries, d.pend = d.entries[:0], d.pend[:0]
	d.spans.reset()
	// Do not keep the scratch of a huge frame alive in the pool.
	if cap(d.out) > 64<<10 {
		d.out = nil
	}
	if cap(d.entries) > 4<<10 {
		d.entries = nil
	}
	decoders.Put(d)
}

// restart forgets what a decode did so far, for the reference decoder to
// read the same frame from the start with the given budget.
func (d *decoder) restart(budget int64) {
	d.depth, d.budget = 0, budget
	d.forgetCarved()
	d.fill, d.slots = d.fill[:0], d.slots[:0]
	clear(d.entries)
	clear(d.pend)
	d.entries, d.pend = d.entries[:0], d.pend[:0]
	d.spans.reset()
}

// charge takes n bytes from the memory budget.
func (d *decoder) charge(n int) error {
	d.budget -= int64(n)
	if d.budget < 0 {
		return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w (Codec.MemoryBudget)", ErrBudget)}
	}
	return nil
}

// off returns the offset of sub-slice b within the input.
func (d *decoder) off(b []byte) int {
	if len(b) == 0 || len(d.data) == 0 {
		return -1
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(d.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < start || p >= start+uintptr(len(d.data)) {
		return -1
	}
	return int(p - start)
}

func (d *decoder) malformed(at []byte, format string, args ...any) error {
	return &jsonx.Error{Offset: d.off(at), Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)}
}

// field is one parsed tag-value pair.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // varint/fixed value
	b   []byte // bytes payload
	at  []byte // the field's encoding, for offsets
}

// next reads one field from b, returning the rest.
func (d *decoder) next(b []byte) (field, []byte, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, nil, d.malformed(b, "bad tag: %v", protowire.ParseError(n))
	}
	if num > protowire.MaxValidNumber {
		return field{}, nil, d.malformed(b, "field number %d is above the protobuf maximum %d", num, protowire.MaxValidNumber)
	}
	f := field{num: num, typ: typ, at: b}
	rest := b[n:]
	switch typ {
	case protowire.VarintType:
		f.v, n = protowire.ConsumeVarint(rest)
	case protowire.Fixed64Type:
		f.v, n = protowire.ConsumeFixed64(rest)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(rest)
		f.v = uint64(v)
	case protowire.BytesType:
		f.b, n = protowire.ConsumeBytes(rest)
	case protowire.StartGroupType:
		// A (deprecated) group: protobuf treats it as an unknown field
		// here; it must be balanced.
		n = protowire.ConsumeFieldValue(num, typ, rest)
	default:
		return f, nil, d.malformed(b, "field %d: wire type %d is not valid here", num, typ)
	}
	if n < 0 {
		return f, nil, d.malformed(b, "field %d: %v", num, protowire.ParseError(n))
	}
	return f, rest[n:], nil
}

// A payload is the body of a singular message-typed field, which may occur
// several times: protobuf defines the result as the merge of all
// occurrences, which equals decoding their concatenation. Instead of
// concatenating (a copy per occurrence, quadratic in the number of
// occurrences, and multiplied at every nesting level), the occurrences are
// kept as a chain of slices of the input and read one after the other.
type payload struct {
	first []byte
	more  int32 // 1 + index in decoder.spans of the second occurrence; 0 if none
	last  int32 // 1 + index of the last occurrence in spans; 0 if none
	n     int32 // occurrences, or elements of a repeated field
}

// span is one occurrence after the first: where it lies in the input, and
// the next one. It holds no pointer, so the collector never scans spans.
type span struct {
	off, n uint32
	next   int32 // 1 + index of the next occurrence; 0 at the end
}

// spans is an arena of span values in fixed-size blocks: it grows without
// copying, so a frame of N occurrences costs 12·N bytes of scratch, at most
// 6 bytes per input byte (an occurrence takes at least 2 bytes).
type spans struct {
	blocks [][]span
	n      int
}

const spanBlock = 4096

func (s *spans) push(x span) int32 {
	if s.n/spanBlock == len(s.blocks) {
		s.blocks = append(s.blocks, make([]span, spanBlock))
	}
	s.blocks[s.n/spanBlock][s.n%spanBlock] = x
	s.n++
	return int32(s.n)
}

func (s *spans) at(i int32) *span { return &s.blocks[(i-1)/spanBlock][(i-1)%spanBlock] }

// reset empties the arena, keeping one block for the next frame.
func (s *spans) reset() {
	if len(s.blocks) > 1 {
		clear(s.blocks[1:])
		s.blocks = s.blocks[:1]
	}
	s.n = 0
}

// one is a payload of a single occurrence.
func one(b []byte) payload { return payload{first: b, n: 1} }

// add appends an occurrence to p.
func (d *decoder) add(p *payload, b []byte) {
	p.n++
	if p.n == 1 {
		p.first = b
		return
	}
	if len(b) == 0 {
		return // an empty occurrence adds no field, only presence
	}
	i := d.spans.push(span{off: uint32(d.off(b)), n: uint32(len(b))})
	if p.last == 0 {
		p.more = i
	} else {
		d.spans.at(p.last).next = i
	}
	p.last = i
}

// cursor reads the fields of a payload, occurrence after occurrence. A
// field never straddles two occurrences: each must be well-formed alone.
type cursor struct {
	b    []byte
	next int32
}

func (p *payload) cursor() cursor { return cursor{b: p.first, next: p.more} }

// read returns the next field, or ok == false at the end.
func (d *decoder) read(c *cursor) (f field, ok bool, err error) {
	for len(c.b) == 0 {
		if c.next == 0 {
			return field{}, false, nil
		}
		s := d.spans.at(c.next)
		c.b, c.next = d.data[s.off:s.off+s.n:s.off+s.n], s.next
	}
	d.reads++
	b := c.b
	// next's common case, here to save a call per field.
	if len(b) >= 2 && b[0] >= 0x08 && b[0] < 0x80 && b[1] < 0x80 {
		switch typ := protowire.Type(b[0] & 7); typ {
		case protowire.BytesType:
			if n := int(b[1]) + 2; n <= len(b) {
				c.b = b[n:]
				return field{num: protowire.Number(b[0] >> 3), typ: typ, b: b[2:n], at: b}, true, nil
			}
		case protowire.VarintType:
			c.b = b[2:]
			return field{num: protowire.Number(b[0] >> 3), typ: typ, v: uint64(b[1]), at: b}, true, nil
		}
	}
	f, c.b, err = d.next(b)
	return f, err == nil, err
}

func (d *decoder) enter(b []byte) error {
	d.depth++
	if d.depth > d.maxDepth {
		return &jsonx.Error{Offset: d.off(b), Err: fmt.Errorf("%w: more than %d levels", event.ErrTooDeep, d.maxDepth)}
	}
	return nil
}

// envelope decodes the Event message.
func (d *decoder) envelope() (event.Event, error) {
	if len(d.data) == 0 {
		return nil, d.malformed(nil, "empty envelope: no event")
	}
	var arm protowire.Number
	var body payload
	future, broken := 0, 0
	c := cursor{b: d.data}
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if f.num >= 1 && f.num <= maxArm {
			if f.typ != protowire.BytesType {
				return nil, d.malformed(f.at, "envelope arm %d (%s) with wire type %d", f.num, arms[f.num], f.typ)
			}
			if arm != 0 && arm != f.num {
				return nil, d.malformed(f.at, "envelope carries two events, %s and %s", arms[arm], arms[f.num])
			}
			d.add(&body, f.b)
			arm = f.num
			continue
		}
		if f.typ == protowire.BytesType {
			if walksAsMessage(f.b) {
				future++
			} else {
				broken++
			}
		}
	}
	if arm == 0 {
		if future > 0 && broken == 0 {
			return nil, &jsonx.Error{Offset: 0, Err: fmt.Errorf("%w: no AG-UI 1.0 event arm; %d unknown field(s) that parse as messages", ErrUnknownEvent, future)}
		}
		return nil, d.malformed(d.data, "envelope has no event arm")
	}
	t := arms[arm]
	ev := event.New(t)
	plan, ptr, err := planOf(ev)
	if err != nil {
		return nil, err
	}
	if err := d.charge(int(plan.Size)); err != nil {
		return nil, err
	}
	if err := d.message(body, plan, ptr, typeInfos[t].enum); err != nil {
		return ev, err
	}
	return ev, nil
}

// walksAsMessage reports whether b parses as a protobuf message at its top
// level: the test that tells an event from a later protocol from garbage.
func walksAsMessage(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > protowire.MaxValidNumber {
			return false
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return false
		}
		b = b[n:]
	}
	return true
}

func wireTypeFor(k schema.Kind) protowire.Type {
	switch k {
	case schema.OptBool, schema.OptInt64, schema.Enum:
		return protowire.VarintType
	}
	return protowire.BytesType
}

// message decodes a message body into the struct at ptr.
//
// For an event, field 1 is its base_event; eventEnum is then the EventType
// that base_event must declare, and the Base fields are decoded with it.
// For a BaseEvent (plan.Event false, eventEnum ≥ 0) field 1 is that type.
// Otherwise eventEnum is -1.
//
// The fields are read twice, both times skipping nested bodies by their
// length: the first pass decodes scalars, gathers the occurrences of
// singular message fields and counts repeated elements; the second fills
// the repeated fields, allocated once at their final size.
func (d *decoder) message(p payload, plan *schema.Plan, ptr schema.Pointer, eventEnum int32) error {
	if err := d.enter(p.first); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	base := len(d.pend)
	d.pend = append(d.pend, make([]payload, len(plan.Wire))...)
	defer func() {
		clear(d.pend[base:])
		d.pend = d.pend[:base]
	}()
	var baseEvent payload
	typ, repeated := int64(0), false
	c := p.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f.num == 1 && eventEnum >= 0 {
			if plan.Event {
				if f.typ != protowire.BytesType {
					return d.malformed(f.at, "base_event with wire type %d", f.typ)
				}
				d.add(&baseEvent, f.b)
			} else {
				if f.typ != protowire.VarintType {
					return d.malformed(f.at, "base_event.type with wire type %d", f.typ)
				}
				typ = int64(int32(f.v))
			}
			continue
		}
		fd := plan.FieldByNum(int32(f.num))
		if fd == nil {
			continue // unknown field: protobuf skips it
		}
		if f.typ != wireTypeFor(fd.Kind) {
			return withField(d.malformed(f.at, "wire type %d, want %d", f.typ, wireTypeFor(fd.Kind)), fd)
		}
		switch fd.Kind {
		case schema.Value, schema.Object, schema.Message, schema.OptMessage:
			d.add(&d.pend[base+int(plan.ByNum[f.num])], f.b)
		case schema.Messages, schema.Parts, schema.Strings:
			d.pend[base+int(plan.ByNum[f.num])].n++
			repeated = true
		default:
			target, err := d.target(fd, ptr)
			if err == nil {
				err = d.scalar(fd, f, target)
			}
			if err != nil {
				return withField(err, fd)
			}
		}
	}
	if repeated {
		if err := d.repeated(p, plan, ptr, base); err != nil {
			return err
		}
	}
	for i := range plan.Wire {
		fd := &plan.Wire[i]
		switch fd.Kind {
		case schema.Value, schema.Object, schema.Message, schema.OptMessage:
			if d.pend[base+i].n == 0 {
				continue
			}
			pay := d.pend[base+i]
			target, err := d.target(fd, ptr)
			if err == nil {
				err = d.singular(fd, pay, target)
			}
			if err != nil {
				return withField(err, fd)
			}
		}
	}
	if plan.Event {
		if baseEvent.n == 0 {
			return d.malformed(nil, "event has no base_event")
		}
		// The Base fields belong to the event's level: no extra depth.
		d.depth--
		err := d.message(baseEvent, plan.Base, ptr, eventEnum)
		d.depth++
		if err != nil {
			return err
		}
	} else if eventEnum >= 0 && typ != int64(eventEnum) {
		declared := strconv.FormatInt(typ, 10)
		if ts := event.Types(); typ >= 0 && typ < int64(len(ts)) {
			declared = string(ts[typ])
		}
		return d.malformed(nil, "envelope carries %s but base_event.type declares %s", event.Types()[eventEnum], declared)
	}
	return d.finish(plan, ptr)
}

// withField adds a field's name (and its flat container's) to an error's path.
func withField(err error, fd *schema.Field) error {
	err = jsonx.WithKey(err, fd.Name)
	if fd.Via != nil {
		err = jsonx.WithKey(err, fd.Via.Name)
	}
	return err
}

// target returns where field fd of the struct at ptr lives: in the struct,
// or in the flat container it points to, allocated on first use.
func (d *decoder) target(fd *schema.Field, ptr schema.Pointer) (schema.Pointer, error) {
	if fd.Via == nil {
		return ptr.Field(fd), nil
	}
	cp := ptr.Field(fd.Via)
	c := cp.Elem()
	if c.IsNil() {
		if err := d.charge(int(fd.Via.Elem.Size)); err != nil {
			return schema.Pointer{}, err
		}
		c = schema.New(fd.Via.Elem)
		cp.SetElem(c)
	}
	return c.Field(fd), nil
}

// finish applies, after a message's last field, what the wire leaves
// implicit (an enum's zero value, what proto3 does not write when empty)
// and then the rules every path applies.
func (d *decoder) finish(plan *schema.Plan, ptr schema.Pointer) error {
	for i := range plan.Wire {
		fd := &plan.Wire[i]
		if fd.Kind == schema.Object && fd.Req && fd.Via == nil {
			// A required object the wire left out is the empty object.
			if o := ptr.Field(fd).Bytes(); *o == nil {
				*o = event.Object("{}")
			}
		}
		if fd.Names == nil || fd.Via != nil {
			continue
		}
		var s *string
		if fd.Kind == schema.OptString {
			if s = *ptr.Field(fd).OptString(); s == nil {
				continue
			}
		} else {
			s = ptr.Field(fd).String()
		}
		if fd.Kind == schema.Enum && *s == "" {
			*s = fd.Names[0]
		}
		if !fd.Allows(*s) {
			return withField(d.malformed(nil, "%s", fd.Unknown(*s)), fd)
		}
	}
	if plan.FromWire != nil {
		plan.FromWire(ptr)
	}
	if plan.Check != nil {
		if err := plan.Check(ptr); err != nil {
			return err
		}
	}
	// Flat containers (outcomes) follow their own rule too.
	var last *schema.Field
	for i := range plan.Wire {
		via := plan.Wire[i].Via
		if via == nil || via == last {
			continue
		}
		last = via
		if cp := ptr.Field(via).Elem(); !cp.IsNil() && via.Elem.Check != nil {
			if err := via.Elem.Check(cp); err != nil {
				return jsonx.WithKey(err, via.Name)
			}
		}
	}
	return nil
}

// scalar decodes one occurrence of a scalar field into p: the last
// occurrence wins.
func (d *decoder) scalar(fd *schema.Field, f field, p schema.Pointer) error {
	switch fd.Kind {
	case schema.String:
		s, err := d.str(f)
		*p.String() = s
		return err
	case schema.Enum:
		n := int32(f.v)
		if n < 0 || int(n) >= len(fd.Names) || int64(n) != int64(f.v) {
			return d.malformed(f.at, "unknown %s number %d (known: 0..%d)", fd.Name, int64(f.v), len(fd.Names)-1)
		}
		*p.String() = fd.Names[n]
	case schema.OptString:
		s, err := d.str(f)
		if err != nil {
			return err
		}
		if q := *p.OptString(); q != nil {
			*q = s
			return nil
		}
		if err := d.charge(costString); err != nil {
			return err
		}
		*p.OptString() = d.slabs.String(s)
	case schema.OptBool:
		if q := *p.OptBool(); q != nil {
			*q = f.v != 0
			return nil
		}
		if err := d.charge(costBool); err != nil {
			return err
		}
		*p.OptBool() = d.slabs.Bool(f.v != 0)
	case schema.OptInt64:
		if v := int64(f.v); !jsonx.SafeInteger(v) && !d.unsafeInts {
			return &jsonx.Error{Offset: d.off(f.at), Err: fmt.Errorf("%w: %d (Codec.UnsafeIntegers reads it)", ErrUnsafeInteger, v)}
		}
		if q := *p.OptInt64(); q != nil {
			*q = int64(f.v)
			return nil
		}
		if err := d.charge(costInt64); err != nil {
			return err
		}
		*p.OptInt64() = d.slabs.Int64(int64(f.v))
	}
	return nil
}

// repeated fills the repeated fields of a message whose element counts the
// first pass stored in d.pend[base:]: each slice is allocated once, at its
// final size, after its cost is taken from the budget.
func (d *decoder) repeated(p payload, plan *schema.Plan, ptr schema.Pointer, base int) error {
	// Fill position per repeated field, by wire index, on the decoder's
	// stack (nested messages push theirs above).
	top := len(d.fill)
	d.fill = append(d.fill, make([]int32, len(plan.Wire))...)
	defer func() { d.fill = d.fill[:top] }()
	for i := range plan.Wire {
		fd := &plan.Wire[i]
		n := int(d.pend[base+i].n)
		if n == 0 {
			continue
		}
		switch fd.Kind {
		case schema.Messages, schema.Parts, schema.Strings:
		default:
			continue
		}
		target, err := d.target(fd, ptr)
		if err != nil {
			return withField(err, fd)
		}
		if err := d.charge(n * int(fd.Type.Elem().Size())); err != nil {
			return withField(err, fd)
		}
		makeSlice(fd.Type, n, target)
	}
	c := p.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil || !ok {
			return err
		}
		fd := plan.FieldByNum(int32(f.num))
		if fd == nil {
			continue
		}
		i := plan.ByNum[f.num]
		switch fd.Kind {
		case schema.Messages, schema.Parts, schema.Strings:
		default:
			continue
		}
		j := d.fill[top+int(i)]
		d.fill[top+int(i)]++
		target, _ := d.target(fd, ptr) // allocated above
		switch fd.Kind {
		case schema.Strings:
			(*target.Strings())[j], err = d.str(f)
		case schema.Parts:
			err = d.contentPart(one(f.b), fd.Elem, schema.As[event.ContentPart](target.Index(int(j), fd.Elem)))
		default:
			ep := target.Index(int(j), fd.Elem)
			err = d.message(one(f.b), fd.Elem, ep, -1)
		}
		if err != nil {
			return withField(jsonx.WithIndex(err, int(j)), fd)
		}
	}
}

func (d *decoder) str(f field) (string, error) {
	if !jsonx.ValidUTF8(f.b) {
		return "", d.malformed(f.at, "string is not valid UTF-8")
	}
	return unsafeString(f.b), nil
}

// unsafeString is b as a string. b points into d.data, the decoder's own
// copy, which nothing modifies.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// singular decodes a (merged) singular message-typed field.
func (d *decoder) singular(fd *schema.Field, p payload, at schema.Pointer) error {
	switch fd.Kind {
	case schema.Value:
		v, err := d.valueJSON(p)
		if fd.Opt && string(v) == "null" {
			v = nil // JSON null on an optional value is its absence
		}
		*at.Bytes() = v
		return err
	case schema.Object:
		v, err := d.structJSON(p)
		*at.Bytes() = v
		return err
	case schema.Message:
		return d.message(p, fd.Elem, at, -1)
	case schema.OptMessage:
		if err := d.charge(int(fd.Elem.Size)); err != nil {
			return err
		}
		v := schema.New(fd.Elem)
		if err := d.message(p, fd.Elem, v, -1); err != nil {
			return err
		}
		at.SetElem(v)
	}
	return nil
}

// oneof reads a message made of one oneof of message-typed arms numbered 1
// to last (InputContent, InputContentSource): it returns the arm set (0 for
// none this build knows) and its body, occurrences merged. Two different
// arms are malformed: picking one would drop the other.
func (d *decoder) oneof(p payload, last protowire.Number, what string) (protowire.Number, payload, error) {
	var arm protowire.Number
	var body payload
	c := p.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return 0, body, err
		}
		if !ok {
			return arm, body, nil
		}
		if f.num < 1 || f.num > last {
			continue
		}
		if f.typ != protowire.BytesType {
			return 0, body, d.malformed(f.at, "%s arm %d with wire type %d", what, f.num, f.typ)
		}
		if arm != 0 && arm != f.num {
			return 0, body, d.malformed(f.at, "%s carries more than one arm", what)
		}
		d.add(&body, f.b)
		arm = f.num
	}
}

// contentPart decodes an InputContent. Content parts are a oneof whose arms
// number their fields differently (text: text 1, id 2, metadata 3; media:
// source 1, metadata 2, id 3), so they are mapped here by hand; their rule
// is the table's (plan.Check), as on every other path.
func (d *decoder) contentPart(p payload, plan *schema.Plan, cp *event.ContentPart) error {
	if err := d.enter(p.first); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	arm, body, err := d.oneof(p, 5, "content part")
	if err != nil {
		return err
	}
	if arm == 0 {
		return d.malformed(nil, "content part of a kind this build does not know (no text, image, audio, video or document arm)")
	}
	cp.Type = partTypes[arm]
	var meta, src payload
	c := body.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		name := ""
		switch {
		case arm == 1 && f.num == 1:
			name = "text"
		case arm == 1 && f.num == 2, arm != 1 && f.num == 3:
			name = "id"
		case arm == 1 && f.num == 3, arm != 1 && f.num == 2:
			name = "metadata"
		case arm != 1 && f.num == 1:
			name = "source"
		default:
			continue
		}
		if f.typ != protowire.BytesType {
			return jsonx.WithKey(d.malformed(f.at, "wire type %d, want 2", f.typ), name)
		}
		switch name {
		case "text":
			if cp.Text, err = d.str(f); err != nil {
				return jsonx.WithKey(err, name)
			}
		case "id":
			s, err := d.str(f)
			if err != nil {
				return jsonx.WithKey(err, name)
			}
			if err := d.charge(costString); err != nil {
				return err
			}
			cp.ID = d.slabs.String(s)
		case "metadata":
			d.add(&meta, f.b)
		case "source":
			d.add(&src, f.b)
		}
	}
	if meta.n > 0 {
		v, err := d.valueJSON(meta)
		if err != nil {
			return jsonx.WithKey(err, "metadata")
		}
		if string(v) != "null" { // a part's null metadata is its absence
			cp.Metadata = v
		}
	}
	if src.n > 0 {
		if err := d.charge(int(unsafe.Sizeof(event.Source{}))); err != nil {
			return err
		}
		cp.Source = new(event.Source)
		if err := d.source(src, cp.Source); err != nil {
			return jsonx.WithKey(err, "source")
		}
	}
	return plan.Check(schema.PointerTo(cp))
}

// source decodes an InputContentSource.
func (d *decoder) source(p payload, s *event.Source) error {
	arm, body, err := d.oneof(p, 3, "source")
	if err != nil {
		return err
	}
	if arm == 0 {
		return d.malformed(nil, "source of a kind this build does not know (no data, url or file arm)")
	}
	s.Type = sourceTypes[arm]
	c := body.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f.num < 1 || f.num > 3 || (f.num == 3 && arm != 3) {
			continue
		}
		if f.typ != protowire.BytesType {
			return d.malformed(f.at, "source field %d with wire type %d", f.num, f.typ)
		}
		v, err := d.str(f)
		if err != nil {
			return err
		}
		switch {
		case f.num == 1:
			s.Value = v
		case f.num == 2 && arm == 3:
			s.Provider = &v
		default:
			s.MimeType = &v
		}
	}
	if sourcePlan.FromWire != nil {
		sourcePlan.FromWire(schema.PointerTo(s))
	}
	return nil
}

var sourcePlan = schema.For(reflect.TypeFor[event.Source]())

// valueJSON converts a google.protobuf.Value body to JSON text.
func (d *decoder) valueJSON(p payload) (event.RawValue, error) {
	var err error
	d.growOut(p)
	d.out, err = d.walkValue(d.out[:0], p, true)
	if err != nil {
		return nil, err
	}
	if err := d.charge(len(d.out)); err != nil {
		return nil, err
	}
	return d.carveBytes(d.out), nil
}

// structJSON converts a google.protobuf.Struct body to JSON object text.
func (d *decoder) structJSON(p payload) (event.Object, error) {
	var err error
	d.growOut(p)
	d.out, err = d.walkStruct(d.out[:0], p, true)
	if err != nil {
		return nil, err
	}
	if err := d.charge(len(d.out)); err != nil {
		return nil, err
	}
	return d.carveBytes(d.out), nil
}

// growOut gives d.out room for the JSON text of p's first occurrence,
// about as long as its wire form, in one allocation rather than a chain of
// doublings.
func (d *decoder) growOut(p payload) {
	if n := len(p.first); cap(d.out) < n {
		d.out = make([]byte, 0, n+n/4)
	}
}

// valueWireTypes are the wire types of google.protobuf.Value's fields.
var valueWireTypes = [...]protowire.Type{1: protowire.VarintType, 2: protowire.Fixed64Type, 3: protowire.BytesType, 4: protowire.VarintType, 5: protowire.BytesType, 6: protowire.BytesType}

// walkValue is the one walker of google.protobuf.Value (and, through it,
// Struct and ListValue). With emit it appends the JSON form of a Value
// body to out: the kind set last wins, as protobuf's oneof rule says (a
// struct or list kind merges with earlier occurrences of the same kind
// since the kind last changed), and a Value with no kind, a NaN or ±Inf, a
// Struct entry with no value are refused, having no JSON spelling. Without
// emit it only checks what protobuf checks when it reads a value — wire
// types, UTF-8, nesting — which is what a member that a later occurrence
// replaces gets: protobuf reads every occurrence, so a broken one makes the
// message malformed even though it does not survive. Each byte is walked
// once: a replaced member is never converted.
//
// Depth counts containers only (objects, arrays, messages), as the JSON
// scanner does on encode, so whatever the encoder accepts decodes.
func (d *decoder) walkValue(out []byte, p payload, emit bool) ([]byte, error) {
	var kind protowire.Number
	var last field
	var body payload // struct or list body
	c := p.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		if f.num < 1 || f.num > 6 {
			continue
		}
		if f.typ != valueWireTypes[f.num] {
			return out, d.malformed(f.at, "google.protobuf.Value field %d with wire type %d", f.num, f.typ)
		}
		if f.num == 3 && !jsonx.ValidUTF8(f.b) {
			return out, d.malformed(f.at, "string is not valid UTF-8")
		}
		if !emit {
			switch f.num {
			case 5:
				_, err = d.walkStruct(nil, one(f.b), false)
			case 6:
				_, err = d.walkList(nil, one(f.b), false)
			}
			if err != nil {
				return out, err
			}
			continue
		}
		// A struct or list body that another kind replaces is checked now.
		if f.num != kind && (kind == 5 || kind == 6) {
			if err := d.validBodies(body, kind); err != nil {
				return out, err
			}
		}
		if f.num == 5 || f.num == 6 {
			if f.num != kind {
				body = payload{}
			}
			d.add(&body, f.b)
		}
		kind, last = f.num, f
	}
	if !emit {
		return out, nil
	}
	switch kind {
	case 0:
		return out, d.malformed(p.first, "google.protobuf.Value with no kind set")
	case 1:
		return append(out, "null"...), nil
	case 2:
		v := math.Float64frombits(last.v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if d.nonFiniteAsNull {
				return append(out, "null"...), nil
			}
			return out, &jsonx.Error{Offset: d.off(last.at), Err: fmt.Errorf("%w: %v has no JSON spelling (Codec.NonFiniteAsNull writes null)", ErrNonFinite, v)}
		}
		return jsonx.AppendFloat(out, v), nil
	case 3:
		// Checked as it was read: written without a second pass.
		return jsonx.AppendValidString(out, unsafeString(last.b)), nil
	case 4:
		if last.v != 0 {
			return append(out, "true"...), nil
		}
		return append(out, "false"...), nil
	case 5:
		return d.walkStruct(out, body, true)
	default:
		return d.walkList(out, body, true)
	}
}

func (d *decoder) walkList(out []byte, p payload, emit bool) ([]byte, error) {
	if err := d.enter(p.first); err != nil {
		return out, err
	}
	defer func() { d.depth-- }()
	if emit {
		out = append(out, '[')
	}
	i := 0
	c := p.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		if f.num != 1 {
			continue
		}
		if f.typ != protowire.BytesType {
			return out, d.malformed(f.at, "google.protobuf.ListValue element with wire type %d", f.typ)
		}
		if emit && i > 0 {
			out = append(out, ',')
		}
		if out, err = d.walkValue(out, one(f.b), emit); err != nil {
			return out, jsonx.WithIndex(err, i)
		}
		i++
	}
	if emit {
		out = append(out, ']')
	}
	return out, nil
}

type entry struct {
	key   string
	value payload // the Value body; occurrences within the entry merged
}

// walkStruct walks a Struct body (see walkValue). Emitting, a key that
// repeats keeps its first position and its last value, as a protobuf map
// and a JavaScript object both do.
func (d *decoder) walkStruct(out []byte, p payload, emit bool) ([]byte, error) {
	if err := d.enter(p.first); err != nil {
		return out, err
	}
	if !emit {
		defer func() { d.depth-- }()
		c := p.cursor()
		for {
			f, ok, err := d.read(&c)
			if err != nil || !ok {
				return out, err
			}
			if f.num != 1 {
				continue
			}
			if f.typ != protowire.BytesType {
				return out, d.malformed(f.at, "google.protobuf.Struct entry with wire type %d", f.typ)
			}
			e, err := d.entry(f, false)
			if err == nil && e.value.n > 0 {
				_, err = d.walkValue(nil, e.value, false)
			}
			if err != nil {
				return out, jsonx.WithKey(err, e.key)
			}
		}
	}
	base := len(d.entries)
	defer func() {
		d.depth--
		clear(d.entries[base:])
		d.entries = d.entries[:base]
	}()
	// Repeated keys merge (the last value wins, in the first one's place).
	// The level's keys are indexed in an open-addressing table on the
	// decoder's slab (keyset.go's scheme): the same cost per key at any
	// size. No nested Struct is converted while the entries are collected,
	// so the table is the slab's last until it is dropped below.
	top, size := len(d.slots), 0
	c := p.cursor()
	for {
		f, ok, err := d.read(&c)
		if err != nil {
			d.slots = d.slots[:top]
			return out, err
		}
		if !ok {
			break
		}
		if f.num != 1 {
			continue
		}
		if f.typ != protowire.BytesType {
			d.slots = d.slots[:top]
			return out, d.malformed(f.at, "google.protobuf.Struct entry with wire type %d", f.typ)
		}
		e, err := d.entry(f, true)
		if err != nil {
			d.slots = d.slots[:top]
			return out, err
		}
		level := d.entries[base:]
		if size == 0 && len(level) < linearKeys {
			// A small level is searched in order (keyset.go).
			dup := -1
			for k := range level {
				if level[k].key == e.key {
					dup = k
					break
				}
			}
			if dup < 0 {
				d.entries = append(d.entries, e)
				continue
			}
			if err := d.validBodies(level[dup].value, 0); err != nil {
				return out, jsonx.WithKey(err, e.key)
			}
			level[dup].value = e.value
			continue
		}
		if 2*(len(level)+1) > size {
			size = d.growEntryIndex(top, size, level)
		}
		slots := d.slots[top : top+size]
		mask := size - 1
		i := int(maphash.String(keySeed, e.key)) & mask
		for slots[i] != 0 && level[slots[i]-1].key != e.key {
			i = (i + 1) & mask
		}
		if slots[i] != 0 {
			dup := int(slots[i] - 1)
			// The earlier value is replaced, but protobuf read it: it must
			// be well-formed.
			if err := d.validBodies(level[dup].value, 0); err != nil {
				d.slots = d.slots[:top]
				return out, jsonx.WithKey(err, e.key)
			}
			level[dup].value = e.value
			continue
		}
		slots[i] = uint32(len(level) + 1)
		d.entries = append(d.entries, e)
	}
	d.slots = d.slots[:top]
	out = append(out, '{')
	n := len(d.entries) - base
	for i := 0; i < n; i++ {
		e := d.entries[base+i] // nested structs may grow (and move) the stack
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonx.AppendValidString(out, e.key) // validated by d.str
		out = append(out, ':')
		var err error
		if out, err = d.walkValue(out, e.value, true); err != nil {
			return out, jsonx.WithKey(err, e.key)
		}
	}
	return append(out, '}'), nil
}

// entry reads one Struct.FieldsEntry; emitting, it must have a value.
func (d *decoder) entry(f field, emit bool) (entry, error) {
	var e entry
	c := cursor{b: f.b}
	for {
		g, ok, err := d.read(&c)
		if err != nil {
			return e, err
		}
		if !ok {
			break
		}
		if g.typ != protowire.BytesType {
			continue // another wire type is an unknown field of the entry, as protobuf skips it
		}
		switch g.num {
		case 1:
			if e.key, err = d.str(g); err != nil {
				return e, err
			}
		case 2:
			d.add(&e.value, g.b)
		}
	}
	if e.value.n == 0 && emit {
		return e, jsonx.WithKey(d.malformed(f.at, "google.protobuf.Struct entry without a value"), e.key)
	}
	return e, nil
}

// validBodies checks, without converting them, the occurrences of a
// replaced member: a Value's struct (kind 5) or list (kind 6) body, or a
// whole Value (kind 0).
func (d *decoder) validBodies(p payload, kind protowire.Number) error {
	var err error
	switch kind {
	case 5:
		_, err = d.walkStruct(nil, p, false)
	case 6:
		_, err = d.walkList(nil, p, false)
	default:
		_, err = d.walkValue(nil, p, false)
	}
	return err
}
