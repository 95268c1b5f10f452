package transport

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// TestConsumeOption: with ClientOptions.Consume the SSE reader removes an
// unknown property and skips an unknown event, reporting both to Warn, and
// still refuses a malformed known value.
func TestConsumeOption(t *testing.T) {
	body := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"futureProp\":1}\n\n" +
		"data: {\"type\":\"FUTURE_EVENT\"}\n\n" +
		"data: {\"type\":\"CUSTOM\",\"name\":\"x\"}\n\n"
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {MediaTypeSSE}}, Body: io.NopCloser(strings.NewReader(body))}
	var warnings []string
	r, err := NewEventReader(resp, ReaderOptions{Consume: true, Warn: func(w event.Warning) { warnings = append(warnings, w.String()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []event.Type
	var errs []error
	for ev, err := range r.Events() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, ev.Type())
	}
	if len(got) != 1 || got[0] != event.TypeRunStarted {
		t.Errorf("events %v, want [RUN_STARTED]", got)
	}
	var ee *EventError
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "value") || !errors.As(errs[0], &ee) || ee.Index != 2 {
		t.Errorf("errors %v, want one naming CUSTOM's missing value, event 2 (the dropped event counts)", errs)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "/futureProp") || !strings.Contains(warnings[1], "FUTURE_EVENT") {
		t.Errorf("warnings %q", warnings)
	}
}

// TestConsumeOptionBinary: with Consume a binary frame of a type this
// version does not know is dropped with a warning, where without it the
// reader reports an *EventError.
func TestConsumeOptionBinary(t *testing.T) {
	var body bytes.Buffer
	fw := framing.NewWriter(&body, framing.WriterOptions{Codec: codec.Codec{}})
	for _, err := range []error{
		fw.WriteEvent(&event.StepStarted{StepName: "a"}),
		fw.WriteFrame([]byte{0x82, 0x02, 0x02, 0x08, 0x01}), // an envelope arm from a later protocol
		fw.WriteEvent(&event.StepFinished{StepName: "a"}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {MediaTypeBinary}}, Body: io.NopCloser(bytes.NewReader(body.Bytes()))}
	var warnings []event.Warning
	r, err := NewEventReader(resp, ReaderOptions{Consume: true, Warn: func(w event.Warning) { warnings = append(warnings, w) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []event.Type
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		got = append(got, ev.Type())
	}
	if len(got) != 2 || len(warnings) != 1 || !strings.Contains(warnings[0].String(), "event 1") {
		t.Errorf("events %v, warnings %v; want STEP_STARTED, STEP_FINISHED and one warning for event 1", got, warnings)
	}
}

// TestConsumeOptionBinaryValues: with Consume a binary frame holding a
// value the client refuses (an interrupt outcome without interrupts) is an
// *EventError naming the field, as its JSON form would be.
func TestConsumeOptionBinaryValues(t *testing.T) {
	var body bytes.Buffer
	fw := framing.NewWriter(&body, framing.WriterOptions{Codec: codec.Codec{}})
	for _, ev := range []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: event.OutcomeInterrupt}},
	} {
		if err := fw.WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, consume := range []bool{false, true} {
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {MediaTypeBinary}}, Body: io.NopCloser(bytes.NewReader(body.Bytes()))}
		r, err := NewEventReader(resp, ReaderOptions{Consume: consume})
		if err != nil {
			t.Fatal(err)
		}
		var errs []error
		for _, err := range r.Events() {
			if err != nil {
				errs = append(errs, err)
			}
		}
		r.Close()
		var ee *EventError
		switch {
		case !consume && len(errs) != 0:
			t.Errorf("without Consume: %v", errs)
		case consume && (len(errs) != 1 || !errors.As(errs[0], &ee) || ee.Index != 1 || !errors.Is(errs[0], event.ErrInvalidField) || !strings.Contains(errs[0].Error(), "interrupts")):
			t.Errorf("with Consume: %v, want one *EventError for event 1 naming outcome.interrupts", errs)
		}
	}
}

// TestConsumeBinaryLaterField: a 1.0 reader consuming a binary frame that
// carries a field of AG-UI 1.1 (encryptedValueType) removes it with a
// warning naming its pointer, as it does for the same event's JSON.
func TestConsumeBinaryLaterField(t *testing.T) {
	ev := &event.ReasoningEncryptedValue{Subtype: "message", EntityID: "m1", EncryptedValue: "e", EncryptedValueType: event.Ptr("blob")}
	var body bytes.Buffer
	fw := framing.NewWriter(&body, framing.WriterOptions{Codec: codec.Codec{Profile: codec.V11}})
	if err := fw.WriteEvent(ev); err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {MediaTypeBinary}}, Body: io.NopCloser(&body)}
	var warnings []string
	r, err := NewEventReader(resp, ReaderOptions{Consume: true, Warn: func(w event.Warning) { warnings = append(warnings, w.String()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*event.ReasoningEncryptedValue); g.EncryptedValueType != nil || g.EncryptedValue != "e" {
		t.Errorf("read %+v; want the 1.1 field removed, the rest kept", g)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "/encryptedValueType") {
		t.Errorf("warnings %q; want one naming /encryptedValueType", warnings)
	}
}
