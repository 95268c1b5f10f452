package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/events"
	"github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/types"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// input is the RunAgentInput of a run that asks about city.
func input(runID, city string) *event.RunAgentInput {
	return &event.RunAgentInput{
		ThreadID: "thread-1",
		RunID:    runID,
		Messages: []event.Message{{ID: "u1", Role: event.RoleUser, Content: &city}},
	}
}

// sdkEvents runs streamRun on what the SDK decodes from in, as the handler
// does, and returns the JSON of each event the SDK produced.
func sdkEvents(t *testing.T, in *event.RunAgentInput) [][]byte {
	t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var sdkIn types.RunAgentInput
	if err := json.Unmarshal(body, &sdkIn); err != nil {
		t.Fatalf("the SDK cannot decode agwire's RunAgentInput %s: %v", body, err)
	}
	var out [][]byte
	streamRun(context.Background(), sdkIn, func(ev events.Event) error {
		if err := ev.Validate(); err != nil {
			t.Fatalf("%s: %v", ev.Type(), err)
		}
		b, err := ev.ToJSON()
		if err != nil {
			t.Fatalf("%s: %v", ev.Type(), err)
		}
		out = append(out, b)
		return nil
	})
	return out
}

// read runs in against url and returns the events that arrive, with the
// reader's media type.
func read(t *testing.T, url string, in *event.RunAgentInput, opts transport.ClientOptions) ([]event.Event, string) {
	t.Helper()
	c, err := transport.NewClient(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Response().Header.Get("Content-Type"); got != r.ContentType() {
		t.Errorf("Content-Type header %q, reader says %q", got, r.ContentType())
	}
	var evs []event.Event
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatalf("%s event %d: %v", r.ContentType(), len(evs), err)
		}
		evs = append(evs, ev)
	}
	return evs, r.ContentType()
}

// canonical is an event's AG-UI JSON without its timestamp: the SDK stamps
// each event with the time it was built, so two runs differ only there.
func canonical(t *testing.T, ev event.Event) string {
	t.Helper()
	if ev.BaseEvent().Timestamp == nil {
		t.Errorf("%s arrived without the SDK's timestamp", ev.Type())
	}
	ev.BaseEvent().Timestamp = nil
	b, err := event.AppendJSON(nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// expect checks that got are the events of want (SDK JSON), in order.
func expect(t *testing.T, transportName string, got []event.Event, want [][]byte, p event.Parser) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", transportName, len(got), len(want))
	}
	for i := range want {
		w, err := p.Parse(want[i])
		if err != nil {
			t.Fatalf("agwire refuses the SDK's event %d %s: %v", i, want[i], err)
		}
		if g, w := canonical(t, got[i]), canonical(t, w); g != w {
			t.Errorf("%s event %d:\n got %s\nwant %s", transportName, i, g, w)
		}
	}
}

func TestSameEventsOverBinaryAndSSE(t *testing.T) {
	srv := httptest.NewServer(newHandler())
	defer srv.Close()
	in := input("run-1", "Paris")

	// Every event the SDK builds for this run parses with agwire's strict
	// parser (expect uses event.Parser{}); only RUN_ERROR needs the option.
	want := sdkEvents(t, in)
	gotTypes := make([]event.Type, len(want))
	for i, b := range want {
		ev, err := event.Parse(b)
		if err != nil {
			t.Fatalf("strict agwire refuses SDK event %s: %v", b, err)
		}
		gotTypes[i] = ev.Type()
	}
	wantTypes := []event.Type{
		event.TypeRunStarted,
		event.TypeStateSnapshot,
		event.TypeTextMessageStart, event.TypeTextMessageContent, event.TypeTextMessageContent, event.TypeTextMessageContent, event.TypeTextMessageEnd,
		event.TypeToolCallStart, event.TypeToolCallArgs, event.TypeToolCallArgs, event.TypeToolCallEnd,
		event.TypeToolCallResult,
		event.TypeStateDelta,
		event.TypeTextMessageStart, event.TypeTextMessageContent, event.TypeTextMessageEnd,
		event.TypeRunFinished,
	}
	if !slices.Equal(gotTypes, wantTypes) {
		t.Fatalf("the SDK run is %v, want %v", gotTypes, wantTypes)
	}

	bin, mt := read(t, srv.URL, in, transport.ClientOptions{})
	if mt != transport.MediaTypeBinary {
		t.Fatalf("default client got %q, want %q", mt, transport.MediaTypeBinary)
	}
	expect(t, "binary", bin, want, event.Parser{})

	sse, mt := read(t, srv.URL, in, transport.ClientOptions{Prefer: transport.PreferSSEOnly})
	if mt != transport.MediaTypeSSE {
		t.Fatalf("PreferSSEOnly client got %q, want %q", mt, transport.MediaTypeSSE)
	}
	expect(t, "SSE", sse, want, event.Parser{})
}

// The tool fails for an unknown city: the run ends with the SDK's RUN_ERROR,
// built with WithRunID, on both transports (serverOptions.DropUnknownFields).
func TestRunErrorOverBinaryAndSSE(t *testing.T) {
	srv := httptest.NewServer(newHandler())
	defer srv.Close()
	in := input("run-2", "Atlantis")
	want := sdkEvents(t, in)
	last := want[len(want)-1]
	if !bytes.Contains(last, []byte(`"type":"RUN_ERROR"`)) || !bytes.Contains(last, []byte(`"runId":"run-2"`)) {
		t.Fatalf("the SDK run ends with %s, want a RUN_ERROR with runId", last)
	}
	lenient := event.Parser{DropUnknownFields: true}

	bin, mt := read(t, srv.URL, in, transport.ClientOptions{})
	if mt != transport.MediaTypeBinary {
		t.Fatalf("got %q, want binary", mt)
	}
	expect(t, "binary", bin, want, lenient)

	// SSE forwards the SDK's text as it is, runId included, so agwire's
	// client needs the same option to read it.
	sse, _ := read(t, srv.URL, in, transport.ClientOptions{Prefer: transport.PreferSSEOnly, Codec: codec.Codec{DropUnknownFields: true}})
	expect(t, "SSE", sse, want, lenient)

	re, ok := sse[len(sse)-1].(*event.RunError)
	if !ok || re.Message != `get_weather: no forecast for "Atlantis"` {
		t.Errorf("last SSE event %#v, want the RUN_ERROR", sse[len(sse)-1])
	}

	// What a browser's fetch sees: the SDK's JSON, byte for byte.
	body, _ := json.Marshal(in)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	req.Header.Set("Accept", transport.MediaTypeSSE)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n\n")
	gotLast := strings.TrimPrefix(lines[len(lines)-1], "data: ")
	// The timestamps differ; compare the rest.
	if cut(gotLast) != cut(string(last)) {
		t.Errorf("last SSE data line %s, want the SDK's %s", gotLast, last)
	}
}

// cut removes the "timestamp" member the SDK writes second.
func cut(s string) string {
	i := strings.Index(s, `,"timestamp":`)
	if i < 0 {
		return s
	}
	j := strings.IndexByte(s[i+1:], ',')
	return s[:i] + s[i+1+j:]
}

// The reason for serverOptions: the SDK's RUN_ERROR with a run ID is not an
// AG-UI 1.0 event, and a strict EventWriter refuses it, writing nothing.
func TestStrictAgwireRefusesSDKRunErrorWithRunID(t *testing.T) {
	b, err := events.NewRunErrorEvent("boom", events.WithRunID("r1")).ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []transport.WriterOptions{{}, serverOptions} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Header.Set("Accept", transport.MediaTypeBinary)
		out, err := transport.NewEventWriter(rec, req, opts)
		if err != nil {
			t.Fatal(err)
		}
		err = out.WriteJSON(b)
		if !opts.Codec.DropUnknownFields {
			var ee *transport.EventError
			if !errors.As(err, &ee) || !errors.Is(err, event.ErrUnknownField) || rec.Body.Len() != 0 {
				t.Errorf("strict WriteJSON(%s) = %v, %d bytes written; want an EventError wrapping event.ErrUnknownField, nothing written", b, err, rec.Body.Len())
			}
		} else if err != nil || rec.Body.Len() == 0 {
			t.Errorf("WriteJSON(%s) with DropUnknownFields = %v, %d bytes written", b, err, rec.Body.Len())
		}
		out.Close()
	}
}

// SDK output that agwire refuses, beyond RUN_ERROR's runId. None of these is
// in the run above; each is one line of SDK code a user may write.
func TestSDKEventsAgwireRefuses(t *testing.T) {
	big := events.NewStateSnapshotEvent(map[string]any{"id": int64(9007199254740993)})
	for _, c := range []struct {
		name  string
		ev    events.Event
		parse error // agwire's strict parser: both transports
		wire  error // codec.AppendFromJSON: the binary transport only
	}{
		// Validate passes, ToJSON writes "messages":null; AG-UI requires
		// an array. Even DropUnknownFields refuses it.
		{"nil messages", events.NewMessagesSnapshotEvent(nil), event.ErrInvalidField, event.ErrInvalidField},
		// types.Message.EncryptedContent is not an AG-UI 1.0 message field
		// (encryptedValue is).
		{"encryptedContent", events.NewMessagesSnapshotEvent([]events.Message{{ID: "a1", Role: types.RoleAssistant, Content: "hi", EncryptedContent: "enc"}}), event.ErrUnknownField, event.ErrUnknownField},
		// An int64 above 2^53 in state: fine as JSON text on SSE, refused on
		// the binary stream, where every number is a double
		// (codec.Codec{LossyNumbers: true} rounds instead).
		{"int64 above 2^53", big, nil, codec.ErrLossyNumber},
		// The deprecated THINKING_* events have no protobuf form: SSE only.
		{"THINKING_START", events.NewThinkingStartEvent(), nil, event.ErrUnsupportedEvent},
	} {
		if err := c.ev.Validate(); err != nil {
			t.Errorf("%s: the SDK itself refuses it: %v", c.name, err)
		}
		b, err := c.ev.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		_, perr := event.Parse(b)
		_, werr := codec.AppendFromJSON(nil, b)
		if !is(perr, c.parse) || !is(werr, c.wire) {
			t.Errorf("%s: %s\nparse: %v (want %v)\nbinary: %v (want %v)", c.name, b, perr, c.parse, werr, c.wire)
		}
	}
}

func is(err, target error) bool {
	if target == nil {
		return err == nil
	}
	return errors.Is(err, target)
}
