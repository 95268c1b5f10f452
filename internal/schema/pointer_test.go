package schema_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/schema"
)

// Test types with one field of every Kind. The kinds of RawValue and
// Object are told by their type names, as for package event's.
type (
	RawValue []byte
	Object   []byte
)

type ptrInner struct {
	Name  string   `agui:"name,1"`
	Items []string `agui:"items,2,opt"`
	// Pad makes the element size differ from a string's, so that Index
	// stepping by the wrong size cannot land on a right answer.
	Pad [3]int64
}

type ptrFlat struct {
	Note *string `agui:"note,20,opt"`
	Rank *int64  `agui:"rank,21,opt"`
}

type ptrAll struct {
	Str    string              `agui:"str,1"`
	OptStr *string             `agui:"optStr,2,opt"`
	OptB   *bool               `agui:"optB,3,opt"`
	OptI   *int64              `agui:"optI,4,opt"`
	Val    RawValue            `agui:"val,5,opt"`
	Obj    Object              `agui:"obj,6,opt"`
	Msg    ptrInner            `agui:"msg,7"`
	OptMsg *ptrInner           `agui:"optMsg,8,opt"`
	Msgs   []ptrInner          `agui:"msgs,9,opt,always=Str=list"`
	Strs   []string            `agui:"strs,10,opt"`
	Op     string              `agui:"op,11,enum=patchop"`
	Parts  []event.ContentPart `agui:"parts,12,opt"`
	Flat   *ptrFlat            `agui:"flat,flat,opt"`
}

func field(t *testing.T, p *schema.Plan, goName string) *schema.Field {
	t.Helper()
	for i := range p.Fields {
		if p.Fields[i].GoName == goName {
			return &p.Fields[i]
		}
	}
	t.Fatalf("%s has no field %s", p.Type, goName)
	return nil
}

func wireField(t *testing.T, p *schema.Plan, goName string) *schema.Field {
	t.Helper()
	for i := range p.Wire {
		if p.Wire[i].GoName == goName {
			return &p.Wire[i]
		}
	}
	t.Fatalf("%s has no wire field %s", p.Type, goName)
	return nil
}

// same reports whether two typed pointers are the same address.
func same[A, B any](a *A, b *B) bool { return unsafe.Pointer(a) == unsafe.Pointer(b) }

// TestPointerAccessors: every accessor, applied to the field the table
// names, reaches that Go field (the same address), and what is written
// through it is what the Go field then holds.
func TestPointerAccessors(t *testing.T) {
	plan := schema.For(reflect.TypeFor[ptrAll]())
	var v ptrAll
	base := schema.PointerTo(&v)
	if base.IsNil() || !schema.PointerTo[ptrAll](nil).IsNil() || !(schema.Pointer{}).IsNil() {
		t.Fatal("IsNil is wrong")
	}
	if schema.As[ptrAll](base) != &v {
		t.Fatal("As does not give back the pointer PointerTo was made from")
	}
	if got := schema.PointerOf(reflect.ValueOf(&v)); schema.As[ptrAll](got) != &v {
		t.Fatal("PointerOf does not give the address a reflect.Value holds")
	}
	at := func(name string) schema.Pointer { return base.Field(field(t, plan, name)) }

	if s := at("Str").String(); !same(s, &v.Str) {
		t.Error("String: wrong address")
	} else if *s = "x"; v.Str != "x" {
		t.Error("String: write not seen")
	}
	if s := at("Op").String(); !same(s, &v.Op) {
		t.Error("String (enum): wrong address")
	}
	if p := at("OptStr").OptString(); !same(p, &v.OptStr) {
		t.Error("OptString: wrong address")
	} else if *p = event.Ptr("o"); v.OptStr == nil || *v.OptStr != "o" {
		t.Error("OptString: write not seen")
	}
	if p := at("OptB").OptBool(); !same(p, &v.OptB) {
		t.Error("OptBool: wrong address")
	} else if *p = event.Ptr(true); v.OptB == nil || !*v.OptB {
		t.Error("OptBool: write not seen")
	}
	if p := at("OptI").OptInt64(); !same(p, &v.OptI) {
		t.Error("OptInt64: wrong address")
	} else if *p = event.Ptr(int64(-7)); v.OptI == nil || *v.OptI != -7 {
		t.Error("OptInt64: write not seen")
	}
	if p := at("Val").Bytes(); !same(p, &v.Val) {
		t.Error("Bytes (Value): wrong address")
	} else if *p = []byte("[1]"); string(v.Val) != "[1]" {
		t.Error("Bytes (Value): write not seen")
	}
	if p := at("Obj").Bytes(); !same(p, &v.Obj) {
		t.Error("Bytes (Object): wrong address")
	} else if *p = []byte("{}"); string(v.Obj) != "{}" {
		t.Error("Bytes (Object): write not seen")
	}
	if p := at("Strs").Strings(); !same(p, &v.Strs) {
		t.Error("Strings: wrong address")
	} else if *p = []string{"a", "b"}; len(v.Strs) != 2 || v.Strs[1] != "b" {
		t.Error("Strings: write not seen")
	}

	// A nested struct is reached in place; its own fields through its plan.
	msg := field(t, plan, "Msg")
	inner := base.Field(msg)
	if schema.As[ptrInner](inner) != &v.Msg {
		t.Error("Field (Message): wrong address")
	}
	if s := inner.Field(field(t, msg.Elem, "Name")).String(); !same(s, &v.Msg.Name) {
		t.Error("nested String: wrong address")
	}

	// A pointer to a struct: nil, allocated, set, read back.
	om := field(t, plan, "OptMsg")
	opt := base.Field(om)
	if !opt.Elem().IsNil() {
		t.Error("Elem of a nil *T is not nil")
	}
	n := schema.New(om.Elem)
	if n.IsNil() || schema.As[ptrInner](n).Name != "" {
		t.Error("New does not give a zero struct")
	}
	schema.As[ptrInner](n).Name = "new"
	opt.SetElem(n)
	if v.OptMsg == nil || v.OptMsg.Name != "new" || schema.As[ptrInner](opt.Elem()) != v.OptMsg {
		t.Error("SetElem/Elem do not reach the *T field")
	}

	// Slices of structs: length, elements by index, made by type.
	ms := field(t, plan, "Msgs")
	sp := base.Field(ms)
	if sp.Len() != 0 {
		t.Error("Len of a nil slice")
	}
	sp.MakeSlice(ms.Type, 3)
	if len(v.Msgs) != 3 || cap(v.Msgs) != 3 || sp.Len() != 3 {
		t.Fatalf("MakeSlice: len %d cap %d, Len %d", len(v.Msgs), cap(v.Msgs), sp.Len())
	}
	for i := range 3 {
		if e := sp.Index(i, ms.Elem); schema.As[ptrInner](e) != &v.Msgs[i] {
			t.Errorf("Index(%d): wrong address", i)
		}
	}
	schema.MakeSliceOf[ptrInner](sp, 2)
	if len(v.Msgs) != 2 || sp.Len() != 2 || schema.As[ptrInner](sp.Index(1, ms.Elem)) != &v.Msgs[1] {
		t.Error("MakeSliceOf does not set the field")
	}
	sv := sp.Slice(ms.Type)
	sv.Set(reflect.Append(sv, reflect.ValueOf(ptrInner{Name: "third"})))
	if len(v.Msgs) != 3 || v.Msgs[2].Name != "third" {
		t.Error("Slice does not give the field as a settable value")
	}
	parts := field(t, plan, "Parts")
	pp := base.Field(parts)
	schema.MakeSliceOf[event.ContentPart](pp, 2)
	if !parts.Elem.Hand || schema.As[event.ContentPart](pp.Index(1, parts.Elem)) != &v.Parts[1] {
		t.Error("Index over content parts: wrong address")
	}

	// A flat container's field lives in the struct the container points to.
	note := wireField(t, plan, "Note")
	if note.Via == nil {
		t.Fatal("Note is not reached through its container")
	}
	v.Flat = &ptrFlat{}
	if p := base.Field(note.Via).Elem().Field(note).OptString(); !same(p, &v.Flat.Note) {
		t.Error("flat field: wrong address")
	}
	rank := wireField(t, plan, "Rank")
	if p := base.Field(rank.Via).Elem().Field(rank).OptInt64(); !same(p, &v.Flat.Rank) {
		t.Error("flat field: wrong address")
	}

	// A condition reads its sibling string through the same accessors.
	c := ms.Always
	if c == nil {
		t.Fatal("Msgs has no always= condition")
	}
	v.Str = "list"
	if !c.Holds(base) {
		t.Error("Holds: false when the sibling holds the value")
	}
	v.Str = "other"
	if c.Holds(base) {
		t.Error("Holds: true when the sibling differs")
	}
}

// TestRulesTakePointers: a type's rule, attached to its table, sees the
// value it is called on.
func TestRulesTakePointers(t *testing.T) {
	plan := schema.For(reflect.TypeFor[event.Source]())
	if plan.Check == nil {
		t.Fatal("Source has no rule")
	}
	if err := plan.Check(schema.PointerTo(&event.Source{Type: event.SourceURL, Value: "https://x"})); err != nil {
		t.Errorf("valid source refused: %v", err)
	}
	if err := plan.Check(schema.PointerTo(&event.Source{Type: "nope", Value: "https://x"})); err == nil {
		t.Error("invalid source accepted: the rule did not see the value")
	}
}

// TestOffsetsOnlyInPointer: outside pointer.go, no code of the packages
// that walk the tables turns an address into a typed pointer or moves it
// by an offset; they use Pointer.
func TestOffsetsOnlyInPointer(t *testing.T) {
	forbidden := []*regexp.Regexp{
		regexp.MustCompile(`unsafe\.Add\(`),
		regexp.MustCompile(`\(\*unsafe\.Pointer\)`),
		regexp.MustCompile(`reflect\.NewAt\(`),
		regexp.MustCompile(`\.UnsafePointer\(\)`),
		regexp.MustCompile(`\bunsafe\.Pointer\(\w+\)`),                              // an address made untyped, to be cast elsewhere
		regexp.MustCompile(`\(\*{1,2}[\w.\[\]]+\)\([\w.]*(p|ptr|at|target|base)\)`), // a cast of a field address
	}
	dirs := []string{"../../event", "../../codec", "."}
	n := 0
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") || filepath.Base(name) == "pointer.go" && dir == "." {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for i, line := range strings.Split(string(src), "\n") {
				for _, re := range forbidden {
					if re.MatchString(line) {
						t.Errorf("%s:%d: %s (use schema.Pointer)", name, i+1, strings.TrimSpace(line))
					}
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d files read: the walkers' sources were not found", n)
	}
}
