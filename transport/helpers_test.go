package transport_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// testInput is a small valid RunAgentInput.
func testInput() *event.RunAgentInput {
	return &event.RunAgentInput{
		ThreadID: "thread-1",
		RunID:    "run-1",
		Messages: []event.Message{{ID: "u1", Role: event.RoleUser, Content: event.Ptr("What's the weather in Paris?")}},
	}
}

// realisticRun is a run of 17 events of many types, as an agent with a tool
// and shared state would send it. Dynamic values are written in canonical
// JSON so that they survive both transports byte for byte.
func realisticRun() []event.Event {
	ts := int64(1767225600000)
	return []event.Event{
		&event.RunStarted{Base: event.Base{Timestamp: &ts, Metadata: event.Object(`{"agent":"weather","trace":{"id":"abc","sampled":true}}`)},
			ThreadID: "thread-1", RunID: "run-1", ProtocolVersion: event.Ptr("1.0")},
		&event.StepStarted{StepName: "plan"},
		&event.ReasoningStart{MessageID: "r1"},
		&event.ReasoningMessageContent{MessageID: "r1", Delta: "The user wants weather; call the tool."},
		&event.ReasoningEnd{MessageID: "r1"},
		&event.ToolCallStart{ToolCallID: "call-1", ToolCallName: "get_weather", ParentMessageID: event.Ptr("a1")},
		&event.ToolCallArgs{ToolCallID: "call-1", Delta: `{"city":"Paris",`},
		&event.ToolCallArgs{ToolCallID: "call-1", Delta: `"unit":"C"}`},
		&event.ToolCallEnd{ToolCallID: "call-1"},
		&event.ToolCallResult{MessageID: "t1", ToolCallID: "call-1", Content: event.Ptr(`{"temp":18.5,"sky":"clear"}`), Role: event.Ptr("tool")},
		&event.StateSnapshot{Snapshot: event.RawValue(`{"city":"Paris","history":[],"temp":null}`)},
		&event.StateDelta{Delta: []event.PatchOp{
			{Op: "replace", Path: "/temp", Value: event.RawValue(`18.5`)},
			{Op: "add", Path: "/history/-", Value: event.RawValue(`{"city":"Paris","at":1767225600}`)},
		}},
		&event.TextMessageStart{MessageID: "a1", Role: event.Ptr("assistant")},
		&event.TextMessageContent{MessageID: "a1", Delta: "It is 18.5 °C and clear in Paris.\nEnjoy! ☀️"},
		&event.TextMessageEnd{MessageID: "a1"},
		&event.MessagesSnapshot{Messages: []event.Message{
			{ID: "u1", Role: event.RoleUser, Content: event.Ptr("What's the weather in Paris?")},
			{ID: "a1", Role: event.RoleAssistant, Content: event.Ptr("It is 18.5 °C and clear in Paris.\nEnjoy! ☀️"),
				ToolCalls: []event.ToolCall{{ID: "call-1", Type: "function", Function: event.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris","unit":"C"}`}}}},
			{ID: "t1", Role: event.RoleTool, ToolCallID: event.Ptr("call-1"), Content: event.Ptr(`{"temp":18.5,"sky":"clear"}`)},
		}},
		&event.StepFinished{StepName: "plan"},
		&event.RunFinished{ThreadID: "thread-1", RunID: "run-1",
			Result:  event.RawValue(`{"answer":"18.5 °C"}`),
			Outcome: &event.RunOutcome{Type: event.OutcomeSuccess},
			Usage:   []event.Usage{{Provider: event.Ptr("openai"), Model: event.Ptr("gpt-5"), InputTokens: event.Ptr(int64(812)), OutputTokens: event.Ptr(int64(64)), TotalTokens: event.Ptr(int64(876))}}},
	}
}

// jsonOf returns the AG-UI JSON of each event, failing the test on error.
func jsonOf(t testing.TB, evs []event.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, ev := range evs {
		b, err := event.Marshal(ev)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		out[i] = string(b)
	}
	return out
}

// readAll reads every event, failing the test on any error.
func readAll(t testing.TB, r *transport.EventReader) []event.Event {
	t.Helper()
	var evs []event.Event
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// replay is a run function that writes evs.
func replay(evs []event.Event) transport.RunFunc {
	return func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for _, ev := range evs {
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}
}

// testCtx is a context that ends the test's reads if something hangs,
// so that a bug fails the test instead of stalling it.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wait fails the test if ch does not deliver within 10 s.
func wait[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// quietLog discards a handler's log.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// noCompressionClient is an http.Client whose transport adds no
// Accept-Encoding of its own.
func noCompressionClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true}}
}

// post sends a RunAgentInput body with the given headers and returns the
// response.
func post(t testing.TB, client *http.Client, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const validBody = `{"threadId":"thread-1","runId":"run-1","messages":[]}`

// mustHandler is transport.NewHandler for options known to be valid.
func mustHandler(opts transport.HandlerOptions, fn transport.RunFunc) http.Handler {
	h, err := transport.NewHandler(fn, opts)
	if err != nil {
		panic(err)
	}
	return h
}

// startRun starts a run through a Client built for it: client nil means
// http.DefaultClient.
func startRun(ctx context.Context, client transport.Doer, url string, in *event.RunAgentInput, opts transport.ClientOptions) (*transport.EventReader, error) {
	if client != nil {
		opts.HTTPClient = client
	}
	c, err := transport.NewClient(url, opts)
	if err != nil {
		return nil, err
	}
	return c.Run(ctx, in)
}

// followRun follows a run at the follower route url through a Client built
// for it, from the cursor from (the zero cursor: from the start).
func followRun(ctx context.Context, client transport.Doer, url string, from runlog.Cursor, opts transport.ClientOptions) (*transport.EventReader, error) {
	if client != nil {
		opts.HTTPClient = client
	}
	opts.FollowURL = url
	c, err := transport.NewClient(url, opts)
	if err != nil {
		return nil, err
	}
	return c.Follow(ctx, from.Run, from)
}

// prefer is PreferSSEOnly when sse, else PreferBinary.
func prefer(sse bool) transport.Prefer {
	if sse {
		return transport.PreferSSEOnly
	}
	return transport.PreferBinary
}

// allCodings asks for (or offers) both codings.
var allCodings = transport.Compression{transport.EncodingZstd, transport.EncodingGzip}

// compressIf is allCodings when on, else no compression.
func compressIf(on bool) transport.Compression {
	if on {
		return allCodings
	}
	return nil
}
