package transport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// quietRun writes RUN_STARTED and then nothing until its client leaves.
func quietRun(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
	if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestMaxQuietKeepalivesOnly: a server that sends nothing but keep-alives
// after the first event (SSE comments, zero-length binary frames) kept
// the reader for ever, since each resets IdleTimeout; MaxQuiet ends the
// read with ErrQuiet, naming the keep-alives. A resumable run is not
// resumed: one request.
func TestMaxQuietKeepalivesOnly(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sse       bool
		resumable bool
	}{
		{"sse", true, false},
		{"binary", false, false},
		{"sse/resumable", true, true},
		{"binary/resumable", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := transport.HandlerOptions{Heartbeat: 10 * time.Millisecond, ErrorLog: quietLog}
			var url string
			if tc.resumable {
				opts.Detach = true
				url = newResumeServer(t, opts, quietRun).URL
			} else {
				srv := httptest.NewServer(mustHandler(opts, quietRun))
				t.Cleanup(srv.Close)
				url = srv.URL
			}
			d := &countingDoer{client: freshClient()}
			r, err := startRun(testCtx(t), d, url, inputFor("quiet-"+strings.ReplaceAll(tc.name, "/", "-")), transport.ClientOptions{
				Prefer:      prefer(tc.sse),
				IdleTimeout: 5 * time.Second, // never reached: keep-alives reset it
				MaxQuiet:    300 * time.Millisecond,
				Reconnect:   fastReconnect,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if ev, err := r.Next(); err != nil || ev.Type() != event.TypeRunStarted {
				t.Fatalf("first event %v, %v", ev, err)
			}
			_, err = r.Next()
			if !errors.Is(err, transport.ErrQuiet) {
				t.Fatalf("Next: %v; want ErrQuiet", err)
			}
			if !strings.Contains(err.Error(), "no event for 300ms (only keep-alives: ") {
				t.Errorf("error %q does not say that only keep-alives came", err)
			}
			if _, err2 := r.Next(); err2 != err {
				t.Errorf("the error is not sticky: then %v", err2)
			}
			if _, ok := r.Cursor(); ok != tc.resumable {
				t.Fatalf("resumable %v", ok)
			}
			if n := d.n.Load(); n != 1 {
				t.Fatalf("%d requests; a quiet stream is not resumed", n)
			}
		})
	}
}

// TestMaxQuietSilence: with no keep-alives at all the error says that
// nothing arrived.
func TestMaxQuietSilence(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{Heartbeat: -1, ErrorLog: quietLog}, quietRun))
	defer srv.Close()
	r, err := startRun(testCtx(t), freshClient(), srv.URL, inputFor("silent"), transport.ClientOptions{MaxQuiet: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	if !errors.Is(err, transport.ErrQuiet) || !strings.Contains(err.Error(), "no event for 200ms (nothing arrived") {
		t.Fatalf("Next: %v; want ErrQuiet saying nothing arrived", err)
	}
}

// TestMaxQuietCountsWaitingOnly: the caller's own time between events is
// not quiet: a caller that takes three times MaxQuiet over the first event
// of a run, while the server sends the rest (far more than the reader's
// buffers hold), reads the whole run, on both carriers.
func TestMaxQuietCountsWaitingOnly(t *testing.T) {
	delta := strings.Repeat("x", 64<<10)
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "busy-caller"},
		&event.TextMessageStart{MessageID: "m", Role: event.Ptr(event.RoleAssistant)},
	}
	for range 4 {
		evs = append(evs, &event.TextMessageContent{MessageID: "m", Delta: delta})
	}
	evs = append(evs, &event.TextMessageEnd{MessageID: "m"}, &event.RunFinished{ThreadID: "t", RunID: "busy-caller"})
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog}, replay(evs)))
	defer srv.Close()
	const quiet = 100 * time.Millisecond
	for _, sse := range []bool{false, true} {
		r, err := startRun(testCtx(t), freshClient(), srv.URL, inputFor("busy-caller"), transport.ClientOptions{MaxQuiet: quiet, Prefer: prefer(sse)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * quiet) // busy with the event
		if got := readAll(t, r); len(got) != len(evs)-1 {
			t.Fatalf("sse %v: %d events after the first, want %d", sse, len(got), len(evs)-1)
		}
		r.Close()
	}
}

// TestMaxQuietPacedEvents: events that keep coming keep the stream, for
// many times MaxQuiet in all.
func TestMaxQuietPacedEvents(t *testing.T) {
	evs := pacedEvents(30)
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{Heartbeat: 10 * time.Millisecond, ErrorLog: quietLog}, pacedRun(evs, 100*time.Millisecond)))
	defer srv.Close()
	r, err := startRun(testCtx(t), freshClient(), srv.URL, inputFor("paced"), transport.ClientOptions{MaxQuiet: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := readAll(t, r); describe(got) != describe(evs) {
		t.Fatalf("got %s, want %s", describe(got), describe(evs))
	}
}

// TestMaxQuietOff: a negative MaxQuiet waits for as long as the caller's
// context allows.
func TestMaxQuietOff(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{Heartbeat: 10 * time.Millisecond, ErrorLog: quietLog}, quietRun))
	defer srv.Close()
	ctx, cancel := context.WithCancel(testCtx(t))
	r, err := startRun(ctx, freshClient(), srv.URL, inputFor("patient"), transport.ClientOptions{MaxQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, cancel)
	if _, err := r.Next(); errors.Is(err, transport.ErrQuiet) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v; want the context's cancellation", err)
	}
}
