package natslog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// Over HTTP, two replicas whose connections to NATS go through a proxy: a
// run starts on A (its client reads binary), a follower reads it on B
// (SSE); then the NATS server stops answering. Both clients get a RUN_ERROR
// (AGWIRE_RUN_ABORTED, saying the log did not answer) and the end trailer,
// within the hang guard, instead of waiting for as long as the server is
// away.
func TestStoppedServerOverHTTP(t *testing.T) {
	t.Parallel() // mostly waiting: alongside the others
	ns := startServer(t)
	px := newProxy(t, ns.Addr().String())
	logA, logB := newLog(t, viaProxy(t, px), silent), newLog(t, viaProxy(t, px), silent)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	agent := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for _, ev := range []event.Event{
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.TextMessageStart{MessageID: "m"},
			&event.TextMessageContent{MessageID: "m", Delta: "before"},
		} {
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		select { // the run thinks, silently, while the server stops
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-release:
		}
		return nil
	}
	hA, err := transport.NewHandler(agent, transport.HandlerOptions{Log: logA, ErrorLog: quiet})
	if err != nil {
		t.Fatal(err)
	}
	fB, err := transport.NewFollowHandler(logB, transport.FollowOptions{ErrorLog: quiet})
	if err != nil {
		t.Fatal(err)
	}
	muxB := http.NewServeMux()
	muxB.Handle("GET /runs/{run}", fB)
	a, b := httptest.NewServer(hA), httptest.NewServer(muxB)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	type result struct {
		evs []event.Event
		end string
		err error
	}
	read := func(name string, req *http.Request, sse bool, got chan<- int, out chan<- result) {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- result{err: err}
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			out <- result{err: fmt.Errorf("%s: status %d", name, resp.StatusCode)}
			return
		}
		var r result
		next := framing.NewReader(resp.Body, framing.ReaderOptions{}).ReadEvent
		if sse {
			er := transport.NewSSEReader(resp.Body, 0)
			next = func() (event.Event, error) {
				data, err := er.Next()
				if err != nil {
					return nil, err
				}
				return event.Parse([]byte(data.Data))
			}
		}
		for {
			ev, err := next()
			if err != nil {
				break
			}
			r.evs = append(r.evs, ev)
			got <- len(r.evs)
		}
		r.end = resp.Trailer.Get(transport.HeaderEnd)
		out <- r
	}
	results := make(chan result, 2)
	got := make(chan int, 100)
	start, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, strings.NewReader(`{"threadId":"t","runId":"run","messages":[]}`))
	start.Header.Set("Content-Type", "application/json")
	start.Header.Set("Accept", transport.MediaTypeBinary)
	go read("the starting client", start, false, got, results)
	for seen := 0; seen < 6; seen++ { // three events each
		select {
		case <-got:
		case r := <-results:
			t.Fatalf("a client ended early: %v, %v", r.evs, r.err)
		}
		if seen == 0 { // the follower joins once the run has started
			follow, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/runs/run", nil)
			follow.Header.Set("Accept", "text/event-stream")
			go read("the follower", follow, true, got, results)
		}
	}
	px.freeze()
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if len(r.evs) != 4 {
			t.Fatalf("a client read %d events: %v; want the run's three and a RUN_ERROR", len(r.evs), r.evs)
		}
		last, ok := r.evs[3].(*event.RunError)
		if !ok || last.Code == nil || *last.Code != transport.RunErrorCodeAborted || !strings.Contains(last.Message, "did not answer") {
			t.Fatalf("a client's last event: %#v; want RUN_ERROR %s saying the log did not answer", r.evs[3], transport.RunErrorCodeAborted)
		}
		if r.end == "" {
			t.Errorf("a client's response has no %s trailer", transport.HeaderEnd)
		}
	}
}
