// Package schema turns the `agui` struct tags of package event into field
// tables that the JSON reader/writer (package event) and the wire
// encoder/decoder (package codec) walk. Everything that varies by type lives
// here, attached to the table when it is built: enum names, allowed values,
// flattened messages, the hand-mapped content parts, and each type's
// validation rule. The walkers reach a struct's fields only through
// Pointer (pointer.go), the one place where the tables' offsets become
// memory.
//
// Tables are built once, at first use, and never change afterwards. A build
// that fails (a malformed tag: a programming error, reported by panic)
// leaves nothing behind.
//
// names_gen.go, written by internal/codecgen (go generate ./codec) from the
// tables, holds their name sets once, for the code generated into packages
// codec and event: IndexRole (the index of a name in set Role, -1 outside
// it), KnownRole (the set's names, for error messages) and, for an enum's
// set, EnumOp (its names by wire number).
package schema

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agwire/agwire/internal/jsonx"
)

// Kind says how a field is represented.
type Kind uint8

// Field kinds; see the comment at the top of event/types.go.
const (
	String     Kind = iota + 1 // string
	OptString                  // *string
	OptBool                    // *bool
	OptInt64                   // *int64
	Value                      // event.RawValue: google.protobuf.Value
	Object                     // event.Object: google.protobuf.Struct
	Message                    // T: nested message, always present
	OptMessage                 // *T: nested message, optional
	Messages                   // []T: repeated message
	Strings                    // []string: repeated string
	Enum                       // string on the JSON side, a protobuf enum (varint) on the wire
	Parts                      // []T of a hand-mapped oneof type (content parts)
	// Extra is the map[string]json.RawMessage of an open object, the
	// members no field names, in JSON form: tag `agui:"extra"`. It is
	// Plan.Extra, not one of Plan.Fields.
	Extra
)

// Limits a table is checked against when it is built: the JSON reader keeps
// one presence bit per field in a uint64, and ByNum is a dense index.
const (
	MaxFields   = 64
	MaxFieldNum = 1000
)

// Field is one tagged struct field.
type Field struct {
	Name   string       // JSON name
	Num    int32        // protobuf field number (0 for a flat container)
	Kind   Kind         // representation
	Opt    bool         // ",opt": JSON null/absence allowed, omitted when nil
	Req    bool         // ",req": a repeated field that JSON must carry
	Offset uintptr      // byte offset in the struct (in the flat container for Via fields)
	Type   reflect.Type // the Go field type
	Elem   *Plan        // element/struct plan for Message, OptMessage, Messages, Parts
	GoName string       // Go field name, for error messages
	// Union is true when several fields share this JSON name (a message's
	// "content" is a string, an array of parts or an object): JSON picks the
	// field by the value's kind, and at most one of them may be set.
	Union bool
	// Names are an Enum's JSON names, indexed by wire number; for a String
	// or OptString with ",in=SET", the values it may take. Nil: any string.
	Names []string
	// Flat marks an optional message whose fields the wire carries inline,
	// in the parent message, at their own numbers (RUN_FINISHED's outcome).
	// It appears in Plan.Fields (JSON) but not in Plan.Wire.
	Flat bool
	// Always, for an optional repeated field, names a sibling string field
	// and a value: when the sibling holds that value, JSON carries the list
	// even when empty (an interrupt outcome always lists its interrupts).
	// Tag option ",always=FIELD=VALUE".
	Always *Cond
	// NilAbsent, for a repeated field, makes JSON leave it out when the
	// slice is nil and write it when empty: absent and empty differ (a
	// request's resume list). Tag option ",nilabsent".
	NilAbsent bool
	// JSONOnly marks a field of a type with no wire form (capabilities):
	// tag number "-". It appears in Plan.Fields but not in Plan.Wire.
	JSONOnly bool
	// Via is set in Plan.Wire for a field of a flat container: the field
	// lives in the struct that the pointer at Via.Offset points to.
	Via *Field
	// Since is the protocol version that added the field, "" for 1.0: tag
	// option ",since=1.1". A reader or writer of an earlier version treats
	// it as a field no schema of its version describes (see Later).
	Since string
}

// Versions are the protocol versions a field's ",since=" may name, oldest
// first after 1.0.
var Versions = []string{"1.1"}

// Cond is a condition on a sibling string field.
type Cond struct {
	Field *Field // the sibling, in the same Plan.Fields
	Value string
	name  string // the sibling's Go name, until the plan is complete
}

// Holds reports whether the condition holds for the struct at base.
func (c *Cond) Holds(base Pointer) bool {
	return *base.Field(c.Field).String() == c.Value
}

// NameIndex returns the index of s in f.Names, or -1.
func (f *Field) NameIndex(s string) int { return slices.Index(f.Names, s) }

// Allows reports whether the field may hold s: any string when the field
// has no names, otherwise one of them.
func (f *Field) Allows(s string) bool { return f.Names == nil || slices.Contains(f.Names, s) }

// Unknown describes s, a string the field does not allow, for an error
// message; long strings are cut short.
func (f *Field) Unknown(s string) string {
	return UnknownName(f.Name, f.Kind == Enum, s, strings.Join(f.Names, ", "))
}

// UnknownName describes s, a string that field (its JSON name) does not
// allow, for an error message: known lists the names it allows, separated
// by ", "; enum says the names are a (patch) operation's.
func UnknownName(field string, enum bool, s, known string) string {
	what := "value"
	if enum {
		what = "operation"
	}
	return fmt.Sprintf("unknown %s %s %s (known: %s)", field, what, jsonx.Quote(s), known)
}

// Plan is the field table of one struct type.
type Plan struct {
	Type reflect.Type
	Size uintptr // the struct's size in bytes
	// Fields is the JSON view, in declaration order (which is also
	// field-number order).
	Fields []Field
	// Wire is the wire view, in field-number order: Fields without flat
	// containers, plus the containers' fields with Via set.
	Wire []Field
	// ByNum maps a protobuf field number to an index in Wire (-1 if none).
	ByNum []int16
	// Event is true for event structs, whose first field is the embedded Base.
	Event bool
	// Base is the plan of the embedded Base struct, for events.
	Base *Plan
	// Hand is true for the types mapped by hand (content parts, sources):
	// they have no tags and no Fields.
	Hand bool
	// Check enforces the rules protobuf cannot state (which content carrier
	// a role takes, which lists an outcome type carries, ...). Every path
	// calls it: JSON parse and marshal, wire encode and decode. Nil when the
	// type has none.
	Check func(Pointer) error
	// Extra, for an open object (a type with no wire form), holds the
	// members no field names; nil for a closed one.
	Extra *Field
	// FromWire fills, after a wire decode and before Check, what proto3
	// cannot carry: a required string that is empty is not written, so
	// decode restores it as "" rather than leaving it out. Nil when none.
	FromWire func(Pointer)
}

// FieldByNum returns the wire field with protobuf number n, or nil.
func (p *Plan) FieldByNum(n int32) *Field {
	if n <= 0 || int(n) >= len(p.ByNum) || p.ByNum[n] < 0 {
		return nil
	}
	return &p.Wire[p.ByNum[n]]
}

// Rules is what the event package attaches to its tables.
type Rules struct {
	// Check and FromWire by struct type (see Plan).
	Check    map[reflect.Type]func(Pointer) error
	FromWire map[reflect.Type]func(Pointer)
	// Enums by the name a tag's ",enum=NAME" option gives: JSON names
	// indexed by wire number.
	Enums map[string][]string
	// Sets by the name a tag's ",in=NAME" option gives: the values a string
	// field may take.
	Sets map[string][]string
	// Hand lists the types mapped by hand.
	Hand []reflect.Type
}

var (
	mu    sync.Mutex
	plans = map[reflect.Type]*Plan{}
	rules Rules
)

// For returns the plan of struct type t (not a pointer type), built with the
// rules of the last Prepare.
func For(t reflect.Type) *Plan {
	mu.Lock()
	defer mu.Unlock()
	b := builder{done: plans, tmp: map[reflect.Type]*Plan{}, rules: &rules}
	p := b.build(t)
	b.commit()
	return p
}

// Cache is a lock-free, read-only view of plans prepared ahead of time by
// the packages that use them.
type Cache map[reflect.Type]*Plan

// Prepare installs r and builds the plans for the given sample values
// (pointers to structs) and everything they reach, and returns them in a
// map for lock-free reads.
func Prepare(r Rules, samples ...any) Cache {
	mu.Lock()
	defer mu.Unlock()
	rules = r
	b := builder{done: plans, tmp: map[reflect.Type]*Plan{}, rules: &rules}
	for _, s := range samples {
		b.build(reflect.TypeOf(s).Elem())
	}
	b.commit()
	c := make(Cache, len(plans))
	for k, v := range plans {
		c[k] = v
	}
	return c
}

// builder builds plans into tmp and moves them to done only when every
// build succeeded: a panic on a bad tag leaves done as it was.
type builder struct {
	done, tmp map[reflect.Type]*Plan
	rules     *Rules
}

func (b *builder) commit() {
	for k, v := range b.tmp {
		b.done[k] = v
	}
}

func (b *builder) build(t reflect.Type) *Plan {
	if p, ok := b.done[t]; ok {
		return p
	}
	if p, ok := b.tmp[t]; ok {
		return p // recursion: filled in by the caller up the stack
	}
	p := &Plan{Type: t, Size: t.Size()}
	b.tmp[t] = p
	p.Check = b.rules.Check[t]
	p.FromWire = b.rules.FromWire[t]
	if slices.Contains(b.rules.Hand, t) {
		p.Hand = true
		return p
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Name == "Base" {
			p.Event = true
			p.Base = b.build(sf.Type)
			continue
		}
		tag, ok := sf.Tag.Lookup("agui")
		if !ok {
			continue
		}
		if tag == "extra" {
			if sf.Type.Kind() != reflect.Map || sf.Type.Key().Kind() != reflect.String || sf.Type.Elem().Name() != "RawMessage" || p.Extra != nil {
				panic(fmt.Sprintf("schema: %s.%s: extra must be the one map[string]json.RawMessage", t.Name(), sf.Name))
			}
			p.Extra = &Field{Kind: Extra, Offset: sf.Offset, Type: sf.Type, GoName: sf.Name}
			continue
		}
		p.Fields = append(p.Fields, b.field(t, sf, tag))
	}
	if len(p.Fields) > MaxFields {
		panic(fmt.Sprintf("schema: %s has %d fields, more than %d", t.Name(), len(p.Fields), MaxFields))
	}
	for i := range p.Fields {
		f := &p.Fields[i]
		for j := range p.Fields {
			if i != j && f.Name == p.Fields[j].Name {
				f.Union = true
			}
			if c := f.Always; c != nil && p.Fields[j].GoName == c.name {
				c.Field = &p.Fields[j]
			}
		}
		if c := f.Always; c != nil && (c.Field == nil || c.Field.Kind != String || !f.Opt) {
			panic(fmt.Sprintf("schema: %s.%s: always= needs an optional list and a string field %q", t.Name(), f.GoName, c.name))
		}
		if f.JSONOnly {
			continue
		}
		if !f.Flat {
			p.Wire = append(p.Wire, *f)
			continue
		}
		for _, g := range f.Elem.Wire {
			if g.Via != nil {
				panic(fmt.Sprintf("schema: %s.%s: a flat message cannot hold another", t.Name(), f.GoName))
			}
			g.Via = f
			p.Wire = append(p.Wire, g)
		}
	}
	slices.SortStableFunc(p.Wire, func(x, y Field) int { return int(x.Num - y.Num) })
	maxNum := int32(0)
	for i, f := range p.Wire {
		if f.Num < 1 || f.Num > MaxFieldNum {
			panic(fmt.Sprintf("schema: %s.%s: field number %d outside 1..%d", t.Name(), f.GoName, f.Num, MaxFieldNum))
		}
		if i > 0 && p.Wire[i-1].Num == f.Num {
			panic(fmt.Sprintf("schema: %s: field number %d used twice", t.Name(), f.Num))
		}
		maxNum = max(maxNum, f.Num)
	}
	p.ByNum = make([]int16, maxNum+1)
	for i := range p.ByNum {
		p.ByNum[i] = -1
	}
	for i, f := range p.Wire {
		p.ByNum[f.Num] = int16(i)
	}
	return p
}

func (b *builder) field(t reflect.Type, sf reflect.StructField, tag string) Field {
	bad := func(why string) {
		panic(fmt.Sprintf("schema: bad tag on %s.%s: %q: %s", t.Name(), sf.Name, tag, why))
	}
	parts := strings.Split(tag, ",")
	f := Field{Name: parts[0], Offset: sf.Offset, Type: sf.Type, GoName: sf.Name}
	if f.Name == "" {
		bad("no JSON name")
	}
	opts := parts[1:]
	switch {
	case len(opts) > 0 && opts[0] == "flat":
		f.Flat = true
	case len(opts) > 0 && opts[0] == "-":
		f.JSONOnly = true
	default:
		if len(opts) == 0 {
			bad("no field number")
		}
		num, err := strconv.Atoi(opts[0])
		if err != nil {
			bad("field number is not a number")
		}
		f.Num = int32(num)
	}
	enum, object := "", false
	for _, o := range opts[1:] {
		name, arg, _ := strings.Cut(o, "=")
		switch name {
		case "opt":
			f.Opt = true
		case "req":
			f.Req = true
		case "nilabsent":
			f.NilAbsent = true
		case "object":
			object = true
		case "enum":
			if f.Names = b.rules.Enums[arg]; f.Names == nil {
				bad("unknown enum " + arg)
			}
			enum = arg
		case "always":
			field, value, ok := strings.Cut(arg, "=")
			if !ok {
				bad("always needs FIELD=VALUE")
			}
			f.Always = &Cond{name: field, Value: value}
		case "in":
			if f.Names = b.rules.Sets[arg]; f.Names == nil {
				bad("unknown value set " + arg)
			}
		case "since":
			if !slices.Contains(Versions, arg) {
				bad("unknown version " + arg)
			}
			f.Since = arg
		default:
			bad("unknown option " + o)
		}
	}
	f.Kind, f.Elem = b.kindOf(sf.Type)
	switch {
	case f.Kind == 0:
		bad("unsupported type " + sf.Type.String())
	case object && f.Kind != Value:
		bad("object applies to a json.RawMessage")
	case object:
		f.Kind = Object
	case f.Flat && f.Kind != OptMessage:
		bad("only an optional message can be flat")
	case enum != "" && f.Kind != String:
		bad("an enum must be a string field")
	case enum != "":
		f.Kind = Enum
	case f.Names != nil && f.Kind != String && f.Kind != OptString:
		bad("a value set applies to string fields")
	}
	return f
}

func (b *builder) kindOf(t reflect.Type) (Kind, *Plan) {
	switch t.Kind() {
	case reflect.String:
		return String, nil
	case reflect.Pointer:
		e := t.Elem()
		switch e.Kind() {
		case reflect.String:
			return OptString, nil
		case reflect.Bool:
			return OptBool, nil
		case reflect.Int64:
			return OptInt64, nil
		case reflect.Struct:
			return OptMessage, b.build(e)
		}
	case reflect.Slice:
		e := t.Elem()
		switch {
		case t.Name() == "RawValue", t.Name() == "RawMessage":
			return Value, nil
		case t.Name() == "Object":
			return Object, nil
		case e.Kind() == reflect.String:
			return Strings, nil
		case e.Kind() == reflect.Struct:
			p := b.build(e)
			if p.Hand {
				return Parts, p
			}
			return Messages, p
		}
	case reflect.Struct:
		return Message, b.build(t)
	}
	return 0, nil
}

// Later walks the struct at base (plan p) and everything it holds, and calls
// fn with the JSON Pointer of each field that is set and was added after
// 1.0 (Field.Since), and the field's pointer: what a 1.0 peer does not
// know. Only optional strings carry a version today; a versioned field of
// another kind panics, so that adding one is a decision.
//
// fn also gets the struct that holds the field and its plan (for a rule
// between the field and its siblings).
func Later(p *Plan, base Pointer, path string, fn func(path string, f *Field, at Pointer, holder *Plan, in Pointer)) {
	if !p.Versioned() {
		return
	}
	if p.Base != nil {
		Later(p.Base, base, path, fn)
	}
	for i := range p.Fields {
		f := &p.Fields[i]
		at := base.Field(f)
		if f.Since != "" {
			if f.Kind != OptString {
				panic(fmt.Sprintf("schema: %s.%s: a versioned field must be an optional string", p.Type.Name(), f.GoName))
			}
			if *at.OptString() != nil {
				fn(path+"/"+f.Name, f, at, p, base)
			}
			continue
		}
		switch f.Kind {
		case Message:
			Later(f.Elem, at, path+"/"+f.Name, fn)
		case OptMessage:
			if e := at.Elem(); !e.IsNil() {
				sub := path + "/" + f.Name
				if f.Flat {
					sub = path
				}
				Later(f.Elem, e, sub, fn)
			}
		case Messages:
			for j, n := 0, at.Len(); j < n; j++ {
				Later(f.Elem, at.Index(j, f.Elem), path+"/"+f.Name+"/"+strconv.Itoa(j), fn)
			}
		}
	}
}

// versioned caches Plan.Versioned: plans never change once built.
var versioned sync.Map // *Plan → bool

// Versioned reports whether the struct p describes, or anything it holds,
// has a field a version after 1.0 added: Later has nothing to walk in the
// others (most event types).
func (p *Plan) Versioned() bool {
	if v, ok := versioned.Load(p); ok {
		return v.(bool)
	}
	v := p.hasVersioned(map[*Plan]bool{})
	versioned.Store(p, v)
	return v
}

func (p *Plan) hasVersioned(seen map[*Plan]bool) bool {
	if p.Hand || seen[p] {
		return false
	}
	seen[p] = true
	if p.Base != nil && p.Base.hasVersioned(seen) {
		return true
	}
	for i := range p.Fields {
		f := &p.Fields[i]
		if f.Since != "" || (f.Elem != nil && f.Elem.hasVersioned(seen)) {
			return true
		}
	}
	return false
}
