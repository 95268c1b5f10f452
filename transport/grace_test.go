package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// graceRun is a run of 27 events that writes its first k and then waits
// for release (or for its context to end).
func graceRun(k int, release <-chan struct{}) (transport.RunFunc, []event.Event) {
	evs := []event.Event{&event.RunStarted{ThreadID: "thread-1", RunID: "run-1"}, &event.TextMessageStart{MessageID: "m", Role: event.Ptr("assistant")}}
	for i := range 23 {
		evs = append(evs, &event.TextMessageContent{MessageID: "m", Delta: fmt.Sprint("d", i)})
	}
	evs = append(evs, &event.TextMessageEnd{MessageID: "m"}, &event.RunFinished{ThreadID: "thread-1", RunID: "run-1"})
	return func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for i, ev := range evs {
			if i == k {
				select {
				case <-release:
				case <-ctx.Done():
					return context.Cause(ctx)
				}
			}
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}, evs
}

func describe(evs []event.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(string(ev.Type()))
		if c, ok := ev.(*event.TextMessageContent); ok {
			b.WriteString(":" + c.Delta)
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestReconnectGrace: a resumable run without Detach is cut after each k of
// its 27 events, over loopback, on both carriers. A client that comes back
// with its cursor within HandlerOptions.ReconnectGrace gets the rest of the
// run exactly once, ending with RUN_FINISHED; one that comes back after the
// grace gets the run's end, RUN_ERROR (ErrNoClient's text), and nothing
// that was logged is lost.
func TestReconnectGrace(t *testing.T) {
	// Generous: on a loaded machine the 104 runs share few cores, and a
	// timely client must not miss the grace. The cases sleep, so they run
	// at once, not t.Parallel (which runs GOMAXPROCS at a time).
	const grace = time.Second
	var wg sync.WaitGroup
	for _, carrier := range []string{"sse", "binary"} {
		for _, late := range []bool{false, true} {
			for k := 1; k < 27; k++ {
				wg.Go(func() {
					if err := graceCase(t, carrier, late, k, grace); err != nil {
						t.Errorf("%s, cut after %d, back late %v: %v", carrier, k, late, err)
					}
				})
			}
		}
	}
	wg.Wait()
}

func graceCase(t *testing.T, carrier string, late bool, k int, grace time.Duration) error {
	release := make(chan struct{})
	fn, evs := graceRun(k, release)
	s := newResumeServer(t, transport.HandlerOptions{ReconnectGrace: grace}, fn)
	opts := transport.ClientOptions{Prefer: prefer(carrier == "sse")}
	r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor("run-1"), opts)
	if err != nil {
		return err
	}
	var got []event.Event
	for len(got) < k {
		ev, err := r.Next()
		if err != nil {
			return fmt.Errorf("after %d events: %w", len(got), err)
		}
		got = append(got, ev)
	}
	cursor, _ := r.Cursor()
	r.Close() // the cut
	delay := 20 * time.Millisecond
	if late {
		delay = grace + time.Second
	}
	time.Sleep(delay)
	opts.Header = http.Header{transport.HeaderLastEventID: {cursor.String()}}
	r, err = startRun(testCtx(t), freshClient(), s.URL, inputFor("run-1"), opts)
	if err != nil {
		return err
	}
	defer r.Close()
	close(release)
	for ev, err := range r.Events() {
		if err != nil {
			return fmt.Errorf("after %d events: %w", len(got), err)
		}
		got = append(got, ev)
	}
	want := describe(evs)
	if late {
		want = describe(evs[:k]) + "RUN_ERROR "
	}
	if describe(got) != want {
		return fmt.Errorf("got  %s\nwant %s", describe(got), want)
	}
	if late {
		if msg := got[k].(*event.RunError).Message; msg != transport.ErrNoClient.Error() {
			return fmt.Errorf("RUN_ERROR %q", msg)
		}
	}
	return nil
}

// TestReconnectGraceFollower: a follower counts as a client: while one
// follows the run, the run goes on after its starter left, past the grace.
func TestReconnectGraceFollower(t *testing.T) {
	const grace = 50 * time.Millisecond
	release := make(chan struct{})
	fn, evs := graceRun(3, release)
	s := newResumeServer(t, transport.HandlerOptions{ReconnectGrace: grace}, fn)
	r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor("run-1"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	f, err := followRun(testCtx(t), freshClient(), s.URL+"/runs/run-1", runlog.Cursor{}, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 3 {
		if _, err := f.Next(); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	time.Sleep(4 * grace)
	close(release)
	rest := readAll(t, f)
	if describe(rest) != describe(evs[3:]) {
		t.Fatalf("the follower read %s\nwant %s", describe(rest), describe(evs[3:]))
	}
}

// TestResponseStats: a request carrying ResponseStats learns how many
// events its response delivered: on a plain run, on a logged run's first
// response and on a resumed one (served from the log, the run function not
// called again), and on a follower.
func TestResponseStats(t *testing.T) {
	release := make(chan struct{})
	fn, evs := graceRun(8, release)
	s := newResumeServer(t, transport.HandlerOptions{}, fn)
	var mu sync.Mutex
	var got []int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var st transport.ResponseStats
		s.Config.Handler.ServeHTTP(w, r.WithContext(transport.WithResponseStats(r.Context(), &st)))
		mu.Lock()
		got = append(got, st.Events)
		mu.Unlock()
	}))
	defer srv.Close()
	r, err := startRun(testCtx(t), freshClient(), srv.URL, inputFor("run-1"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	cursor, _ := r.Cursor()
	r.Close()
	time.Sleep(50 * time.Millisecond)
	close(release)
	r, err = startRun(testCtx(t), freshClient(), srv.URL, inputFor("run-1"), transport.ClientOptions{
		Header: http.Header{transport.HeaderLastEventID: {cursor.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readAll(t, r)); n != len(evs)-8 {
		t.Fatalf("resumed: %d events", n)
	}
	r.Close()
	f, err := followRun(testCtx(t), freshClient(), srv.URL+"/runs/run-1", runlog.Cursor{}, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, f)
	f.Close()
	// The first response ends when its server notices the cut: wait for
	// all three, in any order.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	if fmt.Sprint(got) != fmt.Sprint([]int64{8, int64(len(evs) - 8), int64(len(evs))}) {
		t.Fatalf("responses delivered %v events", got)
	}
}

// TestNoGraceSaysWhy: a resumable run with no reconnect grace (a negative
// ReconnectGrace) ends when its client leaves, and its RUN_ERROR (and its
// context's cause) says why — ErrNoClient, no grace — rather than "context
// canceled".
func TestNoGraceSaysWhy(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	fn, _ := graceRun(3, release)
	causes := make(chan error, 1)
	s := newResumeServer(t, transport.HandlerOptions{ReconnectGrace: -1}, func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		err := fn(ctx, req, in, w)
		causes <- context.Cause(ctx)
		return err
	})
	r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor("run-1"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	r.Close() // the client leaves; the run waits in its 4th event
	cause := <-causes
	if !errors.Is(cause, transport.ErrNoClient) || !errors.Is(cause, context.Canceled) || !strings.Contains(cause.Error(), "no reconnect grace") {
		t.Fatalf("the run's context ended with %v", cause)
	}
	f, err := followRun(testCtx(t), freshClient(), s.URL+"/runs/run-1", runlog.Cursor{}, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last event.Event
	for ev, err := range f.Events() {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if re, ok := last.(*event.RunError); !ok || re.Message != cause.Error() {
		t.Fatalf("the run ended with %#v, want RUN_ERROR %q", last, cause)
	}
}
