package event

import (
	"sync"
	"unsafe"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
	"github.com/agwire/agwire/internal/slab"
)

// Support for the compiled JSON path (json_gen.go, written by
// internal/codecgen from the field tables): a parser and a writer per
// event type, straight-line code. They take the canonical form only and
// report nothing: on any other text, or any failed check, they give up, and
// the interpreter (parse.go, marshal.go) reads or writes the event from the
// start and reports what is wrong. Both paths give the same event, the same
// bytes, the same error; the interpreter alone serves Consume, the request
// body, the parts of an event and the types without a compiled form
// (THINKING_*).

// The compiled paths, which json_gen.go's init sets. Nil while the file is
// absent: the generator builds this package, so a json_gen.go that no
// longer compiles can be deleted and written again by go generate.
var (
	parseCompiled func(*parsing) (Event, bool)
	writeCompiled func(dst []byte, ev Event, trusted bool) ([]byte, bool)
)

func init() {
	schema.ParseTransient = parseTransient
	schema.AppendTrustedJSON = appendTrusted
}

// appendTrusted writes ev, which package codec's decoder produced, with the
// compiled writers in trusted mode (see schema.AppendTrustedJSON).
func appendTrusted(dst []byte, ev any) ([]byte, bool) {
	e, ok := ev.(Event)
	if !ok || writeCompiled == nil {
		return dst, false
	}
	return writeCompiled(dst, e, true)
}

// parsing is the state of one compiled parse: the scanner, and the slabs
// the optional scalars of the event are carved from (one allocation for
// many *string, as package codec's decoder does), which the event keeps.
//
// A transient parse (codec's JSON → wire conversion, which encodes the
// event and drops it) keeps nothing: the event is one of the state's own
// slots (json_gen.go's slots, one per event type), the slabs are reused,
// and Release clears what the event pointed to before the state is pooled
// again.
type parsing struct {
	jsonx.Scanner
	slabs     slab.Slabs
	owned     bool // Parse: strings and values go into an arena the event keeps
	transient bool
	slots     any          // *slots of json_gen.go, made on first use
	used      slab.Clearer // the slot a transient parse filled
	lists     map[any]any  // listKey[T] → *scratch[T]
	usedLists []slab.Clearer
}

// parsings recycles the compiled parsers' state (the scanner's; the slabs
// belong to the events).
var parsings = sync.Pool{New: func() any { return new(parsing) }}

// parseOwned reads data with the compiled parsers into memory of the
// event's own, leaving data free to change: every string and dynamic value
// is copied (unescaped, for a string, in the same pass that reads it) into
// one buffer the size of data, which the event keeps. That is one
// allocation, as copying data whole would be, and one pass over each
// string instead of two.
func parseOwned(maxDepth int, data []byte) (Event, bool) {
	if parseCompiled == nil {
		return nil, false
	}
	s := parsings.Get().(*parsing)
	s.MaxDepth = maxDepth
	s.AliasStrings = false
	s.Arena = true
	s.owned = true
	s.Reset(data)
	s.UseArena(make([]byte, 0, len(data)))
	ev, ok := parseCompiled(s)
	s.UseArena(nil) // the event's now
	s.owned = false
	s.Reset(nil)
	s.slabs.Forget()
	parsings.Put(s)
	return ev, ok
}

// keep returns raw, a value read from the scanner's input, as the event
// must hold it: in an owned parse, copied into the event's arena.
func keep(s *parsing, raw []byte) []byte {
	if s.owned {
		return s.Keep(raw)
	}
	return raw
}

// parseTransient is schema.ParseTransient: a compiled parse whose event
// lives in the parse's own state, until Release.
func parseTransient(maxDepth int, data []byte) (any, schema.Transient, bool) {
	if parseCompiled == nil {
		return nil, nil, false
	}
	s := parsings.Get().(*parsing)
	s.MaxDepth = maxDepth
	s.AliasStrings = true
	s.Arena = true // unescaped strings too live until Release's Reset
	s.transient = true
	s.Reset(data)
	ev, ok := parseCompiled(s)
	if !ok {
		s.Release()
		return nil, nil, false
	}
	return ev, s, true
}

// Release ends a transient parse: the event's slot and the slabs are
// cleared (so a pooled state keeps no input alive) and the state goes back
// to the pool. The event must not be used after it.
func (s *parsing) Release() {
	if s.used != nil {
		s.used.Clear()
		s.used = nil
	}
	for _, sc := range s.usedLists {
		sc.Clear()
	}
	clear(s.usedLists)
	s.usedLists = s.usedLists[:0]
	s.Reset(nil)
	s.slabs.Reuse()
	s.transient = false
	parsings.Put(s)
}

// fresh returns the zero T a generated parser fills: the state's own
// slot in a transient parse, else a new one for the caller to keep.
func fresh[T any](s *parsing, slot *T) *T {
	return slab.Fresh(s.transient, slot, &s.used)
}

// parsePart reads a content part at s with the interpreter's part reader,
// strict (an unknown member gives up like any other non-canonical text);
// the part aliases the scanner's input, or in an owned parse its copy.
func parsePart(s *parsing, cp *ContentPart) bool {
	if s.Peek() != jsonx.Object {
		return false
	}
	raw, err := s.Raw()
	if err != nil {
		return false
	}
	raw = keep(s, raw)
	r := readers.Get().(*reader)
	defer readers.Put(r)
	r.Parser = Parser{}
	r.s.MaxDepth = s.MaxDepth
	r.s.AliasStrings = true
	r.s.Reset(raw)
	defer r.s.Reset(nil)
	return r.contentPart(cp) == nil && r.s.End() == nil
}

// appendFast writes ev with the compiled writers, false when they do not
// write it.
func appendFast(dst []byte, ev Event) ([]byte, bool) {
	if writeCompiled == nil {
		return dst, false
	}
	return writeCompiled(dst, ev, false)
}

// check marks the writer bad unless ok.
func (w *writer) check(ok bool) {
	if !ok {
		w.bad = true
	}
}

// rule runs the validation rule of plan on the struct at p.
func (w *writer) rule(plan *schema.Plan, p schema.Pointer) {
	w.check(plan.Check(p) == nil)
}

// atMostOne reports whether at most one carrier of a union is set.
func atMostOne(set ...bool) bool {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n <= 1
}

// member writes a JSON key (with its colon), after a comma if one is due.
func (w *writer) member(comma bool, key string) {
	if comma {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, key...)
}

// str writes a string that must be valid UTF-8.
func (w *writer) str(s string) {
	if !w.trusted {
		w.check(jsonx.ValidUTF8String(s))
	}
	w.b = jsonx.AppendValidString(w.b, s)
}

// strs writes a list of strings that must be valid UTF-8.
func (w *writer) strs(ss []string) {
	if !w.trusted {
		w.check(validStrings(ss...))
	}
	w.strings(ss)
}

// value writes a dynamic value, which must be valid JSON (of kind want,
// unless 0), as the interpreter does.
func (w *writer) value(v []byte, want jsonx.Kind) {
	if w.trusted {
		w.b = append(w.b, v...) // the decoder's own text: one line
		return
	}
	if validJSON(v, want) != nil {
		w.bad = true
		return
	}
	w.raw(v)
}

// requiredObject is v, or the empty object for nil: a required object is
// never left out.
func requiredObject(v Object) Object {
	if v == nil {
		return Object("{}")
	}
	return v
}

// part writes a content part with the interpreter's part writer.
func (w *writer) part(cp *ContentPart) {
	first := w.first
	if w.contentPart(cp) != nil {
		w.bad = true
	}
	w.first = first
}

// The compiled parsers' readers: each reads one member's value of its
// field's JSON kind into the field, false when the value is of another
// kind or wrong (the parser then gives up).

// once marks member bit of seen read, false when it was read before.
func once(seen *uint64, bit uint) bool {
	m := uint64(1) << bit
	if *seen&m != 0 {
		return false
	}
	*seen |= m
	return true
}

func readString(s *parsing, out *string) bool {
	if s.Peek() != jsonx.String {
		return false
	}
	v, err := s.String()
	*out = v
	return err == nil
}

func readOptString(s *parsing, out **string) bool {
	if s.Peek() != jsonx.String {
		return false
	}
	v, err := s.String()
	*out = s.slabs.String(v)
	return err == nil
}

func readBool(s *parsing, out **bool) bool {
	if k := s.Peek(); k != jsonx.True && k != jsonx.False {
		return false
	}
	v, err := s.Bool()
	*out = s.slabs.Bool(v)
	return err == nil
}

func readInt64(s *parsing, out **int64) bool {
	if s.Peek() != jsonx.Number {
		return false
	}
	text, err := s.Number()
	if err != nil {
		return false
	}
	v, ok := jsonx.ParseInt64(text)
	*out = s.slabs.Int64(v)
	return ok
}

// readValue reads a dynamic value; on an optional one, null is absence.
func readValue[T ~[]byte](s *parsing, out *T, opt bool) bool {
	if opt && s.Peek() == jsonx.Null {
		return s.Null() == nil
	}
	raw, err := s.Raw()
	*out = keep(s, raw)
	return err == nil
}

func readObject[T ~[]byte](s *parsing, out *T) bool {
	if s.Peek() != jsonx.Object {
		return false
	}
	raw, err := s.Raw()
	*out = keep(s, raw)
	return err == nil
}

// readOpt reads an optional message with its parser.
func readOpt[T any](s *parsing, out **T, parse func(*parsing, *T) bool) bool {
	v := new(T)
	if !parse(s, v) {
		return false
	}
	*out = v
	return true
}

// readList reads an array of messages, each with parse.
func readList[T any](s *parsing, out *[]T, parse func(*parsing, *T) bool) bool {
	if s.ArrayStart() != nil {
		return false
	}
	sc := scratchOf[T](s)
	if sc.busy {
		// A list of T inside a list of T (no AG-UI type nests so): it
		// grows a slice of its own.
		return readListInto(s, out, []T{}, parse)
	}
	sc.busy = true
	start := len(sc.buf)
	if start == 0 && s.transient {
		s.usedLists = append(s.usedLists, sc)
	}
	ok := readListInto(s, &sc.buf, sc.buf, parse)
	sc.busy = false
	v := sc.buf[start:len(sc.buf):len(sc.buf)]
	if v == nil {
		v = []T{} // present, empty
	}
	if s.transient {
		// The event dies before Release: it may point into the scratch,
		// and the next list of T goes after it.
		*out = v
		return ok
	}
	*out = append(make([]T, 0, len(v)), v...)
	sc.truncate(start)
	return ok
}

// readListInto reads the elements of the array at s (past its '[') onto
// v, which it stores in out, as far as it gets.
func readListInto[T any](s *parsing, out *[]T, v []T, parse func(*parsing, *T) bool) bool {
	ok := true
	for first := true; ; first = false {
		more, err := s.ArrayNext(first)
		if err != nil || !more {
			ok = err == nil
			break
		}
		var zero T
		v = append(v, zero)
		if !parse(s, &v[len(v)-1]) {
			ok = false
			break
		}
	}
	*out = v
	return ok
}

// A list is read into a scratch slice of its element type that the parse
// state keeps (one per type, found by a zero-size key), then copied once
// into a slice of its exact length, instead of growing a slice of its own
// by doubling (for a list of large structs such as messages, the copies
// and the cleared memory of the doubling cost more than the parse). A
// transient parse keeps its lists in the scratch until Release.
type listKey[T any] struct{}

type scratch[T any] struct {
	buf  []T
	busy bool
}

// maxScratchBytes bounds the memory a pooled parse state keeps for one
// element type; a larger list's scratch is dropped after it.
const maxScratchBytes = 64 << 10

func scratchOf[T any](s *parsing) *scratch[T] {
	sc, _ := s.lists[listKey[T]{}].(*scratch[T])
	if sc == nil {
		if s.lists == nil {
			s.lists = make(map[any]any)
		}
		sc = new(scratch[T])
		s.lists[listKey[T]{}] = sc
	}
	return sc
}

// truncate clears the elements from n on (so the scratch keeps no input
// alive) and drops them.
func (sc *scratch[T]) truncate(n int) {
	clear(sc.buf[n:])
	sc.buf = sc.buf[:n]
	var zero T
	if n == 0 && uintptr(cap(sc.buf))*unsafe.Sizeof(zero) > maxScratchBytes {
		sc.buf = nil
	}
}

// Clear empties the scratch when a transient parse is released.
func (sc *scratch[T]) Clear() { sc.truncate(0) }

func readStrings(s *parsing, out *[]string) bool {
	if s.ArrayStart() != nil {
		return false
	}
	v := []string{}
	for first := true; ; first = false {
		more, err := s.ArrayNext(first)
		if err != nil {
			return false
		}
		if !more {
			break
		}
		var e string
		if !readString(s, &e) {
			return false
		}
		v = append(v, e)
	}
	*out = v
	return true
}
