package codec_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

func ptrS(s string) *string { return &s }
func ptrB(b bool) *bool     { return &b }
func ptrI(i int64) *int64   { return &i }

// hSpecWire lists, per event type, the Event envelope arm (field number) and
// the EventType enum value, both read off wire-1.0.md.
var hSpecWire = []struct {
	typ  event.Type
	arm  protowire.Number
	enum uint64
}{
	{"TEXT_MESSAGE_START", 1, 0}, {"TEXT_MESSAGE_CONTENT", 2, 1}, {"TEXT_MESSAGE_END", 3, 2},
	{"TOOL_CALL_START", 4, 3}, {"TOOL_CALL_ARGS", 5, 4}, {"TOOL_CALL_END", 6, 5},
	{"STATE_SNAPSHOT", 7, 6}, {"STATE_DELTA", 8, 7}, {"MESSAGES_SNAPSHOT", 9, 8},
	{"RAW", 10, 9}, {"CUSTOM", 11, 10}, {"RUN_STARTED", 12, 11}, {"RUN_FINISHED", 13, 12},
	{"RUN_ERROR", 14, 13}, {"STEP_STARTED", 15, 14}, {"STEP_FINISHED", 16, 15},
	{"TEXT_MESSAGE_CHUNK", 17, 19}, {"TOOL_CALL_CHUNK", 18, 20},
	{"SUBAGENT_STARTED", 19, 16}, {"SUBAGENT_FINISHED", 20, 17}, {"SUBAGENT_ERROR", 21, 18},
	{"TOOL_CALL_RESULT", 22, 21}, {"ACTIVITY_SNAPSHOT", 23, 22}, {"ACTIVITY_DELTA", 24, 23},
	{"REASONING_START", 25, 24}, {"REASONING_MESSAGE_START", 26, 25},
	{"REASONING_MESSAGE_CONTENT", 27, 26}, {"REASONING_MESSAGE_END", 28, 27},
	{"REASONING_MESSAGE_CHUNK", 29, 28}, {"REASONING_END", 30, 29},
	{"REASONING_ENCRYPTED_VALUE", 31, 30},
}

func hSpecFor(t testing.TB, typ event.Type) (protowire.Number, uint64) {
	for _, s := range hSpecWire {
		if s.typ == typ {
			return s.arm, s.enum
		}
	}
	t.Fatalf("no wire spec for %s", typ)
	return 0, 0
}

// wField is one field of a parsed message level.
type wField struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// wParse splits one message level into its fields with protowire. It
// fails the test on malformed input.
func wParse(t testing.TB, b []byte) []wField {
	t.Helper()
	var out []wField
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag in %x: %v", b, protowire.ParseError(n))
		}
		b = b[n:]
		f := wField{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			t.Fatalf("bad field %d in %x: %v", num, b, protowire.ParseError(n))
		}
		b = b[n:]
		out = append(out, f)
	}
	return out
}

// wAll returns the payloads of every occurrence of field num.
func wAll(t testing.TB, b []byte, num protowire.Number) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range wParse(t, b) {
		if f.num == num {
			if f.typ != protowire.BytesType {
				t.Fatalf("field %d has wire type %d", num, f.typ)
			}
			out = append(out, f.b)
		}
	}
	return out
}

// hEnvelope checks that wire is one Event with the arm and base_event
// type of typ (wire-1.0.md) and returns the arm's payload.
func hEnvelope(t testing.TB, typ event.Type, wire []byte) []byte {
	t.Helper()
	arm, enum := hSpecFor(t, typ)
	fields := wParse(t, wire)
	if len(fields) != 1 || fields[0].num != arm || fields[0].typ != protowire.BytesType {
		t.Fatalf("%s: envelope %x is not exactly one arm %d", typ, wire, arm)
	}
	bases := wAll(t, fields[0].b, 1)
	if len(bases) != 1 {
		t.Fatalf("%s: %d base_event fields", typ, len(bases))
	}
	var typeFields []wField
	for _, f := range wParse(t, bases[0]) {
		if f.num == 1 {
			typeFields = append(typeFields, f)
		}
	}
	switch {
	case enum == 0 && len(typeFields) != 0:
		t.Errorf("%s: base_event.type written although it is the default 0", typ)
	case enum != 0 && (len(typeFields) != 1 || typeFields[0].typ != protowire.VarintType || typeFields[0].v != enum):
		t.Errorf("%s: base_event.type %+v, want %d", typ, typeFields, enum)
	}
	return fields[0].b
}

const hFullBase = `"timestamp":1733140800123,"rawEvent":{"id":"chatcmpl-1","choices":[{"delta":{"role":"assistant"},"finish_reason":null}]},"metadata":{"traceId":"abc","ag-ui":{"usage":{"input":12}},"nothing":null}`

// hFullEvents holds, for each of the 31 types, a JSON event with every field
// set (several variants for the types whose fields exclude each other), and
// what it decodes back to when that differs by a documented normalisation.
var hFullEvents = []struct {
	name string
	in   string
	want string // "" means: the same JSON value as in
}{
	{"TEXT_MESSAGE_START", `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","name":"writer","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TEXT_MESSAGE_CONTENT", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello, 세계 😀 \"quoted\"\n","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TEXT_MESSAGE_END", `{"type":"TEXT_MESSAGE_END","messageId":"m1","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TOOL_CALL_START", `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search","parentMessageId":"m1","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TOOL_CALL_ARGS", `{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{\"q\":","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TOOL_CALL_END", `{"type":"TOOL_CALL_END","toolCallId":"tc1","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"STATE_SNAPSHOT", `{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2.5,-3e-7,"x",true,false,null,{}],"b":{"c":[]}},"subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"STATE_DELTA", `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":{"k":[1]}},{"op":"remove","path":"/b"},{"op":"replace","path":"/c","value":null},{"op":"move","from":"/d","path":"/e"},{"op":"copy","from":"/e","path":"/f"},{"op":"test","path":"/f","value":"x"}],"subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"MESSAGES_SNAPSHOT", `{"type":"MESSAGES_SNAPSHOT","messages":[
		{"id":"d","role":"developer","content":"be brief","name":"dev","metadata":{"k":1},"subagentRunId":"sr","encryptedValue":"ev"},
		{"id":"s","role":"system","content":"you are","name":"sys","metadata":{},"encryptedValue":"ev"},
		{"id":"a","role":"assistant","content":"calling","name":"bot","toolCalls":[{"id":"tc1","type":"function","function":{"name":"search","arguments":"{\"q\":1}"},"metadata":{"latencyMs":84},"encryptedValue":"tev"},{"id":"tc2","type":"function","function":{"name":"","arguments":""}}],"metadata":{"finishReason":"tool_calls"},"subagentRunId":"sr","encryptedValue":"ev"},
		{"id":"u","role":"user","content":[{"type":"text","text":"look","id":"p1","metadata":{"any":"json"}},{"type":"image","source":{"type":"data","value":"iVBORw0KGgo=","mimeType":"image/png"},"id":"p2","metadata":[1,2]},{"type":"audio","source":{"type":"url","value":"https://x/a.mp3","mimeType":"audio/mpeg"}},{"type":"video","source":{"type":"file","value":"file-1","provider":"openai","mimeType":"video/mp4"},"metadata":null},{"type":"document","source":{"type":"url","value":"https://x/d.pdf"},"metadata":"s"}],"name":"alice","metadata":{"u":true},"encryptedValue":"ev"},
		{"id":"t","role":"tool","content":"result","toolCallId":"tc1","error":"partial","metadata":{"t":null},"encryptedValue":"ev"},
		{"id":"t2","role":"tool","content":[{"type":"text","text":"r"}],"toolCallId":"tc2"},
		{"id":"ac","role":"activity","activityType":"progress","content":{"pct":42,"steps":["a","b"]},"metadata":{"m":[]},"subagentRunId":"sr"},
		{"id":"r","role":"reasoning","content":"thinking…","encryptedValue":"ev","metadata":{"r":0}}],` + hFullBase + `}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[
		{"id":"d","role":"developer","content":"be brief","name":"dev","metadata":{"k":1},"subagentRunId":"sr","encryptedValue":"ev"},
		{"id":"s","role":"system","content":"you are","name":"sys","metadata":{},"encryptedValue":"ev"},
		{"id":"a","role":"assistant","content":"calling","name":"bot","toolCalls":[{"id":"tc1","type":"function","function":{"name":"search","arguments":"{\"q\":1}"},"metadata":{"latencyMs":84},"encryptedValue":"tev"},{"id":"tc2","type":"function","function":{"name":"","arguments":""}}],"metadata":{"finishReason":"tool_calls"},"subagentRunId":"sr","encryptedValue":"ev"},
		{"id":"u","role":"user","content":[{"type":"text","text":"look","id":"p1","metadata":{"any":"json"}},{"type":"image","source":{"type":"data","value":"iVBORw0KGgo=","mimeType":"image/png"},"id":"p2","metadata":[1,2]},{"type":"audio","source":{"type":"url","value":"https://x/a.mp3","mimeType":"audio/mpeg"}},{"type":"video","source":{"type":"file","value":"file-1","provider":"openai","mimeType":"video/mp4"}},{"type":"document","source":{"type":"url","value":"https://x/d.pdf"},"metadata":"s"}],"name":"alice","metadata":{"u":true},"encryptedValue":"ev"},
		{"id":"t","role":"tool","content":"result","toolCallId":"tc1","error":"partial","metadata":{"t":null},"encryptedValue":"ev"},
		{"id":"t2","role":"tool","content":[{"type":"text","text":"r"}],"toolCallId":"tc2"},
		{"id":"ac","role":"activity","activityType":"progress","content":{"pct":42,"steps":["a","b"]},"metadata":{"m":[]},"subagentRunId":"sr"},
		{"id":"r","role":"reasoning","content":"thinking…","encryptedValue":"ev","metadata":{"r":0}}],` + hFullBase + `}`},
	{"RAW", `{"type":"RAW","event":{"provider":"openai","payload":[1,"two",null]},"source":"openai","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"CUSTOM", `{"type":"CUSTOM","name":"my-event","value":{"nested":{"deep":[[[]]]}},"subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"RUN_STARTED", `{"type":"RUN_STARTED","threadId":"th","runId":"r2","parentRunId":"r1","protocolVersion":"1.0","input":{
		"threadId":"th","runId":"r2","parentRunId":"r1","protocolVersion":"1.0","state":{"s":[1]},"forwardedProps":{"f":"x"},
		"messages":[{"id":"u","role":"user","content":"hi","metadata":{"k":"v"}},{"id":"a","role":"assistant","toolCalls":[{"id":"tc","type":"function","function":{"name":"f","arguments":"{}"},"metadata":{}}]}],
		"tools":[{"name":"search","description":"Search","parameters":{"type":"object","properties":{"q":{"type":"string"}}},"metadata":{"tier":1}},{"name":"noop","description":""}],
		"context":[{"description":"tz","value":"Asia/Seoul"}],
		"resume":[{"interruptId":"i1","status":"resolved","payload":{"approved":true},"metadata":{"sig":"x"}},{"interruptId":"i2","status":"cancelled"}]},` + hFullBase + `}`, ""},
	{"RUN_STARTED input normalised", `{"type":"RUN_STARTED","threadId":"th","runId":"r","input":{"threadId":"th","runId":"r","messages":[]}}`,
		`{"type":"RUN_STARTED","threadId":"th","runId":"r","input":{"threadId":"th","runId":"r","messages":[],"tools":[],"context":[],"resume":[]}}`},
	{"RUN_FINISHED interrupt", `{"type":"RUN_FINISHED","threadId":"th","runId":"r","result":{"answer":42},"outcome":{"type":"interrupt","interrupts":[
		{"id":"i1","reason":"approval","message":"OK?","toolCallId":"tc","responseSchema":{"type":"boolean"},"expiresAt":"2026-12-31T00:00:00Z","metadata":{"any":[1]},"subagentRunId":"sr"},
		{"id":"i2","reason":"input"}]},
		"usage":[{"provider":"openai","model":"gpt","inputTokens":1200,"outputTokens":340,"totalTokens":1540,"reasoningTokens":0,"cachedInputTokens":100,"cacheWriteInputTokens":9007199254740991},{"model":"small"}],` + hFullBase + `}`, ""},
	{"RUN_FINISHED success", `{"type":"RUN_FINISHED","threadId":"th","runId":"r","result":"done","outcome":{"type":"success","pendingToolCallIds":["tc1","tc2"]},` + hFullBase + `}`, ""},
	// null on an optional field reads as absent (event/doc.go); the TS peer drops it too.
	{"RUN_FINISHED cancelled, null result", `{"type":"RUN_FINISHED","threadId":"th","runId":"r","result":null,"outcome":{"type":"cancelled"}}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r","outcome":{"type":"cancelled"}}`},
	{"RUN_FINISHED success, empty pending list", `{"type":"RUN_FINISHED","threadId":"th","runId":"r","outcome":{"type":"success","pendingToolCallIds":[]},"usage":[]}`,
		`{"type":"RUN_FINISHED","threadId":"th","runId":"r","outcome":{"type":"success"}}`},
	{"RUN_ERROR", `{"type":"RUN_ERROR","code":"RATE_LIMIT","message":"slow down","usage":[{"inputTokens":0}],` + hFullBase + `}`, ""},
	{"STEP_STARTED", `{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"STEP_FINISHED", `{"type":"STEP_FINISHED","stepName":"plan","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"SUBAGENT_STARTED", `{"type":"SUBAGENT_STARTED","subagentRunId":"sr","name":"researcher","description":"finds things","parentSubagentRunId":"psr","parentToolCallId":"ptc","parentMessageId":"pm",` + hFullBase + `}`, ""},
	{"SUBAGENT_FINISHED", `{"type":"SUBAGENT_FINISHED","subagentRunId":"sr","result":[1,{"a":"b"}],"outcome":{"type":"suspended","interruptIds":["i1","i2"]},` + hFullBase + `}`, ""},
	{"SUBAGENT_FINISHED success", `{"type":"SUBAGENT_FINISHED","subagentRunId":"sr","outcome":{"type":"success"}}`, ""},
	{"SUBAGENT_ERROR", `{"type":"SUBAGENT_ERROR","subagentRunId":"sr","message":"failed","code":"E42",` + hFullBase + `}`, ""},
	{"TEXT_MESSAGE_CHUNK", `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"chunk","name":"n","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TOOL_CALL_CHUNK", `{"type":"TOOL_CALL_CHUNK","toolCallId":"tc","toolCallName":"f","parentMessageId":"m","delta":"{}","subagentRunId":"sr",` + hFullBase + `}`, ""},
	{"TOOL_CALL_RESULT string", `{"type":"TOOL_CALL_RESULT","subagentRunId":"sr","messageId":"m","toolCallId":"tc","content":"42","role":"tool",` + hFullBase + `}`, ""},
	{"TOOL_CALL_RESULT parts", `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"tc","content":[{"type":"text","text":"see"},{"type":"document","id":"d","source":{"type":"file","value":"f-1"}}],"role":"tool"}`, ""},
	{"TOOL_CALL_RESULT legacy binary", `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"tc","content":[{"type":"binary","mimeType":"application/pdf","data":"JVBERi0=","filename":"r.pdf","id":"b1"},{"type":"binary","mimeType":"image/png","url":"https://x/i.png"}]}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"tc","content":[
			{"type":"document","source":{"type":"data","value":"JVBERi0=","mimeType":"application/pdf"},"metadata":{"legacyBinary":true,"filename":"r.pdf","id":"b1"}},
			{"type":"document","source":{"type":"url","value":"https://x/i.png","mimeType":"image/png"},"metadata":{"legacyBinary":true}}]}`},
	{"ACTIVITY_SNAPSHOT", `{"type":"ACTIVITY_SNAPSHOT","subagentRunId":"sr","messageId":"m","activityType":"plan","content":{"steps":[{"title":"a","done":false}]},"replace":false,` + hFullBase + `}`, ""},
	{"ACTIVITY_DELTA", `{"type":"ACTIVITY_DELTA","subagentRunId":"sr","messageId":"m","activityType":"plan","patch":[{"op":"replace","path":"/steps/0/done","value":true},{"op":"remove","path":"/x"}],` + hFullBase + `}`, ""},
	{"REASONING_START", `{"type":"REASONING_START","subagentRunId":"sr","messageId":"m",` + hFullBase + `}`, ""},
	{"REASONING_MESSAGE_START", `{"type":"REASONING_MESSAGE_START","subagentRunId":"sr","messageId":"m","role":"reasoning",` + hFullBase + `}`, ""},
	{"REASONING_MESSAGE_CONTENT", `{"type":"REASONING_MESSAGE_CONTENT","subagentRunId":"sr","messageId":"m","delta":"hmm",` + hFullBase + `}`, ""},
	{"REASONING_MESSAGE_END", `{"type":"REASONING_MESSAGE_END","subagentRunId":"sr","messageId":"m",` + hFullBase + `}`, ""},
	{"REASONING_MESSAGE_CHUNK", `{"type":"REASONING_MESSAGE_CHUNK","subagentRunId":"sr","messageId":"m","delta":"hm",` + hFullBase + `}`, ""},
	{"REASONING_END", `{"type":"REASONING_END","subagentRunId":"sr","messageId":"m",` + hFullBase + `}`, ""},
	{"REASONING_ENCRYPTED_VALUE", `{"type":"REASONING_ENCRYPTED_VALUE","subagentRunId":"sr","subtype":"tool-call","entityId":"tc","encryptedValue":"opaque==",` + hFullBase + `}`, ""},
}

// TestRoundTripJSONEveryType: JSON → wire → JSON gives the same JSON value
// (up to the documented normalisations), for every event type; the wire
// carries the type in the arm and base_event.type of wire-1.0.md.
func TestRoundTripJSONEveryType(t *testing.T) {
	covered := map[event.Type]bool{}
	for _, tc := range hFullEvents {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := event.Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			covered[ev.Type()] = true
			wire, err := codec.AppendFromJSON(nil, []byte(tc.in))
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			hEnvelope(t, ev.Type(), wire)
			// The JSON entry point and the Go-value entry point agree.
			if direct, err := codec.Append(nil, ev); err != nil || !bytes.Equal(direct, wire) {
				t.Errorf("Append(Parse(x)) = %x, %v\nAppendFromJSON(x) = %x", direct, err, wire)
			}
			out, err := codec.AppendJSONFromWire(nil, wire)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			want := tc.in
			if tc.want != "" {
				want = tc.want
			}
			if !hSameJSON(t, out, []byte(want)) {
				t.Errorf("round trip changed the event\n got %s\nwant %s", out, want)
			}
			// The decoded JSON is valid AG-UI JSON and encodes to the same bytes.
			again, err := codec.AppendFromJSON(nil, out)
			if err != nil {
				t.Fatalf("re-encode %s: %v", out, err)
			}
			if !bytes.Equal(again, wire) {
				t.Errorf("re-encoding the decoded JSON gives other bytes\n got %x\nwant %x", again, wire)
			}
		})
	}
	for _, s := range hSpecWire {
		if !covered[s.typ] {
			t.Errorf("no round-trip case for %s", s.typ)
		}
	}
}

// TestRoundTripTypedEveryType: a Go value in canonical form (the form
// Unmarshal produces: empty repeated fields nil, dynamic values in compact
// JSON with JavaScript number spelling) survives Append then Unmarshal.
func TestRoundTripTypedEveryType(t *testing.T) {
	md := event.Object(`{"k":"v","n":null,"a":[1,1.5,-0.25],"o":{}}`)
	base := event.Base{Timestamp: ptrI(-42), RawEvent: event.RawValue(`{"raw":[true,false,null,"s",1e+21,1e-7]}`), Metadata: md}
	events := []event.Event{
		&event.TextMessageStart{Base: base, MessageID: "m", Role: ptrS("assistant"), Name: ptrS("n"), SubagentRunID: ptrS("s")},
		&event.TextMessageContent{Base: base, MessageID: "m", Delta: "d", SubagentRunID: ptrS("s")},
		&event.TextMessageEnd{Base: base, MessageID: "m", SubagentRunID: ptrS("")},
		&event.ToolCallStart{Base: base, ToolCallID: "t", ToolCallName: "f", ParentMessageID: ptrS("p"), SubagentRunID: ptrS("s")},
		&event.ToolCallArgs{Base: base, ToolCallID: "t", Delta: "{", SubagentRunID: ptrS("s")},
		&event.ToolCallEnd{Base: base, ToolCallID: "t", SubagentRunID: ptrS("s")},
		&event.StateSnapshot{Base: base, Snapshot: event.RawValue(`{"a":[{"b":null}]}`), SubagentRunID: ptrS("s")},
		&event.StateDelta{Base: base, Delta: []event.PatchOp{{Op: "add", Path: "/a", Value: event.RawValue(`1`)}, {Op: "copy", Path: "/b", From: ptrS("/a")}, {Op: "test", Path: "/c"}}, SubagentRunID: ptrS("s")},
		&event.MessagesSnapshot{Base: base, Messages: []event.Message{
			{ID: "1", Role: "user", Parts: []event.ContentPart{
				{Type: "text", Text: "t", ID: ptrS("p"), Metadata: event.RawValue(`"m"`)},
				{Type: "image", Source: &event.Source{Type: "data", Value: "AA==", MimeType: ptrS("image/png")}, ID: ptrS("i"), Metadata: event.RawValue(`[]`)},
				{Type: "audio", Source: &event.Source{Type: "url", Value: "u", MimeType: ptrS("")}},
				{Type: "video", Source: &event.Source{Type: "file", Value: "f", Provider: ptrS("p"), MimeType: ptrS("video/mp4")}},
				{Type: "document", Source: &event.Source{Type: "url", Value: "d"}},
			}, Name: ptrS("n"), Metadata: event.Object(`{}`), EncryptedValue: ptrS("e"), SubagentRunID: ptrS("s")},
			{ID: "2", Role: "user", Parts: []event.ContentPart{}},
			{ID: "3", Role: "assistant", ToolCalls: []event.ToolCall{{ID: "tc", Type: "function", Function: event.FunctionCall{Name: "f", Arguments: "{}"}, Metadata: event.Object(`{"x":1}`), EncryptedValue: ptrS("e")}}},
			{ID: "4", Role: "tool", Content: ptrS("r"), ToolCallID: ptrS("tc"), Error: ptrS("")},
			{ID: "5", Role: "activity", ActivityType: ptrS("a"), ActivityContent: event.Object(`{"p":1}`)},
			{ID: "6", Role: "reasoning", Content: ptrS("r"), EncryptedValue: ptrS("e")},
			{ID: "7", Role: "developer", Content: ptrS("")},
			{ID: "8", Role: "system", Content: ptrS("s")},
		}},
		&event.Raw{Base: base, Event: event.RawValue(`null`), Source: ptrS("s"), SubagentRunID: ptrS("s")},
		&event.Custom{Base: base, Name: "c", Value: event.RawValue(`-0`), SubagentRunID: ptrS("s")},
		&event.RunStarted{Base: base, ThreadID: "t", RunID: "r", ParentRunID: ptrS("p"), ProtocolVersion: ptrS("1.0"), Input: &event.RunAgentInput{
			ThreadID: "t", RunID: "r", ParentRunID: ptrS("p"), State: event.RawValue(`{}`), ForwardedProps: event.RawValue(`[]`), ProtocolVersion: ptrS("1.0"),
			Messages: []event.Message{{ID: "1", Role: "system", Content: ptrS("s")}},
			Tools:    []event.Tool{{Name: "n", Description: "d", Parameters: event.RawValue(`{"type":"object"}`), Metadata: event.Object(`{"t":true}`)}},
			Context:  []event.Context{{Description: "d", Value: "v"}},
			Resume:   []event.ResumeEntry{{InterruptID: "i", Status: "resolved", Payload: event.RawValue(`0.1`), Metadata: event.Object(`{"s":"x"}`)}},
		}},
		&event.RunFinished{Base: base, ThreadID: "t", RunID: "r", Result: event.RawValue(`"ok"`),
			Outcome: &event.RunOutcome{Type: "interrupt", Interrupts: []event.Interrupt{{ID: "i", Reason: "r", Message: ptrS("m"), ToolCallID: ptrS("tc"),
				ResponseSchema: event.RawValue(`{}`), ExpiresAt: ptrS("x"), Metadata: event.RawValue(`[1]`), SubagentRunID: ptrS("s")}}},
			Usage: []event.Usage{{Provider: ptrS("p"), Model: ptrS("m"), InputTokens: ptrI(0), OutputTokens: ptrI(1), TotalTokens: ptrI(1<<53 - 1), ReasoningTokens: ptrI(-1), CachedInputTokens: ptrI(3), CacheWriteInputTokens: ptrI(4)}}},
		&event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "success", PendingToolCallIDs: []string{"a", ""}}},
		&event.RunError{Base: base, Code: ptrS("c"), Message: "m", Usage: []event.Usage{{}}},
		&event.StepStarted{Base: base, StepName: "s", SubagentRunID: ptrS("s")},
		&event.StepFinished{Base: base, StepName: "s", SubagentRunID: ptrS("s")},
		&event.SubagentStarted{Base: base, SubagentRunID: "s", Name: "n", Description: ptrS("d"), ParentSubagentRunID: ptrS("ps"), ParentToolCallID: ptrS("pt"), ParentMessageID: ptrS("pm")},
		&event.SubagentFinished{Base: base, SubagentRunID: "s", Result: event.RawValue(`{}`), Outcome: &event.SubagentOutcome{Type: "suspended", InterruptIDs: []string{"i"}}},
		&event.SubagentError{Base: base, SubagentRunID: "s", Message: "m", Code: ptrS("c")},
		&event.TextMessageChunk{Base: base, MessageID: ptrS("m"), Role: ptrS("user"), Delta: ptrS(""), Name: ptrS("n"), SubagentRunID: ptrS("s")},
		&event.ToolCallChunk{Base: base, ToolCallID: ptrS("t"), ToolCallName: ptrS("f"), ParentMessageID: ptrS("p"), Delta: ptrS("d"), SubagentRunID: ptrS("s")},
		&event.ToolCallResult{Base: base, SubagentRunID: ptrS("s"), MessageID: "m", ToolCallID: "t", Content: ptrS("c"), Role: ptrS("tool")},
		&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "text", Text: "x"}}},
		&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{}},
		&event.ActivitySnapshot{Base: base, SubagentRunID: ptrS("s"), MessageID: "m", ActivityType: "a", Content: event.Object(`{}`), Replace: ptrB(true)},
		&event.ActivityDelta{Base: base, SubagentRunID: ptrS("s"), MessageID: "m", ActivityType: "a", Patch: []event.PatchOp{{Op: "test", Path: "", Value: event.RawValue(`{"a":""}`)}}},
		&event.ReasoningStart{Base: base, SubagentRunID: ptrS("s"), MessageID: "m"},
		&event.ReasoningMessageStart{Base: base, SubagentRunID: ptrS("s"), MessageID: "m", Role: "reasoning"},
		&event.ReasoningMessageContent{Base: base, SubagentRunID: ptrS("s"), MessageID: "m", Delta: "d"},
		&event.ReasoningMessageEnd{Base: base, SubagentRunID: ptrS("s"), MessageID: "m"},
		&event.ReasoningMessageChunk{Base: base, SubagentRunID: ptrS("s"), MessageID: ptrS("m"), Delta: ptrS("d")},
		&event.ReasoningEnd{Base: base, SubagentRunID: ptrS("s"), MessageID: "m"},
		&event.ReasoningEncryptedValue{Base: base, SubagentRunID: ptrS("s"), Subtype: "message", EntityID: "e", EncryptedValue: "v"},
	}
	covered := map[event.Type]bool{}
	for _, ev := range events {
		covered[ev.Type()] = true
		wire, err := codec.Append(nil, ev)
		if err != nil {
			t.Errorf("%s: encode: %v", ev.Type(), err)
			continue
		}
		hEnvelope(t, ev.Type(), wire)
		back, err := codec.Unmarshal(wire)
		if err != nil {
			t.Errorf("%s: decode: %v", ev.Type(), err)
			continue
		}
		if !reflect.DeepEqual(back, ev) {
			t.Errorf("%s: typed round trip differs\n got %#v\nwant %#v", ev.Type(), back, ev)
		}
		// The JSON form of the decoded event parses back to the same value.
		j, err := codec.AppendJSONFromWire(nil, wire)
		if err != nil {
			t.Errorf("%s: AppendJSONFromWire: %v", ev.Type(), err)
			continue
		}
		if parsed, err := event.Parse(j); err != nil || !reflect.DeepEqual(parsed, ev) {
			t.Errorf("%s: Parse(AppendJSONFromWire) = %#v, %v", ev.Type(), parsed, err)
		}
	}
	for _, s := range hSpecWire {
		if !covered[s.typ] {
			t.Errorf("no typed case for %s", s.typ)
		}
	}
}

// hValidZero is the zero value of an event type, with the one field the
// zero value lacks to be valid: TOOL_CALL_RESULT must carry content.
func hValidZero(t event.Type) event.Event {
	ev := event.New(t)
	switch e := ev.(type) {
	case *event.ToolCallResult:
		e.Parts = []event.ContentPart{}
	case *event.ActivitySnapshot:
		e.Content = event.Object("{}") // required: written, and read back, as {}
	case *event.ReasoningMessageStart:
		e.Role = event.RoleReasoning // the one role allowed
	case *event.ReasoningEncryptedValue:
		e.Subtype = "message" // "" is not a subtype
	}
	return ev
}

// TestRoundTripZeroValues: the zero value of every event type encodes (but
// TOOL_CALL_RESULT's, which has no content and is refused as Parse refuses
// it), and decodes to the zero value again (required strings "" are not
// written, so nothing distinguishes them from absent).
func TestRoundTripZeroValues(t *testing.T) {
	if _, err := codec.Append(nil, event.New(event.TypeToolCallResult)); !errors.Is(err, event.ErrMissingField) || !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("TOOL_CALL_RESULT without content: %v, want ErrMissingField and ErrInvalid", err)
	}
	for _, s := range hSpecWire {
		ev := hValidZero(s.typ)
		wire, err := codec.Append(nil, ev)
		if err != nil {
			t.Errorf("%s: %v", s.typ, err)
			continue
		}
		payload := hEnvelope(t, s.typ, wire)
		// Only base_event is written (its own payload empty or just the type).
		if n := len(wParse(t, payload)); n != 1 && s.typ != event.TypeToolCallResult && s.typ != event.TypeActivitySnapshot &&
			s.typ != event.TypeReasoningMessageStart && s.typ != event.TypeReasoningEncryptedValue {
			t.Errorf("%s: zero value writes %d fields: %x", s.typ, n, payload)
		}
		back, err := codec.Unmarshal(wire)
		if err != nil {
			t.Errorf("%s: %v", s.typ, err)
			continue
		}
		want := hValidZero(s.typ)
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%s: got %#v", s.typ, back)
		}
	}
}

// TestRoundTripLengthBoundaries: payloads whose lengths need 1, 2 and 3
// varint bytes, at and around the boundaries, nested several levels.
func TestRoundTripLengthBoundaries(t *testing.T) {
	for _, n := range []int{0, 1, 100, 110, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 200, 16250, 16370, 16383, 16384, 16385, 20000, 2097151, 2097152} {
		delta := strings.Repeat("x", n)
		ev := &event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "user", Parts: []event.ContentPart{{Type: "text", Text: delta}},
			Metadata: event.Object(`{"k":"` + delta + `"}`)}}}
		wire, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		// Independent check of the framing: walk every level with protowire.
		payload := hEnvelope(t, event.TypeMessagesSnapshot, wire)
		msgs := wAll(t, payload, 2)
		if len(msgs) != 1 {
			t.Fatalf("%d: %d messages", n, len(msgs))
		}
		parts := wAll(t, msgs[0], 8)
		if len(parts) != 1 {
			t.Fatalf("%d: %d parts", n, len(parts))
		}
		texts := wAll(t, parts[0], 1)
		if len(texts) != 1 {
			t.Fatalf("%d: %d text parts", n, len(texts))
		}
		var got string
		for _, f := range wParse(t, texts[0]) {
			if f.num == 1 {
				got = string(f.b)
			}
		}
		if got != delta {
			t.Fatalf("%d: text of length %d came out as length %d", n, n, len(got))
		}
		back, err := codec.Unmarshal(wire)
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		if !reflect.DeepEqual(back, ev) {
			t.Fatalf("%d: round trip differs", n)
		}
	}
}

// TestAppendKeepsPrefix: Append appends; what was in dst stays.
func TestAppendKeepsPrefix(t *testing.T) {
	ev := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("d", 300)}
	alone, err := codec.Append(nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range [][]byte{[]byte("frame:"), make([]byte, 0, 4096), append(make([]byte, 0, 1024), "xyz"...)} {
		p := append([]byte(nil), prefix...)
		out, err := codec.Append(prefix, ev)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out[:len(p)], p) || !bytes.Equal(out[len(p):], alone) {
			t.Errorf("Append(%q, ev) = %q", p, out)
		}
	}
	j := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`)
	out, err := codec.AppendFromJSON([]byte("pre"), j)
	if err != nil || string(out[:3]) != "pre" {
		t.Fatalf("AppendFromJSON: %q, %v", out, err)
	}
	js, err := codec.AppendJSONFromWire([]byte("data: "), out[3:])
	if err != nil || string(js) != "data: "+string(j) {
		t.Errorf("AppendJSONFromWire: %s, %v", js, err)
	}
}

// TestRoundTripPreservesDynamicText: through event.Parse and event.Marshal
// (no protobuf), dynamic values come back byte for byte: key order, number
// spelling, whitespace inside them. Through the wire, they come back as the
// same JSON values in the same key order, numbers in JavaScript's spelling.
func TestRoundTripPreservesDynamicText(t *testing.T) {
	in := `{"type":"CUSTOM","name":"c","value":{"z":1.50,"a":null,"m":[1e2]},"metadata":{"z":1.50,"a":null,"m":[1e2]}}`
	ev, err := event.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := event.Marshal(ev)
	if err != nil || string(out) != in {
		t.Errorf("event.Marshal(event.Parse(x)):\n got %s, %v\nwant %s", out, err, in)
	}
	wire, err := codec.AppendFromJSON(nil, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	back, err := codec.AppendJSONFromWire(nil, wire)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"CUSTOM","name":"c","value":{"z":1.5,"a":null,"m":[100]},"metadata":{"z":1.5,"a":null,"m":[100]}}`; string(back) != want {
		t.Errorf("through the wire:\n got %s\nwant %s", back, want)
	}
}
