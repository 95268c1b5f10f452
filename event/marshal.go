package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// Marshal returns the AG-UI JSON form of ev, on one line: the "type" string
// first, then the event's fields in lowerCamelCase, optional fields omitted
// rather than null. Dynamic values (state, metadata, ...) are written as
// their exact text after a validity check, except that line breaks between
// their tokens become spaces.
func Marshal(ev Event) ([]byte, error) { return AppendJSON(nil, ev) }

// AppendJSON appends the JSON form of ev to dst.
func AppendJSON(dst []byte, ev Event) ([]byte, error) {
	out, err := appendJSON(dst, ev)
	return out, exported(err)
}

// appendJSON writes ev, checking every string and dynamic value: with the
// compiled writers when ev is of a type they write and passes every check,
// otherwise with the interpreter, which reports what is wrong.
func appendJSON(dst []byte, ev Event) ([]byte, error) {
	if b, ok := appendFast(dst, ev); ok {
		return b, nil
	}
	return appendJSONInterpreted(dst, ev)
}

// appendJSONInterpreted is the interpreter's appendJSON: the field tables
// walked at run time.
func appendJSONInterpreted(dst []byte, ev Event) ([]byte, error) {
	plan, ptr, err := planOf(ev)
	if err != nil {
		return dst, err
	}
	w := writer{b: dst}
	if th, ok := ev.(*Thinking); ok {
		if err := w.valid(th.JSON, jsonx.Object); err != nil {
			return dst, fmt.Errorf("event: %s: %w", th.Kind, err)
		}
		w.raw(th.JSON)
		return w.b, nil
	}
	w.b = append(w.b, `{"type":`...)
	w.b = jsonx.AppendString(w.b, string(ev.Type()))
	w.first = false
	if err := w.fields(plan, ptr); err != nil {
		return dst, err
	}
	if err := w.fields(plan.Base, ptr); err != nil { // Base is the first field: offset 0
		return dst, err
	}
	w.b = append(w.b, '}')
	return w.b, nil
}

// planOf returns the table and address of an event of this package's types,
// refusing nil events and types defined elsewhere.
func planOf(ev Event) (*schema.Plan, schema.Pointer, error) {
	if ev == nil {
		return nil, schema.Pointer{}, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: nil event", ErrInvalidField)}
	}
	v := reflect.ValueOf(ev)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, schema.Pointer{}, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: nil %T", ErrInvalidField, ev)}
	}
	if v.Kind() != reflect.Pointer || goTypes[ev.Type()] != v.Type() {
		return nil, schema.Pointer{}, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %T (type %s) is not one of package event's types", ErrUnsupportedEvent, ev, jsonx.Quote(string(ev.Type())))}
	}
	plan := plans[v.Type().Elem()]
	return plan, schema.PointerOf(v), nil
}

// marshalRunAgentInput returns the JSON form of a RunAgentInput.
func marshalRunAgentInput(in *RunAgentInput) ([]byte, error) {
	w := writer{}
	if err := w.object(plans[reflect.TypeOf(RunAgentInput{})], schema.PointerTo(in)); err != nil {
		return nil, exported(err)
	}
	return w.b, nil
}

// The event types marshal through AppendJSON so that encoding/json users get
// the AG-UI shape too.

type writer struct {
	b     []byte
	first bool
	bad   bool // a check of the compiled writers failed (compiled.go)
	// trusted skips the compiled writers' checks of strings and dynamic
	// values, for an event package codec's decoder produced.
	trusted bool
}

// valid checks a dynamic value before it is written out.
func (w *writer) valid(b []byte, want jsonx.Kind) error { return validJSON(b, want) }

func (w *writer) key(name string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, name...) // field names are plain ASCII
	w.b = append(w.b, '"', ':')
}

func (w *writer) object(plan *schema.Plan, ptr schema.Pointer) error {
	w.b = append(w.b, '{')
	w.first = true
	if err := w.fields(plan, ptr); err != nil {
		return err
	}
	w.b = append(w.b, '}')
	w.first = false
	return nil
}

// scanners recycles the scanners validJSON uses.
var scanners = sync.Pool{New: func() any { return new(jsonx.Scanner) }}

// validJSON checks a value the program holds before writing it out. No
// depth limit applies: the limit guards parsing untrusted input, and this
// value is already in memory (possibly decoded under a raised limit).
func validJSON(b []byte, want jsonx.Kind) error {
	s := scanners.Get().(*jsonx.Scanner)
	defer scanners.Put(s)
	s.MaxDepth = math.MaxInt
	s.AliasStrings = true // keys are read and dropped
	s.Reset(b)
	defer s.Reset(nil)
	if want != 0 && s.Peek() != want {
		return fmt.Errorf("%w: expected a JSON %s", ErrInvalidField, want)
	}
	if err := s.Skip(); err != nil {
		return err
	}
	return s.End()
}

func (w *writer) fields(plan *schema.Plan, base schema.Pointer) error {
	if plan.Check != nil {
		if err := plan.Check(base); err != nil {
			return err
		}
	}
	unionWritten := ""
	for i := range plan.Fields {
		f := &plan.Fields[i]
		p := base.Field(f)
		if f.Union {
			set := false
			switch f.Kind {
			case schema.OptString:
				set = *p.OptString() != nil
			case schema.Parts:
				set = *schema.As[[]ContentPart](p) != nil
			case schema.Object:
				set = *p.Bytes() != nil
			}
			if !set {
				continue
			}
			if unionWritten == f.Name {
				return &jsonx.Error{Path: f.Name, Offset: -1, Err: fmt.Errorf("%w: more than one of %s is set (string, parts, activity content)", ErrInvalidField, f.Name)}
			}
			unionWritten = f.Name
		}
		if err := w.field(f, base); err != nil {
			return jsonx.WithKey(err, f.Name)
		}
	}
	if plan.Extra != nil {
		return w.extra(plan, *schema.As[map[string]json.RawMessage](base.Field(plan.Extra)))
	}
	return nil
}

// extra writes the members of an open object's Extra map that no field
// names, in sorted order.
func (w *writer) extra(plan *schema.Plan, m map[string]json.RawMessage) error {
	names := make([]string, 0, len(m))
	for k := range m {
		if fieldIndex(plan, k, 0) < 0 {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		v := m[k]
		if err := w.valid(v, 0); err != nil {
			return jsonx.WithKey(err, k)
		}
		if !w.first {
			w.b = append(w.b, ',')
		}
		w.first = false
		w.b = jsonx.AppendString(w.b, k)
		w.b = append(w.b, ':')
		w.raw(v)
	}
	return nil
}

func (w *writer) field(f *schema.Field, base schema.Pointer) error {
	p := base.Field(f)
	switch f.Kind {
	case schema.String, schema.Enum:
		v := *p.String()
		if !jsonx.ValidUTF8String(v) {
			return errInvalidUTF8()
		}
		if !f.Allows(v) {
			return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %s", ErrInvalidField, f.Unknown(v))}
		}
		w.key(f.Name)
		w.b = jsonx.AppendValidString(w.b, v) // validated above
	case schema.OptString:
		if v := *p.OptString(); v != nil {
			if !jsonx.ValidUTF8String(*v) {
				return errInvalidUTF8()
			}
			if !f.Allows(*v) {
				return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %s", ErrInvalidField, f.Unknown(*v))}
			}
			w.key(f.Name)
			w.b = jsonx.AppendValidString(w.b, *v) // validated above
		}
	case schema.OptBool:
		if v := *p.OptBool(); v != nil {
			w.key(f.Name)
			w.b = strconv.AppendBool(w.b, *v)
		}
	case schema.OptInt64:
		if v := *p.OptInt64(); v != nil {
			w.key(f.Name)
			w.b = strconv.AppendInt(w.b, *v, 10)
		}
	case schema.Value:
		if v := RawValue(*p.Bytes()); v != nil && !(f.Opt && jsonx.IsNull(v)) {
			if err := w.valid(v, 0); err != nil {
				return err
			}
			w.key(f.Name)
			w.raw(v)
		}
	case schema.Object:
		v := Object(*p.Bytes())
		if v == nil && f.Req {
			v = Object("{}") // a required object is never left out
		}
		if v != nil {
			if err := w.valid(v, jsonx.Object); err != nil {
				return err
			}
			w.key(f.Name)
			w.raw(v)
		}
	case schema.Message:
		w.key(f.Name)
		return w.object(f.Elem, p)
	case schema.OptMessage:
		if v := p.Elem(); !v.IsNil() {
			w.key(f.Name)
			return w.object(f.Elem, v)
		}
	case schema.Strings:
		v := *p.Strings()
		if len(v) == 0 && f.Opt {
			return nil
		}
		if !validStrings(v...) {
			return errInvalidUTF8()
		}
		w.key(f.Name)
		w.strings(v)
	case schema.Messages, schema.Parts:
		n := p.Len()
		if n == 0 && f.Opt && (f.Always == nil || !f.Always.Holds(base)) {
			return nil
		}
		if f.NilAbsent && p.Slice(f.Type).IsNil() {
			return nil
		}
		w.key(f.Name)
		w.b = append(w.b, '[')
		for i := range n {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			ep := p.Index(i, f.Elem)
			var err error
			if f.Kind == schema.Parts {
				err = w.contentPart(schema.As[ContentPart](ep))
			} else {
				err = w.object(f.Elem, ep)
			}
			if err != nil {
				return jsonx.WithIndex(err, i)
			}
		}
		w.b = append(w.b, ']')
		w.first = false
	}
	return nil
}

// errInvalidUTF8 refuses a string JSON could only carry by altering it (and
// the protobuf wire not at all).
// (A new error each time: paths are added to it on the way up.)
func errInvalidUTF8() error {
	return &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: string is not valid UTF-8", ErrInvalidField)}
}

// raw appends the text of a dynamic value, turning any CR or LF in it into
// a space: JSON strings cannot hold a raw line break, so those are
// whitespace between tokens (a pretty-printed value), and as spaces they
// keep the value's meaning while the event stays on one line, as an SSE
// data line and a JSON-lines record need.
func (w *writer) raw(v []byte) {
	start := len(w.b)
	w.b = append(w.b, v...)
	for i := bytes.IndexAny(w.b[start:], "\r\n"); i >= 0; i = bytes.IndexAny(w.b[start:], "\r\n") {
		start += i
		w.b[start] = ' '
	}
}

func (w *writer) strings(ss []string) {
	w.b = append(w.b, '[')
	for i, s := range ss {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonx.AppendString(w.b, s)
	}
	w.b = append(w.b, ']')
}

// validStrings reports whether every string of a hand-mapped value is UTF-8.
func validStrings(ss ...string) bool {
	for _, s := range ss {
		if !jsonx.ValidUTF8String(s) {
			return false
		}
	}
	return true
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (w *writer) contentPart(cp *ContentPart) error {
	if err := checkPart(cp); err != nil {
		return err
	}
	if !validStrings(cp.Type, cp.Text, deref(cp.ID)) || cp.Source != nil && !validStrings(cp.Source.Type, cp.Source.Value, deref(cp.Source.MimeType), deref(cp.Source.Provider)) {
		return errInvalidUTF8()
	}
	w.b = append(w.b, `{"type":`...)
	w.b = jsonx.AppendString(w.b, cp.Type)
	if cp.ID != nil {
		w.b = append(w.b, `,"id":`...)
		w.b = jsonx.AppendString(w.b, *cp.ID)
	}
	switch cp.Type {
	case PartText:
		w.b = append(w.b, `,"text":`...)
		w.b = jsonx.AppendString(w.b, cp.Text)
	default:
		if cp.Source != nil {
			s := cp.Source
			w.b = append(w.b, `,"source":{"type":`...)
			w.b = jsonx.AppendString(w.b, s.Type)
			w.b = append(w.b, `,"value":`...)
			w.b = jsonx.AppendString(w.b, s.Value)
			if s.MimeType != nil {
				w.b = append(w.b, `,"mimeType":`...)
				w.b = jsonx.AppendString(w.b, *s.MimeType)
			}
			if s.Provider != nil {
				w.b = append(w.b, `,"provider":`...)
				w.b = jsonx.AppendString(w.b, *s.Provider)
			}
			w.b = append(w.b, '}')
		}
	}
	if cp.Metadata != nil && !jsonx.IsNull(cp.Metadata) {
		if err := w.valid(cp.Metadata, 0); err != nil {
			return jsonx.WithKey(err, "metadata")
		}
		w.b = append(w.b, `,"metadata":`...)
		w.raw(cp.Metadata)
	}
	w.b = append(w.b, '}')
	w.first = false
	return nil
}
