package event_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestMarshalPreservesText: Parse then Marshal gives back the input byte for
// byte when the input already has Marshal's layout (type first, fields in
// protobuf field-number order, then timestamp, rawEvent, metadata, no
// whitespace between members). Dynamic values keep their key order, number
// spelling, escapes and inner whitespace.
func TestMarshalPreservesText(t *testing.T) {
	for _, in := range []string{
		`{"type":"CUSTOM","name":"c","value":{"z":1.50,"a":null,"m":[1e2]},"metadata":{"z":1.50,"a":null,"m":[1e2]}}`,
		`{"type":"CUSTOM","name":"c","value":-0.0e-0,"timestamp":0,"rawEvent":"\u00e9\/","metadata":{}}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{ "b" : [ 1 , 2.000 ] , "a" : { } },"subagentRunId":"s"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":123456789012345678901234567890}`,
		`{"type":"STATE_SNAPSHOT","snapshot":null}`,
		`{"type":"RAW","event":[1E+400,-1e-400,9007199254740993],"source":"x"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","name":"n","subagentRunId":"s","timestamp":-9223372036854775808,"rawEvent":{"id":"x"},"metadata":{"ag-ui":{"k":[]},"":0,"2":"b","1":"a"}}`,
		// Typed strings are re-spelled the JSON.stringify way, which is how this one is already written.
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"b\\c\n\u0000\u001f` + "\u2028" + `😀"}`,
		`{"type":"ACTIVITY_SNAPSHOT","subagentRunId":"s","messageId":"m","activityType":"a","content":{"z":{"y":[{}]}},"replace":true}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":{"b":1.0}},{"op":"move","path":"/c","from":"/a"},{"op":"test","path":"/x","value":null}]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"v":1e5},"outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","message":"m","toolCallId":"tc","responseSchema":{"type":"object"},"expiresAt":"2026-01-01T00:00:00Z","metadata":[null],"subagentRunId":"s"}]},"usage":[{"provider":"p","model":"m","inputTokens":0,"outputTokens":9007199254740993}]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["a"]}}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":[],"outcome":{"type":"suspended","interruptIds":["i"]}}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"text","id":"p","text":"t","metadata":{"b":2,"a":1}},{"type":"image","source":{"type":"data","value":"AA==","mimeType":"image/png"},"metadata":1.10}]},{"id":"2","role":"activity","activityType":"a","content":{"b":1.0,"a":2}},{"id":"3","role":"assistant","toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"},"metadata":{"x":0.5e1}}],"metadata":{"k":"v"}}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","state":{"s":1.0},"messages":[],"tools":[{"name":"n","description":"d","parameters":{"p":1e0},"metadata":{"m":null}}],"context":[],"forwardedProps":{"f":[]},"resume":[{"interruptId":"i","status":"resolved","payload":0.10,"metadata":{"z":1,"a":2}}]}}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT", "delta" : "x" ,"whatever":[1.50]}`,
	} {
		ev, err := event.Parse([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		out, err := event.Marshal(ev)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if string(out) != in {
			t.Errorf("Marshal(Parse(x)) != x\n got %s\nwant %s", out, in)
		}
		// AppendJSON appends.
		out2, err := event.AppendJSON([]byte("data: "), ev)
		if err != nil || string(out2) != "data: "+in {
			t.Errorf("AppendJSON = %s, %v", out2, err)
		}
	}
}

// TestMarshalLayout: Marshal writes "type" first, then the event's fields in
// protobuf field-number order, then the base fields; it omits absent
// optional fields (never writes null for them) and always writes required
// ones, even when empty.
func TestMarshalLayout(t *testing.T) {
	for _, tc := range []struct {
		ev   event.Event
		want string
	}{
		{&event.TextMessageStart{}, `{"type":"TEXT_MESSAGE_START","messageId":""}`},
		{&event.TextMessageContent{MessageID: "m", Base: event.Base{Metadata: event.Object("{}"), Timestamp: ip(0)}},
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"","timestamp":0,"metadata":{}}`},
		{&event.TextMessageChunk{}, `{"type":"TEXT_MESSAGE_CHUNK"}`},
		{&event.MessagesSnapshot{}, `{"type":"MESSAGES_SNAPSHOT","messages":[]}`},
		{&event.StateDelta{}, `{"type":"STATE_DELTA","delta":[]}`},
		{&event.StateSnapshot{}, `{"type":"STATE_SNAPSHOT"}`},
		{&event.Custom{Name: "c", Value: event.RawValue("null")}, `{"type":"CUSTOM","name":"c","value":null}`},
		{&event.RunFinished{ThreadID: "t", RunID: "r"}, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
		{&event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "interrupt"}, Usage: []event.Usage{}},
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`},
		{&event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "success", PendingToolCallIDs: []string{}}},
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}`},
		{&event.SubagentFinished{SubagentRunID: "s", Outcome: &event.SubagentOutcome{Type: "success"}},
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success"}}`},
		{&event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r"}},
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}}`},
		// resume: absent when nil (nothing to resume), written when empty.
		{&event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Resume: []event.ResumeEntry{}}},
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[],"resume":[]}}`},
		{&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{}},
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[]}`},
		{&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Content: sp("")},
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":""}`},
		{&event.MessagesSnapshot{Messages: []event.Message{
			{ID: "1", Role: "assistant", ToolCalls: []event.ToolCall{}},
			{ID: "2", Role: "user", Parts: []event.ContentPart{{Type: "text"}}},
			{ID: "3", Role: "activity", ActivityType: sp("a"), ActivityContent: event.Object("{}")},
		}}, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"assistant"},{"id":"2","role":"user","content":[{"type":"text","text":""}]},{"id":"3","role":"activity","activityType":"a","content":{}}]}`},
		{&event.Thinking{Kind: event.TypeThinkingEnd, JSON: []byte(`{"type":"THINKING_END"}`)}, `{"type":"THINKING_END"}`},
	} {
		out, err := event.Marshal(tc.ev)
		if err != nil {
			t.Errorf("%T: %v", tc.ev, err)
			continue
		}
		if string(out) != tc.want {
			t.Errorf("%T:\n got %s\nwant %s", tc.ev, out, tc.want)
		}
	}
}

// TestMarshalReorders: whatever the input order, the output has the layout.
func TestMarshalReorders(t *testing.T) {
	in := `{"metadata":{"b":1,"a":2},"delta":"d","timestamp":7,"messageId":"m","type":"TEXT_MESSAGE_CONTENT","rawEvent":[]}`
	want := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":7,"rawEvent":[],"metadata":{"b":1,"a":2}}`
	ev, err := event.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := event.Marshal(ev)
	if err != nil || string(out) != want {
		t.Errorf("got %s, %v\nwant %s", out, err, want)
	}
}

// TestMarshalParseRoundTrip: Go values survive Marshal then Parse.
func TestMarshalParseRoundTrip(t *testing.T) {
	for _, ev := range []event.Event{
		&event.TextMessageStart{Base: event.Base{Timestamp: ip(-1), RawEvent: event.RawValue(`{"x":[true,false,null]}`), Metadata: event.Object(`{"k":"v"}`)},
			MessageID: "m\u2028", Role: sp("user"), Name: sp("ñ"), SubagentRunID: sp("")},
		&event.ToolCallChunk{ToolCallID: sp("t"), ToolCallName: sp("n"), ParentMessageID: sp("p"), Delta: sp("{\"a\":"), SubagentRunID: sp("s")},
		&event.ActivityDelta{MessageID: "m", ActivityType: "a", Patch: []event.PatchOp{{Op: "test", Path: "/a/0", Value: event.RawValue(`"x"`)}, {Op: "copy", Path: "/b", From: sp("/a")}}},
		&event.RunError{Code: sp("E1"), Message: "m", Usage: []event.Usage{{TotalTokens: ip(1 << 62), CacheWriteInputTokens: ip(0)}}},
		&event.SubagentStarted{SubagentRunID: "s", Name: "n", Description: sp("d"), ParentSubagentRunID: sp("ps"), ParentToolCallID: sp("pt"), ParentMessageID: sp("pm")},
		&event.ReasoningEncryptedValue{SubagentRunID: sp("s"), Subtype: "tool-call", EntityID: "e", EncryptedValue: "v"},
		&event.MessagesSnapshot{Messages: []event.Message{
			{ID: "1", Role: "tool", ToolCallID: sp("t"), Parts: []event.ContentPart{
				{Type: "document", ID: sp("d"), Source: &event.Source{Type: "file", Value: "f", Provider: sp("p"), MimeType: sp("application/pdf")}, Metadata: event.RawValue(`[1,"a"]`)},
				{Type: "audio", Source: &event.Source{Type: "url", Value: "u"}},
			}, Error: sp("e"), Metadata: event.Object(`{}`), EncryptedValue: sp("ev"), SubagentRunID: sp("s")},
			{ID: "2", Role: "reasoning", Content: sp("r"), EncryptedValue: sp("x")},
		}},
	} {
		out, err := event.Marshal(ev)
		if err != nil {
			t.Errorf("%T: %v", ev, err)
			continue
		}
		back, err := event.Parse(out)
		if err != nil {
			t.Errorf("%T: Parse(%s): %v", ev, out, err)
			continue
		}
		if !reflect.DeepEqual(back, ev) {
			t.Errorf("%T:\n got %#v\nwant %#v", ev, back, ev)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	var nilEvent *event.TextMessageStart
	for _, tc := range []struct {
		name string
		ev   event.Event
		path string // a path the message must name, if any
	}{
		{"nil", nil, ""},
		{"typed nil", nilEvent, ""},
		{"invalid rawEvent", &event.Custom{Name: "c", Base: event.Base{RawEvent: event.RawValue(`{"a":`)}}, "rawEvent"},
		{"two values", &event.Custom{Name: "c", Value: event.RawValue(`1 2`)}, "value"},
		{"metadata not an object", &event.Custom{Name: "c", Base: event.Base{Metadata: event.Object(`[1]`)}}, "metadata"},
		{"metadata null", &event.Custom{Name: "c", Base: event.Base{Metadata: event.Object(`null`)}}, "metadata"},
		{"invalid activity content", &event.ActivitySnapshot{MessageID: "m", ActivityType: "a", Content: event.Object(`{"a"}`)}, "content"},
		{"invalid part metadata", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "text"}, {Type: "text", Metadata: event.RawValue(`{`)}}}, "content[1].metadata"},
		{"two content carriers", &event.MessagesSnapshot{Messages: []event.Message{{ID: "0", Role: "user", Content: sp("x")}, {ID: "1", Role: "user", Content: sp("x"), Parts: []event.ContentPart{}}}}, "messages[1].content"},
		{"string and activity content", &event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "user", Content: sp("x"), ActivityContent: event.Object(`{}`)}}}, "messages[0].content"},
		{"unknown role", &event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "critic", Content: sp("x")}}}, "messages[0].role"},
		{"op number", &event.StateDelta{Delta: []event.PatchOp{{Op: "0", Path: "/a"}}}, "delta[0].op"},
		{"success outcome with interrupts", &event.RunFinished{Outcome: &event.RunOutcome{Type: "success", Interrupts: []event.Interrupt{{ID: "i"}}}}, "outcome.interrupts"},
		{"external event type", &externalEvent{}, ""},
		{"thinking with invalid JSON", &event.Thinking{Kind: event.TypeThinkingStart, JSON: []byte(`{"type":`)}, ""},
		{"thinking not an object", &event.Thinking{Kind: event.TypeThinkingStart, JSON: []byte(`[]`)}, ""},
	} {
		out, err := event.AppendJSON([]byte("keep"), tc.ev)
		if err == nil {
			t.Errorf("%s: marshalled as %s", tc.name, out)
			continue
		}
		if string(out) != "keep" {
			t.Errorf("%s: dst changed to %q on error", tc.name, out)
		}
		if tc.path != "" && !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: error %q does not name %s", tc.name, err, tc.path)
		}
	}
}

// TestMarshalStringEscapes: strings are written the way JSON.stringify
// writes them.
func TestMarshalStringEscapes(t *testing.T) {
	ev := &event.TextMessageContent{MessageID: "<m>&", Delta: "\"\\/\b\f\n\r\t\x00\x1f\x7f\u2028\u2029é😀"}
	out, err := event.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"<m>&","delta":"\"\\/\b\f\n\r\t\u0000\u001f` + "\x7f\u2028\u2029é😀" + `"}`
	if string(out) != want {
		t.Errorf("\n got %s\nwant %s", out, want)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || back["delta"] != ev.Delta {
		t.Errorf("encoding/json reads %v, %v", back["delta"], err)
	}
}

func TestMarshalRunAgentInput(t *testing.T) {
	in := &event.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: event.RawValue(`{"a":1.50}`),
		Resume: []event.ResumeEntry{{InterruptID: "i", Status: "resolved"}}}
	out, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[],"forwardedProps":{"a":1.50},"resume":[{"interruptId":"i","status":"resolved"}]}`
	if string(out) != want {
		t.Errorf("\n got %s\nwant %s", out, want)
	}
	back, err := event.Parser{}.ParseRunAgentInput(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Resume, in.Resume) || string(back.ForwardedProps) != `{"a":1.50}` {
		t.Errorf("round trip: %#v", back)
	}
	if _, err := json.Marshal(&event.RunAgentInput{Tools: []event.Tool{{Name: "n", Metadata: event.Object("1")}}}); err == nil ||
		!strings.Contains(err.Error(), "tools[0].metadata") {
		t.Errorf("bad tool metadata: %v", err)
	}
}

// TestMarshalKeepsDuplicateKeysInDynamicValues: JSON text is kept as it is;
// it is the protobuf encoder that must refuse a duplicate key.
func TestMarshalKeepsDuplicateKeysInDynamicValues(t *testing.T) {
	in := `{"type":"CUSTOM","name":"c","value":{"a":1,"a":2}}`
	ev, err := event.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := event.Marshal(ev)
	if err != nil || string(out) != in {
		t.Errorf("got %s, %v", out, err)
	}
	if errors.Is(err, event.ErrDuplicateKey) {
		t.Error("unexpected duplicate error")
	}
}

// TestMarshalRefusesInvalidUTF8: a string that is not UTF-8 has no faithful
// JSON form (it would be altered to U+FFFD) and no protobuf form, so both
// encoders refuse it, naming the field.
func TestMarshalRefusesInvalidUTF8(t *testing.T) {
	bad := "\xff"
	for _, tc := range []struct {
		ev   event.Event
		path string
	}{
		{&event.TextMessageContent{MessageID: "m", Delta: bad}, "delta"},
		{&event.TextMessageChunk{Delta: &bad}, "delta"},
		{&event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "user", Parts: []event.ContentPart{{Type: "text", Text: bad}}}}}, "messages[0].content[0]"},
		{&event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "success", PendingToolCallIDs: []string{bad}}}, "outcome.pendingToolCallIds"},
	} {
		_, err := event.Marshal(tc.ev)
		var pe *event.PathError
		if !errors.Is(err, event.ErrInvalidField) || !errors.As(err, &pe) {
			t.Errorf("%T: %v, want ErrInvalidField", tc.ev, err)
			continue
		}
		if pe.Path != tc.path {
			t.Errorf("%T: path %q, want %q", tc.ev, pe.Path, tc.path)
		}
	}
}

// TestMarshalOneLine: dynamic values keep their text, but line breaks
// between their tokens become spaces, so an event is always one line (an
// SSE data line, a JSON-lines record); escaped line breaks inside strings
// are untouched.
func TestMarshalOneLine(t *testing.T) {
	in := "{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":{\r\n  \"a\": [1,\n 2],\r  \"s\": \"x\\ny\"\n},\"metadata\":{\n\"k\":null}}"
	ev, err := event.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := event.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(out), "\r\n") {
		t.Fatalf("output has a raw line break: %q", out)
	}
	want := `{"type":"CUSTOM","name":"n","value":{    "a": [1,  2],   "s": "x\ny" },"metadata":{ "k":null}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	again, err := event.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := string(again.(*event.Custom).Value); !strings.Contains(v, `"x\ny"`) {
		t.Errorf("escaped line break in a string changed: %s", v)
	}
}

// TestMarshalThinkingOneLine: a THINKING_* event keeps its own text, one
// line like every other event.
func TestMarshalThinkingOneLine(t *testing.T) {
	ev, err := event.Parse([]byte("{\"type\":\"THINKING_START\",\n\"title\":\"plan\"}"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := event.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"THINKING_START", "title":"plan"}`; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// externalEvent is an event type defined outside package event: every path
// refuses it with ErrUnsupportedEvent.
type externalEvent struct{ event.Base }

func (*externalEvent) Type() event.Type { return event.TypeRunStarted }

// valueEvent has value receivers: reflect must not be asked IsNil of it.
type valueEvent struct{ b event.Base }

func (valueEvent) Type() event.Type         { return event.TypeCustom }
func (v valueEvent) BaseEvent() *event.Base { return &v.b }

func TestExternalEventTypesRefused(t *testing.T) {
	for _, ev := range []event.Event{&externalEvent{}, valueEvent{}, &valueEvent{}} {
		out, err := event.AppendJSON([]byte("keep"), ev)
		if !errors.Is(err, event.ErrUnsupportedEvent) {
			t.Errorf("%T: %v, want ErrUnsupportedEvent", ev, err)
		}
		if string(out) != "keep" {
			t.Errorf("%T: dst became %q", ev, out)
		}
	}
}
