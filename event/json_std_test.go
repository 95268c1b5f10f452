package event_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestEncodingJSONByValueAndPointer: encoding/json gives the AG-UI form for
// every event type and part, whether given a value or a pointer.
func TestEncodingJSONByValueAndPointer(t *testing.T) {
	ev := event.TextMessageContent{MessageID: "m1", Delta: "Hi"}
	want := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`
	for _, v := range []any{ev, &ev, []any{ev}, map[string]any{"e": ev}} {
		b, err := json.Marshal(v)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("json.Marshal(%T) = %s, %v", v, b, err)
		}
	}
	// Every event type, by value: the same text as event.Marshal.
	for _, typ := range event.Types() {
		p := event.New(typ)
		js, err := event.Marshal(p)
		if err != nil {
			continue // required fields missing: the zero value has no JSON form
		}
		b, err := json.Marshal(reflect.ValueOf(p).Elem().Interface())
		if err != nil || string(b) != string(js) {
			t.Errorf("%s by value: %s, %v; want %s", typ, b, err, js)
		}
	}

	content := "Hello"
	parts := []struct {
		v    any
		want string
	}{
		{event.Message{ID: "u1", Role: event.RoleUser, Content: &content}, `{"id":"u1","role":"user","content":"Hello"}`},
		{event.ToolCall{ID: "c1", Type: "function", Function: event.FunctionCall{Name: "f", Arguments: "{}"}}, `{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}`},
		{event.FunctionCall{Name: "f", Arguments: "{}"}, `{"name":"f","arguments":"{}"}`},
		{event.PatchOp{Op: "add", Path: "/a", Value: event.RawValue(`1`)}, `{"op":"add","path":"/a","value":1}`},
		{event.Tool{Name: "t", Description: "d", Parameters: event.RawValue(`{}`)}, `{"name":"t","description":"d","parameters":{}}`},
		{event.Context{Description: "d", Value: "v"}, `{"description":"d","value":"v"}`},
		{event.Source{Type: event.SourceURL, Value: "https://x/y.png", MimeType: event.Ptr("image/png")}, `{"type":"url","value":"https://x/y.png","mimeType":"image/png"}`},
		{event.ContentPart{Type: event.PartImage, Source: &event.Source{Type: event.SourceURL, Value: "https://x/y.png"}}, `{"type":"image","source":{"type":"url","value":"https://x/y.png"}}`},
		{event.ContentPart{Type: event.PartText, Text: "hi"}, `{"type":"text","text":"hi"}`},
		{event.RunAgentInput{ThreadID: "t", RunID: "r"}, ``},
	}
	for _, p := range parts {
		for _, v := range []any{p.v, reflect.New(reflect.TypeOf(p.v)).Interface()} {
			if reflect.TypeOf(v).Kind() == reflect.Pointer {
				reflect.ValueOf(v).Elem().Set(reflect.ValueOf(p.v))
			}
			b, err := json.Marshal(v)
			if err != nil || (p.want != "" && string(b) != p.want) || strings.Contains(string(b), `"ID"`) || strings.Contains(string(b), `"ThreadID"`) {
				t.Errorf("json.Marshal(%T) = %s, %v; want %s", v, b, err, p.want)
				continue
			}
			// And back.
			back := reflect.New(reflect.TypeOf(p.v))
			if err := json.Unmarshal(b, back.Interface()); err != nil {
				t.Errorf("json.Unmarshal(%s) into %T: %v", b, back.Interface(), err)
			} else if b2, _ := json.Marshal(back.Elem().Interface()); string(b2) != string(b) {
				t.Errorf("%T round trip: %s, then %s", p.v, b, b2)
			}
		}
	}

	// The checks of the tables apply: a user message without content.
	var m event.Message
	err := json.Unmarshal([]byte(`{"id":"u1","role":"user"}`), &m)
	var pe *event.PathError
	if !errors.As(err, &pe) || !errors.Is(err, event.ErrMissingField) {
		t.Errorf("user message without content: %v", err)
	}
}

// TestEncodingJSONThinking: a THINKING_* event unmarshals into *Thinking
// (it used to be left empty), and other types are refused.
func TestEncodingJSONThinking(t *testing.T) {
	in := `{"type":"THINKING_START","title":"planning"}`
	var th event.Thinking
	if err := json.Unmarshal([]byte(in), &th); err != nil || th.Kind != event.TypeThinkingStart || string(th.JSON) != in {
		t.Fatalf("json.Unmarshal into *Thinking: %+v, %v", th, err)
	}
	if b, err := json.Marshal(th); err != nil || string(b) != in {
		t.Errorf("json.Marshal(Thinking) = %s, %v", b, err)
	}
	if err := json.Unmarshal([]byte(`{"type":"STEP_STARTED","stepName":"s"}`), &th); !errors.Is(err, event.ErrInvalidField) {
		t.Errorf("a STEP_STARTED into *Thinking: %v", err)
	}
}

// TestPathErrorIsExported: PathError is the event package's own struct,
// with its fields in the documentation, and every error of the package
// that has a place arrives as one.
func TestPathErrorIsExported(t *testing.T) {
	typ := reflect.TypeFor[event.PathError]()
	if typ.PkgPath() != "github.com/agwire/agwire/event" || typ.Kind() != reflect.Struct {
		t.Fatalf("PathError is %s.%s (%s), not event's own struct", typ.PkgPath(), typ.Name(), typ.Kind())
	}
	for _, f := range []string{"Path", "Offset", "Err"} {
		if _, ok := typ.FieldByName(f); !ok {
			t.Errorf("PathError has no field %s", f)
		}
	}
	var pe *event.PathError
	_, err := event.Parse([]byte(`{"type":"STEP_STARTED","stepName":1}`))
	if !errors.As(err, &pe) || pe.Path != "stepName" {
		t.Errorf("Parse: %v", err)
	}
	_, err = event.Parser{}.ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"x","metadata":null}]}`))
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Path, "messages[0].metadata") || !errors.Is(err, event.ErrNullMetadata) {
		t.Errorf("ParseRunAgentInput: %v", err)
	}
	if _, err := event.TypeOf([]byte(`[]`)); !errors.As(err, &pe) {
		t.Errorf("TypeOf: %v", err)
	}
	if _, err := event.Marshal(&event.StateSnapshot{Snapshot: event.RawValue(`{`)}); !errors.As(err, &pe) {
		t.Errorf("Marshal: %v", err)
	}
	var ev event.StepStarted
	if err := json.Unmarshal([]byte(`{"type":"STEP_STARTED","stepName":1}`), &ev); !errors.As(err, &pe) {
		t.Errorf("json.Unmarshal: %v", err)
	}
}
