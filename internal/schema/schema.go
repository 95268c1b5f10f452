// Package schema turns the `agui` struct tags of package event into field
// tables that the JSON reader/writer (package event) and the wire
// encoder/decoder (package codec) walk. Tables are built once, at first use,
// and never change afterwards.
package schema

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
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
	Custom                     // a type with hand-written mapping (outcomes)
)

// Field is one tagged struct field.
type Field struct {
	Name   string       // JSON name
	Num    int32        // protobuf field number
	Kind   Kind         // representation
	Opt    bool         // ",opt": JSON null/absence allowed, omitted when empty
	Req    bool         // ",req": a repeated field that JSON must carry
	Offset uintptr      // byte offset in the struct
	Type   reflect.Type // the Go field type
	Elem   *Plan        // element/struct plan for Message, OptMessage, Messages
	GoName string       // Go field name, for error messages
	// Union is true when several fields share this JSON name (a message's
	// "content" is a string, an array of parts or an object): JSON picks the
	// field by the value's kind, and at most one of them may be set.
	Union bool
}

// Ptr returns a pointer to the field inside the struct at base.
func (f *Field) Ptr(base unsafe.Pointer) unsafe.Pointer { return unsafe.Add(base, f.Offset) }

// Plan is the field table of one struct type.
type Plan struct {
	Type   reflect.Type
	Fields []Field
	// ByNum maps a protobuf field number to an index in Fields (-1 if none).
	ByNum []int8
	// Event is true for event structs, whose first field is the embedded Base.
	Event bool
	// Base is the plan of the embedded Base struct, for events.
	Base *Plan
	// Hand is true for the types mapped by hand (content parts, sources,
	// outcomes): they have no tags and no Fields.
	Hand bool
}

// FieldByNum returns the field with protobuf number n, or nil.
func (p *Plan) FieldByNum(n int32) *Field {
	if n <= 0 || int(n) >= len(p.ByNum) || p.ByNum[n] < 0 {
		return nil
	}
	return &p.Fields[p.ByNum[n]]
}

var (
	mu    sync.Mutex
	plans = map[reflect.Type]*Plan{}
	// custom holds the types mapped by hand (no tags).
	customTypes = map[string]bool{"RunOutcome": true, "SubagentOutcome": true, "ContentPart": true, "Source": true}
)

// For returns the plan of struct type t (not a pointer type).
func For(t reflect.Type) *Plan {
	mu.Lock()
	defer mu.Unlock()
	return build(t)
}

// Cache is a lock-free, read-only view of plans prepared ahead of time by
// the packages that use them.
type Cache map[reflect.Type]*Plan

// Prepare builds the plans for the given sample values (pointers to structs)
// and everything they reach, and returns them in a map for lock-free reads.
func Prepare(samples ...any) Cache {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range samples {
		build(reflect.TypeOf(s).Elem())
	}
	c := make(Cache, len(plans))
	for k, v := range plans {
		c[k] = v
	}
	return c
}

func build(t reflect.Type) *Plan {
	if p, ok := plans[t]; ok {
		return p
	}
	p := &Plan{Type: t}
	plans[t] = p
	if customTypes[t.Name()] {
		p.Hand = true
		return p
	}
	maxNum := int32(0)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Name == "Base" {
			p.Event = true
			p.Base = build(sf.Type)
			continue
		}
		tag, ok := sf.Tag.Lookup("agui")
		if !ok {
			continue
		}
		parts := strings.Split(tag, ",")
		num, err := strconv.Atoi(parts[1])
		if err != nil {
			panic(fmt.Sprintf("schema: bad tag on %s.%s: %q", t.Name(), sf.Name, tag))
		}
		f := Field{Name: parts[0], Num: int32(num), Offset: sf.Offset, Type: sf.Type, GoName: sf.Name}
		for _, o := range parts[2:] {
			switch o {
			case "opt":
				f.Opt = true
			case "req":
				f.Req = true
			default:
				panic(fmt.Sprintf("schema: bad tag option on %s.%s: %q", t.Name(), sf.Name, o))
			}
		}
		f.Kind, f.Elem = kindOf(sf.Type)
		if f.Kind == 0 {
			panic(fmt.Sprintf("schema: unsupported type %s of %s.%s", sf.Type, t.Name(), sf.Name))
		}
		if f.Num > maxNum {
			maxNum = f.Num
		}
		p.Fields = append(p.Fields, f)
	}
	// Fields are kept in protobuf field-number order: the order the wire
	// wants them written in.
	sort.SliceStable(p.Fields, func(i, j int) bool { return p.Fields[i].Num < p.Fields[j].Num })
	for i := range p.Fields {
		for j := range p.Fields {
			if i != j && p.Fields[i].Name == p.Fields[j].Name {
				p.Fields[i].Union = true
			}
		}
	}
	p.ByNum = make([]int8, maxNum+1)
	for i := range p.ByNum {
		p.ByNum[i] = -1
	}
	for i, f := range p.Fields {
		p.ByNum[f.Num] = int8(i)
	}
	return p
}

func kindOf(t reflect.Type) (Kind, *Plan) {
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
			if customTypes[e.Name()] {
				return Custom, nil
			}
			return OptMessage, build(e)
		}
	case reflect.Slice:
		e := t.Elem()
		switch {
		case t.Name() == "RawValue":
			return Value, nil
		case t.Name() == "Object":
			return Object, nil
		case e.Kind() == reflect.Struct:
			return Messages, build(e)
		}
	case reflect.Struct:
		return Message, build(t)
	}
	return 0, nil
}
