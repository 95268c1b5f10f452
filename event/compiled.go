package event

import (
	"sync"
	"unicode/utf8"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
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
	parseCompiled func(*jsonx.Scanner) (Event, bool)
	writeCompiled func(*writer, Event) bool
)

// compiledScanners recycles the compiled parsers' scanners.
var compiledScanners = sync.Pool{New: func() any { return new(jsonx.Scanner) }}

// parseFast reads data with the compiled parsers; the event aliases data.
func parseFast(maxDepth int, data []byte) (Event, bool) {
	if parseCompiled == nil {
		return nil, false
	}
	s := compiledScanners.Get().(*jsonx.Scanner)
	s.MaxDepth = maxDepth
	s.AliasStrings = true
	s.Reset(data)
	ev, ok := parseCompiled(s)
	s.Reset(nil)
	compiledScanners.Put(s)
	return ev, ok
}

// parsePart reads a content part at s with the interpreter's part reader,
// strict (an unknown member gives up like any other non-canonical text);
// the part aliases the scanner's input.
func parsePart(s *jsonx.Scanner, cp *ContentPart) bool {
	if s.Peek() != jsonx.Object {
		return false
	}
	raw, err := s.Raw()
	if err != nil {
		return false
	}
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
	w := writer{b: dst}
	if !writeCompiled(&w, ev) {
		return dst, false
	}
	return w.b, true
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
	w.check(utf8.ValidString(s))
	w.b = jsonx.AppendValidString(w.b, s)
}

// strs writes a list of strings that must be valid UTF-8.
func (w *writer) strs(ss []string) {
	w.check(validStrings(ss...))
	w.strings(ss)
}

// value writes a dynamic value, which must be valid JSON (of kind want,
// unless 0), as the interpreter does.
func (w *writer) value(v []byte, want jsonx.Kind) {
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
