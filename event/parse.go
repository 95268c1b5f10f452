package event

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// Parser reads AG-UI JSON events. The zero value is ready to use and strict.
type Parser struct {
	// MaxDepth limits JSON nesting; 0 means 256.
	MaxDepth int
	// DropUnknownFields makes fields that an event type does not declare
	// disappear instead of failing the parse with ErrUnknownField. The
	// protobuf wire has nowhere to put them either way.
	DropUnknownFields bool
	// Consume makes Parse the consumer stage of AG-UI 1.0's processing
	// model, for code that applies events (a client): a property no schema
	// describes is removed, an event of a type the protocol does not
	// describe is dropped (Parse returns nil, nil), and each removal is
	// reported to Warn with the JSON Pointer of what went; a known property
	// holding a malformed value still fails the parse with a *PathError.
	// What it then accepts is what @ag-ui/client 1.0.0's zod schemas accept
	// after its enforcement stage. DropUnknownFields is ignored.
	//
	// Without Consume the parser is a producer's: strict, every undeclared
	// field an error (or, with DropUnknownFields, dropped in silence).
	Consume bool
	// Warn receives the warnings of a consuming parse (Consume), in order;
	// nil discards them.
	Warn func(Warning)
	// Protocol is the version read: Protocol10 (the default, when empty) or
	// Protocol11. A 1.0 parser treats a field 1.1 added
	// (encryptedValueType) as a property no schema describes: refused with
	// ErrUnknownField, dropped with DropUnknownFields, removed with a
	// warning under Consume.
	Protocol string
}

// Parse reads one JSON event with the default, strict Parser.
func Parse(data []byte) (Event, error) { return Parser{}.Parse(data) }

// Parse reads one JSON event object. The returned event does not alias data.
//
// JSON null on an optional field reads as absent, except "metadata": null,
// which is refused with ErrNullMetadata. A pre-1.0 THINKING_* event parses to
// a *Thinking that keeps its JSON text.
//
// With Consume, an event of an unknown type is dropped after a Warning:
// Parse returns a nil Event and a nil error.
func (p Parser) Parse(data []byte) (Event, error) {
	if _, err := p.knowsLater(); err != nil {
		return nil, err
	}
	if p.Consume {
		return p.consume(data)
	}
	ev, err := p.parseStrict(data)
	if err != nil {
		return nil, err
	}
	if err := p.laterIn(ev, false); err != nil {
		return nil, err
	}
	return ev, nil
}

// laterIn is later for an event.
func (p Parser) laterIn(ev Event, consume bool) error {
	if !MayHoldLater(ev) {
		return nil // most events: nothing to look into
	}
	plan, ptr, err := planOf(ev)
	if err != nil { // a *Thinking: nothing versioned
		return nil
	}
	return p.later(ev.Type(), plan, ptr, consume)
}

// parseStrict is Parse without Consume, of the fields of every version.
func (p Parser) parseStrict(data []byte) (Event, error) {
	// The compiled parsers read the canonical form, into memory of the
	// event's own; any other text, and any error, is the interpreter's,
	// from the start, on one copy of the input that backs every string,
	// RawValue and Object of the event.
	if ev, ok := parseOwned(p.MaxDepth, data); ok {
		return ev, nil
	}
	data = append([]byte(nil), data...)
	ev, err := p.parse(data, nil)
	return ev, exported(err)
}

// parse reads one JSON event from data, which the event will alias: data
// must not change while the event is in use. When into is not nil the JSON
// must name its type, and the event is parsed into it.
func (p Parser) parse(data []byte, into Event) (Event, error) {
	r := readers.Get().(*reader)
	defer readers.Put(r)
	r.Parser = p
	r.s.MaxDepth = p.MaxDepth
	r.s.AliasStrings = true // data is not modified while the event lives
	r.s.Reset(data)
	defer r.s.Reset(nil) // do not keep the input alive in the pool
	t, err := r.findType()
	if err != nil {
		return nil, err
	}
	ev := into
	switch {
	case ev == nil:
		if ev = New(Type(t)); ev == nil {
			return nil, &jsonx.Error{Path: "type", Offset: -1, Err: fmt.Errorf("%w %s", ErrUnknownType, jsonx.Quote(t))}
		}
	case Type(t) != ev.Type():
		return nil, &jsonx.Error{Path: "type", Offset: -1, Err: fmt.Errorf("%w: %s where %s was expected", ErrInvalidField, jsonx.Quote(t), ev.Type())}
	default:
		reflect.ValueOf(ev).Elem().SetZero()
	}
	r.s.Reset(data)
	if th, ok := ev.(*Thinking); ok {
		// Kind is the package's own constant, not a view of data, and JSON
		// has no spare capacity: neither changes when the other does.
		th.Kind, th.JSON = canonical(Type(t)), data[:len(data):len(data)]
		if err := r.thinking(th); err != nil {
			return nil, err
		}
		return th, r.s.End()
	}
	plan := plans[reflect.TypeOf(ev).Elem()]
	if err := r.object(plan, schema.PointerOf(reflect.ValueOf(ev)), true); err != nil {
		return nil, err
	}
	if err := r.s.End(); err != nil {
		return nil, err
	}
	return ev, nil
}

// ParseRunAgentInput reads a RunAgentInput request body.
func (p Parser) ParseRunAgentInput(data []byte) (*RunAgentInput, error) {
	data = append([]byte(nil), data...)
	r := reader{Parser: p}
	r.s.MaxDepth = p.MaxDepth
	r.s.AliasStrings = true
	r.s.Reset(data)
	in := new(RunAgentInput)
	plan := plans[reflect.TypeOf(in).Elem()]
	if err := r.object(plan, schema.PointerTo(in), false); err != nil {
		return nil, exported(err)
	}
	if err := r.s.End(); err != nil {
		return nil, exported(err)
	}
	if err := p.later("", plan, schema.PointerTo(in), false); err != nil {
		return nil, err
	}
	return in, nil
}

// plans holds the field tables of every type reachable from an event: the
// registered event types and the request body.
var plans = schema.Prepare(tableRules, planSamples()...)

func planSamples() []any {
	var out []any
	for _, in := range registry {
		out = append(out, in.New())
	}
	return append(out, new(RunAgentInput), new(Interrupt), new(ContentPart), new(Source), new(AgentCapabilities))
}

type reader struct {
	Parser
	s jsonx.Scanner
}

// readers recycles readers, and with them the scanner's unescape buffer.
var readers = sync.Pool{New: func() any { return new(reader) }}

func invalid(format string, args ...any) error {
	return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidField}, args...)...)}
}

func (r *reader) invalidHere(format string, args ...any) error {
	if r.s.Peek() == jsonx.Invalid {
		return r.s.Skip() // not JSON: report the syntax error instead
	}
	return &jsonx.Error{Offset: r.s.Offset(), Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidField}, args...)...)}
}

func missing(name string) error {
	return &jsonx.Error{Path: name, Offset: -1, Err: ErrMissingField}
}

// findType returns the value of the top-level "type" member.
func (r *reader) findType() (string, error) {
	if k := r.s.Peek(); k != jsonx.Object {
		start := r.s.Offset()
		if err := r.s.Skip(); err != nil {
			return "", err // not JSON at all
		}
		return "", &jsonx.Error{Offset: start, Err: fmt.Errorf("%w: an event must be a JSON object, found %s", ErrInvalidField, k)}
	}
	var t string
	found := false
	err := r.s.Object(func(key string) error {
		if key != "type" {
			return r.s.Skip()
		}
		switch r.s.Peek() {
		case jsonx.String:
		case jsonx.Invalid:
			return r.s.Skip() // reports the syntax error
		default:
			return r.invalidHere("type must be a string, found %s", r.s.Peek())
		}
		v, err := r.s.String()
		if err != nil {
			return err
		}
		t, found = v, true
		return jsonx.ErrStop
	})
	if err != nil && err != jsonx.ErrStop {
		return "", err
	}
	if !found {
		return "", missing("type")
	}
	return t, nil
}

// TypeOf returns the "type" member of a JSON event object without parsing
// the rest, for routing JSON events by type.
func TypeOf(data []byte) (Type, error) {
	r := reader{}
	r.s.Reset(data)
	t, err := r.findType()
	return Type(t), exported(err)
}

// object reads a JSON object into the struct at ptr described by plan. For
// events, "type" and the Base fields are accepted too.
func (r *reader) object(plan *schema.Plan, ptr schema.Pointer, isEvent bool) error {
	if r.s.Peek() != jsonx.Object {
		return r.invalidHere("expected an object, found %s", r.s.Peek())
	}
	var seen, baseSeen uint64 // schema.MaxFields bits
	typeSeen := false
	err := r.s.Object(func(key string) error {
		if isEvent {
			if key == "type" {
				if typeSeen {
					return r.s.Fail(ErrDuplicateKey)
				}
				typeSeen = true
				_, err := r.s.String()
				return err
			}
			if i := fieldIndex(plan.Base, key, 0); i >= 0 {
				if baseSeen&(1<<i) != 0 {
					return r.s.Fail(ErrDuplicateKey)
				}
				baseSeen |= 1 << i
				return r.field(&plan.Base.Fields[i], ptr)
			}
		}
		first := fieldIndex(plan, key, 0)
		if first < 0 {
			if plan.Extra != nil {
				return r.extra(plan.Extra, ptr, key)
			}
			return r.unknown(key)
		}
		// All carriers of a union name ("content") share the first one's bit.
		if seen&(1<<first) != 0 {
			return r.s.Fail(ErrDuplicateKey)
		}
		seen |= 1 << first
		i := first
		if plan.Fields[first].Union {
			if i = fieldIndex(plan, key, r.s.Peek()); i < 0 {
				// A union of a kind none of its carriers takes; null is absent.
				if r.s.Peek() == jsonx.Null {
					return r.s.Null()
				}
				return r.invalidHere("content must be %s, found %s", unionKinds(plan, key), r.s.Peek())
			}
		}
		return r.field(&plan.Fields[i], ptr)
	})
	if err != nil {
		return err
	}
	for i := range plan.Fields {
		f := &plan.Fields[i]
		if seen&(1<<i) != 0 || f.Union {
			continue
		}
		switch {
		case f.Kind == schema.String, f.Kind == schema.Enum && !f.Opt, f.Kind == schema.Message, f.Req:
			return missing(f.Name)
		}
	}
	if plan.Check != nil {
		return plan.Check(ptr)
	}
	return nil
}

// fieldIndex finds the field named key. For a union name, kind picks the
// carrier (string, array or object); kind 0 returns the first carrier.
func fieldIndex(plan *schema.Plan, key string, kind jsonx.Kind) int {
	for i := range plan.Fields {
		f := &plan.Fields[i]
		if f.Name != key {
			continue
		}
		if !f.Union || kind == 0 {
			return i
		}
		switch f.Kind {
		case schema.OptString:
			if kind == jsonx.String {
				return i
			}
		case schema.Parts:
			if kind == jsonx.Array {
				return i
			}
		case schema.Object:
			if kind == jsonx.Object {
				return i
			}
		}
	}
	return -1
}

func unionKinds(plan *schema.Plan, key string) string {
	out := ""
	for _, f := range plan.Fields {
		if f.Name != key {
			continue
		}
		if out != "" {
			out += " or "
		}
		switch f.Kind {
		case schema.OptString:
			out += "a string"
		case schema.Parts:
			out += "an array of content parts"
		case schema.Object:
			out += "an object"
		}
	}
	return out
}

// field reads one member's value into the field f of the struct at base.
func (r *reader) field(f *schema.Field, base schema.Pointer) error {
	p := base.Field(f)
	k := r.s.Peek()
	if k == jsonx.Null {
		switch f.Kind {
		case schema.Object:
			if f.Name == "metadata" {
				return r.s.Fail(ErrNullMetadata)
			}
			return r.invalidHere("%s must be an object, not null", f.Name)
		case schema.String, schema.Enum, schema.Message:
			return r.invalidHere("%s must not be null", f.Name)
		case schema.Messages, schema.Strings, schema.Parts:
			if f.Req {
				return r.invalidHere("%s must be an array, not null", f.Name)
			}
			return r.s.Null()
		case schema.Value:
			if !f.Opt {
				raw, err := r.s.Raw()
				*p.Bytes() = raw
				return err
			}
			return r.s.Null()
		default:
			// Optional field: null means absent.
			return r.s.Null()
		}
	}
	switch f.Kind {
	case schema.String, schema.Enum:
		if k != jsonx.String {
			return r.invalidHere("%s must be a string, found %s", f.Name, k)
		}
		at := r.s.Offset()
		v, err := r.s.String()
		if err == nil && !f.Allows(v) {
			return &jsonx.Error{Offset: at, Err: fmt.Errorf("%w: %s", ErrInvalidField, f.Unknown(v))}
		}
		*p.String() = v
		return err
	case schema.OptString:
		if k != jsonx.String {
			return r.invalidHere("%s must be a string, found %s", f.Name, k)
		}
		at := r.s.Offset()
		v, err := r.s.String()
		if err == nil && !f.Allows(v) {
			return &jsonx.Error{Offset: at, Err: fmt.Errorf("%w: %s", ErrInvalidField, f.Unknown(v))}
		}
		*p.OptString() = &v
		return err
	case schema.OptBool:
		v, err := r.s.Bool()
		if err != nil {
			return r.invalidHere("%s must be a boolean, found %s", f.Name, k)
		}
		*p.OptBool() = &v
		return nil
	case schema.OptInt64:
		v, err := r.int64(f.Name)
		if err != nil {
			return err
		}
		*p.OptInt64() = &v
		return nil
	case schema.Value:
		raw, err := r.s.Raw()
		*p.Bytes() = raw
		return err
	case schema.Object:
		if k != jsonx.Object {
			return r.invalidHere("%s must be an object, found %s", f.Name, k)
		}
		raw, err := r.s.Raw()
		*p.Bytes() = raw
		return err
	case schema.Message:
		return r.object(f.Elem, p, false)
	case schema.OptMessage:
		if k != jsonx.Object {
			return r.invalidHere("%s must be an object, found %s", f.Name, k)
		}
		v := schema.New(f.Elem)
		if err := r.object(f.Elem, v, false); err != nil {
			return err
		}
		p.SetElem(v)
		return nil
	case schema.Messages, schema.Parts:
		if k != jsonx.Array {
			return r.invalidHere("%s must be an array, found %s", f.Name, k)
		}
		return r.slice(f, p)
	case schema.Strings:
		ids, err := r.strings(f.Name)
		*p.Strings() = ids
		return err
	}
	return fmt.Errorf("event: unhandled field kind %d", f.Kind)
}

func (r *reader) int64(name string) (int64, error) {
	k := r.s.Peek()
	if k != jsonx.Number {
		return 0, r.invalidHere("%s must be an integer, found %s", name, k)
	}
	text, err := r.s.Number()
	if err != nil {
		return 0, err
	}
	v, ok := jsonx.ParseInt64(text)
	if !ok {
		return 0, invalid("%s must be an integer in the int64 range, found %s", name, text)
	}
	return v, nil
}

// slice reads a JSON array into the []T field at p.
func (r *reader) slice(f *schema.Field, p schema.Pointer) error {
	sv := p.Slice(f.Type)
	sv.Set(reflect.MakeSlice(f.Type, 0, 0))
	return r.s.Array(func(i int) error {
		sv.Set(reflect.Append(sv, reflect.Zero(f.Type.Elem())))
		ep := schema.PointerOf(sv.Index(i).Addr())
		if f.Kind == schema.Parts {
			return r.contentPart(schema.As[ContentPart](ep))
		}
		return r.object(f.Elem, ep, false)
	})
}

func (r *reader) strings(name string) ([]string, error) {
	if r.s.Peek() != jsonx.Array {
		return nil, r.invalidHere("%s must be an array of strings, found %s", name, r.s.Peek())
	}
	out := []string{}
	err := r.s.Array(func(int) error {
		if r.s.Peek() != jsonx.String {
			return r.invalidHere("must be a string, found %s", r.s.Peek())
		}
		v, err := r.s.String()
		out = append(out, v)
		return err
	})
	return out, err
}

// extra keeps a member no field takes in an open object's Extra map.
func (r *reader) extra(f *schema.Field, base schema.Pointer, key string) error {
	m := schema.As[map[string]json.RawMessage](base.Field(f))
	if _, dup := (*m)[key]; dup {
		return r.s.Fail(ErrDuplicateKey)
	}
	raw, err := r.s.Raw()
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]json.RawMessage{}
	}
	(*m)[strings.Clone(key)] = raw
	return nil
}

// unknown handles a member no field takes.
func (r *reader) unknown(key string) error {
	if r.DropUnknownFields {
		return r.s.Skip()
	}
	return r.s.Fail(fmt.Errorf("%w %s", ErrUnknownField, jsonx.Quote(key)))
}

func (r *reader) requiredString(name string) (string, error) {
	if r.s.Peek() != jsonx.String {
		return "", r.invalidHere("%s must be a string, found %s", name, r.s.Peek())
	}
	return r.s.String()
}

func (r *reader) optString(name string) (*string, error) {
	switch r.s.Peek() {
	case jsonx.Null:
		return nil, r.s.Null()
	case jsonx.String:
		v, err := r.s.String()
		return &v, err
	}
	return nil, r.invalidHere("%s must be a string, found %s", name, r.s.Peek())
}

// contentPart reads one content part, turning the retired "binary" part into
// the document part other peers send for it.
func (r *reader) contentPart(cp *ContentPart) error {
	if r.s.Peek() != jsonx.Object {
		return r.invalidHere("a content part must be an object, found %s", r.s.Peek())
	}
	var typ, text, mimeType, data, url, filename *string
	var seen = map[string]bool{}
	err := r.s.Object(func(key string) error {
		if seen[key] {
			return r.s.Fail(ErrDuplicateKey)
		}
		seen[key] = true
		var err error
		switch key {
		case "type":
			var s string
			s, err = r.requiredString(key)
			typ = &s
		case "id":
			cp.ID, err = r.optString(key)
		case "text":
			text, err = r.optString(key)
		case "source":
			if r.s.Peek() == jsonx.Null {
				return r.s.Null()
			}
			cp.Source = new(Source)
			err = r.source(cp.Source)
		case "metadata":
			if r.s.Peek() == jsonx.Null {
				return r.s.Null()
			}
			var raw []byte
			raw, err = r.s.Raw()
			cp.Metadata = raw
		case "mimeType":
			mimeType, err = r.optString(key)
		case "data":
			data, err = r.optString(key)
		case "url":
			url, err = r.optString(key)
		case "filename":
			filename, err = r.optString(key)
		default:
			return r.unknown(key)
		}
		return err
	})
	if err != nil {
		return err
	}
	if typ == nil {
		return missing("type")
	}
	cp.Type = *typ
	legacy := mimeType != nil || data != nil || url != nil || filename != nil
	switch cp.Type {
	case "binary":
		if err := binaryPart(cp, mimeType, data, url, filename, text); err != nil {
			return err
		}
	case PartText:
		if text == nil {
			return missing("text")
		}
		cp.Text = *text
		fallthrough
	default:
		if legacy {
			return invalid("only a binary part carries mimeType, data, url or filename")
		}
		if text != nil && cp.Type != PartText {
			return invalid("a%s %s part carries no text", article(cp.Type), cp.Type)
		}
	}
	return checkPart(cp)
}

// binaryPart maps the retired binary part to a document part with marker
// metadata {"legacyBinary":true,"filename":...,"id":...}, the form the other
// 1.0 peers put on the wire for it.
func binaryPart(cp *ContentPart, mimeType, data, url, filename, text *string) error {
	if text != nil || cp.Source != nil {
		return invalid("a binary part carries mimeType, data, url, id and filename")
	}
	if mimeType == nil {
		return missing("mimeType")
	}
	src := &Source{MimeType: mimeType}
	switch {
	case data != nil && *data != "":
		src.Type, src.Value = SourceData, *data
	case url != nil && *url != "":
		src.Type, src.Value = SourceURL, *url
	case cp.ID != nil && *cp.ID != "":
		src.Type, src.Value = SourceURL, *cp.ID
	default:
		return invalid("a binary part needs data, url or id")
	}
	if cp.Metadata != nil {
		return invalid("a binary part has no metadata of its own")
	}
	md := []byte(`{"legacyBinary":true`)
	if filename != nil {
		md = append(md, `,"filename":`...)
		md = jsonx.AppendString(md, *filename)
	}
	if cp.ID != nil {
		md = append(md, `,"id":`...)
		md = jsonx.AppendString(md, *cp.ID)
	}
	cp.Metadata = append(md, '}')
	cp.Type = PartDocument
	cp.ID = nil
	cp.Source = src
	return nil
}

func (r *reader) source(src *Source) error {
	if r.s.Peek() != jsonx.Object {
		return r.invalidHere("source must be an object, found %s", r.s.Peek())
	}
	var typ, value *string
	seen := map[string]bool{}
	err := r.s.Object(func(key string) error {
		if seen[key] {
			return r.s.Fail(ErrDuplicateKey)
		}
		seen[key] = true
		var err error
		switch key {
		case "type":
			var s string
			s, err = r.requiredString(key)
			typ = &s
		case "value":
			var s string
			s, err = r.requiredString(key)
			value = &s
		case "mimeType":
			src.MimeType, err = r.optString(key)
		case "provider":
			src.Provider, err = r.optString(key)
		default:
			return r.unknown(key)
		}
		return err
	})
	if err != nil {
		return err
	}
	if typ == nil {
		return missing("type")
	}
	if value == nil {
		return missing("value")
	}
	src.Type, src.Value = *typ, *value
	return checkSource(src)
}

// thinking reads the base fields of a THINKING_* event (so that its metadata
// is checked like any other) and validates the rest.
func (r *reader) thinking(th *Thinking) error {
	plan := plans[reflect.TypeOf(Base{})]
	seen := uint32(0)
	typeSeen := false
	return r.s.Object(func(key string) error {
		if key == "type" {
			if typeSeen {
				return r.s.Fail(ErrDuplicateKey)
			}
			typeSeen = true
		}
		if i := fieldIndex(plan, key, 0); i >= 0 {
			if seen&(1<<i) != 0 {
				return r.s.Fail(ErrDuplicateKey)
			}
			seen |= 1 << i
			return r.field(&plan.Fields[i], schema.PointerTo(&th.Base))
		}
		return r.s.Skip()
	})
}

// canonical returns the package's constant equal to t, so that a parsed
// type name does not keep (or share) the input's memory.
func canonical(t Type) Type {
	if in, ok := registered[t]; ok {
		return in.Type
	}
	return Type(strings.Clone(string(t)))
}
