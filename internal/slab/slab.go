// Package slab hands out the targets of optional scalar fields (*string,
// *bool, *int64) carved from shared blocks, so that a decoded or parsed
// event with many optional fields costs a few allocations, not one per
// field. The blocks belong to the events that point into them: Forget
// drops them before the next event. Reuse recycles the current blocks, for
// a caller that knows no event points into them any more. Fresh hands out
// a recycled value (an event of a pooled state's own) or a new one.
package slab

// Slabs holds the current blocks. The zero value is ready to use.
type Slabs struct {
	strs  []string
	bools []bool
	ints  []int64
}

// next is the size of the next block: doubling from 4 up to 64.
func next(prev int) int { return min(max(2*prev, 4), 64) }

// String returns a pointer to a copy of v.
func (s *Slabs) String(v string) *string {
	if len(s.strs) == cap(s.strs) {
		s.strs = make([]string, 0, next(cap(s.strs)))
	}
	s.strs = append(s.strs, v)
	return &s.strs[len(s.strs)-1]
}

// Bool returns a pointer to a copy of v.
func (s *Slabs) Bool(v bool) *bool {
	if len(s.bools) == cap(s.bools) {
		s.bools = make([]bool, 0, next(cap(s.bools)))
	}
	s.bools = append(s.bools, v)
	return &s.bools[len(s.bools)-1]
}

// Int64 returns a pointer to a copy of v.
func (s *Slabs) Int64(v int64) *int64 {
	if len(s.ints) == cap(s.ints) {
		s.ints = make([]int64, 0, next(cap(s.ints)))
	}
	s.ints = append(s.ints, v)
	return &s.ints[len(s.ints)-1]
}

// Forget drops the blocks: they belong to the events that point into them.
func (s *Slabs) Forget() { *s = Slabs{} }

// Reuse empties the current blocks for the next event, keeping their
// memory: only for a caller whose events that point into them are gone (an
// event parsed, encoded and dropped). The strings they held are cleared so
// that a recycled block keeps no input alive.
func (s *Slabs) Reuse() {
	clear(s.strs)
	s.strs, s.bools, s.ints = s.strs[:0], s.bools[:0], s.ints[:0]
}

// Clearer clears a recycled value once nothing points to it any more.
type Clearer interface{ Clear() }

// Fresh returns the zero T a parse or decode fills. With recycle it is
// slot, memory of the caller's pooled state, and *used is set to what
// clears it when the value is dropped (so that a pooled state keeps no
// input alive); else it is a new T for the caller to keep.
func Fresh[T any](recycle bool, slot *T, used *Clearer) *T {
	if !recycle {
		return new(T)
	}
	var zero T
	*slot = zero
	*used = zeroer[T]{slot}
	return slot
}

// zeroer clears a slot; a one-pointer struct, it is stored in an interface
// without an allocation.
type zeroer[T any] struct{ p *T }

func (z zeroer[T]) Clear() {
	var zero T
	*z.p = zero
}
