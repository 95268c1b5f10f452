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

// restrictedCases: every string field whose values @ag-ui/core 1.0's schema
// restricts (interop's TestRestrictedSetsMatchSchema holds the sets to the
// real schema). Each case is an accepted event and a refused twin: the
// value good replaced by bad, of the same length so that the wire form can
// be edited in place.
var restrictedCases = []struct {
	name, good, bad, path, json string
}{
	{"text start role", "user", "tool", "role", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user"}`},
	{"text chunk role", "user", "tool", "role", `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"user","delta":"d"}`},
	{"tool result role", "tool", "user", "role", `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"x","role":"tool"}`},
	{"reasoning start role", "reasoning", "assistant", "role", `{"type":"REASONING_MESSAGE_START","messageId":"m","role":"reasoning"}`},
	{"encrypted value subtype", "message", "tooling", "subtype", `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"e","encryptedValue":"v"}`},
	{"message role", "user", "bots", "messages[0].role", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"hi"}]}`},
	{"tool call type", "function", "callable", "messages[0].toolCalls[0].type", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"assistant","toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`},
	{"resume status", "resolved", "rejected", "input.resume[0].status", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved"}]}}`},
	{"run outcome type", "success", "partial", "outcome.type", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}`},
	{"subagent outcome type", "success", "partial", "outcome.type", `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success"}}`},
}

// TestRestrictedSetsOnEveryPath: a value outside its field's set is refused
// by JSON parse, JSON marshal, wire encode (typed and from JSON) and wire
// decode, each with its typed error and the field's path; the allowed
// value passes all five.
func TestRestrictedSetsOnEveryPath(t *testing.T) {
	for _, c := range restrictedCases {
		t.Run(c.name, func(t *testing.T) {
			goodJSON := []byte(c.json)
			badJSON := []byte(strings.Replace(c.json, `"`+c.good+`"`, `"`+c.bad+`"`, 1))
			ev, err := event.Parse(goodJSON)
			if err != nil {
				t.Fatalf("the allowed value is refused: %v", err)
			}
			wire, err := codec.Append(nil, ev)
			if err != nil {
				t.Fatalf("the allowed value does not encode: %v", err)
			}
			if _, err := codec.Unmarshal(wire); err != nil {
				t.Fatalf("the allowed value does not decode: %v", err)
			}

			_, err = event.Parse(badJSON)
			var pe *event.PathError
			if !errors.Is(err, event.ErrInvalidField) || !errors.As(err, &pe) || pe.Path != c.path {
				t.Errorf("Parse: %v, want ErrInvalidField at %s", err, c.path)
			}
			checkCodec(t, "AppendFromJSON", c.path, codec.ErrInvalid, func() error { _, err := codec.AppendFromJSON(nil, badJSON); return err })

			replaceString(reflect.ValueOf(ev), c.good, c.bad)
			if _, err := event.Marshal(ev); !errors.Is(err, event.ErrInvalidField) || !strings.HasPrefix(err.Error(), c.path) {
				t.Errorf("Marshal: %v, want ErrInvalidField at %s", err, c.path)
			}
			checkCodec(t, "Append", c.path, codec.ErrInvalid, func() error { _, err := codec.Append(nil, ev); return err })

			if bytes.Count(wire, []byte(c.good)) != 1 {
				t.Fatalf("%q is not once in the wire form %x", c.good, wire)
			}
			bad := bytes.Replace(wire, []byte(c.good), []byte(c.bad), 1)
			checkCodec(t, "Unmarshal", c.path, codec.ErrMalformed, func() error { _, err := codec.Unmarshal(bad); return err })
			checkCodec(t, "AppendJSONFromWire", c.path, codec.ErrMalformed, func() error { _, err := codec.AppendJSONFromWire(nil, bad); return err })
		})
	}
}

func checkCodec(t *testing.T, what, path string, sentinel error, f func() error) {
	t.Helper()
	err := f()
	var ce *codec.Error
	if !errors.Is(err, sentinel) || !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), "known:") {
		t.Errorf("%s: %v, want %v at %s naming the known values", what, err, sentinel, path)
	}
}

// replaceString sets every string (or *string target) equal to old inside v
// to new.
func replaceString(v reflect.Value, old, new string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			replaceString(v.Elem(), old, new)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			replaceString(v.Field(i), old, new)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := 0; i < v.Len(); i++ {
				replaceString(v.Index(i), old, new)
			}
		}
	case reflect.String:
		if v.String() == old && v.CanSet() {
			v.SetString(new)
		}
	}
}
