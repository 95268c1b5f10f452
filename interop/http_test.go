package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// End-to-end over loopback HTTP, both directions:
//
//   - agwire's transport.NewHandler serves a run to the real HttpAgent of
//     @ag-ui/client (httpagent.mjs), over binary and over SSE, and the
//     messages and state the client assembles are checked against the AG-UI
//     rules (TestHTTPAgentAssemblesGoRun);
//   - a node server built on the real EventEncoder of @ag-ui/encoder
//     (encoder-server.mjs) serves the fixture corpus to agwire's
//     a transport.Client, over binary and over SSE, and every event is checked
//     against the peer's own decode of it (TestGoClientReadsEncoderServer).

func md(s string) event.Object { return event.Object(s) }

// weatherRun is the run the Go agent streams: text with metadata on START,
// CONTENT and END; a tool call with metadata on each TOOL_CALL_* event; a
// tool result with metadata; a state snapshot and delta; a second text
// message; and metadata on run-, step- and state-level events, which must
// reach no message.
func weatherRun(in *event.RunAgentInput) []event.Event {
	return []event.Event{
		&event.RunStarted{Base: event.Base{Timestamp: event.Ptr[int64](1733140800000), Metadata: md(`{"trace":"run-started"}`)},
			ThreadID: in.ThreadID, RunID: in.RunID},
		&event.StepStarted{Base: event.Base{Metadata: md(`{"stage":"step-started"}`)}, StepName: "answer"},
		&event.TextMessageStart{Base: event.Base{Metadata: md(`{"source":"openai","stage":"start","usage":{"input":120,"output":0}}`)},
			MessageID: "msg-1", Role: event.Ptr("assistant")},
		&event.TextMessageContent{Base: event.Base{Metadata: md(`{"stage":"content","tokens":3}`)},
			MessageID: "msg-1", Delta: "Let me check "},
		&event.TextMessageContent{Base: event.Base{Metadata: md(`{"stage":"content","tokens":8}`)},
			MessageID: "msg-1", Delta: "the weather in Seoul."},
		&event.TextMessageContent{MessageID: "msg-1", Delta: " 🌏"},
		&event.TextMessageEnd{Base: event.Base{Metadata: md(`{"stage":"end","usage":{"output":340}}`)}, MessageID: "msg-1"},
		&event.ToolCallStart{Base: event.Base{Metadata: md(`{"ag-ui":{"frontendTool":false},"phase":"start"}`)},
			ToolCallID: "call-1", ToolCallName: "get_weather", ParentMessageID: event.Ptr("msg-1")},
		&event.ToolCallArgs{Base: event.Base{Metadata: md(`{"phase":"args","argChunks":1}`)}, ToolCallID: "call-1", Delta: `{"city":`},
		&event.ToolCallArgs{Base: event.Base{Metadata: md(`{"phase":"args","argChunks":2}`)}, ToolCallID: "call-1", Delta: `"Seoul"}`},
		&event.ToolCallEnd{Base: event.Base{Metadata: md(`{"phase":"end","latencyMs":12}`)}, ToolCallID: "call-1"},
		&event.ToolCallResult{Base: event.Base{Metadata: md(`{"cache":"miss","durationMs":45}`)},
			MessageID: "tool-msg-1", ToolCallID: "call-1", Content: event.Ptr(`{"tempC":21,"sky":"clear"}`), Role: event.Ptr("tool")},
		&event.StateSnapshot{Base: event.Base{Metadata: md(`{"stage":"state-snapshot"}`)},
			Snapshot: event.RawValue(`{"city":"Seoul","forecast":{"tempC":20,"sky":"unknown"},"history":[]}`)},
		&event.StateDelta{Base: event.Base{Metadata: md(`{"stage":"state-delta"}`)}, Delta: []event.PatchOp{
			{Op: "replace", Path: "/forecast/tempC", Value: event.RawValue(`21`)},
			{Op: "replace", Path: "/forecast/sky", Value: event.RawValue(`"clear"`)},
			{Op: "add", Path: "/history/-", Value: event.RawValue(`"Seoul"`)},
			{Op: "add", Path: "/done", Value: event.RawValue(`true`)},
		}},
		&event.TextMessageStart{MessageID: "msg-2", Role: event.Ptr("assistant")},
		&event.TextMessageContent{Base: event.Base{Metadata: md(`{"stage":"content"}`)}, MessageID: "msg-2", Delta: "It is 21 °C and clear in Seoul."},
		&event.TextMessageEnd{Base: event.Base{Metadata: md(`{"finishReason":"stop"}`)}, MessageID: "msg-2"},
		&event.StepFinished{Base: event.Base{Metadata: md(`{"stage":"step-finished"}`)}, StepName: "answer"},
		&event.RunFinished{Base: event.Base{Metadata: md(`{"stage":"run-finished","usage":{"total":999},"finishReason":"run"}`)},
			ThreadID: in.ThreadID, RunID: in.RunID,
			Result:  event.RawValue(`{"answer":"21 °C, clear"}`),
			Outcome: &event.RunOutcome{Type: event.OutcomeSuccess}},
	}
}

// What an AG-UI client must assemble from weatherRun, after httpagent.mjs's
// initial user message:
//
//   - msg-1's metadata is START, CONTENT and END merged key by key, the last
//     write winning and never recursing: "usage" is END's object whole
//     (START's "input" key is gone), "tokens" is the last CONTENT's;
//   - call-1's metadata is its TOOL_CALL_START/ARGS/END metadata merged the
//     same way, on the tool call, not on msg-1;
//   - tool-msg-1 has TOOL_CALL_RESULT's metadata;
//   - no message has a key of the RUN_*, STEP_* or STATE_* metadata
//     ("trace", "finishReason":"run", "usage":{"total":999}, "stage" values
//     other than the message's own).
const wantMessages = `[
 {"id":"user-1","role":"user","content":"What's the weather in Seoul?","metadata":{"client":"httpagent.mjs"}},
 {"id":"msg-1","role":"assistant","content":"Let me check the weather in Seoul. 🌏",
  "metadata":{"source":"openai","stage":"end","tokens":8,"usage":{"output":340}},
  "toolCalls":[{"id":"call-1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Seoul\"}"},
    "metadata":{"ag-ui":{"frontendTool":false},"phase":"end","argChunks":2,"latencyMs":12}}]},
 {"id":"tool-msg-1","role":"tool","toolCallId":"call-1","content":"{\"tempC\":21,\"sky\":\"clear\"}",
  "metadata":{"cache":"miss","durationMs":45}},
 {"id":"msg-2","role":"assistant","content":"It is 21 °C and clear in Seoul.","metadata":{"stage":"content","finishReason":"stop"}}
]`

// The state: the snapshot with the delta applied (the initial state
// {"city":"unknown"} replaced by the snapshot).
const wantState = `{"city":"Seoul","forecast":{"tempC":21,"sky":"clear"},"history":["Seoul"],"done":true}`

// servedRun is what the Go server saw of one request and what it answered.
type servedRun struct {
	Accept, AcceptEncoding string
	Body                   []byte
	Input                  *event.RunAgentInput
	ContentType            string // w.ContentType(): the transport the handler used
	ContentEncoding        string
	WriteErrs              []error
	Events                 []json.RawMessage // the events written, as AG-UI JSON
	done                   chan struct{}     // closed when the handler has returned
}

type servedKey struct{}

// goAgentServer serves weatherRun with transport.NewHandler and records each
// request by run id.
type goAgentServer struct {
	*httptest.Server
	mu   sync.Mutex
	runs map[string]*servedRun
}

func newGoAgentServer(t *testing.T, opts transport.HandlerOptions) *goAgentServer {
	s := &goAgentServer{runs: map[string]*servedRun{}}
	agent := mustHandler(opts, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		rec := ctx.Value(servedKey{}).(*servedRun)
		rec.Input = in
		s.mu.Lock()
		s.runs[in.RunID] = rec
		s.mu.Unlock()
		rec.ContentType = w.ContentType()
		for _, ev := range weatherRun(in) {
			b, err := event.Marshal(ev)
			if err != nil {
				return err
			}
			rec.Events = append(rec.Events, b)
			if err := w.WriteEvent(ev); err != nil {
				rec.WriteErrs = append(rec.WriteErrs, err)
			}
		}
		return nil
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &servedRun{Accept: r.Header.Get("Accept"), AcceptEncoding: r.Header.Get("Accept-Encoding"), done: make(chan struct{})}
		defer close(rec.done)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.Body = body
		r.Body = io.NopCloser(bytes.NewReader(body))
		agent.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), servedKey{}, rec)))
		rec.ContentEncoding = w.Header().Get("Content-Encoding")
	}))
	t.Cleanup(s.Close)
	return s
}

// run returns the record of run runID once its handler has returned, or nil
// if no such run reached the agent.
func (s *goAgentServer) run(t *testing.T, runID string) *servedRun {
	t.Helper()
	s.mu.Lock()
	rec := s.runs[runID]
	s.mu.Unlock()
	if rec == nil {
		return nil
	}
	select {
	case <-rec.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("the handler of run %q did not return", runID)
	}
	return rec
}

// agentOutput is what httpagent.mjs prints.
type agentOutput struct {
	Mode    string `json:"mode"`
	Request struct {
		Accept         string `json:"accept"`
		AcceptEncoding string `json:"acceptEncoding"`
		ContentType    string `json:"contentType"`
	} `json:"request"`
	Response struct {
		Status          int     `json:"status"`
		ContentType     string  `json:"contentType"`
		ContentEncoding *string `json:"contentEncoding"`
	} `json:"response"`
	Events        []json.RawMessage `json:"events"`
	Messages      json.RawMessage   `json:"messages"`
	State         json.RawMessage   `json:"state"`
	Result        json.RawMessage   `json:"result"`
	NewMessageIDs []string          `json:"newMessageIds"`
	Warnings      []string          `json:"warnings"`
	Errors        []string          `json:"errors"`
	RunError      string            `json:"runError"`
}

// runHTTPAgent runs httpagent.mjs once for all the given url/mode pairs
// and returns its output for each, in order.
func runHTTPAgent(t *testing.T, pairs ...string) []*agentOutput {
	t.Helper()
	start := time.Now()
	stdout, stderr, err := runNodeScript(t, "httpagent.mjs", pairs...)
	t.Logf("node httpagent.mjs, %d runs: %v", len(pairs)/2, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("node httpagent.mjs: %v\nstderr:\n%s", err, stderr)
	}
	var outs []*agentOutput
	for line := range bytes.Lines(stdout) {
		var out agentOutput
		if err := json.Unmarshal(line, &out); err != nil {
			t.Fatalf("httpagent.mjs output is not JSON: %v\nline: %s\nstderr:\n%s", err, short(line), stderr)
		}
		outs = append(outs, &out)
	}
	if len(outs) != len(pairs)/2 {
		t.Fatalf("httpagent.mjs printed %d results for %d runs\nstderr:\n%s", len(outs), len(pairs)/2, stderr)
	}
	return outs
}

// TestHTTPAgentAssemblesGoRun: agwire's transport.NewHandler serves weatherRun
// to the real HttpAgent of @ag-ui/client 1.0.0, over loopback HTTP.
//
// HttpAgent's requestInit() always sends "Accept: text/event-stream"
// (written after the headers option, so that option cannot change it), and
// it picks its parser from the response's Content-Type alone: the binary
// parser exactly when Content-Type equals application/vnd.ag-ui.event+proto.
// So the binary case uses a subclass that overrides requestInit(), the hook
// HttpAgent documents for customising the request. Each case checks the
// transport that was used on both ends, then that the client assembled
// wantMessages and wantState and saw the events the server wrote — the same
// outcome on every transport.
func TestHTTPAgentAssemblesGoRun(t *testing.T) {
	requireNode(t, "httpagent.mjs")
	plain := newGoAgentServer(t, transport.HandlerOptions{})
	compressed := newGoAgentServer(t, transport.HandlerOptions{
		Compression: []string{transport.EncodingZstd, transport.EncodingGzip},
	})

	cases := []struct {
		name, mode string
		server     *goAgentServer
		// what HttpAgent sends, and what agwire answers
		wantAccept, wantType, wantEncoding string
	}{
		{"binary", "binary", plain, transport.MediaTypeBinary, transport.MediaTypeBinary, ""},
		{"sse", "sse", plain, transport.MediaTypeSSE, transport.MediaTypeSSE, ""},
		// node's fetch sends "Accept-Encoding: gzip, deflate" on its own and
		// decompresses; agwire's per-event flush goes through gzip.
		{"binary-gzip", "binary", compressed, transport.MediaTypeBinary, transport.MediaTypeBinary, transport.EncodingGzip},
		{"sse-gzip", "sse", compressed, transport.MediaTypeSSE, transport.MediaTypeSSE, transport.EncodingGzip},
		// headers: {accept: <binary>} does not replace HttpAgent's Accept:
		// fetch joins the two. The header admits binary, so agwire answers
		// binary, as @ag-ui/encoder's EventEncoder does (see
		// transport.Negotiate).
		{"header-accept", "header-accept", plain, transport.MediaTypeBinary + ", " + transport.MediaTypeSSE, transport.MediaTypeBinary, ""},
	}

	var pairs []string
	for _, c := range cases {
		pairs = append(pairs, c.server.URL, c.mode)
	}
	outputs := runHTTPAgent(t, pairs...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := outputs[i]
			if out.RunError != "" {
				t.Fatalf("HttpAgent.runAgent threw: %s", out.RunError)
			}
			rec := c.server.run(t, "run-"+c.mode)
			if rec == nil {
				t.Fatalf("the Go server recorded no run %q", "run-"+c.mode)
			}
			checkHTTPAgentRun(t, out, rec, c.wantAccept, c.wantType, c.wantEncoding)
		})
	}

	// Both transports, same outcome: every case assembled the same
	// messages, state and result. (Each case's events were checked against
	// what its server wrote; they differ between cases in the run id only.)
	base := outputs[0]
	for i, out := range outputs[1:] {
		name := cases[i+1].name
		if len(out.Events) != len(base.Events) {
			t.Errorf("%s: the client saw %d events, %d over binary", name, len(out.Events), len(base.Events))
		}
		for _, pair := range [][2]json.RawMessage{{out.Messages, base.Messages}, {out.State, base.State}, {out.Result, base.Result}} {
			if d := jsonDiff(pair[0], pair[1]); d != "" {
				t.Errorf("%s vs binary: %s", name, d)
			}
		}
	}
}

func checkHTTPAgentRun(t *testing.T, out *agentOutput, rec *servedRun, wantAccept, wantType, wantEncoding string) {
	t.Helper()
	// The transport, seen from both ends.
	if out.Request.Accept != wantAccept || rec.Accept != wantAccept {
		t.Errorf("Accept: HttpAgent sent %q, the server got %q; want %q", out.Request.Accept, rec.Accept, wantAccept)
	}
	if rec.ContentType != wantType {
		t.Errorf("the handler's EventWriter used %q, want %q", rec.ContentType, wantType)
	}
	if out.Response.Status != http.StatusOK || out.Response.ContentType != wantType {
		t.Errorf("HttpAgent got status %d, Content-Type %q; want 200, %q", out.Response.Status, out.Response.ContentType, wantType)
	}
	gotEncoding := ""
	if out.Response.ContentEncoding != nil {
		gotEncoding = *out.Response.ContentEncoding
	}
	if rec.ContentEncoding != wantEncoding || gotEncoding != wantEncoding {
		t.Errorf("Content-Encoding: server %q, HttpAgent saw %q; want %q (client sent Accept-Encoding %q)", rec.ContentEncoding, gotEncoding, wantEncoding, rec.AcceptEncoding)
	}
	for _, err := range rec.WriteErrs {
		t.Errorf("server write: %v", err)
	}
	t.Logf("HttpAgent sent Accept %q, Accept-Encoding %q; got %s %s", rec.Accept, rec.AcceptEncoding, rec.ContentType, rec.ContentEncoding)

	// The request body HttpAgent sent went through agwire's strict parser;
	// what it carried arrived.
	in := rec.Input
	if in.ThreadID != "thread-e2e" || len(in.Messages) != 1 || in.Messages[0].ID != "user-1" ||
		string(in.Messages[0].Metadata) != `{"client":"httpagent.mjs"}` ||
		len(in.Tools) != 1 || in.Tools[0].Name != "get_weather" || len(in.Context) != 1 {
		t.Errorf("RunAgentInput as agwire parsed it: %+v\nbody: %s", in, short(rec.Body))
	}
	if in.ProtocolVersion == nil || *in.ProtocolVersion != "1.0" {
		t.Errorf("RunAgentInput protocolVersion: %v, want 1.0", in.ProtocolVersion)
	}
	if d := jsonDiff(in.State, []byte(`{"city":"unknown"}`)); d != "" {
		t.Errorf("RunAgentInput state: %s", d)
	}
	if d := jsonDiff(in.ForwardedProps, []byte(`{"locale":"ko-KR"}`)); d != "" {
		t.Errorf("RunAgentInput forwardedProps: %s", d)
	}

	// What the client assembled.
	if d := jsonDiff(out.Messages, []byte(wantMessages)); d != "" {
		t.Errorf("assembled messages differ: %s\ngot:  %s\nwant: %s", d, out.Messages, wantMessages)
	}
	if d := jsonDiff(out.State, []byte(wantState)); d != "" {
		t.Errorf("assembled state differs: %s\ngot:  %s\nwant: %s", d, out.State, wantState)
	}
	if d := jsonDiff(out.Result, []byte(`{"answer":"21 °C, clear"}`)); d != "" {
		t.Errorf("runAgent result: %s (got %s)", d, out.Result)
	}
	if got, want := strings.Join(out.NewMessageIDs, ","), "msg-1,tool-msg-1,msg-2"; got != want {
		t.Errorf("runAgent newMessages: %s, want %s", got, want)
	}

	// The events reached the client's subscribers as the server wrote them.
	if len(out.Events) != len(rec.Events) {
		t.Errorf("the client's subscribers saw %d events, the server wrote %d", len(out.Events), len(rec.Events))
	}
	for i := range min(len(out.Events), len(rec.Events)) {
		if d := jsonDiff(out.Events[i], rec.Events[i]); d != "" {
			t.Errorf("event %d: %s\nclient: %s\nserver: %s", i, d, short(out.Events[i]), short(rec.Events[i]))
		}
	}
	if len(out.Warnings) > 0 || len(out.Errors) > 0 {
		t.Errorf("the client warned %q, errors %q", out.Warnings, out.Errors)
	}
}

// encoderServerLog is the line encoder-server.mjs prints after a response.
type encoderServerLog struct {
	Request     int      `json:"request"`
	Accept      string   `json:"accept"`
	ContentType string   `json:"contentType"`
	Events      int      `json:"events"`
	Warnings    []string `json:"warnings"`
	Input       struct {
		ThreadID string `json:"threadId"`
		RunID    string `json:"runId"`
		Messages int    `json:"messages"`
	} `json:"input"`
}

// encoderLog returns encoder-server.mjs's line for the response to run
// runID, skipping lines of earlier responses (of a subtest that failed
// before reading its own).
func encoderLog(t *testing.T, srv *nodeServer, runID string) encoderServerLog {
	t.Helper()
	for {
		var log encoderServerLog
		line := srv.NextLine(t, 10*time.Second)
		if err := json.Unmarshal(line, &log); err != nil {
			t.Fatalf("encoder-server.mjs printed %q: %v", line, err)
		}
		if log.Input.RunID == runID {
			return log
		}
	}
}

// TestGoClientReadsEncoderServer: a node server answering with the real
// EventEncoder of @ag-ui/encoder 1.0.0 (encoder-server.mjs) serves every
// fixture the peer accepts without a warning, in corpus order; agwire's
// a transport.Client reads them over binary (its default Accept) and over
// SSE (PreferSSEOnly), and each event equals the peer's own decode of it.
func TestGoClientReadsEncoderServer(t *testing.T) {
	var want []peerCase
	for _, c := range corpus(t) {
		if !c.PeerWarns {
			if c.Decoded == nil {
				t.Fatalf("%s: the peer does not decode its own bytes", c.Name)
			}
			want = append(want, c)
		}
	}
	srv := startNodeServer(t, "encoder-server.mjs")
	var hello struct {
		Port int `json:"port"`
	}
	if err := json.Unmarshal(srv.First, &hello); err != nil || hello.Port == 0 {
		t.Fatalf("encoder-server.mjs said %q (%v)", srv.First, err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/agent", hello.Port)

	in := &event.RunAgentInput{
		ThreadID: "thread-go",
		Messages: []event.Message{{ID: "u1", Role: event.RoleUser, Content: event.Ptr("Replay the corpus"), Metadata: md(`{"client":"agwire"}`)}},
		Tools:    []event.Tool{{Name: "get_weather", Description: "Current weather", Parameters: event.RawValue(`{"type":"object"}`)}},
		Context:  []event.Context{{Description: "units", Value: "metric"}},
		State:    event.RawValue(`{"k":1}`),
	}
	// Run one after the other: the server's log lines come in request order.
	for _, c := range []struct {
		name     string
		opts     transport.ClientOptions
		wantType string
	}{
		{"binary", transport.ClientOptions{}, transport.MediaTypeBinary},
		{"sse", transport.ClientOptions{Prefer: transport.PreferSSEOnly}, transport.MediaTypeSSE},
	} {
		t.Run(c.name, func(t *testing.T) {
			in.RunID = "run-" + c.name
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			client, err := transport.NewClient(url, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			r, err := client.Run(ctx, in)
			if err != nil {
				t.Fatalf("Client.Run: %v\nserver stderr:\n%s", err, srv.Stderr())
			}
			defer r.Close()
			if r.ContentType() != c.wantType {
				t.Errorf("the encoder server answered %q, want %q", r.ContentType(), c.wantType)
			}
			i := 0
			var unsigned []string // fixtures compared with -0 read as 0
			for ev, err := range r.Events() {
				if i >= len(want) {
					t.Fatalf("more events than the %d served (err %v)", len(want), err)
				}
				w := want[i]
				i++
				if err != nil {
					t.Errorf("event %d (%s): %v", i-1, w.Name, err)
					continue
				}
				got, err := event.Marshal(ev)
				if err != nil {
					t.Errorf("event %d (%s): event.Marshal: %v", i-1, w.Name, err)
					continue
				}
				ref := w.Decoded
				if c.wantType == transport.MediaTypeSSE {
					// The peer's SSE is JSON.stringify of the event, which
					// writes -0 as 0; its binary frames keep the sign.
					if flat := unsignZeros(t, ref); !bytes.Equal(flat, ref) {
						ref = flat
						unsigned = append(unsigned, w.Name)
					}
					ref = withoutAddedResume(t, ref, w.Event)

				}
				if d := jsonDiff(got, ref); d != "" {
					t.Errorf("event %d (%s): %s\nagwire: %s\npeer:   %s", i-1, w.Name, d, short(got), short(ref))
				}
			}
			if len(unsigned) > 0 {
				t.Logf("DIVERGENCE (peer, not agwire): @ag-ui/encoder's SSE writes -0 as 0 (JSON.stringify), its binary keeps -0; "+
					"compared with the sign dropped for %d fixture(s): %s", len(unsigned), strings.Join(unsigned, ", "))
			}
			if i != len(want) {
				t.Errorf("read %d of %d events", i, len(want))
			}
			elapsed := time.Since(start)

			log := encoderLog(t, srv, in.RunID)
			if log.ContentType != c.wantType || log.Events != len(want) || len(log.Warnings) > 0 {
				t.Errorf("encoder server: %+v", log)
			}
			if log.Input.ThreadID != in.ThreadID || log.Input.RunID != in.RunID || log.Input.Messages != 1 {
				t.Errorf("the RunAgentInput agwire sent reached the server's zod schema as %+v", log.Input)
			}
			t.Logf("Accept %q -> %s: %d events in %v", log.Accept, log.ContentType, i, elapsed.Round(time.Millisecond))
		})
	}

	// How the two servers pick a transport for the same Accept header:
	// agwire's transport.Negotiate, and the EventEncoder of @ag-ui/encoder
	// as this server uses it. Each row pins both answers, so a change on
	// either side is noticed; rows where they differ are logged.
	t.Run("negotiation", func(t *testing.T) {
		const (
			bin = transport.MediaTypeBinary
			sse = transport.MediaTypeSSE
			n   = "406" // agwire: not acceptable
		)
		body, err := json.Marshal(&event.RunAgentInput{ThreadID: "thread-go", RunID: "run-negotiation"})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range []struct{ accept, agwire, encoder, why string }{
			{"", sse, sse, ""}, // no Accept header
			{bin, bin, bin, ""},
			{sse, sse, sse, ""},
			{bin + ", " + sse + ";q=0.5", bin, bin, ""}, // a Client's default
			{"application/*", bin, bin, ""},
			{"text/*", sse, sse, ""},
			{bin + ", " + sse, bin, bin, ""},
			{sse + ", " + bin + ";q=0.1", bin, bin, ""}, // q values of the two are not compared
			{"*/*", bin, bin, ""},
			{bin + ";q=0", n, sse, "agwire answers 406 when neither type is acceptable; EventEncoder falls back to SSE"},
		} {
			if mt, ok := transport.Negotiate([]string{row.accept}); (ok && mt != row.agwire) || (!ok && row.agwire != n) {
				t.Errorf("Accept %q: transport.Negotiate says %q (ok %v), recorded %q", row.accept, mt, ok, row.agwire)
			}
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if row.accept != "" {
				req.Header.Set("Accept", row.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			encoderLog(t, srv, "run-negotiation")
			if got := resp.Header.Get("Content-Type"); got != row.encoder {
				t.Errorf("Accept %q: EventEncoder answered %q, recorded %q", row.accept, got, row.encoder)
			}
			if row.why != "" {
				t.Logf("DIVERGENCE: Accept %q: agwire %s, @ag-ui/encoder %s: %s", row.accept, row.agwire, row.encoder, row.why)
			}
		}
	})
}

// unsignZeros returns the JSON text b with every negative zero written as 0,
// or b itself when it has none.
func unsignZeros(t *testing.T, b []byte) []byte {
	t.Helper()
	v, err := parseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case json.Number:
			if f, err := strconv.ParseFloat(string(x), 64); err == nil && f == 0 && math.Signbit(f) {
				changed = true
				return json.Number("0")
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mustHandler is transport.NewHandler for options known to be valid.
func mustHandler(opts transport.HandlerOptions, fn transport.RunFunc) http.Handler {
	h, err := transport.NewHandler(fn, opts)
	if err != nil {
		panic(err)
	}
	return h
}

// withoutAddedResume removes input.resume from the peer's decode of a
// RUN_STARTED when the event as written carried none: the protobuf form
// has no absent list, so the peer's decode gains an empty one, while its
// SSE writes the event as written, without it (and agwire, reading that
// JSON, keeps it absent, as the client does).
func withoutAddedResume(t *testing.T, ref, written []byte) []byte {
	t.Helper()
	var w struct {
		Input map[string]json.RawMessage `json:"input"`
	}
	if json.Unmarshal(written, &w) != nil || w.Input == nil {
		return ref
	}
	if _, ok := w.Input["resume"]; ok {
		return ref
	}
	var r map[string]any
	if err := json.Unmarshal(ref, &r); err != nil {
		t.Fatal(err)
	}
	in, ok := r["input"].(map[string]any)
	if !ok {
		return ref
	}
	delete(in, "resume")
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
