package event

import (
	"errors"

	"github.com/agwire/agwire/internal/jsonx"
)

// RawValue is a JSON value kept as its exact text, so that key order and
// number spelling survive until the value has to become protobuf. Nil means
// absent; the JSON literal null is the four bytes "null".
type RawValue []byte

// MarshalJSON returns the value's text ("null" when absent).
func (v RawValue) MarshalJSON() ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	return v, nil
}

// UnmarshalJSON keeps a copy of the text.
func (v *RawValue) UnmarshalJSON(b []byte) error {
	*v = append((*v)[:0:0], b...)
	return nil
}

// Object is a JSON object kept as its exact text (key order, number
// spelling, null values under keys). It is the form of metadata and of
// activity content. Nil means absent; "{}" is an empty object, which is
// present.
type Object []byte

// MarshalJSON returns the object's text ("null" when absent).
func (o Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	return o, nil
}

// UnmarshalJSON keeps a copy of the text; JSON null and non-objects are refused.
func (o *Object) UnmarshalJSON(b []byte) error {
	var s jsonx.Scanner
	s.Reset(b)
	switch s.Peek() {
	case jsonx.Object:
	case jsonx.Null:
		return ErrNullMetadata
	default:
		return errNotObject
	}
	*o = append((*o)[:0:0], b...)
	return nil
}

var errNotObject = errors.New("not a JSON object")

// Each calls fn for every member of the object in order, with the unescaped
// key and the value's exact text. It stops at the first error fn returns.
func (o Object) Each(fn func(key string, value RawValue) error) error {
	if o == nil {
		return nil
	}
	var s jsonx.Scanner
	s.Reset(o)
	return s.Object(func(key string) error {
		raw, err := s.Raw()
		if err != nil {
			return err
		}
		return fn(key, RawValue(raw))
	})
}

// Get returns the value under key and whether the key is present. When a
// key repeats, the last occurrence wins, as in JavaScript.
func (o Object) Get(key string) (RawValue, bool) {
	var found RawValue
	ok := false
	_ = o.Each(func(k string, v RawValue) error {
		if k == key {
			found, ok = v, true
		}
		return nil
	})
	return found, ok
}

// Keys returns the object's keys in order.
func (o Object) Keys() []string {
	var keys []string
	_ = o.Each(func(k string, _ RawValue) error {
		keys = append(keys, k)
		return nil
	})
	return keys
}
