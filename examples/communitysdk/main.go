// Command communitysdk is an AG-UI endpoint written with the community Go SDK
// (github.com/ag-ui-protocol/ag-ui/sdks/community/go) the way its users write
// one today: the SDK decodes the RunAgentInput, the SDK's constructors build
// the events and the SDK's ToJSON serialises them. Only the last step
// changes: instead of the SDK's SSE writer, each JSON event goes to agwire's
// transport.EventWriter, which answers the client's Accept header with SSE
// or with the AG-UI 1.0 binary stream (application/vnd.ag-ui.event+proto).
// The agent code does not change at all.
//
// The change, in handleRun (streamRun and runAgent stay as they were):
//
//	// before: SSE only
//	w.Header().Set("Content-Type", "text/event-stream")
//	sseWriter := sse.NewSSEWriter()
//	send := func(ev events.Event) error { return sseWriter.WriteEvent(r.Context(), w, ev) }
//	streamRun(r.Context(), in, send)
//
//	// after: SSE or binary, as the client asks
//	out, err := transport.NewEventWriter(w, r, serverOptions)
//	if err != nil { return } // 406 Not Acceptable already sent
//	defer out.Close()
//	send := func(ev events.Event) error { return writeSDKEvent(out, ev) }
//	streamRun(out.Context(), in, send)
//
// (writeSDKEvent is Validate, ToJSON, WriteJSON: what the SDK's writer did,
// with agwire doing the writing.)
//
// What else differs on SSE: the SDK's writer also sent an
// "id: <TYPE>_<timestamp>" line before each event; agwire sends only the
// "data:" line, which is where AG-UI puts the event. agwire also sets the
// headers a stream needs behind a proxy (Cache-Control: no-cache,
// X-Accel-Buffering: no, Vary: Accept, Accept-Encoding).
//
// Run it with:
//
//	go run . -addr localhost:8000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"

	"github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/events"
	"github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/types"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/transport"
)

func main() {
	addr := flag.String("addr", "localhost:8000", "listen on `host:port`")
	flag.Parse()
	log.Printf("AG-UI endpoint on http://%s/ (POST a RunAgentInput; Accept decides SSE or binary)", *addr)
	log.Fatal(http.ListenAndServe(*addr, newHandler()))
}

// newHandler serves the agent at POST /.
func newHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", handleRun)
	return mux
}

// serverOptions configures agwire's event stream.
//
// DropUnknownFields is needed for one SDK event: a RUN_ERROR built with
// events.WithRunID (or WithAutoRunIDError) serialises a "runId" field,
//
//	{"type":"RUN_ERROR","timestamp":...,"message":"boom","runId":"r1"}
//
// which AG-UI 1.0's RUN_ERROR does not have (its fields are code, message
// and usage; the run is the stream's). agwire's strict parser refuses that event with
// event.ErrUnknownField, so without this option the client would get no
// RUN_ERROR at all and see the stream end without a terminal event. With
// it, the binary stream leaves runId out (the protobuf RunErrorEvent has no
// field for it) and SSE forwards the SDK's text unchanged, runId included:
// a client that ignores unknown keys is fine; agwire's own client reading
// SSE needs ClientOptions.Codec.DropUnknownFields too (see main_test.go).
//
// The other way out is to not set the run ID on RUN_ERROR; then the strict
// default, transport.WriterOptions{}, accepts every event this agent sends.
// All the other events below parse strictly (main_test.go checks it).
var serverOptions = transport.WriterOptions{
	Codec: codec.Codec{DropUnknownFields: true},
}

// handleRun is the endpoint: decode the input, stream the run.
func handleRun(w http.ResponseWriter, r *http.Request) {
	var in types.RunAgentInput
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in); err != nil {
		http.Error(w, "invalid RunAgentInput: "+err.Error(), http.StatusBadRequest)
		return
	}

	out, err := transport.NewEventWriter(w, r, serverOptions)
	if err != nil {
		// ErrNotAcceptable: 406 has been sent. ErrStreamingUnsupported:
		// nothing has been sent.
		if errors.Is(err, transport.ErrStreamingUnsupported) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		return
	}
	defer func() {
		if err := out.Close(); err != nil {
			log.Printf("run %s: %v", in.RunID, err)
		}
	}()
	send := func(ev events.Event) error { return writeSDKEvent(out, ev) }
	streamRun(out.Context(), in, send)
}

// streamRun is the run, as the SDK user wrote it for the SDK's SSE writer:
// it sees only send, and does not change. ctx is done when the client goes
// away or a write fails.
func streamRun(ctx context.Context, in types.RunAgentInput, send func(events.Event) error) {
	if err := send(events.NewRunStartedEvent(in.ThreadID, in.RunID)); err != nil {
		log.Printf("run %s: %v", in.RunID, err)
		return
	}
	if err := runAgent(ctx, in, send); err != nil {
		log.Printf("run %s: %v", in.RunID, err)
		if err := send(events.NewRunErrorEvent(err.Error(), events.WithRunID(in.RunID))); err != nil {
			log.Printf("run %s: RUN_ERROR: %v", in.RunID, err)
		}
		return
	}
	if err := send(events.NewRunFinishedEvent(in.ThreadID, in.RunID)); err != nil {
		log.Printf("run %s: %v", in.RunID, err)
	}
}

// writeSDKEvent sends one event of the SDK through agwire. It validates the
// event first, as the SDK's SSE writer does, and serialises it with the
// SDK's own ToJSON; WriteJSON checks the JSON with agwire's parser and
// writes it as an SSE data line or as one binary frame. An event agwire
// cannot carry is refused with a *transport.EventError and nothing is
// written; the stream goes on (framing.Skippable reports true).
func writeSDKEvent(out transport.EventWriter, ev events.Event) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	b, err := ev.ToJSON()
	if err != nil {
		return fmt.Errorf("%s: %w", ev.Type(), err)
	}
	return out.WriteJSON(b)
}

// runAgent is a stand-in for an LLM agent: it streams a reply, calls a
// get_weather tool with streamed arguments, keeps the UI's state in step
// and answers. IDs derive from the run ID so a run is reproducible.
func runAgent(ctx context.Context, in types.RunAgentInput, send func(events.Event) error) error {
	city := lastUserText(in.Messages)
	if city == "" {
		city = "Paris"
	}
	msgID, toolCallID := "msg-"+in.RunID, "call-"+in.RunID
	var err error
	emit := func(ev events.Event) {
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			err = send(ev)
		}
	}

	emit(events.NewStateSnapshotEvent(map[string]any{"city": city, "status": "checking"}))

	emit(events.NewTextMessageStartEvent(msgID, events.WithRole("assistant")))
	for _, delta := range []string{"Let me check ", "the weather ", "in " + city + "."} {
		emit(events.NewTextMessageContentEvent(msgID, delta))
	}
	emit(events.NewTextMessageEndEvent(msgID))

	args, _ := json.Marshal(map[string]string{"city": city})
	emit(events.NewToolCallStartEvent(toolCallID, "get_weather", events.WithParentMessageID(msgID)))
	emit(events.NewToolCallArgsEvent(toolCallID, string(args[:len(args)/2])))
	emit(events.NewToolCallArgsEvent(toolCallID, string(args[len(args)/2:])))
	emit(events.NewToolCallEndEvent(toolCallID))
	if err != nil {
		return err
	}

	forecast, err := getWeather(city)
	if err != nil {
		return err
	}
	result, _ := json.Marshal(forecast)
	emit(events.NewToolCallResultEvent("result-"+in.RunID, toolCallID, string(result)))
	emit(events.NewStateDeltaEvent([]events.JSONPatchOperation{
		{Op: "replace", Path: "/status", Value: "done"},
		{Op: "add", Path: "/forecast", Value: forecast},
	}))

	answerID := "answer-" + in.RunID
	emit(events.NewTextMessageStartEvent(answerID, events.WithRole("assistant")))
	emit(events.NewTextMessageContentEvent(answerID, fmt.Sprintf("It is %v°C and %v in %s.", forecast["tempC"], forecast["sky"], city)))
	emit(events.NewTextMessageEndEvent(answerID))
	return err
}

// getWeather is the tool. It knows three cities.
func getWeather(city string) (map[string]any, error) {
	switch city {
	case "Paris":
		return map[string]any{"tempC": 18, "sky": "sunny"}, nil
	case "London":
		return map[string]any{"tempC": 14, "sky": "cloudy"}, nil
	case "Tokyo":
		return map[string]any{"tempC": 22.5, "sky": "clear"}, nil
	}
	return nil, fmt.Errorf("get_weather: no forecast for %q", city)
}

// lastUserText is the text of the last user message, if it is a string.
func lastUserText(msgs []types.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == types.RoleUser {
			s, _ := msgs[i].ContentString()
			return s
		}
	}
	return ""
}
