package assemble

import (
	"math"
	"strconv"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// The value model: state and activity content are held as a jsonx.Value
// tree, which keeps member order and the spelling of every number, so a value
// that no patch touched is written back as it arrived (strings are written
// as JSON.stringify writes them).
type node = jsonx.Value

// ErrInexactNumber: a number of a JSON value no double holds exactly,
// which agwire's encoder and a JavaScript peer would change. It arrives
// wrapped in the *ApplyError of the event that carried the value; test
// with errors.Is. An object that names a key twice is event.ErrDuplicateKey.
var ErrInexactNumber = jsonx.ErrInexactNumber

// maxValueDepth bounds the nesting of values this package parses (the event
// parser already refuses deeper input; this guards direct callers).
const maxValueDepth = 512

// parseValue reads one JSON value as agwire's encoder reads a dynamic value:
// no byte order mark, no repeated key (jsonx.ErrDuplicateKey), no number a
// double does not hold exactly (jsonx.ErrInexactNumber).
func parseValue(b []byte) (*node, error) {
	return jsonx.ParseTree(b, jsonx.TreeOptions{MaxDepth: maxValueDepth})
}

// raw returns the node's JSON text as an event.RawValue.
func raw(n *node) event.RawValue { return n.AppendJSON(nil) }

// clone deep-copies the node, charging one unit to w and to copies per node.
func clone(n *node, w, copies *work) (*node, error) {
	if err := w.spend(1); err != nil {
		return nil, err
	}
	if err := copies.spend(1); err != nil {
		return nil, err
	}
	c := &node{Kind: n.Kind, Text: n.Text}
	switch n.Kind {
	case jsonx.Array:
		c.Elems = make([]*node, len(n.Elems))
		for i, v := range n.Elems {
			cv, err := clone(v, w, copies)
			if err != nil {
				return nil, err
			}
			c.Elems[i] = cv
		}
	case jsonx.Object:
		c.Members = make([]jsonx.Member, len(n.Members))
		for i, m := range n.Members {
			cv, err := clone(m.Value, w, copies)
			if err != nil {
				return nil, err
			}
			c.Members[i] = jsonx.Member{Key: m.Key, Value: cv}
		}
	}
	return c, nil
}

// equal compares two values as JSON values: member order ignored, numbers
// by the doubles they denote (as JavaScript compares them).
func equal(n, m *node, w *work) (bool, error) {
	if err := w.spend(1); err != nil {
		return false, err
	}
	if n.Kind != m.Kind {
		return false, nil
	}
	switch n.Kind {
	case jsonx.Null, jsonx.True, jsonx.False:
		return true, nil
	case jsonx.String:
		return n.Text == m.Text, nil
	case jsonx.Number:
		return numEqual(n.Text, m.Text), nil
	case jsonx.Array:
		if len(n.Elems) != len(m.Elems) {
			return false, nil
		}
		for i := range n.Elems {
			if eq, err := equal(n.Elems[i], m.Elems[i], w); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	if len(n.Members) != len(m.Members) {
		return false, nil
	}
	for _, mem := range n.Members {
		if err := w.spend(len(m.Members)); err != nil {
			return false, err
		}
		j := m.Index(mem.Key)
		if j < 0 {
			return false, nil
		}
		if eq, err := equal(mem.Value, m.Members[j].Value, w); !eq || err != nil {
			return false, err
		}
	}
	return true, nil
}

func numEqual(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil { // out of double range: compare the text
		return false
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return false
	}
	return x == y
}
