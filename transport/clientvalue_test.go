package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// TestClientReused: one Client serves several runs, at once.
func TestClientReused(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{}, replay(realisticRun())))
	defer srv.Close()
	c, err := transport.NewClient(srv.URL, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			r, err := c.Run(testCtx(t), inputFor(fmt.Sprint("run-", i)))
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			n := 0
			for _, err := range r.Events() {
				if err != nil {
					t.Error(err)
					return
				}
				n++
			}
			if n != len(realisticRun()) {
				t.Errorf("run %d: %d events", i, n)
			}
		})
	}
	wg.Wait()
}

// TestNewClientOptions: options that are not valid are refused by name.
func TestNewClientOptions(t *testing.T) {
	for _, tc := range []struct {
		url  string
		opts transport.ClientOptions
		want string
	}{
		{"ftp://x/", transport.ClientOptions{}, "not an absolute http"},
		{"/relative", transport.ClientOptions{}, "not an absolute http"},
		{"http://x/", transport.ClientOptions{MaxEventSize: -1}, "ClientOptions.MaxEventSize is negative"},
		{"http://x/", transport.ClientOptions{IdleTimeout: -1}, "ClientOptions.IdleTimeout is negative"},
	} {
		if _, err := transport.NewClient(tc.url, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewClient(%q, %+v): %v, want %q", tc.url, tc.opts, err, tc.want)
		}
	}
}

// TestIdleTimeout: a response that sends its header and then nothing ends
// the read after ClientOptions.IdleTimeout with ErrIdleTimeout, on both
// carriers, instead of holding the reader until its context ends.
func TestIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{}, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}))
	defer srv.Close()
	for _, sse := range []bool{false, true} {
		c, err := transport.NewClient(srv.URL, transport.ClientOptions{Prefer: prefer(sse), IdleTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Run(testCtx(t), testInput())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := r.Next(); done <- err }()
		err = wait(t, done, "the idle timeout")
		if !errors.Is(err, transport.ErrIdleTimeout) || !strings.Contains(err.Error(), "ClientOptions.IdleTimeout") {
			t.Fatalf("sse %v: %v, want ErrIdleTimeout", sse, err)
		}
		r.Close()
	}
}

// TestIdleTimeoutResumes: a resumable stream that goes idle is resumed
// from its cursor instead: the caller reads every event once.
func TestIdleTimeoutResumes(t *testing.T) {
	evs := realisticRun()
	fn := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for i, ev := range evs {
			if i == 3 {
				time.Sleep(400 * time.Millisecond)
			}
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}
	s := newResumeServer(t, transport.HandlerOptions{Heartbeat: -1}, fn)
	c, err := transport.NewClient(s.URL, transport.ClientOptions{IdleTimeout: 100 * time.Millisecond, Reconnect: fastReconnect, HTTPClient: freshClient()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(testCtx(t), inputFor("idle"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := readAll(t, r); describe(got) != describe(evs) {
		t.Fatalf("got %s", describe(got))
	}
}

// oneEventServer delivers one event of a resumable run per connection and
// ends the response without the run's end, so every response asks for a
// reconnection; it records when each request arrived and each response
// ended.
type oneEventServer struct {
	*httptest.Server
	mu     sync.Mutex
	starts []time.Time
	ends   []time.Time
}

func newOneEventServer(t *testing.T) *oneEventServer {
	s := &oneEventServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.starts = append(s.starts, time.Now())
		s.mu.Unlock()
		seq := uint64(0)
		if v := r.Header.Get(transport.HeaderLastEventID); v != "" {
			c, err := runlog.ParseCursor(v)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			seq = c.Seq
		}
		w.Header().Set("Content-Type", transport.MediaTypeSSE)
		w.Header().Set(transport.HeaderCursor, runlog.Cursor{Run: "r", Seq: seq}.String())
		fmt.Fprintf(w, "id: r/%d\ndata: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"%d\"}\n\n", seq+1, seq+1)
		w.(http.Flusher).Flush()
		s.mu.Lock()
		s.ends = append(s.ends, time.Now())
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// TestReconnectCapAndBackoff: against a server that delivers one event
// per connection and resets, a reader stops after MaxReconnects
// reconnections with ErrReconnectLimit (each connection delivered an
// event, so the count of failures in a row never grows), and it waits at
// least half of MinBackoff before every reconnection, the first too.
func TestReconnectCapAndBackoff(t *testing.T) {
	s := newOneEventServer(t)
	const minBackoff = 40 * time.Millisecond
	c, err := transport.NewClient(s.URL, transport.ClientOptions{Prefer: transport.PreferSSEOnly,
		Reconnect: &transport.ReconnectOptions{MinBackoff: minBackoff, MaxBackoff: minBackoff, MaxReconnects: 5}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(testCtx(t), testInput())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	var last error
	for _, err := range r.Events() {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if !errors.Is(last, transport.ErrReconnectLimit) || n != 6 {
		t.Fatalf("read %d events, then %v; want 6 and ErrReconnectLimit", n, last)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.starts) != 6 {
		t.Fatalf("%d requests, want 6", len(s.starts))
	}
	for i := 1; i < len(s.starts); i++ {
		if gap := s.starts[i].Sub(s.ends[i-1]); gap < minBackoff/2 {
			t.Errorf("reconnection %d came %v after the cut, before half of MinBackoff", i, gap)
		}
	}
}

// TestReconnectCapDefault: the cap holds by default too.
func TestReconnectCapDefault(t *testing.T) {
	s := newOneEventServer(t)
	c, err := transport.NewClient(s.URL, transport.ClientOptions{Prefer: transport.PreferSSEOnly,
		Reconnect: &transport.ReconnectOptions{MinBackoff: time.Microsecond, MaxBackoff: time.Microsecond}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(testCtx(t), testInput())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	var last error
	for _, err := range r.Events() {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if !errors.Is(last, transport.ErrReconnectLimit) || n != transport.DefaultMaxReconnects+1 {
		t.Fatalf("read %d events, then %v", n, last)
	}
}

// TestCapabilities: a handler serves its capabilities to a GET of its
// route, the caller's with the transport flags set from its options;
// unknown keys survive, at every level; a false claim is refused; a
// Client reads them, and with PreferAuto asks for binary only when the
// server says it speaks it.
func TestCapabilities(t *testing.T) {
	doc := `{"identity":{"name":"weather","version":"1.2","x-team":"geo"},
		"transport":{"websocket":false,"future":1},
		"tools":{"supported":true,"items":[{"name":"get_weather","description":"Weather","parameters":{"type":"object"},"x":[1]}]},
		"output":{"structuredOutput":true,"supportedMimeTypes":["application/json"]},
		"state":{"snapshots":true,"deltas":true},
		"multiAgent":{"supported":false,"subagents":[{"name":"a","description":"d","y":true}]},
		"reasoning":{"supported":true,"streaming":true},
		"multimodal":{"input":{"image":true,"z":0},"output":{"audio":false}},
		"execution":{"maxIterations":10,"maxExecutionTime":60000},
		"humanInTheLoop":{"interrupts":true},
		"custom":{"anything":["goes"]},
		"later":{"category":true}}`
	var caps event.AgentCapabilities
	if err := json.Unmarshal([]byte(doc), &caps); err != nil {
		t.Fatal(err)
	}
	for _, log := range []bool{false, true} {
		opts := transport.HandlerOptions{Capabilities: &caps}
		if log {
			opts.Log = runlog.NewMemory(runlog.MemoryOptions{})
		}
		srv := httptest.NewServer(mustHandler(opts, replay(realisticRun())))
		c, err := transport.NewClient(srv.URL, transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Capabilities(testCtx(t))
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := caps
		tr := *caps.Transport
		yes, resumable := true, log
		tr.Streaming, tr.HTTPBinary, tr.Resumable = &yes, &yes, &resumable
		want.Transport = &tr
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Fatalf("log %v: served\n%s\nwant\n%s", log, a, b)
		}
		for _, key := range []string{`"x-team":"geo"`, `"future":1`, `"x":[1]`, `"y":true`, `"z":0`, `"later":{"category":true}`, `"resumable":` + strconv.FormatBool(log)} {
			if !strings.Contains(string(a), key) {
				t.Errorf("lost %s: %s", key, a)
			}
		}
	}
	f, tr := false, true
	for _, claim := range []*event.TransportCapabilities{{Resumable: &tr}, {HTTPBinary: &f}, {Streaming: &f}} {
		_, err := transport.NewHandler(replay(nil), transport.HandlerOptions{Capabilities: &event.AgentCapabilities{Transport: claim}})
		if err == nil || !strings.Contains(err.Error(), "HandlerOptions.Capabilities claims") {
			t.Errorf("claim %+v: %v", claim, err)
		}
	}
}

// TestPreferAuto: with PreferAuto a Client reads the capabilities once and
// asks for binary when the server says it speaks it, for SSE otherwise.
func TestPreferAuto(t *testing.T) {
	for _, binary := range []bool{true, false} {
		var mu sync.Mutex
		var accepts []string
		var gets int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				mu.Lock()
				gets++
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"transport":{"streaming":true,"httpBinary":%v}}`, binary)
				return
			}
			mu.Lock()
			accepts = append(accepts, r.Header.Get("Accept"))
			mu.Unlock()
			w.Header().Set("Content-Type", transport.MediaTypeSSE)
			fmt.Fprint(w, "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
		}))
		c, err := transport.NewClient(srv.URL, transport.ClientOptions{Prefer: transport.PreferAuto})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			r, err := c.Run(testCtx(t), testInput())
			if err != nil {
				t.Fatal(err)
			}
			readAll(t, r)
			r.Close()
		}
		srv.Close()
		want := transport.MediaTypeSSE
		if binary {
			want = transport.MediaTypeBinary + ", " + transport.MediaTypeSSE + ";q=0.5"
		}
		if gets != 1 || len(accepts) != 2 || accepts[0] != want || accepts[1] != want {
			t.Errorf("httpBinary %v: %d capability reads, Accept %q; want 1 and %q", binary, gets, accepts, want)
		}
	}
}
