package codec_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// wireStep selects the index-th occurrence of a length-delimited field.
type wireStep struct {
	num   protowire.Number
	index int
}

// mdLocation is a place metadata lives (metadata doc, "Where it lives"):
// the JSON event with @M@ where `,"metadata":...` goes, the way to the
// message that holds the metadata field on the wire, the field's number
// (a google.protobuf.Struct), and the JSON path of the metadata.
type mdLocation struct {
	name     string
	template string
	wire     []wireStep
	field    protowire.Number
	path     string
}

var mdLocations = func() []mdLocation {
	locs := []mdLocation{
		{"event", `{"type":"CUSTOM","name":"c"@M@}`, []wireStep{{11, 0}, {1, 0}}, 4, "metadata"},
		{"event without arm type", `{"type":"TEXT_MESSAGE_START","messageId":"m"@M@}`, []wireStep{{1, 0}, {1, 0}}, 4, "metadata"},
		{"tool call", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"assistant","toolCalls":[{"id":"a","type":"function","function":{"name":"f","arguments":""}},{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}@M@}]}]}`,
			[]wireStep{{9, 0}, {2, 0}, {5, 1}}, 4, "messages[0].toolCalls[1].metadata"},
		{"tool call in input", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"0","role":"user","content":"x"},{"id":"1","role":"assistant","toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":""}@M@}]}]}}`,
			[]wireStep{{12, 0}, {5, 0}, {5, 1}, {5, 0}}, 4, "input.messages[1].toolCalls[0].metadata"},
		{"message in input", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"0","role":"user","content":"x"@M@}]}}`,
			[]wireStep{{12, 0}, {5, 0}, {5, 0}}, 9, "input.messages[0].metadata"},
		{"tool", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"n","description":"d","parameters":{}@M@}]}}`,
			[]wireStep{{12, 0}, {5, 0}, {6, 0}}, 4, "input.tools[0].metadata"},
		{"resume entry", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved"},{"interruptId":"j","status":"cancelled","payload":null@M@}]}}`,
			[]wireStep{{12, 0}, {5, 0}, {9, 1}}, 4, "input.resume[1].metadata"},
	}
	roles := map[string]string{
		"developer": `"content":"d"`,
		"system":    `"content":"s"`,
		"assistant": `"content":"a"`,
		"user":      `"content":[{"type":"text","text":"u"}]`,
		"tool":      `"toolCallId":"t","content":"r"`,
		"activity":  `"activityType":"progress","content":{"pct":1}`,
		"reasoning": `"content":"r","encryptedValue":"e"`,
	}
	for _, role := range []string{"developer", "system", "assistant", "user", "tool", "activity", "reasoning"} {
		locs = append(locs, mdLocation{
			"message, role " + role,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"0","role":"user","content":"x"},{"id":"1","role":"` + role + `",` + roles[role] + `@M@}]}`,
			[]wireStep{{9, 0}, {2, 1}}, 9, "messages[1].metadata",
		})
	}
	return locs
}()

// wireAt follows steps from the envelope and returns the occurrences of
// field in the message reached.
func wireAt(t testing.TB, wire []byte, steps []wireStep, field protowire.Number) [][]byte {
	t.Helper()
	b := wire
	for _, s := range steps {
		all := wAll(t, b, s.num)
		if s.index >= len(all) {
			t.Fatalf("wire %x: field %d has %d occurrences, want index %d", wire, s.num, len(all), s.index)
		}
		b = all[s.index]
	}
	return wAll(t, b, field)
}

// jsonAt returns the exact text of the value at path ("a.b[1].c") in JSON
// text, and whether it is there.
func jsonAt(t testing.TB, text []byte, path string) (string, bool) {
	t.Helper()
	cur := json.RawMessage(text)
	for _, part := range strings.Split(path, ".") {
		key, rest, _ := strings.Cut(part, "[")
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err != nil {
			t.Fatalf("%s at %s: %v", text, part, err)
		}
		v, ok := obj[key]
		if !ok {
			return "", false
		}
		cur = v
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			rest = strings.TrimPrefix(after, "[")
			i, _ := strconv.Atoi(idx)
			var arr []json.RawMessage
			if err := json.Unmarshal(cur, &arr); err != nil || i >= len(arr) {
				t.Fatalf("%s: no element %d at %s", text, i, part)
			}
			cur = arr[i]
		}
	}
	return string(cur), true
}

// mdCases are metadata objects: their JSON, the Struct body the wire must
// carry (built by hand from struct.proto's field numbers), and the JSON that
// comes back (key order kept, numbers in JavaScript's spelling).
var mdCases = []struct {
	name    string
	json    string
	struct_ []byte
	back    string
}{
	{"empty object", `{}`, nil, `{}`},
	{"null under a key", `{"k":null}`, wsEntry("k", wvNull()), `{"k":null}`},
	{"every value shape", `{"s":"x","n":1.50,"t":true,"f":false,"z":null,"a":[1,"two",null,[]],"o":{"p":{"q":[]}},"ea":[],"eo":{}}`,
		wCat(wsEntry("s", wvStr("x")), wsEntry("n", wvNum(1.5)), wsEntry("t", wvBool(true)), wsEntry("f", wvBool(false)), wsEntry("z", wvNull()),
			wsEntry("a", wvList(wvNum(1), wvStr("two"), wvNull(), wvList())), wsEntry("o", wvStruct(wsEntry("p", wvStruct(wsEntry("q", wvList()))))),
			wsEntry("ea", wvList()), wsEntry("eo", wvStruct())),
		`{"s":"x","n":1.5,"t":true,"f":false,"z":null,"a":[1,"two",null,[]],"o":{"p":{"q":[]}},"ea":[],"eo":{}}`},
	{"nested objects", `{"a":{"b":{"c":{"d":"deep","e":null}}}}`,
		wsEntry("a", wvStruct(wsEntry("b", wvStruct(wsEntry("c", wvStruct(wsEntry("d", wvStr("deep")), wsEntry("e", wvNull()))))))),
		`{"a":{"b":{"c":{"d":"deep","e":null}}}}`},
	{"the reserved ag-ui key", `{"ag-ui":{"usage":{"input":1200,"output":340}},"finishReason":"stop"}`,
		wCat(wsEntry("ag-ui", wvStruct(wsEntry("usage", wvStruct(wsEntry("input", wvNum(1200)), wsEntry("output", wvNum(340)))))), wsEntry("finishReason", wvStr("stop"))),
		`{"ag-ui":{"usage":{"input":1200,"output":340}},"finishReason":"stop"}`},
	{"unicode keys", `{"ключ":"значение","🔑":"✓","\u00e9":1,"a\"b":2}`,
		wCat(wsEntry("ключ", wvStr("значение")), wsEntry("🔑", wvStr("✓")), wsEntry("é", wvNum(1)), wsEntry(`a"b`, wvNum(2))),
		`{"ключ":"значение","🔑":"✓","é":1,"a\"b":2}`},
	{"the empty key", `{"":1,"x":""}`, wCat(wsEntry("", wvNum(1)), wsEntry("x", wvStr(""))), `{"":1,"x":""}`},
	{"key order kept", `{"z":1,"a":null,"m":[1e2]}`, wCat(wsEntry("z", wvNum(1)), wsEntry("a", wvNull()), wsEntry("m", wvList(wvNum(100)))), `{"z":1,"a":null,"m":[100]}`},
	{"integer-like keys in text order", `{"2":"b","1":"a","10":"c"}`, wCat(wsEntry("2", wvStr("b")), wsEntry("1", wvStr("a")), wsEntry("10", wvStr("c"))), `{"2":"b","1":"a","10":"c"}`},
	{"same key at different levels", `{"a":{"a":{"a":1}},"b":{"a":2}}`,
		wCat(wsEntry("a", wvStruct(wsEntry("a", wvStruct(wsEntry("a", wvNum(1)))))), wsEntry("b", wvStruct(wsEntry("a", wvNum(2))))),
		`{"a":{"a":{"a":1}},"b":{"a":2}}`},
}

// TestMetadataEveryLocation checks, at every place metadata lives: absent
// stays absent (no field on the wire, no key in JSON), {} stays {} (the
// field present with length 0), and every shape of content travels as the
// Struct the case spells out and comes back as the same JSON.
func TestMetadataEveryLocation(t *testing.T) {
	for _, loc := range mdLocations {
		t.Run(loc.name, func(t *testing.T) {
			// Absent.
			in := strings.Replace(loc.template, "@M@", "", 1)
			wire, err := codec.AppendFromJSON(nil, []byte(in))
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if got := wireAt(t, wire, loc.wire, loc.field); len(got) != 0 {
				t.Errorf("absent metadata wrote field %d: %x", loc.field, got)
			}
			out := hDecodeJSON(t, codec.Codec{}, wire)
			if v, ok := jsonAt(t, out, loc.path); ok {
				t.Errorf("absent metadata came back as %s", v)
			}
			for _, mc := range mdCases {
				in := strings.Replace(loc.template, "@M@", `,"metadata":`+mc.json, 1)
				wire, err := codec.AppendFromJSON(nil, []byte(in))
				if err != nil {
					t.Errorf("%s: %s: %v", mc.name, in, err)
					continue
				}
				got := wireAt(t, wire, loc.wire, loc.field)
				if len(got) != 1 {
					t.Errorf("%s: %d metadata fields on the wire", mc.name, len(got))
					continue
				}
				if string(got[0]) != string(mc.struct_) {
					t.Errorf("%s: Struct\n got %x\nwant %x", mc.name, got[0], mc.struct_)
				}
				if mc.struct_ == nil && !strings.Contains(string(wire), string(append(protowire.AppendTag(nil, loc.field, protowire.BytesType), 0))) {
					t.Errorf("%s: no zero-length field %d in %x", mc.name, loc.field, wire)
				}
				out := hDecodeJSON(t, codec.Codec{}, wire)
				v, ok := jsonAt(t, out, loc.path)
				if !ok || v != mc.back {
					t.Errorf("%s: came back as %s (present %v), want %s", mc.name, v, ok, mc.back)
				}
			}
		})
	}
}

// TestMetadataNullValueOnTheWire: a null under a key is Value.null_value,
// the bytes 08 00, inside the entry: 0a 07 | 0a 01 'k' | 12 02 | 08 00.
func TestMetadataNullValueOnTheWire(t *testing.T) {
	wire, err := codec.AppendFromJSON(nil, []byte(`{"type":"CUSTOM","name":"c","metadata":{"k":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	md := wireAt(t, wire, []wireStep{{11, 0}, {1, 0}}, 4)
	if len(md) != 1 || string(md[0]) != "\x0a\x07\x0a\x01k\x12\x02\x08\x00" {
		t.Errorf("metadata Struct %x, want 0a070a016b12020800", md)
	}
}

// TestMetadataRefusals: "metadata": null is refused at every location
// (mapping-1.0.md: "The object itself is never null"), as is metadata that
// is not an object, and a key that repeats (a Struct holds each key once).
func TestMetadataRefusals(t *testing.T) {
	for _, loc := range mdLocations {
		t.Run(loc.name, func(t *testing.T) {
			for _, tc := range []struct {
				md, path string
				want     error
			}{
				{`null`, loc.path, event.ErrNullMetadata},
				{`[]`, loc.path, event.ErrInvalidField},
				{`[{}]`, loc.path, event.ErrInvalidField},
				{`"x"`, loc.path, event.ErrInvalidField},
				{`1`, loc.path, event.ErrInvalidField},
				{`false`, loc.path, event.ErrInvalidField},
				{`{"a":1,"a":2}`, loc.path + ".a", event.ErrDuplicateKey},
				{`{"a":1,"b":{"k":null,"k":null}}`, loc.path + ".b.k", event.ErrDuplicateKey},
				{`{"l":[{"x":1,"y":2,"x":3}]}`, loc.path + ".l[0].x", event.ErrDuplicateKey},
			} {
				in := strings.Replace(loc.template, "@M@", `,"metadata":`+tc.md, 1)
				dst := []byte("keep")
				out, err := codec.AppendFromJSON(dst, []byte(in))
				if string(out) != "keep" {
					t.Errorf("%s: dst changed", tc.md)
				}
				ce := hCodecErr(t, err, tc.want)
				if ce == nil {
					continue
				}
				if ce.Path != tc.path || !strings.Contains(err.Error(), tc.path) {
					t.Errorf("%s: path %q, want %q (%v)", tc.md, ce.Path, tc.path, err)
				}
				if tc.want == event.ErrDuplicateKey {
					continue // the JSON is fine: only the Struct cannot hold it
				}
				_, perr := event.Parse([]byte(in))
				var pe *event.PathError
				if !errors.Is(perr, tc.want) || !errors.As(perr, &pe) || pe.Path != tc.path {
					t.Errorf("event.Parse: %v, want %v at %s", perr, tc.want, tc.path)
				}
			}
		})
	}
}

// TestMetadataDuplicateKeysManyKeys: duplicate detection also works past the
// point where large objects switch to a map, and does not confuse keys of
// different objects.
func TestMetadataDuplicateKeysManyKeys(t *testing.T) {
	obj := func(keys ...string) string {
		var b strings.Builder
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%d", k, i)
		}
		b.WriteString("}")
		return b.String()
	}
	many := func(n int) []string {
		var ks []string
		for i := 0; i < n; i++ {
			ks = append(ks, "k"+strconv.Itoa(i))
		}
		return ks
	}
	ok := []string{
		obj(many(100)...),
		`{"x":` + obj(many(40)...) + `,"y":` + obj(many(40)...) + `}`,
		`{` + strings.TrimSuffix(strings.TrimPrefix(obj(many(40)...), "{"), "}") + `,"n":` + obj(many(40)...) + `}`,
		`{"n":` + obj(many(40)...) + `,` + strings.TrimSuffix(strings.TrimPrefix(obj(many(40)...), "{"), "}") + `}`,
	}
	for _, md := range ok {
		if _, err := codec.AppendFromJSON(nil, []byte(`{"type":"CUSTOM","name":"c","metadata":`+md+`}`)); err != nil {
			t.Errorf("%.80s…: %v", md, err)
		}
	}
	for _, tc := range []struct {
		md, key string
	}{
		{obj(append(many(40), "k0")...), "k0"},   // a key of the first 32, repeated after the switch
		{obj(append(many(40), "k35")...), "k35"}, // a key seen only after the switch
		{obj(append(many(31), "k30")...), "k30"}, // just before the switch
		{obj(append(many(32), "k31")...), "k31"}, // at the switch
		{obj(append(many(33), "k32")...), "k32"}, // just after
	} {
		in := `{"type":"CUSTOM","name":"c","metadata":{"wrap":` + tc.md + `}}`
		_, err := codec.AppendFromJSON(nil, []byte(in))
		if ce := hCodecErr(t, err, event.ErrDuplicateKey); ce != nil && ce.Path != "metadata.wrap."+tc.key {
			t.Errorf("duplicate %s: path %q", tc.key, ce.Path)
		}
	}
}

// TestMetadataGoValues: the same rules for Go values given to Append.
func TestMetadataGoValues(t *testing.T) {
	for _, tc := range []struct {
		md   event.Object
		want error
	}{
		{event.Object(`null`), codec.ErrInvalid},
		{event.Object(`[1]`), codec.ErrInvalid},
		{event.Object(`"s"`), codec.ErrInvalid},
		{event.Object(`{"a":`), codec.ErrInvalid},
		{event.Object("{\"a\":\"\xff\"}"), codec.ErrInvalid},
		{event.Object(`{"a":1} {}`), codec.ErrInvalid},
		{event.Object(`{"a":1,"a":1}`), event.ErrDuplicateKey},
	} {
		for _, ev := range []event.Event{
			&event.Custom{Name: "c", Base: event.Base{Metadata: tc.md}},
			&event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "system", Content: ptrS("s"), Metadata: tc.md}}},
			&event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "assistant", ToolCalls: []event.ToolCall{{ID: "t", Type: "function", Metadata: tc.md}}}}},
			&event.RunStarted{Input: &event.RunAgentInput{Tools: []event.Tool{{Name: "n", Metadata: tc.md}}}},
			&event.RunStarted{Input: &event.RunAgentInput{Resume: []event.ResumeEntry{{InterruptID: "i", Status: "resolved", Metadata: tc.md}}}},
		} {
			out, err := codec.Append([]byte("keep"), ev)
			if string(out) != "keep" {
				t.Errorf("%s: dst changed", tc.md)
			}
			if ce := hCodecErr(t, err, tc.want); ce != nil && !strings.Contains(ce.Path, "metadata") {
				t.Errorf("%T %s: path %q does not name the metadata", ev, tc.md, ce.Path)
			}
		}
	}
}

// TestMetadataNeverMerges: MESSAGES_SNAPSHOT's own metadata stays on the
// event; its messages keep theirs (metadata doc, "What does not merge").
func TestMetadataNeverMerges(t *testing.T) {
	in := `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x"},{"id":"2","role":"assistant","metadata":{"own":true}}],"metadata":{"event":1}}`
	wire, err := codec.AppendFromJSON(nil, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out := hDecodeJSON(t, codec.Codec{}, wire)
	if !hSameJSON(t, out, []byte(in)) {
		t.Errorf("got %s", out)
	}
	if v, ok := jsonAt(t, out, "messages[0].metadata"); ok {
		t.Errorf("the event's metadata reached a message: %s", v)
	}
}

// TestValueMetadata: interrupts and content parts carry metadata as a
// google.protobuf.Value (any JSON), unlike the Struct metadata above.
func TestValueMetadata(t *testing.T) {
	for _, md := range []string{`[1,"a"]`, `"s"`, `0`, `false`, `{}`, `{"k":null}`} {
		for _, tmpl := range []string{
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"text","text":"x","metadata":@M@}]}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","metadata":@M@}]}}`,
		} {
			in := strings.Replace(tmpl, "@M@", md, 1)
			wire, err := codec.AppendFromJSON(nil, []byte(in))
			if err != nil {
				t.Errorf("%s: %v", in, err)
				continue
			}
			if out := hDecodeJSON(t, codec.Codec{}, wire); string(out) != in {
				t.Errorf("got %s\nwant %s", out, in)
			}
		}
	}
}
