package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// cutListener cuts the first connection it accepts after limit bytes
// written (limit 0: no cut), and can record what the server writes on it.
type cutListener struct {
	net.Listener
	limit   atomic.Int64
	capture atomic.Pointer[bytes.Buffer]
}

func (l *cutListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &cutConn{Conn: c, left: l.limit.Swap(0), capture: l.capture.Swap(nil)}, nil
}

type cutConn struct {
	net.Conn
	mu      sync.Mutex
	left    int64 // 0: no cut
	capture *bytes.Buffer
}

func (c *cutConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.capture != nil {
		c.capture.Write(p)
	}
	if c.left == 0 {
		return c.Conn.Write(p)
	}
	if int64(len(p)) < c.left {
		c.left -= int64(len(p))
		return c.Conn.Write(p)
	}
	n, _ := c.Conn.Write(p[:c.left])
	c.Conn.Close()
	return n, errors.New("cut by the test")
}

// resumeServer serves fn with a memory log, and the follower route at
// /runs/{run}, over a cutListener.
type resumeServer struct {
	*httptest.Server
	ln  *cutListener
	log *runlog.Memory
}

func newResumeServer(t *testing.T, opts transport.HandlerOptions, fn transport.RunFunc) *resumeServer {
	t.Helper()
	log := runlog.NewMemory(runlog.MemoryOptions{})
	t.Cleanup(func() { log.Close() })
	if opts.Log == nil {
		opts.Log = log
	}
	if opts.ErrorLog == nil {
		opts.ErrorLog = quietLog
	}
	follow, err := transport.NewFollowHandler(opts.Log, transport.FollowOptions{Heartbeat: opts.Heartbeat, ErrorLog: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /", mustHandler(opts, fn))
	mux.Handle("GET /runs/{run}", follow)
	srv := httptest.NewUnstartedServer(mux)
	ln := &cutListener{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return &resumeServer{Server: srv, ln: ln, log: log}
}

// freshClient opens a new connection for every request, so that a cut
// connection is never reused.
func freshClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
}

func wireOf(t testing.TB, evs []event.Event) [][]byte {
	t.Helper()
	out := make([][]byte, len(evs))
	for i, ev := range evs {
		b, err := codec.Codec{}.Append(nil, ev)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		out[i] = b
	}
	return out
}

func inputFor(run string) *event.RunAgentInput {
	in := testInput()
	in.RunID = run
	return in
}

var fastReconnect = &transport.ReconnectOptions{MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}

// A stream cut anywhere — between events, inside a frame or an SSE block,
// inside the response header's chunk framing — is resumed: the client's
// iteration ends with exactly the run's events, in order, byte for byte
// the events of an uncut run.
func TestResumeCutAnywhere(t *testing.T) {
	evs := realisticRun()
	want := wireOf(t, evs)
	for _, carrier := range []string{"binary", "sse", "binary+zstd", "sse+gzip"} {
		t.Run(carrier, func(t *testing.T) {
			var codings []string
			if _, coding, ok := strings.Cut(carrier, "+"); ok {
				codings = []string{coding}
			}
			s := newResumeServer(t, transport.HandlerOptions{Detach: true, Compression: codings}, replay(evs))
			opts := transport.ClientOptions{Prefer: prefer(strings.HasPrefix(carrier, "sse")), Compression: compressIf(codings != nil), Reconnect: fastReconnect}
			run := func(name string, cut int64) ([][]byte, error) {
				s.ln.limit.Store(cut)
				r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor(name), opts)
				if err != nil {
					return nil, err
				}
				defer r.Close()
				var got [][]byte
				for ev, err := range r.Events() {
					if err != nil {
						return got, err
					}
					got = append(got, wireOf(t, []event.Event{ev})[0])
				}
				return got, nil
			}
			// The uncut run, recorded as written on the connection.
			var raw bytes.Buffer
			s.ln.capture.Store(&raw)
			got, err := run("cut-00000", 0) // as long as the cut runs' ids
			if err != nil || len(got) != len(want) {
				t.Fatalf("uncut run: %d events, %v", len(got), err)
			}
			head := int64(bytes.Index(raw.Bytes(), []byte("\r\n\r\n")) + 4)
			total := int64(raw.Len())
			if head < 4 || total <= head {
				t.Fatalf("recorded %d bytes, header end at %d", total, head)
			}
			cuts := 0
			for cut := head + 1; cut < total; cut += 1 + (total-head)/80 {
				cuts++
				got, err := run(fmt.Sprintf("cut-%05d", cut), cut)
				if err != nil {
					t.Fatalf("cut after %d of %d bytes: after %d events: %v", cut, total, len(got), err)
				}
				if len(got) != len(want) {
					t.Fatalf("cut after %d of %d bytes: %d events, want %d", cut, total, len(got), len(want))
				}
				for i := range want {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("cut after %d bytes: event %d differs", cut, i)
					}
				}
			}
			t.Logf("%s: %d cuts over a %d-byte response (header %d)", carrier, cuts, total, head)
		})
	}
}

// incOf returns the incarnation of run in log, read from its first entry.
func incOf(t *testing.T, log runlog.Log, run string) string {
	t.Helper()
	rd, err := log.Read(context.Background(), runlog.Cursor{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	e, err := rd.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return e.Inc
}

// The cursor of every event: on SSE its id line; the response names where
// the stream starts.
func TestResumeWire(t *testing.T) {
	s := newResumeServer(t, transport.HandlerOptions{}, replay(realisticRun()[:3]))
	resp := post(t, noCompressionClient(), s.URL, `{"threadId":"t","runId":"r/1","messages":[]}`, map[string]string{"Accept": transport.MediaTypeSSE})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The cursors name the run's incarnation: RUN/INC/N.
	head, err := runlog.ParseCursor(resp.Header.Get(transport.HeaderCursor))
	if err != nil || head.Run != "r/1" || head.Seq != 0 || head.Inc == "" || head.Inc != incOf(t, s.log, "r/1") {
		t.Errorf("%s: %q (%v), want r%%2F1/<the run's incarnation>/0", transport.HeaderCursor, resp.Header.Get(transport.HeaderCursor), err)
	}
	for i := 1; i <= 3; i++ {
		if !bytes.Contains(body, fmt.Appendf(nil, "id: r%%2F1/%s/%d\ndata: {", head.Inc, i)) {
			t.Errorf("no id line for event %d in\n%s", i, body)
		}
	}
	// Resuming after event 2 on binary: one frame, and the header says so.
	resp = post(t, noCompressionClient(), s.URL, `{"threadId":"t","runId":"r/1","messages":[]}`,
		map[string]string{"Accept": transport.MediaTypeBinary, "Last-Event-ID": "r%2F1/" + head.Inc + "/2"})
	defer resp.Body.Close()
	if got, want := resp.Header.Get(transport.HeaderCursor), "r%2F1/"+head.Inc+"/2"; got != want {
		t.Errorf("%s: %q, want %s", transport.HeaderCursor, got, want)
	}
	fr := framing.NewReader(resp.Body, framing.ReaderOptions{})
	var types []event.Type
	for ev, err := range fr.Events() {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type())
	}
	if len(types) != 1 || types[0] != realisticRun()[2].Type() {
		t.Errorf("resumed after 2: %v", types)
	}
}

func TestResumeRequestErrors(t *testing.T) {
	s := newResumeServer(t, transport.HandlerOptions{}, replay(realisticRun()))
	client := noCompressionClient()
	r, err := startRun(testCtx(t), client, s.URL, inputFor("run-1"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	r.Close()
	body := `{"threadId":"t","runId":"run-1","messages":[]}`
	for _, c := range []struct {
		name, lastEventID string
		body              string
		status            int
		says              string
	}{
		{"malformed", "garbage", body, 400, "Last-Event-ID: runlog: bad cursor"},
		{"foreign", "other-run/3", body, 400, `cursor of run "other-run", not of this request's run "run-1"`},
		{"past the end", "run-1/99", body, 400, "past its last event"},
		{"two headers", "", body, 400, "2 Last-Event-ID headers"},
		{"unknown run", "nope/0", `{"threadId":"t","runId":"nope","messages":[]}`, 404, "unknown run"},
		{"started twice", "", body, 409, "run exists"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, s.URL, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			switch c.name {
			case "two headers":
				req.Header.Add("Last-Event-ID", "run-1/1")
				req.Header.Add("Last-Event-ID", "run-1/2")
			case "started twice":
			default:
				req.Header.Set("Last-Event-ID", c.lastEventID)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.says) {
				t.Errorf("%d %q; want %d naming %q", resp.StatusCode, b, c.status, c.says)
			}
		})
	}
}

// A cursor beyond retention: 410 to a request, and a typed error to a
// reader that was resuming.
func TestResumeBeyondRetention(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{MaxBytes: 8 << 10, MaxAge: -1})
	s := newResumeServer(t, transport.HandlerOptions{Log: log, Detach: true}, replay(realisticRun()))
	// Cut the first connection early; before the reader's reconnection
	// arrives, other runs push this one out of the log.
	s.ln.limit.Store(400) // inside the body, past the response header
	doer := &hookDoer{client: freshClient(), before: func(n int) {
		if n != 2 {
			return
		}
		for i := range 40 {
			w, _ := log.Start(context.Background(), fmt.Sprint("filler-", i))
			w.Append(context.Background(), make([]byte, 512))
			w.End(context.Background())
		}
	}}
	r, err := startRun(testCtx(t), doer, s.URL, inputFor("evicted"), transport.ClientOptions{Reconnect: fastReconnect})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var last error
	for _, err := range r.Events() {
		if err != nil {
			last = err
		}
	}
	if !errors.Is(last, transport.ErrRunGone) || !errors.Is(last, runlog.ErrEvicted) {
		t.Fatalf("reader's error: %v; want ErrRunGone and runlog.ErrEvicted", last)
	}
	var se *transport.StatusError
	if !errors.As(last, &se) || se.StatusCode != http.StatusGone {
		t.Fatalf("reader's error carries %v, want a 410 StatusError", se)
	}
}

// hookDoer calls before(n) ahead of its n-th request (from 1).
type hookDoer struct {
	client *http.Client
	n      atomic.Int64
	before func(n int)
}

func (d *hookDoer) Do(req *http.Request) (*http.Response, error) {
	d.before(int(d.n.Add(1)))
	return d.client.Do(req)
}

// A run that ends without RUN_FINISHED ends its readers cleanly: the
// response's Agwire-End trailer tells them not to resume it.
func TestResumeEndWithoutTerminal(t *testing.T) {
	for _, carrier := range []string{"binary", "sse", "binary+zstd"} {
		t.Run(carrier, func(t *testing.T) {
			var codings []string
			if _, coding, ok := strings.Cut(carrier, "+"); ok {
				codings = []string{coding}
			}
			s := newResumeServer(t, transport.HandlerOptions{Compression: codings}, replay(realisticRun()[:3]))
			var requests atomic.Int64
			doer := &hookDoer{client: freshClient(), before: func(n int) { requests.Store(int64(n)) }}
			r, err := startRun(testCtx(t), doer, s.URL, inputFor("no-end"), transport.ClientOptions{
				Prefer: prefer(strings.HasPrefix(carrier, "sse")), Compression: compressIf(codings != nil), Reconnect: fastReconnect})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if evs := readAll(t, r); len(evs) != 3 {
				t.Fatalf("%d events, want 3", len(evs))
			}
			if n := requests.Load(); n != 1 {
				t.Fatalf("%d requests for a run that ended; want 1", n)
			}
		})
	}
}

// A reader gives up after MaxAttempts failed reconnections, with a typed
// error.
func TestReconnectGivesUp(t *testing.T) {
	s := newResumeServer(t, transport.HandlerOptions{Detach: true}, replay(realisticRun()))
	s.ln.limit.Store(400) // inside the body, past the response header
	var requests atomic.Int64
	doer := &hookDoer{client: freshClient(), before: func(n int) { requests.Store(int64(n)) }}
	r, err := startRun(testCtx(t), doer, s.URL, inputFor("gives-up"), transport.ClientOptions{
		Reconnect: &transport.ReconnectOptions{MaxAttempts: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s.Close() // every reconnection fails
	var last error
	for _, err := range r.Events() {
		if err != nil {
			last = err
		}
	}
	if !errors.Is(last, transport.ErrReconnectFailed) {
		t.Fatalf("reader's error: %v; want ErrReconnectFailed", last)
	}
	if n := requests.Load(); n != 4 {
		t.Fatalf("%d requests, want the first and 3 attempts", n)
	}
}

// SSE gets a comment after each silence; binary gets nothing but events.
func TestHeartbeat(t *testing.T) {
	for _, carrier := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
		t.Run(carrier, func(t *testing.T) {
			release := make(chan struct{})
			fn := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
				w.WriteEvent(&event.RunStarted{ThreadID: "t", RunID: in.RunID})
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
				return w.WriteEvent(&event.RunFinished{ThreadID: "t", RunID: in.RunID})
			}
			s := newResumeServer(t, transport.HandlerOptions{Heartbeat: time.Millisecond}, fn)
			resp := post(t, noCompressionClient(), s.URL, `{"threadId":"t","runId":"hb","messages":[]}`, map[string]string{"Accept": carrier})
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			if carrier == transport.MediaTypeSSE {
				var text strings.Builder
				beats := 0
				for beats < 3 {
					line, err := br.ReadString('\n')
					if err != nil {
						t.Fatalf("%v after\n%s", err, text.String())
					}
					text.WriteString(line)
					if line == ": keep-alive\n" {
						beats++
					}
				}
				close(release)
				rest, _ := io.ReadAll(br)
				text.Write(rest)
				evs := readAll(t, mustReader(t, text.String()))
				if len(evs) != 2 {
					t.Fatalf("%d events through the heartbeats:\n%s", len(evs), text.String())
				}
				return
			}
			fr := framing.NewReader(br, framing.ReaderOptions{})
			if _, err := fr.ReadEvent(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond) // 50 heartbeat intervals of silence
			close(release)
			n := 1
			for _, err := range fr.Events() {
				if err != nil {
					t.Fatalf("binary stream after a silence: %v", err)
				}
				n++
			}
			if n != 2 {
				t.Fatalf("%d frames, want 2", n)
			}
		})
	}
}

// mustReader reads SSE text as an EventReader.
func mustReader(t *testing.T, text string) *transport.EventReader {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {transport.MediaTypeSSE}}, Body: io.NopCloser(strings.NewReader(text))}
	r, err := transport.NewEventReader(resp, transport.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Without Detach a run ends when its client goes; with Detach it goes on,
// until its deadline.
func TestDetach(t *testing.T) {
	gate := func(release <-chan struct{}, sawCancel *atomic.Bool) transport.RunFunc {
		return func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			w.WriteEvent(&event.RunStarted{ThreadID: "t", RunID: in.RunID})
			select {
			case <-release:
			case <-ctx.Done():
				sawCancel.Store(true)
				return context.Cause(ctx)
			}
			return w.WriteEvent(&event.RunFinished{ThreadID: "t", RunID: in.RunID})
		}
	}
	types := func(t *testing.T, s *resumeServer, run string) []event.Type {
		r, err := followRun(testCtx(t), nil, s.URL+"/runs/"+run, runlog.Cursor{}, transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []event.Type
		for _, ev := range readAll(t, r) {
			out = append(out, ev.Type())
		}
		return out
	}
	leave := func(t *testing.T, s *resumeServer, run string) {
		r, err := startRun(testCtx(t), freshClient(), s.URL, inputFor(run), transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	t.Run("attached", func(t *testing.T) {
		var cancelled atomic.Bool
		s := newResumeServer(t, transport.HandlerOptions{ReconnectGrace: -1}, gate(nil, &cancelled))
		leave(t, s, "a")
		got := types(t, s, "a") // waits for the run's end
		if !cancelled.Load() || len(got) != 2 || got[1] != event.TypeRunError {
			t.Fatalf("run after its client left: %v (cancelled %v), want RUN_STARTED, RUN_ERROR", got, cancelled.Load())
		}
	})
	t.Run("grace passed", func(t *testing.T) {
		var cancelled atomic.Bool
		s := newResumeServer(t, transport.HandlerOptions{ReconnectGrace: 20 * time.Millisecond}, gate(nil, &cancelled))
		leave(t, s, "g")
		time.Sleep(200 * time.Millisecond)
		got := types(t, s, "g")
		if !cancelled.Load() || len(got) != 2 || got[1] != event.TypeRunError {
			t.Fatalf("run after the grace: %v (cancelled %v), want RUN_STARTED, RUN_ERROR", got, cancelled.Load())
		}
	})
	t.Run("detached", func(t *testing.T) {
		var cancelled atomic.Bool
		release := make(chan struct{})
		s := newResumeServer(t, transport.HandlerOptions{Detach: true}, gate(release, &cancelled))
		leave(t, s, "d")
		close(release)
		got := types(t, s, "d")
		if cancelled.Load() || len(got) != 2 || got[1] != event.TypeRunFinished {
			t.Fatalf("detached run: %v (cancelled %v), want RUN_STARTED, RUN_FINISHED", got, cancelled.Load())
		}
	})
	t.Run("deadline", func(t *testing.T) {
		var cancelled atomic.Bool
		s := newResumeServer(t, transport.HandlerOptions{Detach: true, RunDeadline: 10 * time.Millisecond}, gate(nil, &cancelled))
		leave(t, s, "dl")
		got := types(t, s, "dl")
		if !cancelled.Load() || len(got) != 2 || got[1] != event.TypeRunError {
			t.Fatalf("run past its deadline: %v, want RUN_STARTED, RUN_ERROR", got)
		}
	})
}

// Followers on the route join a live run at random cursors; each gets
// exactly the events after its cursor, then the end.
func TestFollowers(t *testing.T) {
	evs := realisticRun()
	want := wireOf(t, evs)
	step, ack, started := make(chan struct{}), make(chan struct{}), make(chan struct{})
	fn := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		close(started)
		for _, ev := range evs {
			<-step
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
			ack <- struct{}{}
		}
		return nil
	}
	s := newResumeServer(t, transport.HandlerOptions{Detach: true}, fn)
	go func() {
		r, err := startRun(testCtx(t), nil, s.URL, inputFor("live"), transport.ClientOptions{})
		if err == nil {
			r.Close() // the starting client leaves at once; the run is detached
		}
	}()
	wait(t, started, "the run to start")
	rng := rand.New(rand.NewPCG(7, 8))
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i <= len(evs); i++ {
		if i > 0 {
			step <- struct{}{}
			<-ack
		}
		for range rng.IntN(6) {
			from := rng.IntN(i + 1)
			sse := rng.IntN(2) == 0
			wg.Go(func() {
				r, err := followRun(testCtx(t), nil, s.URL+"/runs/live", runlog.Cursor{Run: "live", Seq: uint64(from)}, transport.ClientOptions{Prefer: prefer(sse)})
				if err != nil {
					errs <- err
					return
				}
				defer r.Close()
				k := from
				for ev, err := range r.Events() {
					if err != nil {
						errs <- fmt.Errorf("follower from %d: %w", from, err)
						return
					}
					if k >= len(want) || !bytes.Equal(wireOf(t, []event.Event{ev})[0], want[k]) {
						errs <- fmt.Errorf("follower from %d: event %d wrong", from, k+1)
						return
					}
					k++
				}
				if k != len(want) {
					errs <- fmt.Errorf("follower from %d: ended after event %d of %d", from, k, len(want))
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Load, bounded: 1,000 concurrent resumable runs on the in-memory log (100
// under the race detector), each read to its end by its client.
func TestManyResumableRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 runs")
	}
	runs := 1000
	if raceEnabled {
		runs = 100
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	evs := realisticRun()
	s := newResumeServer(t, transport.HandlerOptions{}, replay(evs))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: runs, DisableCompression: true}}
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for i := range runs {
		wg.Go(func() {
			r, err := startRun(ctx, client, s.URL, inputFor(fmt.Sprint("many-", i)), transport.ClientOptions{Prefer: prefer(i%2 == 0), Reconnect: fastReconnect})
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			n := 0
			for _, err := range r.Events() {
				if err != nil {
					errs <- err
					return
				}
				n++
			}
			if n != len(evs) {
				errs <- fmt.Errorf("run %d: %d events", i, n)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := s.log.Stats(); st.Runs != runs || st.Events != runs*len(evs) {
		t.Errorf("the log holds %+v", st)
	}
}
