package fuzz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// goldenInputs returns the JSON events of the codec's golden fixtures
// (written by the TypeScript peer), the richest events the project has.
func goldenInputs(tb testing.TB) [][]byte {
	f, err := os.Open("../codec/testdata/golden-peer-1.0.0.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			tb.Fatal(err)
		}
		out = append(out, line.Input)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

var (
	rawValueType = reflect.TypeFor[event.RawValue]()
	objectType   = reflect.TypeFor[event.Object]()
)

// shape is what the comparison knows about a place in an event: a Go type
// whose fields carry `agui` tags, one of the hand-mapped types (content
// parts, sources, outcomes), a dynamic value (RawValue, Object: key order
// and every member kept), or a scalar.
type shape struct{ t reflect.Type }

// fields returns the JSON members of a struct shape: name → field types
// (a name can map to several, such as a message's "content").
func (s shape) fields() map[string][]reflect.Type {
	out, _ := s.members()
	return out
}

// members is fields, plus the lists that are always written (a repeated
// field without ",opt": absent in the input, it comes back as []).
func (s shape) members() (map[string][]reflect.Type, map[string]bool) {
	out := map[string][]reflect.Type{}
	always := map[string]bool{}
	switch s.t {
	case reflect.TypeFor[event.ContentPart]():
		for k, v := range map[string]reflect.Type{"type": reflect.TypeFor[string](), "id": reflect.TypeFor[string](),
			"text": reflect.TypeFor[string](), "source": reflect.TypeFor[event.Source](), "metadata": rawValueType} {
			out[k] = []reflect.Type{v}
		}
		return out, always
	case reflect.TypeFor[event.Source]():
		for _, k := range []string{"type", "value", "mimeType", "provider"} {
			out[k] = []reflect.Type{reflect.TypeFor[string]()}
		}
		return out, always
	case reflect.TypeFor[event.RunOutcome]():
		out["type"] = []reflect.Type{reflect.TypeFor[string]()}
		out["pendingToolCallIds"] = []reflect.Type{reflect.TypeFor[[]string]()}
		out["interrupts"] = []reflect.Type{reflect.TypeFor[[]event.Interrupt]()}
		return out, always
	case reflect.TypeFor[event.SubagentOutcome]():
		out["type"] = []reflect.Type{reflect.TypeFor[string]()}
		out["interruptIds"] = []reflect.Type{reflect.TypeFor[[]string]()}
		return out, always
	}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			tag := strings.Split(f.Tag.Get("agui"), ",")
			if tag[0] != "" {
				out[tag[0]] = append(out[tag[0]], f.Type)
				if f.Type.Kind() == reflect.Slice && !slices.Contains(tag, "opt") {
					always[tag[0]] = true
				}
			}
		}
	}
	walk(s.t)
	if reflect.PointerTo(s.t).Implements(reflect.TypeFor[event.Event]()) {
		out["type"] = []reflect.Type{reflect.TypeFor[string]()}
	}
	return out, always
}

// kindOf is the JSON kind a Go field type takes.
func kindOf(t reflect.Type) byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawValueType:
		return '*'
	case t == objectType:
		return 'o'
	}
	switch t.Kind() {
	case reflect.Slice:
		return 'a'
	case reflect.Struct:
		return 'o'
	case reflect.String:
		return 's'
	case reflect.Bool:
		return 'b'
	case reflect.Int64:
		return 'n'
	}
	return '?'
}

// rtCompare compares what came back (out) with what went in (in), at path,
// for a place of Go type t. It returns "" when they agree.
func rtCompare(path string, in, out *jnode, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawValueType || t == objectType:
		return dynCompare(path, in, out)
	case in.kind != out.kind:
		return fmt.Sprintf("%s: %s came back as %s", path, in, out)
	}
	switch t.Kind() {
	case reflect.Struct:
		return structCompare(path, in, out, shape{t})
	case reflect.Slice:
		if len(in.elems) != len(out.elems) {
			return fmt.Sprintf("%s: %d elements came back as %d", path, len(in.elems), len(out.elems))
		}
		for i := range in.elems {
			if d := rtCompare(path+"["+strconv.Itoa(i)+"]", in.elems[i], out.elems[i], t.Elem()); d != "" {
				return d
			}
		}
		return ""
	}
	if !sameScalar(in, out) {
		return fmt.Sprintf("%s: %s came back as %s", path, in, out)
	}
	return ""
}

// sameScalar: strings by their text, numbers by their value (exactly:
// agwire accepted the input, so its numbers are lossless), the rest by
// kind and text.
func sameScalar(in, out *jnode) bool {
	if in.kind != out.kind {
		return false
	}
	if in.kind == 'n' {
		a, errA := strconv.ParseFloat(in.text, 64)
		b, errB := strconv.ParseFloat(out.text, 64)
		if errA == nil && errB == nil && math.Float64bits(a) == math.Float64bits(b) {
			return true
		}
		ra, okA := new(big.Rat).SetString(in.text)
		rb, okB := new(big.Rat).SetString(out.text)
		return okA && okB && ra.Cmp(rb) == 0 && strings.HasPrefix(in.text, "-") == strings.HasPrefix(out.text, "-")
	}
	return in.text == out.text
}

// dynCompare: a dynamic value comes back member for member, in order.
func dynCompare(path string, in, out *jnode) string {
	if in.kind != out.kind {
		return fmt.Sprintf("%s: %s came back as %s", path, in, out)
	}
	switch in.kind {
	case 'o':
		if strings.Join(in.keys, "\x00") != strings.Join(out.keys, "\x00") {
			return fmt.Sprintf("%s: keys %q came back as %q", path, in.keys, out.keys)
		}
		for i, k := range in.keys {
			if d := dynCompare(path+"."+k, in.elems[i], out.elems[i]); d != "" {
				return d
			}
		}
	case 'a':
		if len(in.elems) != len(out.elems) {
			return fmt.Sprintf("%s: %d elements came back as %d", path, len(in.elems), len(out.elems))
		}
		for i := range in.elems {
			if d := dynCompare(path+"["+strconv.Itoa(i)+"]", in.elems[i], out.elems[i]); d != "" {
				return d
			}
		}
	default:
		if !sameScalar(in, out) {
			return fmt.Sprintf("%s: %s came back as %s", path, in, out)
		}
	}
	return ""
}

// structCompare compares a schema object: members may come back in the
// codec's order, and the documented normalizations apply (mapping-1.0.md):
// an optional member that was null or an empty optional list may come back
// absent; the retired "binary" part comes back as a document part with
// marker metadata; an activity message without content comes back with {}.
func structCompare(path string, in, out *jnode, s shape) string {
	if s.t == reflect.TypeFor[event.ContentPart]() && in.str("type") == "binary" {
		in = binaryAsDocument(in)
	}
	fields, always := s.members()
	at := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	for i, k := range in.keys {
		v := in.elems[i]
		types := fields[k]
		if len(types) == 0 {
			return fmt.Sprintf("%s: agwire accepted a member its schema does not have", at(k))
		}
		t := types[0]
		for _, c := range types {
			if kc := kindOf(c); kc == v.kind || kc == '*' {
				t = c
			}
		}
		o, ok := out.get(k)
		switch {
		case !ok && v.kind == 'z':
			continue // null on an optional member reads as absent
		case !ok && v.kind == 'a' && len(v.elems) == 0:
			continue // an empty optional list is not written
		case !ok:
			return fmt.Sprintf("%s: %s did not come back", at(k), v)
		}
		if d := rtCompare(at(k), v, o, t); d != "" {
			return d
		}
	}
	for i, k := range out.keys {
		if _, ok := in.get(k); ok {
			continue
		}
		o := out.elems[i]
		if s.t == reflect.TypeFor[event.Message]() && k == "content" && in.str("role") == event.RoleActivity &&
			o.kind == 'o' && len(o.keys) == 0 {
			continue
		}
		if always[k] && o.kind == 'a' && len(o.elems) == 0 {
			continue
		}
		return fmt.Sprintf("%s: %s came back, but was not sent", at(k), o)
	}
	return ""
}

// binaryAsDocument is the documented form of a retired "binary" part: a
// document part whose source is its data, else its url, else its id (as a
// url), with metadata {"legacyBinary":true, "filename", "id"}.
func binaryAsDocument(in *jnode) *jnode {
	str := func(k string) *jnode {
		v, ok := in.get(k)
		if !ok || v.kind != 's' {
			return nil
		}
		return v
	}
	src := &jnode{kind: 'o'}
	add := func(n *jnode, k string, v *jnode) { n.keys, n.elems = append(n.keys, k), append(n.elems, v) }
	switch {
	case str("data") != nil && str("data").text != "":
		add(src, "type", &jnode{kind: 's', text: "data"})
		add(src, "value", str("data"))
	case str("url") != nil && str("url").text != "":
		add(src, "type", &jnode{kind: 's', text: "url"})
		add(src, "value", str("url"))
	default:
		add(src, "type", &jnode{kind: 's', text: "url"})
		add(src, "value", str("id"))
	}
	add(src, "mimeType", str("mimeType"))
	md := &jnode{kind: 'o'}
	add(md, "legacyBinary", &jnode{kind: 'b', text: "true"})
	if v := str("filename"); v != nil {
		add(md, "filename", v)
	}
	if v := str("id"); v != nil {
		add(md, "id", v)
	}
	doc := &jnode{kind: 'o'}
	add(doc, "type", &jnode{kind: 's', text: "document"})
	add(doc, "source", src)
	add(doc, "metadata", md)
	return doc
}

// refusalSentinels are the errors AppendFromJSON may refuse with.
var refusalSentinels = []error{
	event.ErrSyntax, event.ErrTooDeep, event.ErrDuplicateKey, event.ErrUnknownType, event.ErrNullMetadata,
	event.ErrMissingField, event.ErrUnknownField, event.ErrInvalidField,
	event.ErrUnsupportedEvent, codec.ErrNotInProfile, codec.ErrInvalid, codec.ErrLossyNumber, codec.ErrUnsafeInteger,
}

// FuzzJSONRoundTrip: for any text that AppendFromJSON accepts, AppendJSON
// of the wire gives back the same event by value: every member that went
// in comes back (modulo the normalizations structCompare lists), scalars
// equal (numbers as exact values), and every dynamic value (metadata,
// state, values, results...) with its members in the same order. The
// output is itself accepted and encodes to the same bytes. Anything refused
// is a *codec.Error wrapping one of refusalSentinels; a refusal about a
// member names a path that exists in the input (for a missing member, its
// parent's path), a syntax error an offset inside the input.
func FuzzJSONRoundTrip(f *testing.F) {
	for _, in := range goldenInputs(f) {
		f.Add(in)
	}
	for _, s := range []string{
		`{"type":"CUSTOM","name":"c","value":{"z":1,"a":[-0,1.0,1E+2,{"":null}],"m":{}},"metadata":{"b":null,"a":{}}}`,
		`{"type":"CUSTOM","name":"c","metadata":{"k":1,"k":2}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"0","path":"/a"},{"op":"add","path":"/b","value":null},{"op":"7","path":""}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"activity","activityType":"a"},{"id":"2","role":"user","content":[{"type":"binary","mimeType":"text/plain","id":"f","filename":"a.txt"}]}]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":[]},"usage":[]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"later","interrupts":[{"id":"i","reason":"r"}]}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude00\u0000","timestamp":9007199254740992}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":null}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","extra":1}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","messageId":"n","delta":"x"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}`,
		`{"type":"CUSTOM","name":"c","value":0.12345678901234567891}`,
		`{"type":"THINKING_START"}`,
		`{"type":"CUSTOM","name":"c","value":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{"b":1,"a":2},"replace":false,"timestamp":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		wire, err := codec.AppendFromJSON(nil, in)
		if err != nil {
			checkRefusal(t, in, err)
			return
		}
		out, err := codec.AppendJSONFromWire(nil, wire)
		if err != nil {
			t.Fatalf("agwire cannot decode what it encoded: %v\ninput %s\nwire %x", err, in, wire)
		}
		inTree, err := parseTree(in)
		if err != nil {
			t.Fatalf("agwire accepted what encoding/json cannot read (%v): %q", err, in)
		}
		outTree := mustTree(t, out)
		ev := event.New(event.Type(inTree.str("type")))
		if ev == nil {
			t.Fatalf("agwire accepted an event of type %q", inTree.str("type"))
		}
		if d := rtCompare("", inTree, outTree, reflect.TypeOf(ev).Elem()); d != "" {
			t.Fatalf("JSON → wire → JSON changed the event: %s\nin  %s\nout %s", d, in, out)
		}
		wire2, err := codec.AppendFromJSON(nil, out)
		if err != nil || !bytes.Equal(wire, wire2) {
			t.Fatalf("the output does not encode to the same bytes: %v\nin  %s\nout %s\nwire  %x\nwire2 %x", err, in, out, wire, wire2)
		}
	})
}

func checkRefusal(t *testing.T, in []byte, err error) {
	t.Helper()
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Fatalf("refusal %T %v is not a *codec.Error", err, err)
	}
	if !isAny(err, refusalSentinels...) {
		t.Fatalf("refusal %v wraps none of the codec's or parser's errors", err)
	}
	if ce.Offset < -1 || ce.Offset > len(in) {
		t.Fatalf("refusal at offset %d of a %d-byte input: %v", ce.Offset, len(in), err)
	}
	if isAny(err, event.ErrSyntax) && ce.Offset < 0 {
		t.Fatalf("syntax error without an offset: %v", err)
	}
	if !utf8.Valid(in) {
		return // encoding/json's tree would not spell the keys as agwire reads them
	}
	tree, perr := parseTree(in)
	if perr != nil {
		return
	}
	paths := tree.paths()
	switch {
	case isAny(err, event.ErrMissingField):
		parent := ce.Path
		if i := strings.LastIndexAny(parent, ".["); i >= 0 {
			parent = parent[:i]
		} else {
			parent = ""
		}
		if ce.Path == "" || !paths[parent] {
			t.Fatalf("missing member %q: its parent %q is not in the input %s", ce.Path, parent, in)
		}
	case isAny(err, codec.ErrLossyNumber, codec.ErrUnsafeInteger, event.ErrNullMetadata, event.ErrUnknownField,
		event.ErrDuplicateKey):
		_, emptyKey := tree.get("")
		if ce.Path == "" && !emptyKey || !paths[ce.Path] {
			t.Fatalf("refusal names the path %q, which is not in the input: %v\n%s", ce.Path, err, in)
		}
	}
}
