package schema

import (
	"reflect"
	"unsafe"
)

// Pointer is the address of a struct that a Plan describes, or of one of
// its fields. It is the only place where the tables' offsets become memory:
// the walkers in packages event and codec move from a struct to its fields
// with Field and read or write them through the accessor that matches the
// field's Kind, and never convert an address themselves.
//
// A Pointer carries no type: each accessor trusts that the memory it
// reaches holds the representation its name states (the one a Field of that
// Kind has), which the tables guarantee when the Pointer was made from a
// value of the Plan's type and moved only with Field, Elem, Index and New.
type Pointer struct{ p unsafe.Pointer }

// PointerTo returns the Pointer of v (nil gives the nil Pointer).
func PointerTo[T any](v *T) Pointer { return Pointer{unsafe.Pointer(v)} }

// PointerOf returns the Pointer that v, a reflect.Value of pointer kind,
// holds.
func PointerOf(v reflect.Value) Pointer { return Pointer{v.UnsafePointer()} }

// As returns p as a *T. T must be the type p was made from (a Plan's Type,
// for a Check or FromWire rule): the rules are written against Go types.
func As[T any](p Pointer) *T { return (*T)(p.p) }

// IsNil reports whether p is the nil Pointer.
func (p Pointer) IsNil() bool { return p.p == nil }

// Field returns the address of field f inside the struct at p. For a field
// of a flat container (f.Via set), p is the container's address.
func (p Pointer) Field(f *Field) Pointer { return Pointer{unsafe.Add(p.p, f.Offset)} }

// String returns the field at p of Kind String or Enum.
func (p Pointer) String() *string { return (*string)(p.p) }

// OptString returns the field at p of Kind OptString.
func (p Pointer) OptString() **string { return (**string)(p.p) }

// OptBool returns the field at p of Kind OptBool.
func (p Pointer) OptBool() **bool { return (**bool)(p.p) }

// OptInt64 returns the field at p of Kind OptInt64.
func (p Pointer) OptInt64() **int64 { return (**int64)(p.p) }

// Bytes returns the field at p of Kind Value or Object (event.RawValue and
// event.Object are byte slices).
func (p Pointer) Bytes() *[]byte { return (*[]byte)(p.p) }

// Strings returns the field at p of Kind Strings.
func (p Pointer) Strings() *[]string { return (*[]string)(p.p) }

// Elem returns the struct that the field at p, of Kind OptMessage (a
// pointer to a struct), points to: the nil Pointer when it is nil.
func (p Pointer) Elem() Pointer { return Pointer{*(*unsafe.Pointer)(p.p)} }

// SetElem points the field at p, of Kind OptMessage, to the struct at v.
func (p Pointer) SetElem(v Pointer) { *(*unsafe.Pointer)(p.p) = v.p }

// New allocates a zero struct of plan's type and returns its Pointer.
func New(plan *Plan) Pointer { return Pointer{reflect.New(plan.Type).UnsafePointer()} }

// Len returns the length of the slice at p, a field of Kind Messages,
// Parts or Strings.
func (p Pointer) Len() int { return len(*(*[]byte)(p.p)) }

// Index returns element i of the slice at p, a field of Kind Messages or
// Parts whose element table is elem. i must be in range.
func (p Pointer) Index(i int, elem *Plan) Pointer {
	data := unsafe.Pointer(unsafe.SliceData(*(*[]byte)(p.p)))
	return Pointer{unsafe.Add(data, uintptr(i)*elem.Size)}
}

// MakeSlice sets the slice at p, of type t (a repeated field's Type), to a
// new slice of n zero elements.
func (p Pointer) MakeSlice(t reflect.Type, n int) {
	reflect.NewAt(t, p.p).Elem().Set(reflect.MakeSlice(t, n, n))
}

// MakeSliceOf sets the []E at p to a new slice of n zero elements: what
// MakeSlice does, without reflection (which allocates a slice header
// besides the array), for an element type known where it is called.
func MakeSliceOf[E any](p Pointer, n int) { *(*[]E)(p.p) = make([]E, n) }

// Slice returns the slice at p, of type t (a repeated field's Type), as a
// settable reflect.Value, for a reader that grows it element by element.
func (p Pointer) Slice(t reflect.Type) reflect.Value { return reflect.NewAt(t, p.p).Elem() }
