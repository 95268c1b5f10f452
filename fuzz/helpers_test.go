package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// ---- allocation accounting -------------------------------------------------

// allocated runs fn and returns the bytes the whole process allocated
// meanwhile (runtime.MemStats.TotalAlloc). Fuzz workers run one input at a
// time with -parallel 1, and the tests of this package do not run in
// parallel, so the figure is fn's own, plus a little noise from the fuzzing
// engine and the runtime; the bounds below leave room for that (allocSlack).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocSlack is the allowance for allocations that are not the measured
// code's: the fuzzing engine's bookkeeping, the race detector, a sync.Pool
// that dropped its item (the race detector drops pooled items at random).
const allocSlack = 64 << 10

// ---- chunked readers -------------------------------------------------------

// chunkReader hands out data in chunks whose sizes come from next (1 byte,
// 7 bytes, random...), then returns end (io.EOF unless a test wants a
// network error). It counts what it handed out, so a test can check that a
// reader never reads ahead.
type chunkReader struct {
	data []byte
	pos  int
	next func() int
	end  error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.pos >= len(c.data) {
		return 0, c.end
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := min(len(p), len(c.data)-c.pos, max(1, c.next()))
	copy(p, c.data[c.pos:c.pos+n])
	c.pos += n
	return n, nil
}

// chunking is one way of cutting a stream into reads.
type chunking struct {
	name string
	make func() func() int
}

// chunkings returns the reads every stream target tries: one byte at a time,
// seven bytes at a time, and sizes drawn from a generator seeded by seed.
func chunkings(seed uint64) []chunking {
	return []chunking{
		{"1-byte", func() func() int { return func() int { return 1 } }},
		{"7-byte", func() func() int { return func() int { return 7 } }},
		{"random", func() func() int {
			r := rand.New(rand.NewPCG(seed, seed>>7^0x9e3779b97f4a7c15))
			return func() int {
				if r.IntN(4) == 0 {
					return 1 + r.IntN(4096)
				}
				return 1 + r.IntN(16)
			}
		}},
	}
}

func newChunkReader(data []byte, c chunking, end error) *chunkReader {
	if end == nil {
		end = io.EOF
	}
	return &chunkReader{data: data, next: c.make(), end: end}
}

// ---- an ordered JSON tree ---------------------------------------------------

// jnode is a JSON value with object members in their order of appearance
// (duplicates kept), numbers and strings as text. It is built with
// encoding/json's tokenizer, independently of agwire's scanner.
type jnode struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	text  string
	keys  []string
	elems []*jnode // object values (parallel to keys) or array elements
}

func parseTree(b []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := treeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the value")
	}
	return n, nil
}

func treeValue(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &jnode{kind: 'o'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := treeValue(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				n.elems = append(n.elems, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &jnode{kind: 'a'}
			for dec.More() {
				v, err := treeValue(dec)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
			_, err := dec.Token()
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &jnode{kind: 's', text: t}, nil
	case json.Number:
		return &jnode{kind: 'n', text: string(t)}, nil
	case bool:
		return &jnode{kind: 'b', text: strconv.FormatBool(t)}, nil
	case nil:
		return &jnode{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("unexpected token %T", tok)
}

// get returns the value of the last member named key (JavaScript's rule)
// and whether there is one.
func (n *jnode) get(key string) (*jnode, bool) {
	if n == nil || n.kind != 'o' {
		return nil, false
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.elems[i], true
		}
	}
	return nil, false
}

func (n *jnode) str(key string) string {
	v, ok := n.get(key)
	if !ok || v.kind != 's' {
		return ""
	}
	return v.text
}

func (n *jnode) String() string {
	var sb strings.Builder
	n.write(&sb)
	return sb.String()
}

func (n *jnode) write(sb *strings.Builder) {
	switch n.kind {
	case 'o':
		sb.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Quote(k))
			sb.WriteByte(':')
			n.elems[i].write(sb)
		}
		sb.WriteByte('}')
	case 'a':
		sb.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			e.write(sb)
		}
		sb.WriteByte(']')
	case 's':
		sb.WriteString(strconv.Quote(n.text))
	case 'z':
		sb.WriteString("null")
	default:
		sb.WriteString(n.text)
	}
}

// paths returns every path agwire can name in the tree, spelled as agwire
// spells them: keys joined with ".", indexes as "[i]"; the root is "".
func (n *jnode) paths() map[string]bool {
	out := map[string]bool{"": true}
	var walk func(p string, n *jnode)
	walk = func(p string, n *jnode) {
		switch n.kind {
		case 'o':
			for i, k := range n.keys {
				q := pathKey(k)
				if p != "" && !strings.HasPrefix(q, "[") {
					q = p + "." + q
				} else if p != "" {
					q = p + q
				}
				out[q] = true
				walk(q, n.elems[i])
			}
		case 'a':
			for i, e := range n.elems {
				q := p + "[" + strconv.Itoa(i) + "]"
				out[q] = true
				walk(q, e)
			}
		}
	}
	walk("", n)
	return out
}

// pathKey spells a key as error paths do: plain when it is a non-empty
// name without '.', '[', ']', '"' or '\\'; otherwise in brackets as a JSON
// string escaped the way JSON.stringify escapes (written here, apart from
// the library's writer).
func pathKey(k string) string {
	if k != "" && !strings.ContainsAny(k, ".[]\"\\") {
		return k
	}
	var b strings.Builder
	b.WriteString(`["`)
	for _, r := range k {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"]`)
	return b.String()
}

// ---- protobuf wire builders ---------------------------------------------

func wTag(num protowire.Number, typ protowire.Type) []byte {
	return protowire.AppendTag(nil, num, typ)
}

func wVarint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(wTag(num, protowire.VarintType), v)
}

func wFixed64(num protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(wTag(num, protowire.Fixed64Type), v)
}

func wBytes(num protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(wTag(num, protowire.BytesType), b)
}

func wStr(num protowire.Number, s string) []byte { return wBytes(num, []byte(s)) }

func wMsg(num protowire.Number, parts ...[]byte) []byte { return wBytes(num, bytes.Join(parts, nil)) }

func wCat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Event arms and EventType values used by the seeds (wire-1.0.md).
const (
	armTextMessageContent = 2
	armStateDelta         = 8
	armMessagesSnapshot   = 9
	armCustom             = 11
	armRunStarted         = 12
	armRunFinished        = 13
	armToolCallResult     = 22

	enumTextMessageContent = 1
	enumStateDelta         = 7
	enumMessagesSnapshot   = 8
	enumCustom             = 10
	enumRunStarted         = 11
	enumRunFinished        = 12
	enumToolCallResult     = 21
)

// wEvent is an Event whose arm carries base_event {type} and fields.
func wEvent(arm protowire.Number, enum uint64, fields ...[]byte) []byte {
	base := wMsg(1, wVarint(1, enum))
	if enum == 0 {
		base = wMsg(1)
	}
	return wMsg(arm, append([][]byte{base}, fields...)...)
}

// google.protobuf.Value arms.
func wvNull() []byte            { return wVarint(1, 0) }
func wvNumBits(b uint64) []byte { return wFixed64(2, b) }
func wvStr(s string) []byte     { return wStr(3, s) }
func wvBool(b bool) []byte {
	if b {
		return wVarint(4, 1)
	}
	return wVarint(4, 0)
}
func wvStruct(entries ...[]byte) []byte { return wMsg(5, entries...) }
func wvList(values ...[]byte) []byte {
	var out []byte
	for _, v := range values {
		out = append(out, wBytes(1, v)...)
	}
	return wBytes(6, out)
}

// wsEntry is one Struct map entry (key 1, Value 2).
func wsEntry(key string, value []byte) []byte {
	return wMsg(1, wStr(1, key), wBytes(2, value))
}

// wCustom is a CUSTOM event named "c" whose value is the given Value body.
func wCustom(value []byte) []byte {
	return wEvent(armCustom, enumCustom, wStr(2, "c"), wBytes(3, value))
}

// ---- typed errors --------------------------------------------------------

// isAny reports whether err wraps one of targets.
func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// fuzzing reports whether this run is fuzzing (go test -fuzz) rather than
// running the seeds. Large seeds (tens of KiB and more) are added only to
// the seed run: in the fuzzing corpus they would slow every mutation of
// theirs to a crawl, and what they check does not need mutating.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
