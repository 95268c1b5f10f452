package assemble

import (
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// MergeMetadata folds incoming metadata into existing metadata the way an
// AG-UI consumer accumulates it on a message or tool call: key by key, the
// last write wins, never recursively — a key whose value is an object or an
// array (the reserved "ag-ui" key included) is replaced whole.
//
//   - incoming absent (nil): the result is existing, unchanged;
//   - existing absent: the result is a copy of incoming, so an empty incoming
//     object gives "{}" (present, and equal in meaning to absent);
//   - otherwise existing's keys keep their order, a key present in both takes
//     incoming's value in existing's place, and incoming's new keys follow in
//     their own order; an empty incoming object changes nothing.
//
// A null under a key is a value like any other and is kept. The result is a
// new Object; neither input is modified. Both inputs must be JSON objects
// (as every Object the event parser produces is).
func MergeMetadata(existing, incoming event.Object) event.Object {
	if incoming == nil {
		if existing == nil {
			return nil
		}
		return append(event.Object(nil), existing...)
	}
	if existing == nil {
		return append(event.Object(nil), incoming...)
	}
	ex := members(existing)
	in := members(incoming)
	if len(in.keys) == 0 {
		return append(event.Object(nil), existing...)
	}
	out := make([]byte, 0, len(existing)+len(incoming))
	out = append(out, '{')
	write := func(k string, v event.RawValue) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonx.AppendString(out, k)
		out = append(out, ':')
		out = append(out, v...)
	}
	for _, k := range ex.keys {
		if v, ok := in.vals[k]; ok {
			write(k, v)
		} else {
			write(k, ex.vals[k])
		}
	}
	for _, k := range in.keys {
		if _, ok := ex.vals[k]; !ok {
			write(k, in.vals[k])
		}
	}
	return append(out, '}')
}

// orderedMembers is an object's distinct keys in order of first appearance,
// each with its last value (as JavaScript reads an object with a repeated key).
type orderedMembers struct {
	keys []string
	vals map[string]event.RawValue
}

func members(o event.Object) orderedMembers {
	m := orderedMembers{vals: map[string]event.RawValue{}}
	_ = o.Each(func(k string, v event.RawValue) error {
		if _, ok := m.vals[k]; !ok {
			m.keys = append(m.keys, k)
		}
		m.vals[k] = v
		return nil
	})
	return m
}
