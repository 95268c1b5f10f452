package codec

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// Unmarshal decodes one protobuf Event message (without length prefix).
//
// It follows protobuf's rules (unknown fields are skipped, repeated
// occurrences of a singular message merge) and AG-UI's: exactly one known
// envelope arm, a base_event whose type agrees with the arm, message content
// carriers that fit the role. An envelope holding only arms from a later
// protocol fails with ErrUnknownEvent; anything else that is wrong fails with
// ErrMalformed, ErrNonFinite or ErrTooDeep, naming the field path and byte
// offset. The event does not alias b.
func (c Codec) Unmarshal(b []byte) (event.Event, error) {
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	*d = decoder{
		nonFiniteAsNull: c.NonFiniteAsNull,
		// One private copy of the input backs every string of the event.
		data:     append([]byte(nil), b...),
		maxDepth: c.maxDepth(),
		out:      d.out[:0],
		entries:  d.entries[:0],
	}
	ev, err := d.envelope()
	d.data = nil // the event keeps it; the pooled decoder must not
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
	data            []byte // a copy of the whole input: strings alias it; offsets count from it
	maxDepth        int
	depth           int
	out             []byte  // scratch for JSON text of dynamic values
	entries         []entry // stack of the Struct entries being converted, all levels
}

// off returns the offset of sub-slice b within the input.
func (d *decoder) off(b []byte) int {
	if len(b) == 0 || len(d.data) == 0 {
		return -1
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(d.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < start || p >= start+uintptr(len(d.data)) {
		return -1 // inside a merged copy of repeated fields
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
		f.b, n = d.group(num, rest)
	default:
		return f, nil, d.malformed(b, "field %d: wire type %d is not valid here", num, typ)
	}
	if n < 0 {
		return f, nil, d.malformed(b, "field %d: %v", num, protowire.ParseError(n))
	}
	return f, rest[n:], nil
}

// group skips a (deprecated) group, which protobuf treats as an unknown
// field here; it must be balanced.
func (d *decoder) group(num protowire.Number, b []byte) ([]byte, int) {
	n := protowire.ConsumeFieldValue(num, protowire.StartGroupType, b)
	if n < 0 {
		return nil, n
	}
	return b[:n], n
}

// envelope decodes the Event message.
func (d *decoder) envelope() (event.Event, error) {
	b := d.data
	if len(b) == 0 {
		return nil, d.malformed(nil, "empty envelope: no event")
	}
	var arm protowire.Number
	var payload []byte
	future, broken := 0, 0
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return nil, err
		}
		b = rest
		if f.num >= 1 && f.num <= maxArm {
			if f.typ != protowire.BytesType {
				return nil, d.malformed(f.at, "envelope arm %d (%s) with wire type %d", f.num, arms[f.num], f.typ)
			}
			if arm != 0 && arm != f.num {
				return nil, d.malformed(f.at, "envelope carries two events, %s and %s", arms[arm], arms[f.num])
			}
			payload = merge(payload, f.b, arm != 0)
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
	plan := plans[reflect.TypeOf(ev).Elem()]
	ptr := reflect.ValueOf(ev).UnsafePointer()
	if err := d.message(payload, plan, ptr, typeInfos[t].enum); err != nil {
		return ev, err
	}
	return ev, nil
}

// merge adds an occurrence of a singular message field to the payload seen
// so far: protobuf defines the merge of repeated occurrences as decoding
// their concatenation. The first occurrence costs nothing.
func merge(prev, b []byte, seen bool) []byte {
	if !seen {
		return b
	}
	out := make([]byte, 0, len(prev)+len(b))
	return append(append(out, prev...), b...)
}

// walksAsMessage reports whether b parses as a protobuf message at its top
// level: the test that tells an event from a later protocol from garbage.
func walksAsMessage(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num == 0 {
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

// message decodes a message body into the struct at ptr. For events,
// wantEnum is the EventType the base_event must declare; -1 otherwise.
func (d *decoder) message(b []byte, plan *schema.Plan, ptr unsafe.Pointer, wantEnum int32) error {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > d.maxDepth {
		return &jsonx.Error{Offset: d.off(b), Err: fmt.Errorf("%w: more than %d levels", ErrTooDeep, d.maxDepth)}
	}
	// Singular message-typed fields may occur more than once; their payloads
	// are gathered here and decoded once at the end.
	var pend pending
	var baseSeen bool
	var baseBytes []byte
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return err
		}
		b = rest
		if plan.Event && f.num == 1 {
			if f.typ != protowire.BytesType {
				return d.malformed(f.at, "base_event with wire type %d", f.typ)
			}
			baseBytes = merge(baseBytes, f.b, baseSeen)
			baseSeen = true
			continue
		}
		if plan == planRunFinished && (f.num == 6 || f.num == 8) || plan == planSubagentFinished && f.num == 5 {
			if err := d.outcomeList(plan, f, ptr); err != nil {
				return err
			}
			continue
		}
		fd := plan.FieldByNum(int32(f.num))
		if fd == nil {
			continue // unknown field: protobuf skips it
		}
		if err := d.field(plan, fd, f, ptr, &pend); err != nil {
			return jsonx.WithKey(err, fd.Name)
		}
	}
	if err := d.flush(plan, ptr, &pend); err != nil {
		return err
	}
	if plan.Event {
		if !baseSeen {
			return d.malformed(nil, "event has no base_event")
		}
		if err := d.base(baseBytes, plan.Base, ptr, wantEnum); err != nil {
			return err
		}
	}
	return d.check(plan, ptr)
}

// base decodes the BaseEvent into the event's Base.
func (d *decoder) base(b []byte, plan *schema.Plan, ptr unsafe.Pointer, wantEnum int32) error {
	typ := int64(0)
	var pend pending
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return err
		}
		b = rest
		if f.num == 1 {
			if f.typ != protowire.VarintType {
				return d.malformed(f.at, "base_event.type with wire type %d", f.typ)
			}
			typ = int64(int32(f.v))
			continue
		}
		fd := plan.FieldByNum(int32(f.num))
		if fd == nil {
			continue
		}
		if err := d.field(plan, fd, f, ptr, &pend); err != nil {
			return jsonx.WithKey(err, fd.Name)
		}
	}
	if err := d.flush(plan, ptr, &pend); err != nil {
		return err
	}
	if typ != int64(wantEnum) {
		declared := strconv.FormatInt(typ, 10)
		if ts := event.Types(); typ >= 0 && typ < int64(len(ts)) {
			declared = string(ts[typ])
		}
		return d.malformed(nil, "envelope carries %s but base_event.type declares %s", event.Types()[wantEnum], declared)
	}
	return nil
}

func wireTypeFor(k schema.Kind) protowire.Type {
	switch k {
	case schema.OptBool, schema.OptInt64:
		return protowire.VarintType
	}
	return protowire.BytesType
}

// field decodes one occurrence of a known field.
func (d *decoder) field(plan *schema.Plan, fd *schema.Field, f field, base unsafe.Pointer, pend *pending) error {
	p := fd.Ptr(base)
	want := wireTypeFor(fd.Kind)
	if plan == planPatchOp && fd.Num == 1 {
		want = protowire.VarintType
	}
	if f.typ != want {
		return d.malformed(f.at, "wire type %d, want %d", f.typ, want)
	}
	switch fd.Kind {
	case schema.String:
		if plan == planPatchOp && fd.Num == 1 {
			n := int32(f.v)
			if n >= 0 && int(n) < len(patchOps) {
				*(*string)(p) = patchOps[n]
			} else {
				*(*string)(p) = strconv.FormatInt(int64(n), 10)
			}
			return nil
		}
		s, err := d.str(f)
		*(*string)(p) = s
		return err
	case schema.OptString:
		s, err := d.str(f)
		*(**string)(p) = &s
		return err
	case schema.OptBool:
		v := f.v != 0
		*(**bool)(p) = &v
	case schema.OptInt64:
		v := int64(f.v)
		*(**int64)(p) = &v
	case schema.Value, schema.Object, schema.Message, schema.OptMessage:
		pend.add(int(plan.ByNum[fd.Num]), f.b)
	case schema.Messages:
		sv := reflect.NewAt(fd.Type, p).Elem()
		n := sv.Len()
		sv.Set(reflect.Append(sv, reflect.Zero(fd.Type.Elem())))
		ep := sv.Index(n).Addr().UnsafePointer()
		var err error
		if fd.Elem.Type == typeContentPart {
			err = d.contentPart(f.b, (*event.ContentPart)(ep))
		} else {
			err = d.message(f.b, fd.Elem, ep, -1)
		}
		return jsonx.WithIndex(err, n)
	case schema.Custom:
		if f.num == 5 || f.num == 4 {
			s, err := d.str(f)
			if err != nil || s == "" {
				return err
			}
			if plan == planRunFinished {
				o := runOutcome(base)
				o.Type = s
			} else {
				o := subagentOutcome(base)
				o.Type = s
			}
		}
	}
	return nil
}

func runOutcome(base unsafe.Pointer) *event.RunOutcome {
	rf := (*event.RunFinished)(base)
	if rf.Outcome == nil {
		rf.Outcome = new(event.RunOutcome)
	}
	return rf.Outcome
}

func subagentOutcome(base unsafe.Pointer) *event.SubagentOutcome {
	sf := (*event.SubagentFinished)(base)
	if sf.Outcome == nil {
		sf.Outcome = new(event.SubagentOutcome)
	}
	return sf.Outcome
}

// outcomeList decodes RUN_FINISHED interrupts (6) and pending tool call ids
// (8) and SUBAGENT_FINISHED interrupt ids (5) into the outcome.
func (d *decoder) outcomeList(plan *schema.Plan, f field, base unsafe.Pointer) error {
	if f.typ != protowire.BytesType {
		return d.malformed(f.at, "wire type %d, want 2", f.typ)
	}
	switch {
	case plan == planRunFinished && f.num == 6:
		o := runOutcome(base)
		o.Interrupts = append(o.Interrupts, event.Interrupt{})
		i := len(o.Interrupts) - 1
		err := d.message(f.b, planInterrupt, unsafe.Pointer(&o.Interrupts[i]), -1)
		return jsonx.WithKey(jsonx.WithIndex(err, i), "outcome.interrupts")
	case plan == planRunFinished:
		s, err := d.str(f)
		o := runOutcome(base)
		o.PendingToolCallIDs = append(o.PendingToolCallIDs, s)
		return jsonx.WithKey(err, "outcome.pendingToolCallIds")
	default:
		s, err := d.str(f)
		o := subagentOutcome(base)
		o.InterruptIDs = append(o.InterruptIDs, s)
		return jsonx.WithKey(err, "outcome.interruptIds")
	}
}

func (d *decoder) str(f field) (string, error) {
	if !utf8.Valid(f.b) {
		return "", d.malformed(f.at, "string is not valid UTF-8")
	}
	if len(f.b) == 0 {
		return "", nil
	}
	// f.b points into d.data, the decoder's own copy, which nothing modifies.
	return unsafe.String(&f.b[0], len(f.b)), nil
}

// pending holds the payloads of the singular message-typed fields of one
// message, by field index, until the message ends.
type pending struct {
	seen  uint32
	bytes [16][]byte
}

func (p *pending) add(i int, b []byte) {
	p.bytes[i] = merge(p.bytes[i], b, p.seen&(1<<i) != 0)
	p.seen |= 1 << i
}

// flush decodes the gathered singular message-typed fields.
func (d *decoder) flush(plan *schema.Plan, ptr unsafe.Pointer, p *pending) error {
	for i := 0; p.seen != 0 && i < len(plan.Fields); i++ {
		if p.seen&(1<<i) == 0 {
			continue
		}
		fd := &plan.Fields[i]
		if err := d.singular(fd, p.bytes[i], fd.Ptr(ptr)); err != nil {
			return jsonx.WithKey(err, fd.Name)
		}
	}
	return nil
}

// singular decodes a (merged) singular message-typed field.
func (d *decoder) singular(fd *schema.Field, b []byte, p unsafe.Pointer) error {
	switch fd.Kind {
	case schema.Value:
		v, err := d.valueJSON(b)
		*(*event.RawValue)(p) = v
		return err
	case schema.Object:
		v, err := d.structJSON(b)
		*(*event.Object)(p) = v
		return err
	case schema.Message:
		return d.message(b, fd.Elem, p, -1)
	case schema.OptMessage:
		v := reflect.New(fd.Elem.Type)
		if err := d.message(b, fd.Elem, v.UnsafePointer(), -1); err != nil {
			return err
		}
		*(*unsafe.Pointer)(p) = v.UnsafePointer()
	}
	return nil
}

// check applies AG-UI's rules that protobuf cannot state.
func (d *decoder) check(plan *schema.Plan, ptr unsafe.Pointer) error {
	switch plan {
	case planMessage:
		return checkMessage((*event.Message)(ptr))
	case planPatchOp:
		if op := (*event.PatchOp)(ptr); op.Op == "" {
			op.Op = patchOps[0] // the enum's zero value is not written
		}
	case planRunFinished:
		if o := (*event.RunFinished)(ptr).Outcome; o != nil {
			if why := runOutcomeConflict(o); why != "" {
				return &jsonx.Error{Path: "outcome", Offset: -1, Err: fmt.Errorf("%w: %s", ErrMalformed, why)}
			}
		}
	}
	switch plan {
	case planToolCallResult:
		ev := (*event.ToolCallResult)(ptr)
		if ev.Content != nil && ev.Parts != nil {
			return &jsonx.Error{Path: "content", Offset: -1, Err: fmt.Errorf("%w: both string content and content parts", ErrMalformed)}
		}
		if ev.Content == nil && ev.Parts == nil {
			ev.Parts = []event.ContentPart{}
		}
	case planSubagentFinished:
		if o := (*event.SubagentFinished)(ptr).Outcome; o != nil {
			if why := subagentOutcomeConflict(o); why != "" {
				return &jsonx.Error{Path: "outcome", Offset: -1, Err: fmt.Errorf("%w: %s", ErrMalformed, why)}
			}
		}
	}
	return nil
}

// checkMessage rejects content carriers that contradict the role, and gives
// user and tool messages without string content their (possibly empty)
// parts, as the other peers decode them.
func checkMessage(m *event.Message) error {
	if why := messageConflict(m); why != "" {
		return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %s", ErrMalformed, why)}
	}
	switch m.Role {
	case event.RoleUser, event.RoleTool:
		if m.Content == nil && m.Parts == nil {
			m.Parts = []event.ContentPart{}
		}
	default:
		if len(m.Parts) == 0 {
			m.Parts = nil
		}
	}
	return nil
}

// oneof reads a message made of one oneof of message-typed arms numbered 1
// to last (InputContent, InputContentSource): it returns the arm set (0 for
// none this build knows) and its body, occurrences merged. Two different
// arms are malformed: picking one would drop the other.
func (d *decoder) oneof(b []byte, last protowire.Number, what string) (protowire.Number, []byte, error) {
	var arm protowire.Number
	var body []byte
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return 0, nil, err
		}
		b = rest
		if f.num < 1 || f.num > last {
			continue
		}
		if f.typ != protowire.BytesType {
			return 0, nil, d.malformed(f.at, "%s arm %d with wire type %d", what, f.num, f.typ)
		}
		if arm != 0 && arm != f.num {
			return 0, nil, d.malformed(f.at, "%s carries more than one arm", what)
		}
		body = merge(body, f.b, arm != 0)
		arm = f.num
	}
	return arm, body, nil
}

// contentPart decodes an InputContent.
func (d *decoder) contentPart(b []byte, cp *event.ContentPart) error {
	arm, body, err := d.oneof(b, 5, "content part")
	if err != nil {
		return err
	}
	if arm == 0 {
		return d.malformed(nil, "content part of a kind this build does not know (no text, image, audio, video or document arm)")
	}
	cp.Type = [...]string{1: event.PartText, 2: event.PartImage, 3: event.PartAudio, 4: event.PartVideo, 5: event.PartDocument}[arm]
	b = body
	var meta, src []byte
	var metaSeen, srcSeen bool
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return err
		}
		b = rest
		var want protowire.Type = protowire.BytesType
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
		if f.typ != want {
			return jsonx.WithKey(d.malformed(f.at, "wire type %d, want 2", f.typ), name)
		}
		switch name {
		case "text":
			s, err := d.str(f)
			if err != nil {
				return jsonx.WithKey(err, name)
			}
			cp.Text = s
		case "id":
			s, err := d.str(f)
			if err != nil {
				return jsonx.WithKey(err, name)
			}
			cp.ID = &s
		case "metadata":
			meta, metaSeen = merge(meta, f.b, metaSeen), true
		case "source":
			src, srcSeen = merge(src, f.b, srcSeen), true
		}
	}
	if metaSeen {
		v, err := d.valueJSON(meta)
		if err != nil {
			return jsonx.WithKey(err, "metadata")
		}
		cp.Metadata = v
	}
	if srcSeen {
		cp.Source = new(event.Source)
		if err := d.source(src, cp.Source); err != nil {
			return jsonx.WithKey(err, "source")
		}
	}
	return nil
}

// source decodes an InputContentSource.
func (d *decoder) source(b []byte, s *event.Source) error {
	arm, body, err := d.oneof(b, 3, "source")
	if err != nil {
		return err
	}
	if arm == 0 {
		return d.malformed(nil, "source of a kind this build does not know (no data, url or file arm)")
	}
	s.Type = [...]string{1: event.SourceData, 2: event.SourceURL, 3: event.SourceFile}[arm]
	if arm == 1 {
		empty := ""
		s.MimeType = &empty // required in JSON; the wire's "" is its zero value
	}
	b = body
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return err
		}
		b = rest
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
	return nil
}

// valueJSON converts a google.protobuf.Value body to JSON text.
func (d *decoder) valueJSON(b []byte) (event.RawValue, error) {
	d.out = d.out[:0]
	var err error
	d.out, err = d.appendValue(d.out, b)
	if err != nil {
		return nil, err
	}
	return append(event.RawValue(nil), d.out...), nil
}

// structJSON converts a google.protobuf.Struct body to JSON object text.
func (d *decoder) structJSON(b []byte) (event.Object, error) {
	d.out = d.out[:0]
	var err error
	d.out, err = d.appendStruct(d.out, b)
	if err != nil {
		return nil, err
	}
	return append(event.Object(nil), d.out...), nil
}

func (d *decoder) enter(b []byte) error {
	d.depth++
	if d.depth > d.maxDepth {
		return &jsonx.Error{Offset: d.off(b), Err: fmt.Errorf("%w: more than %d levels", ErrTooDeep, d.maxDepth)}
	}
	return nil
}

// appendValue writes the JSON form of a Value body. The kind set last wins,
// as protobuf's oneof rule says; a Value with no kind is malformed.
//
// Depth counts containers only (objects, arrays, messages), as the JSON
// scanner does on encode, so whatever the encoder accepts decodes.
func (d *decoder) appendValue(out, b []byte) ([]byte, error) {
	start := b
	var kind protowire.Number
	var last field
	var payload []byte // struct or list body, repeated occurrences merged
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return out, err
		}
		b = rest
		want := [...]protowire.Type{1: protowire.VarintType, 2: protowire.Fixed64Type, 3: protowire.BytesType, 4: protowire.VarintType, 5: protowire.BytesType, 6: protowire.BytesType}
		if f.num < 1 || f.num > 6 {
			continue
		}
		if f.typ != want[f.num] {
			return out, d.malformed(f.at, "google.protobuf.Value field %d with wire type %d", f.num, f.typ)
		}
		if f.num == 5 || f.num == 6 {
			payload = merge(payload, f.b, f.num == kind)
		}
		kind, last = f.num, f
	}
	switch kind {
	case 0:
		return out, d.malformed(start, "google.protobuf.Value with no kind set")
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
		s, err := d.str(last)
		return jsonx.AppendString(out, s), err
	case 4:
		if last.v != 0 {
			return append(out, "true"...), nil
		}
		return append(out, "false"...), nil
	case 5:
		return d.appendStruct(out, payload)
	default:
		return d.appendList(out, payload)
	}
}

func (d *decoder) appendList(out, b []byte) ([]byte, error) {
	if err := d.enter(b); err != nil {
		return out, err
	}
	defer func() { d.depth-- }()
	out = append(out, '[')
	i := 0
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return out, err
		}
		b = rest
		if f.num != 1 {
			continue
		}
		if f.typ != protowire.BytesType {
			return out, d.malformed(f.at, "google.protobuf.ListValue element with wire type %d", f.typ)
		}
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = d.appendValue(out, f.b); err != nil {
			return out, jsonx.WithIndex(err, i)
		}
		i++
	}
	return append(out, ']'), nil
}

type entry struct {
	key   string
	value []byte // the Value body; repeated occurrences merged
}

// appendStruct writes the JSON object of a Struct body. A key that repeats
// keeps its first position and its last value, as a protobuf map and a
// JavaScript object both do.
func (d *decoder) appendStruct(out, b []byte) ([]byte, error) {
	if err := d.enter(b); err != nil {
		return out, err
	}
	base := len(d.entries)
	defer func() {
		d.depth--
		d.entries = d.entries[:base]
	}()
	var index map[string]int // for large objects only
	for len(b) > 0 {
		f, rest, err := d.next(b)
		if err != nil {
			return out, err
		}
		b = rest
		if f.num != 1 {
			continue
		}
		if f.typ != protowire.BytesType {
			return out, d.malformed(f.at, "google.protobuf.Struct entry with wire type %d", f.typ)
		}
		e, err := d.entry(f)
		if err != nil {
			return out, err
		}
		level := d.entries[base:]
		if index == nil && len(level) >= 16 {
			index = make(map[string]int, 2*len(level))
			for i, x := range level {
				index[x.key] = i
			}
		}
		dup := -1
		if index != nil {
			if i, ok := index[e.key]; ok {
				dup = i
			}
		} else {
			for i := range level {
				if level[i].key == e.key {
					dup = i
					break
				}
			}
		}
		if dup >= 0 {
			level[dup].value = e.value
			continue
		}
		if index != nil {
			index[e.key] = len(level)
		}
		d.entries = append(d.entries, e)
	}
	out = append(out, '{')
	n := len(d.entries) - base
	for i := 0; i < n; i++ {
		e := d.entries[base+i] // nested structs may grow (and move) the stack
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonx.AppendString(out, e.key)
		out = append(out, ':')
		var err error
		if out, err = d.appendValue(out, e.value); err != nil {
			return out, jsonx.WithKey(err, e.key)
		}
	}
	return append(out, '}'), nil
}

// entry reads one Struct.FieldsEntry.
func (d *decoder) entry(f field) (entry, error) {
	var e entry
	seen := false
	b := f.b
	for len(b) > 0 {
		g, rest, err := d.next(b)
		if err != nil {
			return e, err
		}
		b = rest
		switch g.num {
		case 1:
			if g.typ != protowire.BytesType {
				return e, d.malformed(g.at, "map key with wire type %d", g.typ)
			}
			if e.key, err = d.str(g); err != nil {
				return e, err
			}
		case 2:
			if g.typ != protowire.BytesType {
				return e, d.malformed(g.at, "map value with wire type %d", g.typ)
			}
			e.value = merge(e.value, g.b, seen)
			seen = true
		}
	}
	if !seen {
		return e, jsonx.WithKey(d.malformed(f.at, "google.protobuf.Struct entry without a value"), e.key)
	}
	return e, nil
}
