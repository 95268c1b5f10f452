package natslog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog/natslog"
	"github.com/agwire/agwire/transport"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// failover sends requests to A until A is marked dead, then to B: the
// load balancer in front of two replicas.
type failover struct {
	a, b *url.URL
	dead atomic.Bool
}

func (f *failover) Do(req *http.Request) (*http.Response, error) {
	if f.dead.Load() {
		req.URL.Scheme, req.URL.Host = f.b.Scheme, f.b.Host
	}
	return http.DefaultClient.Do(req)
}

func replicaRun(n int) []event.Event {
	evs := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "replicated"}, &event.TextMessageStart{MessageID: "m"}}
	for i := range n - 4 {
		evs = append(evs, &event.TextMessageContent{MessageID: "m", Delta: fmt.Sprintf("token %d ", i)})
	}
	return append(evs, &event.TextMessageEnd{MessageID: "m"}, &event.RunFinished{ThreadID: "t", RunID: "replicated"})
}

// Two server replicas share one JetStream stream. A run starts on A; A's
// HTTP server dies after 10 of 40 events, while the run's producer (a
// worker: here the detached run, which outlives A's connections) goes on
// writing to the stream; the client resumes on B with its cursor and ends
// with exactly the 40 events, byte for byte. B never runs the agent.
//
// If the producer dies too (its NATS connection closed after 10 events),
// the run has no end marker: the client resumed on B gets the 10 events
// and then waits, until its context ends; it never sees an end.
func TestReplicasOverHTTP(t *testing.T) {
	for _, producerDies := range []bool{false, true} {
		t.Run(fmt.Sprintf("producerDies=%v", producerDies), func(t *testing.T) {
			ns := startServer(t)
			jsA := connect(t, ns)
			opts := natslog.Options{Stream: "HTTP", Subject: "http", Storage: jetstream.MemoryStorage}
			logA, logB := newLog(t, jsA, opts), newLog(t, connect(t, ns), opts)
			evs := replicaRun(40)
			release := make(chan struct{})
			agent := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
				for i, ev := range evs {
					if i == 10 {
						<-release
					}
					if err := w.WriteEvent(ev); err != nil {
						return err
					}
				}
				return nil
			}
			handler := func(l transport.HandlerOptions, fn transport.RunFunc) http.Handler {
				h, err := transport.NewHandler(fn, l)
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			a := httptest.NewServer(handler(transport.HandlerOptions{Log: logA, Detach: true, ErrorLog: quiet}, agent))
			b := httptest.NewServer(handler(transport.HandlerOptions{Log: logB, Detach: true, ErrorLog: quiet},
				func(context.Context, *http.Request, *event.RunAgentInput, transport.EventWriter) error {
					t.Error("replica B ran the agent")
					return nil
				}))
			defer b.Close()
			ua, _ := url.Parse(a.URL)
			ub, _ := url.Parse(b.URL)
			lb := &failover{a: ua, b: ub}

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			readCtx := ctx
			if producerDies {
				var c2 context.CancelFunc
				readCtx, c2 = context.WithTimeout(ctx, 500*time.Millisecond)
				defer c2()
			}
			c, err := transport.NewClient(a.URL, transport.ClientOptions{HTTPClient: lb,
				Reconnect: &transport.ReconnectOptions{MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Run(readCtx, &event.RunAgentInput{ThreadID: "t", RunID: "replicated"})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got [][]byte
			var last error
			for ev, err := range r.Events() {
				if err != nil {
					last = err
					break
				}
				b, _ := codec.Codec{}.Append(nil, ev)
				got = append(got, b)
				if len(got) == 10 {
					// A dies: its connections are cut, new requests go to B.
					lb.dead.Store(true)
					a.CloseClientConnections()
					a.Close()
					if producerDies {
						jsA.Conn().Close()
					}
					close(release)
				}
			}
			if producerDies {
				if len(got) != 10 || !errors.Is(last, context.DeadlineExceeded) {
					t.Fatalf("producer gone: %d events, %v; want the 10 it logged, then a wait ended by the context", len(got), last)
				}
				return
			}
			if last != nil || len(got) != len(evs) {
				t.Fatalf("%d events, %v; want %d", len(got), last, len(evs))
			}
			for i, ev := range evs {
				if want, _ := (codec.Codec{}).Append(nil, ev); !bytes.Equal(got[i], want) {
					t.Fatalf("event %d differs", i)
				}
			}
		})
	}
}
