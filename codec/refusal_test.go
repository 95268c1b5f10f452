package codec_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// TestThinkingRefused: the pre-1.0 THINKING_* events parse (into
// *event.Thinking, whose JSON comes back unchanged) but have no protobuf
// form: encoding fails with ErrUnsupportedEvent naming the type and appends
// nothing (mapping-1.0.md, "Events with no protobuf form").
func TestThinkingRefused(t *testing.T) {
	for _, typ := range []event.Type{"THINKING_START", "THINKING_END", "THINKING_TEXT_MESSAGE_START",
		"THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END"} {
		t.Run(string(typ), func(t *testing.T) {
			in := `{"type":"` + string(typ) + `","messageId":"m","delta":"hmm","title":"x","timestamp":1,"metadata":{"z":1.50}}`
			ev, err := event.Parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			th, ok := ev.(*event.Thinking)
			if !ok || th.Type() != typ {
				t.Fatalf("parsed into %T %v", ev, ev.Type())
			}
			if out, err := event.Marshal(ev); err != nil || string(out) != in {
				t.Errorf("Marshal = %s, %v", out, err)
			}
			dst := make([]byte, 3, 64)
			copy(dst, "abc")
			out, err := codec.Append(dst, ev)
			ce := hCodecErr(t, err, event.ErrUnsupportedEvent)
			if ce != nil && (ce.Type != typ || ce.Op != "encode") {
				t.Errorf("Type %q Op %q", ce.Type, ce.Op)
			}
			if err != nil && !strings.Contains(err.Error(), string(typ)) {
				t.Errorf("message %q does not name %s", err, typ)
			}
			if len(out) != 3 || string(out) != "abc" {
				t.Errorf("dst became %q", out)
			}
			out, err = codec.AppendFromJSON([]byte("abc"), []byte(in))
			hCodecErr(t, err, event.ErrUnsupportedEvent)
			if string(out) != "abc" {
				t.Errorf("AppendFromJSON: dst became %q", out)
			}
			// Not even under another profile or with relaxed options.
			if _, err := (codec.Codec{Profile: codec.PreV1, LossyNumbers: true, DropUnknownFields: true}).Append(nil, ev); !errors.Is(err, event.ErrUnsupportedEvent) {
				t.Errorf("PreV1: %v", err)
			}
		})
	}
}

// otherEvent is an event type this build does not know.
type otherEvent struct{ event.Base }

func (*otherEvent) Type() event.Type { return "TEXT_MESSAGE_REVISED" }

func TestUnknownTypeRefused(t *testing.T) {
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_REVISED","messageId":"m"}`,
		`{"type":"","messageId":"m"}`,
		`{"type":"thinking_start"}`,
		`{"type":"THINKING"}`,
	} {
		out, err := codec.AppendFromJSON([]byte("abc"), []byte(in))
		if ce := hCodecErr(t, err, event.ErrUnknownType); ce != nil && ce.Path != "type" {
			t.Errorf("%s: path %q", in, ce.Path)
		}
		if string(out) != "abc" {
			t.Errorf("%s: dst became %q", in, out)
		}
	}
	out, err := codec.Append([]byte("abc"), &otherEvent{})
	ce := hCodecErr(t, err, event.ErrUnsupportedEvent)
	if ce != nil && !strings.Contains(err.Error(), "TEXT_MESSAGE_REVISED") {
		t.Errorf("message %q does not name the type", err)
	}
	if string(out) != "abc" {
		t.Errorf("dst became %q", out)
	}
	var nilEvent *event.TextMessageStart
	for _, ev := range []event.Event{nil, nilEvent} {
		if out, err := codec.Append([]byte("abc"), ev); !errors.Is(err, codec.ErrInvalid) || string(out) != "abc" {
			t.Errorf("Append(%#v) = %q, %v", ev, out, err)
		}
	}
}

// TestPreV1Profile: a pre-1.0 peer knows the first 18 envelope arms
// (wire-1.0.md, "Pre-1.0 peers"). The other 13 types fail with
// ErrNotInProfile before a byte is written; the 18 encode as under V1.
func TestPreV1Profile(t *testing.T) {
	pre := codec.Codec{Profile: codec.PreV1}
	inProfile := 0
	for _, s := range hSpecWire {
		ev := hValidZero(s.typ)
		v1, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatalf("%s under V1: %v", s.typ, err)
		}
		dst := append(make([]byte, 0, 256), "abc"...)
		out, err := pre.Append(dst, ev)
		if s.arm <= 18 {
			inProfile++
			if err != nil {
				t.Errorf("%s (arm %d) refused under PreV1: %v", s.typ, s.arm, err)
				continue
			}
			if !bytes.Equal(out[3:], v1) {
				t.Errorf("%s: PreV1 bytes %x differ from V1 %x", s.typ, out[3:], v1)
			}
			if f := wParse(t, out[3:]); len(f) != 1 || f[0].num > 18 {
				t.Errorf("%s: envelope field %v", s.typ, f)
			}
			continue
		}
		ce := hCodecErr(t, err, codec.ErrNotInProfile)
		if ce != nil && (ce.Type != s.typ || !strings.Contains(err.Error(), string(s.typ))) {
			t.Errorf("%s: error %v does not name the type", s.typ, err)
		}
		if string(out) != "abc" || string(dst[:cap(dst)][3:4]) != "\x00" {
			t.Errorf("%s: bytes were written: %q / %x", s.typ, out, dst[:cap(dst)][:8])
		}
		if errors.Is(err, event.ErrUnsupportedEvent) {
			t.Errorf("%s: ErrNotInProfile must not also be ErrUnsupportedEvent", s.typ)
		}
	}
	if inProfile != 18 {
		t.Errorf("%d types in the PreV1 profile, want 18", inProfile)
	}
	// Supports agrees.
	for _, s := range hSpecWire {
		if got := codec.PreV1.Supports(s.typ); got != (s.arm <= 18) {
			t.Errorf("PreV1.Supports(%s) = %v", s.typ, got)
		}
		if !codec.V1.Supports(s.typ) {
			t.Errorf("V1.Supports(%s) = false", s.typ)
		}
		if arm, ok := codec.Arm(s.typ); !ok || arm != int32(s.arm) {
			t.Errorf("Arm(%s) = %d, %v; want %d", s.typ, arm, ok, s.arm)
		}
	}
	if codec.V1.Supports("THINKING_START") || codec.PreV1.Supports("THINKING_START") {
		t.Error("THINKING_START supported")
	}
	// The profile restricts encoding only: every 1.0 frame still decodes.
	wire, _ := codec.Append(nil, &event.ReasoningStart{MessageID: "m"})
	if _, err := pre.Unmarshal(wire); err != nil {
		t.Errorf("PreV1 decode of REASONING_START: %v", err)
	}
	if _, err := pre.AppendFromJSON(nil, []byte(`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":"x"}`)); !errors.Is(err, codec.ErrNotInProfile) {
		t.Errorf("AppendFromJSON under PreV1: %v", err)
	}
}

// TestContentWithoutWireForm: a content part or source with no protobuf arm
// fails with ErrInvalid naming its place (mapping-1.0.md: "a codec that aims
// to lose nothing says so loudly").
func TestContentWithoutWireForm(t *testing.T) {
	img := func(src event.Source) event.ContentPart { return event.ContentPart{Type: "image", Source: &src} }
	text := event.ContentPart{Type: "text", Text: "a"}
	for _, tc := range []struct {
		name string
		ev   event.Event
		path string
	}{
		{"binary part in a message", &event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "user", Parts: []event.ContentPart{text, {Type: "binary"}}}}}, "messages[0].content[1]"},
		{"foo part in a message", &event.MessagesSnapshot{Messages: []event.Message{{ID: "0", Role: "user", Content: ptrS("x")}, {ID: "1", Role: "tool", Parts: []event.ContentPart{{Type: "foo"}}}}}, "messages[1].content[0]"},
		{"empty part type", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{}}}, "content[0]"},
		{"binary part in a result", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{text, text, {Type: "binary", Source: &event.Source{Type: "data", Value: "x"}}}}, "content[2]"},
		{"part in the input", &event.RunStarted{Input: &event.RunAgentInput{Messages: []event.Message{{ID: "1", Role: "user", Parts: []event.ContentPart{{Type: "Text"}}}}}}, "input.messages[0].content[0]"},
		{"source type ftp", &event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "user", Parts: []event.ContentPart{text, img(event.Source{Type: "ftp", Value: "x"})}}}}, "messages[0].content[1].source"},
		{"empty source type", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{img(event.Source{Value: "x"})}}, "content[0].source"},
		{"text part with a source", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "text", Source: &event.Source{Type: "url"}}}}, "content[0]"},
		{"image part with text", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "image", Text: "a", Source: &event.Source{Type: "url"}}}}, "content[0]"},
		{"data source with a provider", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{img(event.Source{Type: "data", Value: "x", Provider: ptrS("p")})}}, "content[0].source"},
		{"url source with a provider", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{img(event.Source{Type: "url", Value: "x", Provider: ptrS("p")})}}, "content[0].source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := codec.Append([]byte("abc"), tc.ev)
			ce := hCodecErr(t, err, codec.ErrInvalid)
			if ce == nil {
				return
			}
			if ce.Path != tc.path || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("path %q, want %q (%v)", ce.Path, tc.path, err)
			}
			if string(out) != "abc" {
				t.Errorf("dst became %q", out)
			}
		})
	}
	// From JSON the parser already refuses them, with the place.
	for _, tc := range []struct{ in, path string }{
		{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"text","text":"a"},{"type":"foo"}]}`, "content[1]"},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"ftp","value":"x"}}]}]}`, "messages[0].content[1].source"},
	} {
		_, err := codec.AppendFromJSON(nil, []byte(tc.in))
		if ce := hCodecErr(t, err, event.ErrInvalidField); ce != nil && ce.Path != tc.path {
			t.Errorf("%s: path %q, want %q", tc.in, ce.Path, tc.path)
		}
	}
}

// TestPatchOpRefused: an op that is not one of the six JSON Patch verbs has
// no wire form — numbers included, even those of the six verbs' enum values.
func TestPatchOpRefused(t *testing.T) {
	for _, tc := range []struct{ in, path string }{
		{`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1},{"op":"frobnicate","path":"/a"}]}`, "delta[1].op"},
		{`{"type":"STATE_DELTA","delta":[{"op":"ADD","path":"/a"}]}`, "delta[0].op"},
		{`{"type":"STATE_DELTA","delta":[{"op":"","path":"/a"}]}`, "delta[0].op"},
		{`{"type":"STATE_DELTA","delta":[{"op":"7.5","path":"/a"}]}`, "delta[0].op"},
		{`{"type":"STATE_DELTA","delta":[{"op":"99999999999","path":"/a"}]}`, "delta[0].op"},
		{`{"type":"ACTIVITY_DELTA","messageId":"m","activityType":"a","patch":[{"op":"frobnicate","path":"/a"}]}`, "patch[0].op"},
	} {
		out, err := codec.AppendFromJSON([]byte("abc"), []byte(tc.in))
		if ce := hCodecErr(t, err, codec.ErrInvalid); ce != nil && ce.Path != tc.path {
			t.Errorf("%s: path %q, want %q", tc.in, ce.Path, tc.path)
		}
		if err != nil && !strings.Contains(err.Error(), "op") {
			t.Errorf("%s: message %q", tc.in, err)
		}
		if string(out) != "abc" {
			t.Errorf("dst became %q", out)
		}
	}
	_, err := codec.Append(nil, &event.StateDelta{Delta: []event.PatchOp{{Op: "frobnicate"}}})
	if ce := hCodecErr(t, err, codec.ErrInvalid); ce != nil && ce.Path != "delta[0].op" {
		t.Errorf("Go value: path %q", ce.Path)
	}
	// Numbers are not names, not even those of the six verbs.
	for _, op := range []string{"0", "5", "6", "42", "-1"} {
		_, err := codec.Append(nil, &event.StateDelta{Delta: []event.PatchOp{{Op: op, Path: "/a"}}})
		if ce := hCodecErr(t, err, codec.ErrInvalid); ce != nil && ce.Path != "delta[0].op" {
			t.Errorf("op %s: path %q", op, ce.Path)
		}
	}
	// The six verbs are fine, with the enum numbers of patch.proto.
	for i, op := range []string{"add", "remove", "replace", "move", "copy", "test"} {
		n := uint64(i)
		wire, err := codec.Append(nil, &event.StateDelta{Delta: []event.PatchOp{{Op: op, Path: "/a"}}})
		if err != nil {
			t.Errorf("%s: %v", op, err)
			continue
		}
		var opField []byte
		if n != 0 {
			opField = wVarint(1, n)
		}
		if want := wEvent(hArmStateDelta, hEnumStateDelta, wMsg(2, opField, wStr(2, "/a"))); !bytes.Equal(wire, want) {
			t.Errorf("%s: %x, want %x", op, wire, want)
		}
	}
}

// TestUnknownFields: a field an event type does not declare fails with
// event.ErrUnknownField naming it, unless DropUnknownFields.
func TestUnknownFields(t *testing.T) {
	for _, tc := range []struct{ in, without, path string }{
		{`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","color":"red"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`, "color"},
		{`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","MessageId":"x"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`, "MessageId"},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x","parentId":"0"}]}`, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x"}]}`, "messages[0].parentId"},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"image","source":{"type":"url","value":"u","width":3}}]}]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"image","source":{"type":"url","value":"u"}}]}]}`, "messages[0].content[0].source.width"},
		{`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"context":[{"description":"d","value":"v","ttl":1}]}}`,
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"context":[{"description":"d","value":"v"}]}}`, "input.context[0].ttl"},
		{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","severity":1}]}}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r"}]}}`, "outcome.interrupts[0].severity"},
	} {
		_, err := codec.AppendFromJSON(nil, []byte(tc.in))
		if ce := hCodecErr(t, err, event.ErrUnknownField); ce != nil && ce.Path != tc.path {
			t.Errorf("%s: path %q, want %q", tc.in, ce.Path, tc.path)
		}
		got, err := codec.Codec{DropUnknownFields: true}.AppendFromJSON(nil, []byte(tc.in))
		if err != nil {
			t.Errorf("%s with DropUnknownFields: %v", tc.in, err)
			continue
		}
		want, err := codec.AppendFromJSON(nil, []byte(tc.without))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: dropping gives %x, want %x", tc.in, got, want)
		}
	}
}

// TestInvalidUTF8Refused: a protobuf string must be valid UTF-8; a Go string
// that is not fails on encode with ErrInvalid, naming the field.
func TestInvalidUTF8Refused(t *testing.T) {
	bad := "bad\xff"
	for _, tc := range []struct {
		ev   event.Event
		path string
	}{
		{&event.TextMessageContent{MessageID: bad}, "messageId"},
		{&event.TextMessageContent{MessageID: "m", Delta: bad}, "delta"},
		{&event.TextMessageStart{MessageID: "m", Role: ptrS(bad)}, "role"},
		{&event.Custom{Name: bad}, "name"},
		{&event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "user", Content: ptrS(bad)}}}, "messages[0].content"},
		{&event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: bad}}}, "messages[0].role"},
		{&event.MessagesSnapshot{Messages: []event.Message{{ID: "1", Role: "assistant", ToolCalls: []event.ToolCall{{ID: "t", Type: "function", Function: event.FunctionCall{Name: "f", Arguments: bad}}}}}}, "messages[0].toolCalls[0].function.arguments"},
		{&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "text", Text: bad}}}, "content[0].text"},
		{&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "text", Text: "x", ID: ptrS(bad)}}}, "content[0].id"},
		{&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "image", Source: &event.Source{Type: "url", Value: bad}}}}, "content[0].source"},
		{&event.ToolCallResult{MessageID: "m", ToolCallID: "t", Parts: []event.ContentPart{{Type: "image", Source: &event.Source{Type: "file", Value: "v", Provider: ptrS(bad)}}}}, "content[0].source"},
		{&event.StateDelta{Delta: []event.PatchOp{{Op: "move", Path: "/a", From: ptrS(bad)}}}, "delta[0].from"},
		{&event.RunFinished{Outcome: &event.RunOutcome{Type: bad}}, "outcome"},
		{&event.RunFinished{Outcome: &event.RunOutcome{Type: "success", PendingToolCallIDs: []string{"a", bad}}}, "outcome.pendingToolCallIds[1]"},
		{&event.RunFinished{Outcome: &event.RunOutcome{Type: "interrupt", Interrupts: []event.Interrupt{{ID: "i", Reason: bad}}}}, "outcome.interrupts[0].reason"},
		{&event.SubagentFinished{Outcome: &event.SubagentOutcome{Type: "suspended", InterruptIDs: []string{bad}}}, "outcome.interruptIds[0]"},
		{&event.RunError{Message: "m", Usage: []event.Usage{{Model: ptrS(bad)}}}, "usage[0].model"},
		{&event.RunStarted{Input: &event.RunAgentInput{Context: []event.Context{{Description: bad}}}}, "input.context[0].description"},
		{&event.Custom{Name: "c", Value: event.RawValue("\"" + bad + "\"")}, "value"},
		{&event.Custom{Name: "c", Value: event.RawValue("{\"" + bad + "\":1}")}, "value"},
	} {
		out, err := codec.Append([]byte("abc"), tc.ev)
		ce := hCodecErr(t, err, codec.ErrInvalid)
		if ce == nil {
			continue
		}
		if !strings.HasPrefix(ce.Path, tc.path) {
			t.Errorf("%T: path %q, want %q (%v)", tc.ev, ce.Path, tc.path, err)
		}
		if string(out) != "abc" {
			t.Errorf("%T: dst became %q", tc.ev, out)
		}
	}
}

// TestInvalidDynamicJSONRefused: a Go RawValue that is not one JSON value
// fails with ErrInvalid, naming the field.
func TestInvalidDynamicJSONRefused(t *testing.T) {
	for _, raw := range []string{``, ` `, `{`, `[1,]`, `{"a" 1}`, `1 2`, `nul`, `'x'`, `NaN`, `01`, `"\ud800"`} {
		_, err := codec.Append(nil, &event.StateSnapshot{Snapshot: event.RawValue(raw)})
		if raw == "" {
			// An empty, non-nil RawValue is not absent: it is no JSON at all.
			_, err = codec.Append(nil, &event.StateSnapshot{Snapshot: event.RawValue([]byte{})})
		}
		if ce := hCodecErr(t, err, codec.ErrInvalid); ce != nil && !strings.HasPrefix(ce.Path, "snapshot") {
			t.Errorf("%q: path %q", raw, ce.Path)
		}
	}
}

// TestErrorsAreCodecErrors: whatever fails, Append, AppendFromJSON,
// Unmarshal and AppendJSONFromWire return an *codec.Error with Op set.
func TestErrorsAreCodecErrors(t *testing.T) {
	errs := []error{}
	_, err := codec.Append(nil, &event.StateDelta{Delta: []event.PatchOp{{Op: "x"}}})
	errs = append(errs, err)
	_, err = codec.AppendFromJSON(nil, []byte(`{`))
	errs = append(errs, err)
	_, err = codec.AppendFromJSON(nil, []byte(`{"type":"X"}`))
	errs = append(errs, err)
	_, err = codec.Unmarshal([]byte{0xff})
	errs = append(errs, err)
	_, err = codec.AppendJSONFromWire(nil, []byte{0x0a})
	errs = append(errs, err)
	for i, err := range errs {
		var ce *codec.Error
		if !errors.As(err, &ce) || (ce.Op != "encode" && ce.Op != "decode") || !strings.HasPrefix(err.Error(), "agwire: "+ce.Op) {
			t.Errorf("error %d: %#v", i, err)
		}
		if errors.Unwrap(err) == nil {
			t.Errorf("error %d unwraps to nothing", i)
		}
	}
	if !reflect.DeepEqual(codec.V1.String(), "1.0") || codec.PreV1.String() != "pre-1.0" {
		t.Errorf("profile names %q %q", codec.V1, codec.PreV1)
	}
}

// TestOutcomeListsRefused: an outcome carries only the lists of its type
// (mapping-1.0.md, RUN_FINISHED and SUBAGENT_FINISHED): the wire flattens
// the union, so a list the type does not carry would be read back under
// another meaning; agwire refuses it where the other peers drop it. An
// outcome type this build does not know keeps whatever it has.
func TestOutcomeListsRefused(t *testing.T) {
	const rf = `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":`
	const interrupts = `"interrupts":[{"id":"i","reason":"r"}]`
	for _, tc := range []struct{ in, typ string }{
		{rf + `{"type":"success",` + interrupts + `}}`, "RUN_FINISHED"},
		{rf + `{"type":"success","interrupts":[{"id":"i","reason":"r"}],"pendingToolCallIds":["a"]}}`, "RUN_FINISHED"},
		{rf + `{"type":"interrupt",` + interrupts + `,"pendingToolCallIds":["a"]}}`, "RUN_FINISHED"},
		{rf + `{"type":"cancelled","pendingToolCallIds":["a"]}}`, "RUN_FINISHED"},
		{rf + `{"type":"cancelled",` + interrupts + `}}`, "RUN_FINISHED"},
		{`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success","interruptIds":["i"]}}`, "SUBAGENT_FINISHED"},
	} {
		out, err := codec.AppendFromJSON([]byte("abc"), []byte(tc.in))
		ce := hCodecErr(t, err, codec.ErrInvalid)
		if ce != nil && (!strings.HasPrefix(ce.Path, "outcome") || string(ce.Type) != tc.typ) {
			t.Errorf("%s: path %q type %q", tc.in, ce.Path, ce.Type)
		}
		if string(out) != "abc" {
			t.Errorf("%s: dst became %q", tc.in, out)
		}
	}
	for _, ev := range []event.Event{
		&event.RunFinished{Outcome: &event.RunOutcome{}},
		&event.RunFinished{Outcome: &event.RunOutcome{PendingToolCallIDs: []string{"a"}}},
		&event.SubagentFinished{Outcome: &event.SubagentOutcome{}},
		&event.SubagentFinished{Outcome: &event.SubagentOutcome{InterruptIDs: []string{"i"}}},
	} {
		_, err := codec.Append(nil, ev)
		if ce := hCodecErr(t, err, codec.ErrInvalid); ce != nil && ce.Path != "outcome.type" {
			t.Errorf("%#v: path %q", ev, ce.Path)
		}
	}
	for _, in := range []string{
		rf + `{"type":"success","pendingToolCallIds":["a","b"]}}`,
		rf + `{"type":"interrupt",` + interrupts + `}}`,
		rf + `{"type":"cancelled"}}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":["i"]}}`,
	} {
		wire, err := codec.AppendFromJSON(nil, []byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if out := hDecodeJSON(t, codec.Codec{}, wire); !hSameJSON(t, out, []byte(in)) {
			t.Errorf("%s came back as %s", in, out)
		}
	}
}

// TestEncodeNeverWritesMalformed: whatever Append accepts decodes. A Go value
// whose content carriers contradict each other or the role has no
// well-formed wire form, so it must be refused (ErrInvalid), not written.
//
// BUG: Append writes these values as they are, and every decoder, agwire's
// own included, rejects the frame as malformed (mapping-1.0.md: "Both set on
// the wire is malformed"; "A decoded message whose carriers contradict its
// role ... is malformed"). event.Marshal already refuses the string+parts
// case for JSON; the protobuf encoder checks nothing. Reproduction:
// codec.Append(nil, &event.ToolCallResult{MessageID: "m", ToolCallID: "t",
// Content: ptr("x"), Parts: []event.ContentPart{{Type: "text", Text: "a"}}})
// succeeds; codec.Unmarshal of the result fails with ErrMalformed.
func TestEncodeNeverWritesMalformed(t *testing.T) {
	text := []event.ContentPart{{Type: "text", Text: "a"}}
	msg := func(m event.Message) event.Event { return &event.MessagesSnapshot{Messages: []event.Message{m}} }
	for _, tc := range []struct {
		name string
		ev   event.Event
	}{
		{"result with string content and parts", &event.ToolCallResult{MessageID: "m", ToolCallID: "t", Content: ptrS("x"), Parts: text}},
		{"user with string content and parts", msg(event.Message{ID: "1", Role: "user", Content: ptrS("x"), Parts: text})},
		{"assistant with parts", msg(event.Message{ID: "1", Role: "assistant", Parts: text})},
		{"system with parts", msg(event.Message{ID: "1", Role: "system", Content: ptrS("s"), Parts: text})},
		{"user with activity content", msg(event.Message{ID: "1", Role: "user", Content: ptrS("x"), ActivityContent: event.Object("{}")})},
		{"activity with string content", msg(event.Message{ID: "1", Role: "activity", ActivityType: ptrS("a"), Content: ptrS("x")})},
		{"activity with parts", msg(event.Message{ID: "1", Role: "activity", ActivityType: ptrS("a"), ActivityContent: event.Object("{}"), Parts: text})},
		{"unknown role with two carriers", msg(event.Message{ID: "1", Role: "critic", Content: ptrS("x"), Parts: text})},
		{"in RUN_STARTED input", &event.RunStarted{Input: &event.RunAgentInput{Messages: []event.Message{{ID: "1", Role: "tool", Content: ptrS("x"), Parts: text}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wire, err := codec.Append(nil, tc.ev)
			if err != nil {
				hCodecErr(t, err, codec.ErrInvalid)
				return
			}
			if _, err := codec.Unmarshal(wire); err != nil {
				t.Errorf("Append accepted the value and wrote %x, which does not decode: %v", wire, err)
			}
		})
	}
}
