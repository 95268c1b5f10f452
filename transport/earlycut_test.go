package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// countedRuns counts the calls of a run function by run id.
type countedRuns struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *countedRuns) fn(evs []event.Event) transport.RunFunc {
	return func(ctx context.Context, r *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		c.mu.Lock()
		if c.calls == nil {
			c.calls = map[string]int{}
		}
		c.calls[in.RunID]++
		c.mu.Unlock()
		return replay(evs)(ctx, r, in, w)
	}
}

func (c *countedRuns) of(run string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[run]
}

// recordingDoer sends requests with client, recording the Last-Event-ID
// of each ("-" for none).
type recordingDoer struct {
	client *http.Client
	mu     sync.Mutex
	ids    []string
}

func (d *recordingDoer) Do(req *http.Request) (*http.Response, error) {
	id := req.Header.Get(transport.HeaderLastEventID)
	if id == "" {
		id = "-"
	}
	d.mu.Lock()
	d.ids = append(d.ids, id)
	d.mu.Unlock()
	return d.client.Do(req)
}

func (d *recordingDoer) sent() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.ids...)
}

// readWire reads every event of r as the codec's wire bytes.
func readWire(t *testing.T, r *transport.EventReader) ([][]byte, error) {
	var got [][]byte
	for ev, err := range r.Events() {
		if err != nil {
			return got, err
		}
		got = append(got, wireOf(t, []event.Event{ev})[0])
	}
	return got, nil
}

func sameWire(got, want [][]byte) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			return fmt.Errorf("event %d differs", i)
		}
	}
	return nil
}

// TestResumeCutInHeader: a run request whose connection is cut inside the
// response's header (after N of its bytes), or right after it, before the
// first event, or after some events, is read in full with Reconnect: the
// client, which never saw the run's cursor, resumes the run from its start
// (Last-Event-ID "RUN/0"), and the server ran the agent once. Before, Run
// returned the cut's error ("malformed MIME header line", "unexpected
// EOF") while the run went on on the server, and a retry got 409.
func TestResumeCutInHeader(t *testing.T) {
	evs := realisticRun()
	want := wireOf(t, evs)
	for _, carrier := range []string{"binary", "sse", "sse+gzip"} {
		t.Run(carrier, func(t *testing.T) {
			var codings []string
			if _, coding, ok := strings.Cut(carrier, "+"); ok {
				codings = []string{coding}
			}
			var runs countedRuns
			// Without Detach: the run waits its reconnect grace for the
			// client, as a run of a default server does.
			s := newResumeServer(t, transport.HandlerOptions{Compression: codings}, runs.fn(evs))
			opts := transport.ClientOptions{Prefer: prefer(strings.HasPrefix(carrier, "sse")), Compression: compressIf(codings != nil), Reconnect: fastReconnect}

			var raw bytes.Buffer
			s.ln.capture.Store(&raw)
			r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor("early-00000"), opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readWire(t, r)
			r.Close()
			if err != nil || sameWire(got, want) != nil {
				t.Fatalf("uncut run: %d events, %v", len(got), err)
			}
			head := int64(bytes.Index(raw.Bytes(), []byte("\r\n\r\n")) + 4)
			total := int64(raw.Len())
			if head < 4 || total <= head {
				t.Fatalf("recorded %d bytes, header end at %d", total, head)
			}
			for _, cut := range []int64{1, 9, 16, head / 2, head - 3, head - 1, head, head + (total-head)/3} {
				name := fmt.Sprintf("early-%05d", cut) // as long as the uncut run's id
				s.ln.limit.Store(cut)
				d := &recordingDoer{client: freshClient()}
				r, err := startRun(testCtx(t), d, s.URL, inputFor(name), opts)
				if err != nil {
					t.Fatalf("cut after %d of %d bytes (header %d): Run: %v", cut, total, head, err)
				}
				got, err := readWire(t, r)
				r.Close()
				if err != nil {
					t.Fatalf("cut after %d of %d bytes: after %d events: %v", cut, total, len(got), err)
				}
				if err := sameWire(got, want); err != nil {
					t.Fatalf("cut after %d of %d bytes: %v", cut, total, err)
				}
				if n := runs.of(name); n != 1 {
					t.Fatalf("cut after %d bytes: the agent ran %d times", cut, n)
				}
				ids := d.sent()
				if len(ids) < 2 || ids[0] != "-" {
					t.Fatalf("cut after %d bytes: requests with Last-Event-ID %q: the connection was not cut", cut, ids)
				}
				if cut < head && ids[1] != name+"/0" {
					t.Fatalf("cut after %d bytes, inside the header: resumed with Last-Event-ID %q, want %q", cut, ids[1], name+"/0")
				}
			}
		})
	}
}

// lostFirstDoer loses its first request: it answers it with an error
// without sending it, as a connection cut before the request reached the
// server does. hold, if set, is called instead with the lost request,
// which it may send later.
type lostFirstDoer struct {
	recordingDoer
	n    atomic.Int64
	hold func(*http.Request)
	// before is called ahead of request n (from 2); it may answer it.
	before func(n int, req *http.Request) *http.Response
}

func (d *lostFirstDoer) Do(req *http.Request) (*http.Response, error) {
	n := int(d.n.Add(1))
	if n == 1 {
		if d.hold != nil {
			d.hold(req)
		}
		return nil, io.ErrUnexpectedEOF
	}
	resp, err := d.recordingDoer.Do(req)
	if err == nil && d.before != nil {
		if alt := d.before(n, req); alt != nil {
			resp.Body.Close()
			return alt, nil
		}
	}
	return resp, err
}

// TestResumeLostStart: when the first request of a run never reached the
// server, the resumption from the run's start is answered 404 (the server
// holds no such run), and the client starts the run: the whole run, the
// agent run once.
func TestResumeLostStart(t *testing.T) {
	evs := realisticRun()
	var runs countedRuns
	s := newResumeServer(t, transport.HandlerOptions{}, runs.fn(evs))
	d := &lostFirstDoer{recordingDoer: recordingDoer{client: freshClient()}}
	r, err := startRun(testCtx(t), d, s.URL, inputFor("lost"), transport.ClientOptions{Reconnect: fastReconnect})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readWire(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameWire(got, wireOf(t, evs)); err != nil {
		t.Fatal(err)
	}
	if n := runs.of("lost"); n != 1 {
		t.Fatalf("the agent ran %d times", n)
	}
	if ids := d.sent(); strings.Join(ids, " ") != "lost/0 -" {
		t.Fatalf("requests after the lost one with Last-Event-ID %q, want a resumption from the start, then the start", ids)
	}
}

// TestResumeStartRace: the first request arrives late, after the
// resumption from the run's start was answered 404: the client's second
// start is answered 409 (the run exists now), and the client resumes the
// run the first request started. The agent ran once; the client has the
// whole run.
func TestResumeStartRace(t *testing.T) {
	evs := realisticRun()
	var runs countedRuns
	s := newResumeServer(t, transport.HandlerOptions{Detach: true}, runs.fn(evs))
	var held *http.Request
	var lateDone sync.WaitGroup
	t.Cleanup(lateDone.Wait)
	d := &lostFirstDoer{recordingDoer: recordingDoer{client: freshClient()}}
	d.hold = func(req *http.Request) { held = req.Clone(context.Background()) }
	d.before = func(n int, _ *http.Request) *http.Response {
		if n != 2 {
			return nil
		}
		// The 404 has been answered; now the first request arrives. Its
		// response is read to the end, by nobody.
		body, err := json.Marshal(inputFor("race"))
		if err != nil {
			t.Error(err)
			return nil
		}
		held.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := freshClient().Do(held)
		if err != nil {
			t.Errorf("the late first request: %v", err)
			return nil
		}
		lateDone.Go(func() {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
		return nil
	}
	r, err := startRun(testCtx(t), d, s.URL, inputFor("race"), transport.ClientOptions{Reconnect: fastReconnect})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readWire(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameWire(got, wireOf(t, evs)); err != nil {
		t.Fatal(err)
	}
	if n := runs.of("race"); n != 1 {
		t.Fatalf("the agent ran %d times", n)
	}
	if ids := d.sent(); strings.Join(ids, " ") != "race/0 - race/0" {
		t.Fatalf("requests after the lost one with Last-Event-ID %q, want: resume (404), start (409), resume", ids)
	}
}

// TestFollowCutInHeader: Follow with Reconnect resumes a follow cut
// inside its response's header, from the cursor it asked for.
func TestFollowCutInHeader(t *testing.T) {
	evs := realisticRun()
	s := newResumeServer(t, transport.HandlerOptions{}, replay(evs))
	r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor("followed"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	r.Close()
	inc := incOf(t, s.log, "followed")
	for _, from := range []runlog.Cursor{{Run: "followed"}, {Run: "followed", Inc: inc, Seq: 3}} {
		s.ln.limit.Store(20)
		d := &recordingDoer{client: freshClient()}
		f, err := followRun(testCtx(t), d, s.URL+"/runs/{run}", from, transport.ClientOptions{Reconnect: fastReconnect})
		if err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		got, err := readWire(t, f)
		f.Close()
		if err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		if err := sameWire(got, wireOf(t, evs[from.Seq:])); err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		if ids := d.sent(); len(ids) != 2 || ids[1] != from.String() {
			t.Fatalf("from %s: requests with Last-Event-ID %q", from, ids)
		}
	}
}

// TestEarlyCutPlainServer: a server that keeps no runs ignores
// Last-Event-ID, so the client's resumption of a run cut inside the
// header starts the run again there, and the client reads that run from
// its start. (Whether the first request's agent ran depends on when the
// server saw the cut: that run lost its client either way.)
func TestEarlyCutPlainServer(t *testing.T) {
	evs := realisticRun()
	srv := httptest.NewUnstartedServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog}, replay(evs)))
	ln := &cutListener{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	ln.limit.Store(30)
	d := &recordingDoer{client: freshClient()}
	r, err := startRun(testCtx(t), d, srv.URL, inputFor("plain"), transport.ClientOptions{Reconnect: fastReconnect})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readWire(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameWire(got, wireOf(t, evs)); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Cursor(); ok {
		t.Fatal("a plain server's stream is resumable")
	}
	if ids := d.sent(); strings.Join(ids, " ") != "- plain/0" {
		t.Fatalf("requests with Last-Event-ID %q", ids)
	}
}

// TestEarlyCutNotSent: a request that never left (no connection) is not
// resumed: Run fails at once with the dial error, and the run id is free.
func TestEarlyCutNotSent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	d := &recordingDoer{client: freshClient()}
	_, err = startRun(testCtx(t), d, url, inputFor("nowhere"), transport.ClientOptions{Reconnect: fastReconnect})
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || errors.Is(err, transport.ErrReconnectFailed) {
		t.Fatalf("Run: %v; want the dial error", err)
	}
	if n := len(d.sent()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// TestResumedWithoutCursor: a resumption answered without Agwire-Cursor
// is not taken for the stream after the cursor asked for.
func TestResumedWithoutCursor(t *testing.T) {
	evs := realisticRun()
	s := newResumeServer(t, transport.HandlerOptions{Detach: true}, replay(evs))
	// Resumptions reach a server that keeps no runs: it starts the run
	// again, with no cursor.
	plain := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog}, replay(evs)))
	defer plain.Close()
	s.ln.limit.Store(400) // inside the body
	client := freshClient()
	redirect := doerFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header.Get(transport.HeaderLastEventID) != "" {
			req.URL.Host = strings.TrimPrefix(plain.URL, "http://")
		}
		return client.Do(req)
	})
	r, err := startRun(testCtx(t), redirect, s.URL, inputFor("no-cursor"), transport.ClientOptions{Reconnect: fastReconnect})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readWire(t, r)
	if !errors.Is(err, transport.ErrReconnectFailed) {
		t.Fatalf("after %d events: %v; want ErrReconnectFailed", len(got), err)
	}
	if len(got) >= len(evs) {
		t.Fatalf("%d events", len(got))
	}
}
