package assemble

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agwire/agwire/event"
)

// The value model: state and activity content are held as a tree of nodes
// that keeps what agwire's exact-text values keep — member order and the
// spelling of every number — so a value that no patch touched is written
// back exactly as it arrived (string escapes aside: strings are written
// with the shortest escapes).

type kind uint8

const (
	kNull kind = iota
	kBool
	kNum
	kStr
	kArr
	kObj
)

type node struct {
	k kind
	s string // bool: "true"/"false"; number: its literal text; string: its decoded text
	a []*node
	o []member
}

type member struct {
	key string
	val *node
}

// maxValueDepth bounds the nesting of values this package parses (the event
// parser already refuses deeper input; this guards direct callers).
const maxValueDepth = 512

var errValueSyntax = errors.New("invalid JSON value")

// parseValue reads one JSON value (with optional surrounding whitespace).
func parseValue(b []byte) (*node, error) {
	p := parser{b: b}
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, p.fail("trailing data")
	}
	return n, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w at byte %d: %s", errValueSyntax, p.i, what)
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) lit(word string, n *node) (*node, error) {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return nil, p.fail("unexpected character")
	}
	p.i += len(word)
	return n, nil
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxValueDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == 'n':
		return p.lit("null", &node{k: kNull})
	case c == 't':
		return p.lit("true", &node{k: kBool, s: "true"})
	case c == 'f':
		return p.lit("false", &node{k: kBool, s: "false"})
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &node{k: kStr, s: s}, nil
	case c == '[':
		p.i++
		n := &node{k: kArr, a: []*node{}}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return n, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.a = append(n.a, v)
			p.ws()
			if p.i >= len(p.b) {
				return nil, p.fail("unexpected end")
			}
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.b[p.i] == ']' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected , or ]")
		}
	case c == '{':
		p.i++
		n := &node{k: kObj, o: []member{}}
		var seen map[string]int // built once the object is large, so parsing stays linear
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return n, nil
		}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return nil, p.fail("expected a key")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.fail("expected :")
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			// A repeated key: the last value wins, in the first one's place,
			// as in JavaScript.
			switch {
			case seen != nil:
				if j, ok := seen[k]; ok {
					n.o[j].val = v
				} else {
					seen[k] = len(n.o)
					n.o = append(n.o, member{k, v})
				}
			case len(n.o) < 16:
				n.set(k, v)
			default:
				seen = make(map[string]int, 2*len(n.o))
				for j, m := range n.o {
					seen[m.key] = j
				}
				if j, ok := seen[k]; ok {
					n.o[j].val = v
				} else {
					seen[k] = len(n.o)
					n.o = append(n.o, member{k, v})
				}
			}
			p.ws()
			if p.i >= len(p.b) {
				return nil, p.fail("unexpected end")
			}
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.b[p.i] == '}' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected , or }")
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		if c == '-' {
			p.i++
		}
		digits := func() int {
			s := p.i
			for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
				p.i++
			}
			return p.i - s
		}
		if p.i < len(p.b) && p.b[p.i] == '0' {
			p.i++
		} else if digits() == 0 {
			return nil, p.fail("bad number")
		}
		if p.i < len(p.b) && p.b[p.i] == '.' {
			p.i++
			if digits() == 0 {
				return nil, p.fail("bad number")
			}
		}
		if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
			p.i++
			if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
				p.i++
			}
			if digits() == 0 {
				return nil, p.fail("bad number")
			}
		}
		return &node{k: kNum, s: string(p.b[start:p.i])}, nil
	}
	return nil, p.fail("unexpected character")
}

func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.b) { // fast path: no escapes
		c := p.b[p.i]
		if c == '"' {
			s := string(p.b[start:p.i])
			p.i++
			if !utf8.ValidString(s) {
				return "", p.fail("invalid UTF-8")
			}
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	buf := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return "", p.fail("invalid UTF-8")
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.b) {
			break
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					p.i += 2
					if r2, ok = p.hex4(); !ok {
						return "", p.fail("bad \\u escape")
					}
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", p.fail("unpaired surrogate")
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.fail("bad escape")
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// get returns the member index of key, or -1.
func (n *node) index(key string) int {
	for i := range n.o {
		if n.o[i].key == key {
			return i
		}
	}
	return -1
}

// set replaces the value under key in place, or appends the member.
func (n *node) set(key string, v *node) {
	if i := n.index(key); i >= 0 {
		n.o[i].val = v
		return
	}
	n.o = append(n.o, member{key, v})
}

// appendJSON writes the node's JSON text.
func (n *node) appendJSON(dst []byte) []byte {
	switch n.k {
	case kNull:
		return append(dst, "null"...)
	case kBool, kNum:
		return append(dst, n.s...)
	case kStr:
		return appendString(dst, n.s)
	case kArr:
		dst = append(dst, '[')
		for i, v := range n.a {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = v.appendJSON(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, m := range n.o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, m.key)
		dst = append(dst, ':')
		dst = m.val.appendJSON(dst)
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// raw returns the node's JSON text as an event.RawValue.
func (n *node) raw() event.RawValue { return n.appendJSON(nil) }

// clone deep-copies the node, charging one unit to w and to copies per node.
func (n *node) clone(w, copies *work) (*node, error) {
	if err := w.spend(1); err != nil {
		return nil, err
	}
	if err := copies.spend(1); err != nil {
		return nil, err
	}
	c := &node{k: n.k, s: n.s}
	switch n.k {
	case kArr:
		c.a = make([]*node, len(n.a))
		for i, v := range n.a {
			cv, err := v.clone(w, copies)
			if err != nil {
				return nil, err
			}
			c.a[i] = cv
		}
	case kObj:
		c.o = make([]member, len(n.o))
		for i, m := range n.o {
			cv, err := m.val.clone(w, copies)
			if err != nil {
				return nil, err
			}
			c.o[i] = member{m.key, cv}
		}
	}
	return c, nil
}

// equal compares two values as JSON values: member order ignored, numbers
// by the doubles they denote (as JavaScript compares them).
func (n *node) equal(m *node, w *work) (bool, error) {
	if err := w.spend(1); err != nil {
		return false, err
	}
	if n.k != m.k {
		return false, nil
	}
	switch n.k {
	case kNull:
		return true, nil
	case kBool, kStr:
		return n.s == m.s, nil
	case kNum:
		return numEqual(n.s, m.s), nil
	case kArr:
		if len(n.a) != len(m.a) {
			return false, nil
		}
		for i := range n.a {
			if eq, err := n.a[i].equal(m.a[i], w); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	if len(n.o) != len(m.o) {
		return false, nil
	}
	for _, mem := range n.o {
		if err := w.spend(len(m.o)); err != nil {
			return false, err
		}
		j := m.index(mem.key)
		if j < 0 {
			return false, nil
		}
		if eq, err := mem.val.equal(m.o[j].val, w); !eq || err != nil {
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
