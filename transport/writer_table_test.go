package transport_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// A writer step: one call on the EventWriter and the class of its result.
type writerStep struct {
	name  string
	call  func(w transport.EventWriter) error
	want  string // "ok", "refused" (an *EventError), "closed" (ErrClosed)
	typ   event.Type
	index int64 // for "refused": the EventError's Index
}

// writerPaths are the three server paths, each on both carriers: a plain
// response, a logged (resumable) one and a detached one.
var writerPaths = []struct {
	name string
	opts func() transport.HandlerOptions
}{
	{"plain", func() transport.HandlerOptions { return transport.HandlerOptions{ErrorLog: quiet} }},
	{"logged", func() transport.HandlerOptions {
		return transport.HandlerOptions{Log: runlog.NewMemory(runlog.MemoryOptions{}), ErrorLog: quiet}
	}},
	{"detached", func() transport.HandlerOptions {
		return transport.HandlerOptions{Log: runlog.NewMemory(runlog.MemoryOptions{}), Detach: true, ErrorLog: quiet}
	}},
}

var quiet = slog.New(slog.DiscardHandler)

var carriersByAccept = []struct{ name, accept string }{
	{"sse", transport.MediaTypeSSE},
	{"binary", transport.MediaTypeBinary},
}

// runWriterCase serves one run whose function performs steps, then returns
// runErr; it returns each step's error and the event types the client read.
func runWriterCase(t *testing.T, opts transport.HandlerOptions, accept string, steps func(w transport.EventWriter) []error, runErr error) ([]error, []event.Type) {
	t.Helper()
	var (
		mu   sync.Mutex
		errs []error
		done = make(chan struct{})
	)
	h, err := transport.NewHandler(func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		defer close(done)
		e := steps(w)
		mu.Lock()
		errs = e
		mu.Unlock()
		return runErr
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	copts := transport.ClientOptions{Prefer: prefer(accept == transport.MediaTypeSSE)}
	r, err := startRun(context.Background(), nil, srv.URL, testInput(), copts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.ContentType() != accept {
		t.Fatalf("served %s, want %s", r.ContentType(), accept)
	}
	var got []event.Type
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		got = append(got, ev.Type())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the run function did not return")
	}
	mu.Lock()
	defer mu.Unlock()
	return errs, got
}

// TestWriterTable runs every writer case on the plain, logged and detached
// paths, over both carriers: the same call gets the same class of result
// (written, refused with an *EventError of the same index, ErrClosed) on
// every path, and the client reads exactly the events that were accepted,
// to the end of the run.
func TestWriterTable(t *testing.T) {
	small := func(w transport.EventWriter) error {
		return w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: "hi"})
	}
	steps := []writerStep{
		{name: "start", call: func(w transport.EventWriter) error {
			return w.WriteEvent(&event.RunStarted{ThreadID: "thread-1", RunID: "run-1"})
		}, want: "ok", typ: event.TypeRunStarted},
		{name: "nil event", call: func(w transport.EventWriter) error { return w.WriteEvent(nil) }, want: "refused", index: 1},
		{name: "JSON not an event", call: func(w transport.EventWriter) error { return w.WriteJSON([]byte(`{"type":"NOPE"}`)) }, want: "refused", index: 1},
		{name: "JSON event", call: func(w transport.EventWriter) error {
			return w.WriteJSON([]byte(`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`))
		}, want: "ok", typ: event.TypeTextMessageStart},
		{name: "invalid value", call: func(w transport.EventWriter) error {
			return w.WriteEvent(&event.StateSnapshot{Snapshot: event.RawValue(`{bad`)})
		}, want: "refused", index: 2},
		{name: "over the limit in any form", call: func(w transport.EventWriter) error {
			return w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("x", 500)})
		}, want: "refused", index: 2},
		{name: "small", call: small, want: "ok", typ: event.TypeTextMessageContent},
		{name: "finish", call: func(w transport.EventWriter) error {
			return w.WriteEvent(&event.RunFinished{ThreadID: "thread-1", RunID: "run-1"})
		}, want: "ok", typ: event.TypeRunFinished},
		{name: "after close", call: func(w transport.EventWriter) error {
			w.Close()
			return small(w)
		}, want: "closed"},
	}
	for _, p := range writerPaths {
		for _, c := range carriersByAccept {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				opts := p.opts()
				opts.MaxEventSize = 400
				errs, got := runWriterCase(t, opts, c.accept, func(w transport.EventWriter) []error {
					var errs []error
					for _, s := range steps {
						errs = append(errs, s.call(w))
					}
					return errs
				}, errors.New("not reported: the run had ended"))
				var want []event.Type
				for i, s := range steps {
					err := errs[i]
					switch s.want {
					case "ok":
						if err != nil {
							t.Errorf("%s: %v", s.name, err)
						}
						want = append(want, s.typ)
					case "refused":
						ee, ok := errors.AsType[*transport.EventError](err)
						if !ok || ee.Index != s.index {
							t.Errorf("%s: got %v, want an *EventError of index %d", s.name, err, s.index)
						}
					case "closed":
						if !errors.Is(err, transport.ErrClosed) {
							t.Errorf("%s: got %v, want ErrClosed", s.name, err)
						}
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("client read %v, want %v", got, want)
				}
			})
		}
	}
}

// TestWriterExpandingEvent is the event whose JSON is much longer than its
// wire form: a delta of control characters, 300 bytes on the wire, 1,800
// in JSON. Each response refuses it when the bytes its carrier sends exceed
// the limit (SSE: the JSON; binary: the frame); a run log, which either
// carrier may serve, refuses it when either would. The run goes on to its
// RUN_FINISHED on every path: no logged event stops a response.
func TestWriterExpandingEvent(t *testing.T) {
	expanding := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("\x01", 300)}
	for _, p := range writerPaths {
		for _, c := range carriersByAccept {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				opts := p.opts()
				opts.MaxEventSize = 400
				errs, got := runWriterCase(t, opts, c.accept, func(w transport.EventWriter) []error {
					return []error{
						w.WriteEvent(&event.RunStarted{ThreadID: "thread-1", RunID: "run-1"}),
						w.WriteEvent(expanding),
						w.WriteEvent(&event.RunFinished{ThreadID: "thread-1", RunID: "run-1"}),
					}
				}, nil)
				refuse := p.name != "plain" || c.name == "sse"
				_, refused := errors.AsType[*transport.EventError](errs[1])
				if refused != refuse || (refused && !errors.Is(errs[1], transport.ErrEventTooLarge)) {
					t.Fatalf("got %v, want refused = %v with ErrEventTooLarge", errs[1], refuse)
				}
				want := "[RUN_STARTED TEXT_MESSAGE_CONTENT RUN_FINISHED]"
				if refuse {
					want = "[RUN_STARTED RUN_FINISHED]"
				}
				if fmt.Sprint(got) != want || errs[0] != nil || errs[2] != nil {
					t.Fatalf("client read %v (write errors %v), want %s", got, errs, want)
				}
			})
		}
	}
}

// TestRunErrorEveryPath: a run function's error becomes a RUN_ERROR event
// carrying its text, the same on every path and carrier.
func TestRunErrorEveryPath(t *testing.T) {
	for _, p := range writerPaths {
		for _, c := range carriersByAccept {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				_, got := runWriterCase(t, p.opts(), c.accept, func(w transport.EventWriter) []error {
					return []error{w.WriteEvent(&event.RunStarted{ThreadID: "thread-1", RunID: "run-1"})}
				}, errors.New("the model is down"))
				if fmt.Sprint(got) != "[RUN_STARTED RUN_ERROR]" {
					t.Fatalf("client read %v", got)
				}
			})
		}
	}
}
