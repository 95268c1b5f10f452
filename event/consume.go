package event

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// This file is the consumer stage of AG-UI 1.0's processing model
// (Parser.Consume): what a client does with an event before it applies it.
//
//   - An event whose type the protocol does not describe (or that names no
//     type) is dropped, with a warning.
//   - A property an object does not describe is removed, with a warning
//     naming its JSON Pointer. So is an element of a list whose
//     discriminator ("type", "role", "op") names a member this version does
//     not know, and an optional union value (RUN_FINISHED's outcome) whose
//     discriminator is unknown. A required union value with an unknown
//     discriminator takes its enclosing list element (or the event) with it.
//   - A known property holding a malformed value (the wrong JSON kind, a
//     null where the schema has no null, a value outside a closed set) is
//     refused: the parse fails with a *PathError naming it.
//
// JSON Patch operations are open objects (RFC 6902 §4 ignores members an
// operation does not define): their extra members are not warned about.
// A few nulls that pre-1.0 producers wrote where 1.0 means "absent"
// (rawEvent, result, parentMessageId, outcome, a media part's metadata) are
// removed with a warning rather than refused, as @ag-ui/client 1.0.0's
// compatibility boundary removes them.

// Warning is something a consuming parse (Parser.Consume) removed from an
// event, or an event it dropped.
type Warning struct {
	// Type is the event's type as the JSON named it ("" when it named none).
	Type Type
	// Path is the JSON Pointer of what was removed inside the event, such as
	// "/futureProp" or "/messages/0/content/1"; "" when the whole event was
	// dropped.
	Path string
	// Reason says what happened.
	Reason string
}

func (w Warning) String() string {
	t := string(w.Type)
	if t == "" {
		t = "event"
	}
	if w.Path == "" {
		return fmt.Sprintf("%s: %s", t, w.Reason)
	}
	return fmt.Sprintf("%s %s: %s", t, w.Path, w.Reason)
}

// shape is what the consumer stage knows of a JSON value's place.
type shape struct {
	kind shapeKind
	// object: the members it describes; open objects keep the others
	// silently.
	fields map[string]*member
	open   bool
	// array: the element shape.
	elem *shape
	// union: the discriminating member and the shape of each known value.
	disc     string
	variants map[string]*shape
	// content: a string or an array of parts (strOrParts).
	parts *shape
	// nreq is the number of required members of an object (see finish).
	nreq int
}

type shapeKind uint8

const (
	shapeLeaf       shapeKind = iota // a string, number, bool or opaque value
	shapeObject                      // a closed (or open) object
	shapeArray                       // a list
	shapeUnion                       // an object discriminated by one member
	shapeStrOrParts                  // a string or a list of content parts
)

// member is one described member of an object.
type member struct {
	shape    *shape
	optional bool
	// nullOK: JSON null is a value here (state, a custom value, a patch
	// value); otherwise a null is malformed.
	nullOK bool
	// legacyNull: a null here is a pre-1.0 spelling of "absent", removed
	// with a warning.
	legacyNull bool
	// check, when set, validates a value the parser's types do not bound
	// as the schema does (integer ranges, JSON Pointers, a non-empty list).
	check func(v *jsonx.Value) error
}

var leaf = &shape{kind: shapeLeaf}

// consumeShapes holds the shape of each registered event type.
var consumeShapes = buildConsumeShapes()

func buildConsumeShapes() map[Type]*shape {
	b := shapeBuilder{done: map[reflect.Type]*shape{}}
	out := map[Type]*shape{}
	for _, in := range registry {
		ev := in.New()
		if _, ok := ev.(*Thinking); ok {
			continue
		}
		plan := plans[reflect.TypeOf(ev).Elem()]
		s := b.object(plan)
		for _, f := range plan.Base.Fields {
			s.fields[f.Name] = b.member(plan.Base, &f)
		}
		s.fields["type"] = &member{shape: leaf}
		s.fields["timestamp"].check = safeInt(-jsonx.MaxSafeInteger)
		// Pre-1.0 nulls the client's compatibility boundary removes.
		s.fields["rawEvent"].legacyNull = true
		switch in.Type {
		case TypeRunFinished, TypeSubagentFinished:
			s.fields["result"].legacyNull = true
		case TypeToolCallStart, TypeToolCallChunk:
			s.fields["parentMessageId"].legacyNull = true
		}
		if in.Type == TypeRunFinished {
			s.fields["outcome"].legacyNull = true
		}
		out[in.Type] = s
	}
	seen := map[*shape]bool{}
	for _, s := range out {
		finish(s, seen)
	}
	return out
}

type shapeBuilder struct {
	done map[reflect.Type]*shape
}

func (b *shapeBuilder) object(plan *schema.Plan) *shape {
	if s, ok := b.done[plan.Type]; ok {
		return s
	}
	s := &shape{kind: shapeObject, fields: map[string]*member{}}
	b.done[plan.Type] = s
	for i := range plan.Fields {
		f := &plan.Fields[i]
		if _, ok := s.fields[f.Name]; ok {
			continue // the other carriers of a union name ("content")
		}
		s.fields[f.Name] = b.member(plan, f)
	}
	return s
}

func (b *shapeBuilder) member(plan *schema.Plan, f *schema.Field) *member {
	m := &member{shape: leaf, optional: true}
	switch f.Kind {
	case schema.String, schema.Enum, schema.Message:
		m.optional = false
	case schema.Value:
		// A value without ",opt" is required and may be null (a snapshot,
		// a custom value); with it, optional and never null.
		m.nullOK = !f.Opt
		m.optional = f.Opt
	}
	if f.Req {
		m.optional = false
	}
	switch {
	case f.Union:
		m.shape = &shape{kind: shapeStrOrParts, parts: &shape{kind: shapeArray, elem: partShape}}
		if plan.Type == reflect.TypeFor[Message]() {
			m.optional = true // the role decides; see messageShape
		}
	case f.Kind == schema.Parts:
		m.shape = &shape{kind: shapeArray, elem: partShape}
	case f.Kind == schema.Message || f.Kind == schema.OptMessage:
		m.shape = b.nested(f.Elem)
	case f.Kind == schema.Messages:
		m.shape = &shape{kind: shapeArray, elem: b.nested(f.Elem)}
	}
	if plan.Type == reflect.TypeFor[RunAgentInput]() && f.Name == "state" {
		m.nullOK = true // RunAgentInput's state may be null
	}
	return m
}

// nested returns the shape of a nested struct: a union for the types the
// schema discriminates, an object otherwise.
func (b *shapeBuilder) nested(plan *schema.Plan) *shape {
	switch plan.Type {
	case reflect.TypeFor[Message]():
		return b.messageShape(plan)
	case reflect.TypeFor[PatchOp]():
		return patchOpShape
	case reflect.TypeFor[RunOutcome]():
		return b.runOutcomeShape(plan)
	case reflect.TypeFor[SubagentOutcome]():
		return b.subagentOutcomeShape(plan)
	case reflect.TypeFor[Usage]():
		s := b.object(plan)
		for name, m := range s.fields {
			if strings.HasSuffix(name, "Tokens") {
				m.check = safeInt(0)
			}
		}
		return s
	}
	return b.object(plan)
}

// pick returns an object shape with the named members of all.
func pick(all *shape, names ...string) *shape {
	s := &shape{kind: shapeObject, fields: map[string]*member{}}
	for _, n := range names {
		m, ok := all.fields[n]
		if !ok {
			panic("event: no member " + n)
		}
		s.fields[n] = m
	}
	return s
}

func withCheck(s *shape, name string, check func(*jsonx.Value) error) *shape {
	m := *s.fields[name]
	m.check = check
	s.fields[name] = &m
	return s
}

// safeInt checks a safe integer (jsonx.SafeInteger) of at least min (the
// parser checks that it is an integer).
func safeInt(min int64) func(*jsonx.Value) error {
	return func(v *jsonx.Value) error {
		if v.Kind != jsonx.Number {
			return nil
		}
		n, ok := jsonx.ParseInt64([]byte(v.Text))
		if ok && (n < min || !jsonx.SafeInteger(n)) {
			return fmt.Errorf("%w: %s is outside %d..2^53-1", ErrInvalidField, v.Text, min)
		}
		return nil
	}
}

func nonEmpty(v *jsonx.Value) error {
	if v.Kind == jsonx.Array && len(v.Elems) == 0 {
		return fmt.Errorf("%w: an interrupt outcome lists at least one interrupt", ErrInvalidField)
	}
	return nil
}

// jsonPointer checks an RFC 6901 JSON Pointer: empty, or slash-prefixed
// tokens in which "~" is followed only by "0" or "1".
func jsonPointer(v *jsonx.Value) error {
	if v.Kind != jsonx.String {
		return nil
	}
	s := v.Text
	ok := s == "" || s[0] == '/'
	for i := 0; ok && i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("%w: %s is not a JSON Pointer", ErrInvalidField, jsonx.Quote(s))
	}
	return nil
}

func required(s *shape, names ...string) *shape {
	for _, n := range names {
		m := *s.fields[n]
		m.optional = false
		s.fields[n] = &m
	}
	return s
}

func (b *shapeBuilder) messageShape(plan *schema.Plan) *shape {
	all := b.object(plan)
	common := []string{"subagentRunId", "id", "role", "metadata"}
	named := append(common, "name", "encryptedValue")
	str := func(names ...string) *shape {
		s := pick(all, names...)
		s.fields["content"] = &member{shape: leaf}
		return s
	}
	assistant := pick(all, append(named, "toolCalls")...)
	assistant.fields["content"] = &member{shape: leaf, optional: true}
	user := pick(all, append(named, "content")...)
	tool := pick(all, append(common, "content", "toolCallId", "error", "encryptedValue")...)
	activity := pick(all, append(common, "activityType")...)
	activity.fields["content"] = &member{shape: leaf}
	return &shape{kind: shapeUnion, disc: "role", variants: map[string]*shape{
		RoleDeveloper: str(named...),
		RoleSystem:    str(named...),
		RoleAssistant: assistant,
		RoleUser:      required(user, "content"),
		RoleTool:      required(tool, "content", "toolCallId"),
		RoleActivity:  required(activity, "activityType"),
		RoleReasoning: str(append(common, "encryptedValue")...),
	}}
}

func (b *shapeBuilder) runOutcomeShape(plan *schema.Plan) *shape {
	all := b.object(plan)
	return &shape{kind: shapeUnion, disc: "type", variants: map[string]*shape{
		OutcomeSuccess:   pick(all, "type", "pendingToolCallIds"),
		OutcomeInterrupt: withCheck(required(pick(all, "type", "interrupts"), "interrupts"), "interrupts", nonEmpty),
		OutcomeCancelled: pick(all, "type"),
	}}
}

func (b *shapeBuilder) subagentOutcomeShape(plan *schema.Plan) *shape {
	all := b.object(plan)
	return &shape{kind: shapeUnion, disc: "type", variants: map[string]*shape{
		OutcomeSuccess:   pick(all, "type"),
		OutcomeSuspended: pick(all, "type", "interruptIds"),
	}}
}

// The hand-mapped types: content parts, their sources, patch operations.
var (
	sourceShape = func() *shape {
		f := func(names ...string) *shape {
			s := &shape{kind: shapeObject, fields: map[string]*member{}}
			for _, n := range names {
				s.fields[n] = &member{shape: leaf, optional: n != "type" && n != "value"}
			}
			return s
		}
		data := f("type", "value", "mimeType")
		data.fields["mimeType"] = &member{shape: leaf}
		return &shape{kind: shapeUnion, disc: "type", variants: map[string]*shape{
			SourceData: data,
			SourceURL:  f("type", "value", "mimeType"),
			SourceFile: f("type", "value", "provider", "mimeType"),
		}}
	}()
	partShape = func() *shape {
		base := func() *shape {
			return &shape{kind: shapeObject, fields: map[string]*member{
				"type":     {shape: leaf},
				"id":       {shape: leaf, optional: true},
				"metadata": {shape: leaf, optional: true},
			}}
		}
		text := base()
		text.fields["text"] = &member{shape: leaf}
		media := func() *shape {
			s := base()
			s.fields["source"] = &member{shape: sourceShape}
			s.fields["metadata"] = &member{shape: leaf, optional: true, legacyNull: true}
			return s
		}
		// The retired binary part, which the parser upgrades to a
		// document part.
		binary := base()
		for _, n := range []string{"mimeType", "data", "url", "filename"} {
			binary.fields[n] = &member{shape: leaf, optional: true}
		}
		return &shape{kind: shapeUnion, disc: "type", variants: map[string]*shape{
			PartText: text, PartImage: media(), PartAudio: media(), PartVideo: media(),
			PartDocument: media(), "binary": binary,
		}}
	}()
	patchOpShape = func() *shape {
		op := func(names ...string) *shape {
			s := &shape{kind: shapeObject, open: true, fields: map[string]*member{"op": {shape: leaf}}}
			for _, n := range names {
				s.fields[n] = &member{shape: leaf, nullOK: n == "value"}
				if n != "value" {
					s.fields[n].check = jsonPointer
				}
			}
			return s
		}
		return &shape{kind: shapeUnion, disc: "op", variants: map[string]*shape{
			"add": op("path", "value"), "remove": op("path"), "replace": op("path", "value"),
			"move": op("from", "path"), "copy": op("from", "path"), "test": op("path", "value"),
		}}
	}()
)

// openMembers are the members the Go model of an open object (a patch
// operation) holds; the others are left out silently.
var openMembers = map[string]bool{"op": true, "path": true, "from": true, "value": true}

// consumer walks one event's tree.
type consumer struct {
	typ      Type
	warnings []Warning
	changed  bool
	segs     []seg // the path to the value being walked
}

// errUnrecognised marks a value whose discriminator names no known member:
// the caller removes it, or the value that holds it.
var errUnrecognised = fmt.Errorf("unrecognised union member")

// consume parses data as the consumer stage does; see Parser.Consume.
func (p Parser) consume(data []byte) (Event, error) {
	tree, err := jsonx.ParseTree(data, jsonx.TreeOptions{MaxDepth: p.MaxDepth, Inexact: true})
	if err != nil {
		return nil, exported(err)
	}
	var t Type
	if tree.Kind == jsonx.Object {
		if i := tree.Index("type"); i >= 0 && tree.Members[i].Value.Kind == jsonx.String {
			t = Type(tree.Members[i].Value.Text)
		}
	}
	warn := func(w Warning) {
		if p.Warn != nil {
			p.Warn(w)
		}
	}
	if t.IsThinking() {
		// A retired pre-1.0 event: parsed (and skipped by assembling), as
		// nothing in 1.0 describes it.
		warn(Warning{Type: t, Reason: "retired pre-1.0 event, not applied; it has no 1.0 equivalent in this client"})
		p.Consume = false
		return p.parseStrict(data)
	}
	s := consumeShapes[t]
	if s == nil {
		why := "dropping an unrecognised event: the protocol does not describe it"
		if t == "" {
			why = "dropping an event that names no type"
		}
		warn(Warning{Type: t, Reason: why})
		return nil, nil
	}
	c := consumer{typ: t}
	if err := c.walk(tree, s); err != nil {
		if err == errUnrecognised {
			err = &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: unrecognised %s", ErrInvalidField, t)}
		}
		return nil, exported(err)
	}
	for _, w := range c.warnings {
		warn(w)
	}
	if c.changed {
		data = tree.AppendJSON(nil)
	}
	p.Consume = false
	p.DropUnknownFields = false
	ev, err := p.parseStrict(data)
	if err != nil {
		return nil, err
	}
	// What a later version added is, to this parser's version, a property
	// no schema describes: removed with a warning, as above.
	if err := p.laterIn(ev, true); err != nil {
		return nil, err
	}
	return ev, nil
}

// seg is one step of the path to the value being walked: a member key, or
// an array index when key is "" and index >= 0.
type seg struct {
	key   string
	index int
}

// pointer returns the JSON Pointer (RFC 6901) of the walk's position, with
// last appended when it is not nil.
func (c *consumer) pointer(last *seg) string {
	var b strings.Builder
	write := func(s seg) {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
			return
		}
		for i := 0; i < len(s.key); i++ {
			switch s.key[i] {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteByte(s.key[i])
			}
		}
	}
	for _, s := range c.segs {
		write(s)
	}
	if last != nil {
		write(*last)
	}
	return b.String()
}

// fail returns an error located at the walk's position plus last, with
// the dotted path a *PathError reports ("messages[0].toolCallId").
func (c *consumer) fail(last seg, err error) error {
	var b strings.Builder
	for _, s := range append(c.segs[:len(c.segs):len(c.segs)], last) {
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return &jsonx.Error{Path: b.String(), Offset: -1, Err: err}
}

func (c *consumer) warn(last seg, reason string) {
	c.changed = true
	c.warnings = append(c.warnings, Warning{Type: c.typ, Path: c.pointer(&last), Reason: reason})
}

// walk removes what v's shape does not describe and refuses the nulls it
// does not allow. It returns errUnrecognised for a union value whose
// discriminator it does not know. Its cost is linear in the size of v: each
// value is visited once, and a path is only spelled out for a warning or an
// error.
func (c *consumer) walk(v *jsonx.Value, s *shape) error {
	switch s.kind {
	case shapeObject:
		if v.Kind != jsonx.Object {
			return nil // the parser refuses the wrong kind
		}
		kept := v.Members[:0:0]
		present := 0 // required members seen
		for _, m := range v.Members {
			here := seg{key: m.Key, index: -1}
			d, ok := s.fields[m.Key]
			if !ok {
				if s.open {
					c.changed = true
					if openMembers[m.Key] {
						kept = append(kept, m) // kept as is, as the open object keeps it
					}
					continue // others silently: the Go model has nowhere to keep them
				}
				c.warn(here, "removed an unrecognised property")
				continue
			}
			if m.Value.Kind == jsonx.Null && !d.nullOK {
				if d.legacyNull {
					c.warn(here, "removed a null, the pre-1.0 spelling of an absent field")
					continue
				}
				return c.fail(here, fmt.Errorf("%w: %s must not be null", ErrInvalidField, m.Key))
			}
			if d.check != nil {
				if err := d.check(m.Value); err != nil {
					return c.fail(here, err)
				}
			}
			if m.Value.Kind != jsonx.Null {
				mark := len(c.warnings)
				c.segs = append(c.segs, here)
				err := c.walk(m.Value, d.shape)
				c.segs = c.segs[:len(c.segs)-1]
				if err == errUnrecognised {
					c.warnings = c.warnings[:mark]
					if !d.optional {
						return errUnrecognised
					}
					c.warn(here, "removed an unrecognised union member")
					continue
				} else if err != nil {
					return err
				}
			}
			if !d.optional {
				present++
			}
			kept = append(kept, m)
		}
		v.Members = kept
		if present < s.nreq {
			var missing []string
			for name, d := range s.fields {
				if !d.optional && v.Index(name) < 0 {
					missing = append(missing, name)
				}
			}
			slices.Sort(missing)
			return c.fail(seg{key: missing[0], index: -1}, ErrMissingField)
		}
		return nil
	case shapeArray:
		if v.Kind != jsonx.Array {
			return nil
		}
		kept := v.Elems[:0:0]
		for i, e := range v.Elems {
			here := seg{index: i}
			mark := len(c.warnings)
			c.segs = append(c.segs, here)
			err := c.walk(e, s.elem)
			c.segs = c.segs[:len(c.segs)-1]
			if err == errUnrecognised {
				c.warnings = c.warnings[:mark]
				c.warn(here, "removed an unrecognised list element")
				continue
			} else if err != nil {
				return err
			}
			kept = append(kept, e)
		}
		v.Elems = kept
		return nil
	case shapeUnion:
		if v.Kind != jsonx.Object {
			return nil
		}
		i := v.Index(s.disc)
		if i < 0 || v.Members[i].Value.Kind != jsonx.String {
			return errUnrecognised
		}
		variant := s.variants[v.Members[i].Value.Text]
		if variant == nil {
			return errUnrecognised
		}
		return c.walk(v, variant)
	case shapeStrOrParts:
		if v.Kind == jsonx.Array {
			return c.walk(v, s.parts)
		}
	}
	return nil
}

// finish counts the required members of every object shape reachable from
// s, once, before any parse reads them.
func finish(s *shape, seen map[*shape]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	s.nreq = 0
	for _, d := range s.fields {
		if !d.optional {
			s.nreq++
		}
		finish(d.shape, seen)
	}
	finish(s.elem, seen)
	finish(s.parts, seen)
	for _, v := range s.variants {
		finish(v, seen)
	}
}
