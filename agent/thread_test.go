package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

func parse(t testing.TB, lines string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		ev, err := event.Parse([]byte(strings.TrimSpace(l)))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out = append(out, ev)
	}
	return out
}

func str(s string) *string { return &s }

const interruptRun = `{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"TEXT_MESSAGE_START","messageId":"a1"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"May I?"}
{"type":"TEXT_MESSAGE_END","messageId":"a1"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"plan","content":{"step":1}}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approval"},{"id":"i2","reason":"input","expiresAt":"2026-01-01T00:00:00Z"}]}}`

const successRun = `{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
{"type":"TEXT_MESSAGE_START","messageId":"a2"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"a2","delta":"Done."}
{"type":"TEXT_MESSAGE_END","messageId":"a2"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r2","result":{"ok":true}}`

func TestThreadRunsAndKeepsInterrupts(t *testing.T) {
	var inputs []*event.RunAgentInput
	r := agent.Script(&inputs, parse(t, interruptRun), parse(t, successRun))
	before := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	th := agent.New(r, agent.Options{ThreadID: "t", Messages: []event.Message{{ID: "u1", Role: "user", Content: str("hi")}},
		Now: func() time.Time { return before }})
	res, err := th.Run(context.Background(), agent.RunParams{RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NewMessages) != 2 || res.NewMessages[0].ID != "a1" || res.NewMessages[1].ID != "act" {
		t.Errorf("new messages %+v", res.NewMessages)
	}
	if got := string(th.State()); got != `{"n":1}` {
		t.Errorf("state %s", got)
	}
	if p := th.PendingInterrupts(); len(p) != 2 || p[0].ID != "i1" || p[1].ID != "i2" {
		t.Fatalf("pending %+v", p)
	}
	if res.Run.Outcome == nil || res.Run.Outcome.Type != event.OutcomeInterrupt {
		t.Errorf("run %+v", res.Run)
	}

	// A next run that leaves one interrupt unaddressed is refused before
	// anything is sent.
	_, err = th.Run(context.Background(), agent.RunParams{Resume: []event.ResumeEntry{{InterruptID: "i1", Status: "resolved"}}})
	var re *agent.ResumeError
	if !errors.Is(err, agent.ErrInterruptsNotAddressed) || !errors.As(err, &re) || len(re.Missing) != 1 || re.Missing[0] != "i2" {
		t.Fatalf("got %v", err)
	}
	if len(inputs) != 1 {
		t.Fatalf("the refused run was sent: %d inputs", len(inputs))
	}

	// Addressing both: the input carries the history without the activity
	// message, the state and the resume entries.
	resume := []event.ResumeEntry{{InterruptID: "i1", Status: "resolved", Payload: event.RawValue(`{"ok":true}`)}, {InterruptID: "i2", Status: "resolved"}}
	res, err = th.Run(context.Background(), agent.RunParams{RunID: "r2", Resume: resume})
	if err != nil {
		t.Fatal(err)
	}
	in := inputs[1]
	var ids []string
	for _, m := range in.Messages {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "u1,a1" || string(in.State) != `{"n":1}` || len(in.Resume) != 2 || in.ThreadID != "t" || in.RunID != "r2" {
		t.Errorf("input: messages %v, state %s, resume %+v, ids %s/%s", ids, in.State, in.Resume, in.ThreadID, in.RunID)
	}
	if string(in.ForwardedProps) != "{}" || in.Tools == nil || in.Context == nil || in.ProtocolVersion == nil || *in.ProtocolVersion != "1.0" {
		t.Errorf("defaults: %s %v %v %v", in.ForwardedProps, in.Tools, in.Context, in.ProtocolVersion)
	}
	// RUN_FINISHED with success clears the pending interrupts.
	if p := th.PendingInterrupts(); len(p) != 0 {
		t.Errorf("pending after success: %+v", p)
	}
	if len(res.NewMessages) != 1 || res.NewMessages[0].ID != "a2" || string(res.Run.Result) != `{"ok":true}` {
		t.Errorf("second run: %+v %s", res.NewMessages, res.Run.Result)
	}
	// Nothing pending: resume entries are not checked.
	if _, err := th.Run(context.Background(), agent.RunParams{Resume: []event.ResumeEntry{{InterruptID: "nope", Status: "resolved"}}}); err != nil {
		t.Errorf("resume with nothing pending: %v", err)
	}
}

// An expired interrupt may only be cancelled.
func TestExpiredInterruptMustBeCancelled(t *testing.T) {
	after := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // exactly expiresAt: expired
	var inputs []*event.RunAgentInput
	th := agent.New(agent.Script(&inputs, parse(t, interruptRun), parse(t, successRun)), agent.Options{Now: func() time.Time { return after }})
	if _, err := th.Run(context.Background(), agent.RunParams{}); err != nil {
		t.Fatal(err)
	}
	_, err := th.Run(context.Background(), agent.RunParams{Resume: []event.ResumeEntry{{InterruptID: "i1", Status: "resolved"}, {InterruptID: "i2", Status: "resolved"}}})
	var re *agent.ResumeError
	if !errors.Is(err, agent.ErrInterruptExpired) || !errors.As(err, &re) || re.Expired != "i2" || re.ExpiresAt != "2026-01-01T00:00:00Z" {
		t.Fatalf("got %v", err)
	}
	if len(inputs) != 1 {
		t.Fatal("the refused run was sent")
	}
	if _, err := th.Run(context.Background(), agent.RunParams{Resume: []event.ResumeEntry{{InterruptID: "i1", Status: "resolved"}, {InterruptID: "i2", Status: "cancelled"}}}); err != nil {
		t.Errorf("cancelling the expired interrupt: %v", err)
	}
}

// A sequence error ends the run with an error; what was applied stays. A
// patch that fails is a warning and the run goes on.
func TestRunErrorsAndWarnings(t *testing.T) {
	bad := parse(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/missing"}]}
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"other","delta":"x"}`)
	th := agent.New(agent.Script(nil, bad), agent.Options{})
	res, err := th.Run(context.Background(), agent.RunParams{})
	if err == nil || len(res.Warnings) != 1 {
		t.Fatalf("err %v, warnings %v", err, res.Warnings)
	}
	if len(th.Messages()) != 1 || th.Messages()[0].ID != "m" {
		t.Errorf("messages %+v", th.Messages())
	}
}

func TestFilterToolCalls(t *testing.T) {
	if _, err := agent.FilterToolCalls(agent.FilterOptions{}); !errors.Is(err, agent.ErrFilterOptions) {
		t.Errorf("neither: %v", err)
	}
	if _, err := agent.FilterToolCalls(agent.FilterOptions{Allowed: []string{"a"}, Disallowed: []string{"b"}}); !errors.Is(err, agent.ErrFilterOptions) {
		t.Errorf("both: %v", err)
	}
	run := parse(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"p"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"TOOL_CALL_CHUNK","toolCallId":"c2","toolCallName":"secret","parentMessageId":"p","delta":"{}"}
{"type":"TOOL_CALL_END","toolCallId":"c2"}
{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"found"}
{"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"c2","content":"hidden"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
	for _, opts := range []agent.FilterOptions{{Allowed: []string{"search"}}, {Disallowed: []string{"secret"}}} {
		f, err := agent.FilterToolCalls(opts)
		if err != nil {
			t.Fatal(err)
		}
		th := agent.New(agent.Script(nil, run), agent.Options{Middleware: []agent.Middleware{f}})
		if _, err := th.Run(context.Background(), agent.RunParams{}); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(th.Messages())
		if s := string(b); !strings.Contains(s, "search") || strings.Contains(s, "secret") || strings.Contains(s, "hidden") || !strings.Contains(s, "found") {
			t.Errorf("%+v: %s", opts, s)
		}
	}
}

// Function middleware: events are replaced by what it returns, the last
// middleware first.
func TestFuncMiddlewareOrder(t *testing.T) {
	var order []string
	tag := func(name string) agent.Middleware {
		return agent.Func(func(ev event.Event) []event.Event {
			if c, ok := ev.(*event.TextMessageContent); ok {
				order = append(order, name)
				d := *c
				d.Delta = c.Delta + name
				return []event.Event{&d}
			}
			return []event.Event{ev}
		})
	}
	drop := agent.Func(func(ev event.Event) []event.Event {
		if _, ok := ev.(*event.StateSnapshot); ok {
			return nil
		}
		return []event.Event{ev}
	})
	th := agent.New(agent.Script(nil, parse(t, interruptRun)), agent.Options{Middleware: []agent.Middleware{tag("A"), tag("B"), drop}})
	if _, err := th.Run(context.Background(), agent.RunParams{}); err != nil {
		t.Fatal(err)
	}
	if got := *th.Messages()[0].Content; got != "May I?BA" || strings.Join(order, "") != "BA" {
		t.Errorf("content %q, order %v", got, order)
	}
	if got := string(th.State()); got != "{}" {
		t.Errorf("the dropped snapshot reached the state: %s", got)
	}
}

// An agent over HTTP is Adapt of a transport.Client's Run: here against an
// SSE server.
func TestHTTPRunner(t *testing.T) {
	var got event.RunAgentInput
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", transport.MediaTypeSSE)
		for _, l := range strings.Split(successRun, "\n") {
			w.Write([]byte("data: " + l + "\n\n"))
		}
	}))
	defer srv.Close()
	c, err := transport.NewClient(srv.URL, transport.ClientOptions{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	th := agent.New(agent.Adapt(c.Run), agent.Options{ThreadID: "t"})
	th.AddMessages(event.Message{ID: "u", Role: "user", Content: str("hello")})
	res, err := th.Run(context.Background(), agent.RunParams{RunID: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	if got.ThreadID != "t" || got.RunID != "r2" || len(got.Messages) != 1 || len(res.NewMessages) != 1 || *res.NewMessages[0].Content != "Done." {
		t.Errorf("sent %+v, got %+v", got, res.NewMessages)
	}
}

// Adapt takes any function returning a concrete stream; a failure to start
// is the run's error, and nothing is applied.
func TestAdapt(t *testing.T) {
	boom := errors.New("no route")
	r := agent.Adapt(func(context.Context, *event.RunAgentInput) (*transport.EventReader, error) { return nil, boom })
	th := agent.New(r, agent.Options{})
	if _, err := th.Run(context.Background(), agent.RunParams{}); !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
	if len(th.Messages()) != 0 {
		t.Error("messages after a run that did not start")
	}
}

// TestProtocolVersionOption: a 1.1 thread declares 1.1 and does not warn
// about a 1.1 producer, a 1.0 one does; a version the thread does not speak
// is refused before anything is sent.
func TestProtocolVersionOption(t *testing.T) {
	v11 := "1.1"
	events := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r", ProtocolVersion: &v11}, &event.RunFinished{ThreadID: "t", RunID: "r"}}
	for _, tc := range []struct {
		version string
		warns   int
	}{{"", 1}, {agent.ProtocolVersion, 1}, {agent.ProtocolVersion11, 0}} {
		warns := 0
		th := agent.New(agent.Script(nil, events), agent.Options{ThreadID: "t", ProtocolVersion: tc.version, Warn: func(event.Warning) { warns++ }})
		res, err := th.Run(context.Background(), agent.RunParams{RunID: "r"})
		if err != nil {
			t.Fatal(err)
		}
		want := tc.version
		if want == "" {
			want = agent.ProtocolVersion
		}
		if got := *res.Input.ProtocolVersion; got != want || warns != tc.warns {
			t.Errorf("ProtocolVersion %q: declared %q, %d warnings; want %q, %d", tc.version, got, warns, want, tc.warns)
		}
	}
	sent := false
	th := agent.New(agent.RunnerFunc(func(context.Context, *event.RunAgentInput) (agent.Stream, error) {
		sent = true
		return nil, errors.New("unreachable")
	}), agent.Options{ProtocolVersion: "2.0"})
	if _, err := th.Run(context.Background(), agent.RunParams{}); !errors.Is(err, agent.ErrProtocolVersion) || sent {
		t.Errorf("ProtocolVersion 2.0: %v (sent: %v)", err, sent)
	}
}
