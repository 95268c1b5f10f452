package natslog_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog/natslog"
	"github.com/agwire/agwire/transport"
)

// The reconnect grace across replicas. A run starts on replica A, whose
// client is cut after RUN_STARTED; the client comes back through the load
// balancer on replica B — resuming the run, or following it — and stays
// there for several graces while the run works. The run goes on and ends,
// and the client on B reads it to its end: B's reader touches the run's
// presence in the shared log, and A, when its grace passes without a
// client of its own, finds the run seen and waits on. (A cancelled the run
// with ErrNoClient after one grace, though a client was reading it.)
// Without any reader, the run's context ends with ErrNoClient after the
// grace, as on one server.
func TestGraceAcrossReplicas(t *testing.T) {
	const grace = 400 * time.Millisecond
	for _, reader := range []string{"resume", "follow", "none"} {
		t.Run(reader, func(t *testing.T) {
			ns := startServer(t)
			opts := natslog.Options{Stream: "GRACE", Subject: "grace", Storage: jetstream.MemoryStorage}
			logA, logB := newLog(t, connect(t, ns), opts), newLog(t, connect(t, ns), opts)
			release := make(chan struct{})
			ended := make(chan error, 1) // the cause of the run's end; nil: it finished
			agent := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
				if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}); err != nil {
					ended <- err
					return err
				}
				select {
				case <-ctx.Done():
					ended <- context.Cause(ctx)
					return context.Cause(ctx)
				case <-release:
				}
				w.WriteEvent(&event.TextMessageStart{MessageID: "m"})
				w.WriteEvent(&event.TextMessageEnd{MessageID: "m"})
				ended <- nil
				return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
			}
			hA, err := transport.NewHandler(agent, transport.HandlerOptions{Log: logA, ReconnectGrace: grace, ErrorLog: quiet})
			if err != nil {
				t.Fatal(err)
			}
			hB, err := transport.NewHandler(func(context.Context, *http.Request, *event.RunAgentInput, transport.EventWriter) error {
				t.Error("replica B ran the agent")
				return nil
			}, transport.HandlerOptions{Log: logB, ReconnectGrace: grace, ErrorLog: quiet})
			if err != nil {
				t.Fatal(err)
			}
			fB, err := transport.NewFollowHandler(logB, transport.FollowOptions{ReconnectGrace: grace, ErrorLog: quiet})
			if err != nil {
				t.Fatal(err)
			}
			muxB := http.NewServeMux()
			muxB.Handle("POST /", hB)
			muxB.Handle("GET /runs/{run}", fB)
			a, b := httptest.NewServer(hA), httptest.NewServer(muxB)
			defer a.Close()
			defer b.Close()

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// The client starts the run on A and is cut after RUN_STARTED.
			ca, err := transport.NewClient(a.URL, transport.ClientOptions{Prefer: transport.PreferSSEOnly})
			if err != nil {
				t.Fatal(err)
			}
			r, err := ca.Run(ctx, &event.RunAgentInput{ThreadID: "t", RunID: "graced"})
			if err != nil {
				t.Fatal(err)
			}
			for ev, err := range r.Events() {
				if err != nil || ev.Type() != event.TypeRunStarted {
					t.Fatalf("first event: %v, %v", ev, err)
				}
				break
			}
			cursor, _ := r.Cursor()
			r.Close()

			if reader == "none" {
				select {
				case err := <-ended:
					if !errors.Is(err, transport.ErrNoClient) {
						t.Fatalf("the run ended with %v; want ErrNoClient after the grace", err)
					}
				case <-ctx.Done():
					t.Fatal("the run without a reader was not ended after its grace")
				}
				return
			}
			// The client comes back on B and reads while the run works for
			// five graces.
			copts := transport.ClientOptions{Prefer: transport.PreferSSEOnly}
			if reader == "resume" {
				copts.HTTPClient = &resumeDoer{cursor: cursor.String()}
			}
			cb, err := transport.NewClient(b.URL, copts)
			if err != nil {
				t.Fatal(err)
			}
			var rb *transport.EventReader
			if reader == "resume" {
				rb, err = cb.Run(ctx, &event.RunAgentInput{ThreadID: "t", RunID: "graced"})
			} else {
				rb, err = cb.Follow(ctx, "graced", cursor)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Close()
			got := make(chan []event.Type, 1)
			go func() {
				var types []event.Type
				for ev, err := range rb.Events() {
					if err != nil {
						break
					}
					types = append(types, ev.Type())
				}
				got <- types
			}()
			select {
			case err := <-ended:
				t.Fatalf("the run ended with %v while a client read it on B", err)
			case <-time.After(5 * grace):
			}
			close(release)
			if err := <-ended; err != nil {
				t.Fatalf("the run ended with %v", err)
			}
			types := <-got
			if len(types) != 3 || types[2] != event.TypeRunFinished {
				t.Fatalf("the client on B read %v; want the rest of the run to RUN_FINISHED", types)
			}
		})
	}
}

// resumeDoer sends a run request as a resumption from cursor: the
// client's reconnection, made by hand.
type resumeDoer struct{ cursor string }

func (d *resumeDoer) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set(transport.HeaderLastEventID, d.cursor)
	return http.DefaultClient.Do(req)
}
