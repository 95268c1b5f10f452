package jsonx

import (
	"errors"
	"fmt"
)

// Value is a JSON value held as a tree, for code that edits a document in
// place (JSON Patch) and writes it back. It keeps what agwire's exact-text
// values keep — member order and the spelling of every number — so a value
// nothing changed is written back as it was read, string escapes aside
// (strings are written as JSON.stringify writes them, see AppendString).
//
// Kind is Null, True, False, Number, String, Array or Object. Text is a
// number's literal text or a string's decoded text; Elems are an array's
// elements (never nil for an array); Members an object's members in order
// (never nil for an object), each key once.
type Value struct {
	Kind    Kind
	Text    string
	Elems   []*Value
	Members []Member
}

// Member is one member of an object Value.
type Member struct {
	Key   string
	Value *Value
}

// ValueSize is the memory a Value of each kind occupies beside its text and
// its element and member slices, in bytes, for callers that bound what a tree
// holds: the struct itself (allocated in the 80-byte size class) and the
// pointer to it in its parent.
const ValueSize = 88

// MemberSize is the memory one object member occupies in its slice.
const MemberSize = 24

// ErrInexactNumber reports a number no double holds exactly (too many
// digits, out of range): the protobuf form of a JSON value (a
// google.protobuf.Value) and a JavaScript peer would hold a different number.
var ErrInexactNumber = errors.New("number is not exactly representable as a double")

// TreeOptions configure ParseTree. The zero value is strict: nesting up to
// DefaultMaxDepth, no repeated key, no number a double does not hold exactly.
type TreeOptions struct {
	// MaxDepth bounds the nesting; 0 means DefaultMaxDepth.
	MaxDepth int
	// Inexact accepts numbers no double holds exactly, keeping their text.
	Inexact bool
}

// ParseTree reads one JSON text (surrounding whitespace allowed, nothing
// else: no byte order mark, no trailing data) into a tree. It accepts what
// agwire's encoder accepts for a dynamic value: an object that names a key
// twice fails with ErrDuplicateKey and, unless opts.Inexact, a number no
// double holds exactly with ErrInexactNumber; errors are *Error with the path
// of the value that failed. Its cost is linear in len(b) (duplicate keys are
// found through a map once an object has more than a few members).
func ParseTree(b []byte, opts TreeOptions) (*Value, error) {
	t := treeReader{opts: opts}
	t.s.Reset(b)
	t.s.MaxDepth = opts.MaxDepth
	v, err := t.value()
	if err == nil {
		err = t.s.End()
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

type treeReader struct {
	s    Scanner
	opts TreeOptions
}

// linearKeys is the object size up to which repeated keys are looked for by
// a scan of the members; beyond it a map is built.
const linearKeys = 16

func (t *treeReader) value() (*Value, error) {
	switch k := t.s.Peek(); k {
	case Null:
		return &Value{Kind: Null}, t.s.Null()
	case True, False:
		_, err := t.s.Bool()
		return &Value{Kind: k}, err
	case Number:
		text, err := t.s.Number()
		if err != nil {
			return nil, err
		}
		if !t.opts.Inexact {
			if _, exact := ParseNumber(text); !exact {
				return nil, &Error{Offset: t.s.pos - len(text), Err: fmt.Errorf("%w: %s", ErrInexactNumber, QuoteBytes(text))}
			}
		}
		return &Value{Kind: Number, Text: string(text)}, nil
	case String:
		s, err := t.s.String()
		return &Value{Kind: String, Text: s}, err
	case Array:
		v := &Value{Kind: Array, Elems: []*Value{}}
		err := t.s.Array(func(int) error {
			e, err := t.value()
			if err != nil {
				return err
			}
			v.Elems = append(v.Elems, e)
			return nil
		})
		return v, err
	case Object:
		v := &Value{Kind: Object, Members: []Member{}}
		var seen map[string]struct{}
		err := t.s.Object(func(key string) error {
			dup := false
			switch {
			case seen != nil:
				_, dup = seen[key]
			case len(v.Members) < linearKeys:
				dup = v.Index(key) >= 0
			default:
				seen = make(map[string]struct{}, 2*len(v.Members))
				for _, m := range v.Members {
					seen[m.Key] = struct{}{}
				}
				_, dup = seen[key]
			}
			if dup {
				return &Error{Offset: t.s.pos, Err: fmt.Errorf("%w %s", ErrDuplicateKey, Quote(key))}
			}
			if seen != nil {
				seen[key] = struct{}{}
			}
			e, err := t.value()
			if err != nil {
				return err
			}
			v.Members = append(v.Members, Member{key, e})
			return nil
		})
		return v, err
	}
	return nil, t.s.Skip() // reports the syntax error
}

// Index returns the position of key among an object's members, or -1.
func (v *Value) Index(key string) int {
	for i := range v.Members {
		if v.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// AppendJSON appends the value's JSON text: no whitespace, members in
// order, numbers as their text, strings escaped as JSON.stringify escapes
// them.
func (v *Value) AppendJSON(dst []byte) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case True:
		return append(dst, "true"...)
	case False:
		return append(dst, "false"...)
	case Number:
		return append(dst, v.Text...)
	case String:
		return AppendString(dst, v.Text)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.AppendJSON(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, m := range v.Members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, m.Key)
		dst = append(dst, ':')
		dst = m.Value.AppendJSON(dst)
	}
	return append(dst, '}')
}

// Size returns the memory the tree occupies, by the measures of ValueSize
// and MemberSize plus its text, and the number of values in it.
func (v *Value) Size() (bytes, values int) {
	bytes, values = ValueSize+len(v.Text), 1
	for _, e := range v.Elems {
		b, n := e.Size()
		bytes, values = bytes+b, values+n
	}
	for _, m := range v.Members {
		b, n := m.Value.Size()
		bytes, values = bytes+b+MemberSize+len(m.Key), values+n
	}
	return bytes, values
}

// CheckValue reads one JSON text as ParseTree does and reports the same
// errors, without building the tree.
func CheckValue(b []byte, opts TreeOptions) error {
	t := treeReader{opts: opts}
	t.s.Reset(b)
	t.s.MaxDepth = opts.MaxDepth
	if err := t.check(); err != nil {
		return err
	}
	return t.s.End()
}

func (t *treeReader) check() error {
	switch t.s.Peek() {
	case Number:
		text, err := t.s.Number()
		if err != nil {
			return err
		}
		if !t.opts.Inexact {
			if _, exact := ParseNumber(text); !exact {
				return &Error{Offset: t.s.pos - len(text), Err: fmt.Errorf("%w: %s", ErrInexactNumber, QuoteBytes(text))}
			}
		}
		return nil
	case Array:
		return t.s.Array(func(int) error { return t.check() })
	case Object:
		var keys []string
		var seen map[string]struct{}
		return t.s.Object(func(key string) error {
			dup := false
			switch {
			case seen != nil:
				_, dup = seen[key]
			case len(keys) < linearKeys:
				for _, k := range keys {
					dup = dup || k == key
				}
			default:
				seen = make(map[string]struct{}, 2*len(keys))
				for _, k := range keys {
					seen[k] = struct{}{}
				}
				_, dup = seen[key]
			}
			if dup {
				return &Error{Offset: t.s.pos, Err: fmt.Errorf("%w %s", ErrDuplicateKey, Quote(key))}
			}
			if seen != nil {
				seen[key] = struct{}{}
			} else {
				keys = append(keys, key)
			}
			return t.check()
		})
	}
	return t.s.Skip()
}
