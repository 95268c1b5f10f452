package event_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestProtocolVersions: a 1.0 parser treats AG-UI 1.1's encryptedValueType
// as a property no schema describes (refused, dropped, or removed with a
// warning naming its pointer); a 1.1 parser reads it; a type without its
// value is refused on every version.
func TestProtocolVersions(t *testing.T) {
	const snap = `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","content":"x","encryptedValue":"e","encryptedValueType":"sig","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"e2","encryptedValueType":"sig2"}]}]}`
	_, err := event.Parse([]byte(snap))
	var pe *event.PathError
	if !errors.Is(err, event.ErrUnknownField) || !errors.As(err, &pe) || pe.Path != "messages[0].toolCalls[0].encryptedValueType" && pe.Path != "messages[0].encryptedValueType" {
		t.Errorf("1.0 strict: %v", err)
	}
	ev, err := event.Parser{DropUnknownFields: true}.Parse([]byte(snap))
	if err != nil || strings.Contains(marshal(t, ev), "encryptedValueType") {
		t.Errorf("1.0 dropping: %v %s", err, marshal(t, ev))
	}
	var warnings []string
	ev, err = event.Parser{Consume: true, Warn: func(w event.Warning) { warnings = append(warnings, w.String()) }}.Parse([]byte(snap))
	if err != nil || strings.Contains(marshal(t, ev), "encryptedValueType") || strings.Join(warnings, "\n") !=
		"MESSAGES_SNAPSHOT /messages/0/encryptedValueType: removed an unrecognised property\n"+
			"MESSAGES_SNAPSHOT /messages/0/toolCalls/0/encryptedValueType: removed an unrecognised property" {
		t.Errorf("1.0 consuming: %v %s %q", err, marshal(t, ev), warnings)
	}
	// Written in the field order of the tables, every member kept.
	const written = `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","content":"x","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"e2","encryptedValueType":"sig2"}],"encryptedValue":"e","encryptedValueType":"sig"}]}`
	ev, err = event.Parser{Protocol: event.Protocol11}.Parse([]byte(snap))
	if err != nil || marshal(t, ev) != written {
		t.Errorf("1.1: %v\n%s\nwant\n%s", err, marshal(t, ev), written)
	}
	for _, bad := range []string{
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","content":"x","encryptedValueType":"sig"}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""},"encryptedValueType":"sig"}]}]}`,
	} {
		if _, err := (event.Parser{Protocol: event.Protocol11}).Parse([]byte(bad)); !errors.Is(err, event.ErrInvalidField) || !strings.Contains(err.Error(), "encryptedValueType: invalid field: is set without encryptedValue") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := (event.Parser{Protocol: "2.0"}).Parse([]byte(snap)); !errors.Is(err, event.ErrInvalidField) {
		t.Errorf("Protocol 2.0: %v", err)
	}
}

func marshal(t *testing.T, ev event.Event) string {
	t.Helper()
	if ev == nil {
		return ""
	}
	b, err := event.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
