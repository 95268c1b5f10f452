package transport_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
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

// echoRun is an agent that copies its input into RUN_STARTED, as the
// protocol has it, then ends the run. called counts its calls.
func echoRun(called *atomic.Int32) transport.RunFunc {
	return func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		called.Add(1)
		if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err != nil {
			return err
		}
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}
}

// guardServer is a handler (plain, or with a memory log and the follower
// route at /runs/{run}) served over loopback HTTP.
func guardServer(t *testing.T, resumable bool, opts transport.HandlerOptions, fn transport.RunFunc) (*httptest.Server, *runlog.Memory) {
	t.Helper()
	if opts.ErrorLog == nil {
		opts.ErrorLog = quietLog
	}
	mux := http.NewServeMux()
	var log *runlog.Memory
	if resumable {
		if opts.Log == nil {
			log = runlog.NewMemory(runlog.MemoryOptions{})
			t.Cleanup(func() { log.Close() })
			opts.Log = log
		}
		follow, err := transport.NewFollowHandler(opts.Log, transport.FollowOptions{ErrorLog: quietLog, Authorize: opts.Authorize})
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("GET /runs/{run}", follow)
	}
	mux.Handle("POST /", mustHandler(opts, fn))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, log
}

func carriers() map[string]string {
	return map[string]string{"sse": transport.MediaTypeSSE, "binary": transport.MediaTypeBinary}
}

// A RunAgentInput whose RUN_STARTED echo every agwire reader would refuse
// (60,000 empty tools: 1.7 MB of JSON, decoding past the codec's memory
// budget) is refused at the start, 422 with the reason, on both carriers,
// plain and resumable, and the run function is never called. (It was
// answered 200 and then streamed nothing a reader could read.)
func TestUnservableInputRefusedAtStart(t *testing.T) {
	body := `{"threadId":"t","runId":"big","messages":[],"tools":[` + strings.Repeat(`{"name":"","description":""},`, 59999) + `{"name":"","description":""}]}`
	for _, resumable := range []bool{false, true} {
		for name, accept := range carriers() {
			t.Run(fmt.Sprintf("%s/resumable=%v", name, resumable), func(t *testing.T) {
				var called atomic.Int32
				srv, _ := guardServer(t, resumable, transport.HandlerOptions{}, echoRun(&called))
				resp := post(t, noCompressionClient(), srv.URL, body, map[string]string{"Accept": accept})
				text, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnprocessableEntity || !bytes.Contains(text, []byte("memory budget")) || !bytes.Contains(text, []byte("RUN_STARTED")) {
					t.Fatalf("%d %q; want 422 naming RUN_STARTED and the memory budget", resp.StatusCode, text)
				}
				if n := called.Load(); n != 0 {
					t.Errorf("the run function ran %d times", n)
				}
				if resumable { // no run was started: a follower finds none
					resp := get(t, srv.URL+"/runs/big", map[string]string{"Accept": accept})
					if code, body := status(t, resp); code != http.StatusNotFound {
						t.Errorf("follow of the refused run: %d %q; want 404", code, body)
					}
				}
			})
		}
	}
}

// An event written later in a run that readers would refuse (a RUN_FINISHED
// of 20,983 interrupts) is refused by WriteEvent with an *EventError
// wrapping codec.ErrBudget, on both carriers, plain and resumable: the run
// learns it, and its RUN_ERROR reaches the client, instead of a stream that
// ends silently or a frame no reader decodes.
func TestUnservableEventIsWriteError(t *testing.T) {
	dense := &event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "interrupt", Interrupts: make([]event.Interrupt, 20983)}}
	for _, resumable := range []bool{false, true} {
		for name := range carriers() {
			t.Run(fmt.Sprintf("%s/resumable=%v", name, resumable), func(t *testing.T) {
				werr := make(chan error, 1)
				srv, _ := guardServer(t, resumable, transport.HandlerOptions{}, func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
					if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}); err != nil {
						return err
					}
					err := w.WriteEvent(dense)
					werr <- err
					return err
				})
				r, err := startRun(testCtx(t), noCompressionClient(), srv.URL, inputFor("dense-"+name), transport.ClientOptions{Prefer: prefer(name == "sse")})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				evs := readAll(t, r)
				err = wait(t, werr, "the run's write")
				var ee *transport.EventError
				if !errors.As(err, &ee) || !errors.Is(err, codec.ErrBudget) {
					t.Fatalf("WriteEvent: %v; want an *EventError wrapping codec.ErrBudget", err)
				}
				if len(evs) != 2 || evs[0].Type() != event.TypeRunStarted || evs[1].Type() != event.TypeRunError ||
					!strings.Contains(evs[1].(*event.RunError).Message, "memory budget") {
					t.Fatalf("the client read %s; want RUN_STARTED, then RUN_ERROR naming the memory budget", describe(evs))
				}
			})
		}
	}
}

// bearer is the principal of a request: its Authorization bearer token.
func bearer(r *http.Request) string {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return tok
}

// ownerAuth binds each run to the principal that started it.
type ownerAuth struct {
	mu     sync.Mutex
	owners map[string]string
}

func (a *ownerAuth) authorize(r *http.Request, run string, access transport.Access) error {
	who := bearer(r)
	if who == "" {
		return errors.New("no bearer token")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	owner, ok := a.owners[run]
	switch {
	case access == transport.AccessStart && !ok:
		a.owners[run] = who
		return nil
	case owner != who:
		return fmt.Errorf("run %q is not %s's", run, who)
	}
	return nil
}

// status returns a response's status and body, and closes it.
func status(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

func get(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noCompressionClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// With Authorize binding runs to their principal, a stranger who knows a
// run's id and a cursor gets, on resume and on follow, exactly what a run
// that does not exist gets (404, same body), on both carriers; starting a
// run of an existing id gets the 403 of any refused start, never the 409
// that would tell the id exists; the owner resumes and follows. Without
// Authorize (the old behaviour) the stranger read the whole run, the input
// copied into RUN_STARTED included.
func TestAuthorizeRuns(t *testing.T) {
	for name, accept := range carriers() {
		t.Run(name, func(t *testing.T) {
			auth := &ownerAuth{owners: map[string]string{}}
			var called atomic.Int32
			srv, log := guardServer(t, true, transport.HandlerOptions{Authorize: auth.authorize, Detach: true}, echoRun(&called))
			in := `{"threadId":"t","runId":"secret","messages":[{"id":"m","role":"user","content":"my password is hunter2"}]}`
			as := func(who string, h map[string]string) map[string]string {
				out := map[string]string{"Accept": accept}
				if who != "" {
					out["Authorization"] = "Bearer " + who
				}
				for k, v := range h {
					out[k] = v
				}
				return out
			}
			// Alice starts the run.
			code, body := status(t, post(t, noCompressionClient(), srv.URL, in, as("alice", nil)))
			if code != http.StatusOK || !strings.Contains(body, "hunter2") && name == "sse" {
				t.Fatalf("alice's start: %d %q", code, body)
			}
			cursor := runlog.Cursor{Run: "secret", Inc: incOf(t, log, "secret"), Seq: 1}.String()
			unknownCursor := runlog.Cursor{Run: "nosuch", Seq: 1}.String()
			resumeOf := func(run, cur, who string) (int, string) {
				return status(t, post(t, noCompressionClient(), srv.URL, `{"threadId":"x","runId":"`+run+`","messages":[]}`, as(who, map[string]string{"Last-Event-ID": cur})))
			}
			followOf := func(run, who string) (int, string) {
				return status(t, get(t, srv.URL+"/runs/"+run, as(who, nil)))
			}
			// The unknown run's answers, with the run id swapped.
			uCode, uBody := resumeOf("nosuch", unknownCursor, "mallory")
			fuCode, fuBody := followOf("nosuch", "mallory")
			if uCode != http.StatusNotFound || fuCode != http.StatusNotFound {
				t.Fatalf("unknown run: resume %d, follow %d; want 404", uCode, fuCode)
			}
			for _, who := range []string{"mallory", ""} {
				code, body := resumeOf("secret", cursor, who)
				if code != uCode || body != strings.ReplaceAll(uBody, "nosuch", "secret") {
					t.Errorf("resume by %q: %d %q; want what an unknown run gets: %d %q", who, code, body, uCode, uBody)
				}
				code, body = followOf("secret", who)
				if code != fuCode || body != strings.ReplaceAll(fuBody, "nosuch", "secret") {
					t.Errorf("follow by %q: %d %q; want what an unknown run gets: %d %q", who, code, body, fuCode, fuBody)
				}
			}
			// A start of the existing id by a stranger: the refusal of a
			// start by nobody, not 409.
			sCode, sBody := status(t, post(t, noCompressionClient(), srv.URL, in, as("mallory", nil)))
			nCode, nBody := status(t, post(t, noCompressionClient(), srv.URL, in, as("", nil)))
			if sCode != http.StatusForbidden || sCode != nCode || sBody != nBody {
				t.Errorf("start of an existing id by a stranger: %d %q; a start by nobody: %d %q; want the same 403", sCode, sBody, nCode, nBody)
			}
			// The owner resumes and follows; her second start is a 409.
			if code, body := resumeOf("secret", cursor, "alice"); code != http.StatusOK || name == "sse" && !strings.Contains(body, "RUN_FINISHED") {
				t.Errorf("alice's resume: %d %q", code, body)
			}
			if code, body := followOf("secret", "alice"); code != http.StatusOK || name == "sse" && !strings.Contains(body, "hunter2") {
				t.Errorf("alice's follow: %d %q", code, body)
			}
			if code, _ := status(t, post(t, noCompressionClient(), srv.URL, in, as("alice", nil))); code != http.StatusConflict {
				t.Errorf("alice's second start: %d, want 409", code)
			}
			if n := called.Load(); n != 1 {
				t.Errorf("the run function ran %d times, want 1", n)
			}
		})
	}
}

// A plain handler asks Authorize too: a refused start is 403 and the run
// function does not run.
func TestAuthorizePlainStart(t *testing.T) {
	var called atomic.Int32
	var asked []string
	srv, _ := guardServer(t, false, transport.HandlerOptions{Authorize: func(r *http.Request, run string, a transport.Access) error {
		asked = append(asked, run+" "+a.String())
		return errors.New("no")
	}}, echoRun(&called))
	code, body := status(t, post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"r1","messages":[]}`, nil))
	if code != http.StatusForbidden || called.Load() != 0 || len(asked) != 1 || asked[0] != "r1 start" {
		t.Fatalf("%d %q, run called %d times, Authorize asked %q; want 403, no run, one start", code, body, called.Load(), asked)
	}
}

// A cursor names one incarnation of a run: once a run id is dropped and
// forgotten and a new run of the same id starts, the old run's cursor,
// on SSE (its id line) and on binary (Agwire-Cursor), reads nothing of
// the new run: 410. While the id is remembered (the default), starting
// it again is refused.
func TestCursorOfAnotherIncarnation(t *testing.T) {
	for _, tombstones := range []int{0, 1} {
		t.Run(fmt.Sprintf("MaxTombstones=%d", tombstones), func(t *testing.T) {
			now := time.Unix(1_800_000_000, 0)
			var mu sync.Mutex
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			log := runlog.NewMemory(runlog.MemoryOptions{MaxAge: time.Minute, MaxTombstones: tombstones, Now: clock})
			t.Cleanup(func() { log.Close() })
			var called atomic.Int32
			srv, _ := guardServer(t, true, transport.HandlerOptions{Log: log, Detach: true}, echoRun(&called))
			start := func(run, accept string) *http.Response {
				return post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"`+run+`","messages":[]}`, map[string]string{"Accept": accept})
			}
			// The first run, read on both carriers: its cursors.
			resp := start("again", transport.MediaTypeSSE)
			code, body := status(t, resp)
			if code != http.StatusOK {
				t.Fatalf("first run: %d %q", code, body)
			}
			_, idLine, _ := strings.Cut(body, "id: ")
			sseCursor, _, _ := strings.Cut(idLine, "\n") // of event 1
			head := resp.Header.Get(transport.HeaderCursor)
			c, err := runlog.ParseCursor(head)
			if err != nil || c.Inc == "" {
				t.Fatalf("%s %q: %v; want a cursor with the run's incarnation", transport.HeaderCursor, head, err)
			}
			if sc, err := runlog.ParseCursor(sseCursor); err != nil || sc.Inc != c.Inc || sc.Seq != 1 {
				t.Fatalf("SSE id %q (%v); want event 1 of incarnation %s", sseCursor, err, c.Inc)
			}
			// Retention drops it; more runs push its id out of the
			// remembered ones (when they are bounded).
			mu.Lock()
			now = now.Add(2 * time.Minute)
			mu.Unlock()
			for i := range 3 {
				if code, body := status(t, start(fmt.Sprintf("other-%d", i), transport.MediaTypeSSE)); code != http.StatusOK {
					t.Fatalf("other run: %d %q", code, body)
				}
				mu.Lock()
				now = now.Add(2 * time.Minute)
				mu.Unlock()
			}
			code, body = status(t, start("again", transport.MediaTypeSSE))
			if tombstones == 0 {
				if code != http.StatusConflict {
					t.Fatalf("a second start of a run id: %d %q; want 409", code, body)
				}
				return
			}
			if code != http.StatusOK {
				t.Fatalf("a start of a forgotten run id: %d %q", code, body)
			}
			// The old cursors: never the new run's events.
			for name, accept := range carriers() {
				for _, cur := range []string{sseCursor, head} {
					resp := post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"again","messages":[]}`, map[string]string{"Accept": accept, "Last-Event-ID": cur})
					code, body := status(t, resp)
					if code != http.StatusGone || strings.Contains(body, "RUN_") {
						t.Errorf("%s resume from the old incarnation's %q: %d %q; want 410", name, cur, code, body)
					}
					fresp := get(t, srv.URL+"/runs/again", map[string]string{"Accept": accept, "Last-Event-ID": cur})
					if code, body := status(t, fresp); code != http.StatusGone {
						t.Errorf("%s follow from the old incarnation's %q: %d %q; want 410", name, cur, code, body)
					}
				}
			}
		})
	}
}

// A binary client counts frames from Agwire-Cursor and keeps its
// incarnation: its reconnection cursor reads the run it started.
func TestBinaryCursorKeepsIncarnation(t *testing.T) {
	srv, log := guardServer(t, true, transport.HandlerOptions{Detach: true}, replay(realisticRun()))
	r, err := startRun(testCtx(t), noCompressionClient(), srv.URL, inputFor("inc"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readAll(t, r)
	c, ok := r.Cursor()
	if want := (runlog.Cursor{Run: "inc", Inc: incOf(t, log, "inc"), Seq: uint64(len(realisticRun()))}); !ok || c != want {
		t.Fatalf("cursor %v, want %v", c, want)
	}
}

// failingLog is a log whose writers' appends fail with ErrStoreFull after
// the first n events, as a full JetStream stream's do with DiscardNew: the
// writer aborts the run.
type failingLog struct {
	*runlog.Memory
	n int
}

func (l *failingLog) Start(ctx context.Context, run string) (runlog.Writer, error) {
	w, err := l.Memory.Start(ctx, run)
	if err != nil {
		return nil, err
	}
	return &failingWriter{Writer: w, left: l.n}, nil
}

type failingWriter struct {
	runlog.Writer
	mu   sync.Mutex
	left int
}

func (w *failingWriter) Append(ctx context.Context, wire []byte) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left == 0 {
		return 0, fmt.Errorf("%w: the test's store is full", runlog.ErrStoreFull)
	}
	w.left--
	return w.Writer.Append(ctx, wire)
}

func (w *failingWriter) Abort(ctx context.Context, cause error) error {
	return runlog.Abort(ctx, w.Writer, cause)
}

func (w *failingWriter) Incarnation() string { return runlog.IncarnationOf(w.Writer) }

// When the log refuses a run's events (a full store), its readers — the
// client that started it, a follower waiting live, a late resumer — end
// with a RUN_ERROR saying the run was aborted, and the end trailer: none
// waits for ever or resumes in a loop. (They waited until their contexts
// ended.)
func TestStoreFullEndsReaders(t *testing.T) {
	for name, accept := range carriers() {
		t.Run(name, func(t *testing.T) {
			mem := runlog.NewMemory(runlog.MemoryOptions{})
			t.Cleanup(func() { mem.Close() })
			release := make(chan struct{})
			srv, _ := guardServer(t, true, transport.HandlerOptions{Log: &failingLog{Memory: mem, n: 2}, Detach: true},
				func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
					w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
					w.WriteEvent(&event.TextMessageStart{MessageID: "m"})
					<-release
					return w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: "lost"})
				})
			ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Second)
			defer cancel()
			read := func(resp *http.Response) ([]event.Event, string) {
				defer resp.Body.Close()
				var evs []event.Event
				if name == "sse" {
					er := transport.NewSSEReader(resp.Body, 0)
					for {
						data, err := er.Next()
						if err != nil {
							break
						}
						ev, err := event.Parse([]byte(data.Data))
						if err != nil {
							t.Fatal(err)
						}
						evs = append(evs, ev)
					}
				} else {
					fr := framing.NewReader(resp.Body, framing.ReaderOptions{})
					for {
						ev, err := fr.ReadEvent()
						if err != nil {
							break
						}
						evs = append(evs, ev)
					}
				}
				return evs, resp.Trailer.Get(transport.HeaderEnd)
			}
			first := make(chan []event.Event, 1)
			firstEnd := make(chan string, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"threadId":"t","runId":"full","messages":[]}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", accept)
				resp, err := noCompressionClient().Do(req)
				if err != nil {
					first <- nil
					firstEnd <- err.Error()
					return
				}
				evs, end := read(resp)
				first <- evs
				firstEnd <- end
			}()
			follower := make(chan []event.Event, 1)
			go func() {
				for ctx.Err() == nil { // until the run exists
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/runs/full", nil)
					req.Header.Set("Accept", accept)
					resp, err := noCompressionClient().Do(req)
					if err != nil {
						break
					}
					if resp.StatusCode == http.StatusOK {
						evs, _ := read(resp)
						follower <- evs
						return
					}
					resp.Body.Close()
					time.Sleep(5 * time.Millisecond)
				}
				follower <- nil
			}()
			time.Sleep(50 * time.Millisecond)
			close(release)
			check := func(who string, evs []event.Event) {
				t.Helper()
				if len(evs) == 0 {
					t.Fatalf("%s: no events", who)
				}
				last, ok := evs[len(evs)-1].(*event.RunError)
				if !ok || last.Code == nil || *last.Code != transport.RunErrorCodeAborted || !strings.Contains(last.Message, "store is full") {
					t.Fatalf("%s read %s; want it to end with RUN_ERROR %s naming the full store", who, describe(evs), transport.RunErrorCodeAborted)
				}
				for _, ev := range evs {
					if c, ok := ev.(*event.TextMessageContent); ok && c.Delta == "lost" {
						t.Fatalf("%s read an event the log refused", who)
					}
				}
			}
			check("the starting client", wait(t, first, "the starting client"))
			if end := wait(t, firstEnd, "its trailer"); end == "" {
				t.Errorf("the starting client's response has no %s trailer", transport.HeaderEnd)
			}
			check("the follower", wait(t, follower, "the follower"))
			// A late resumer, from event 1.
			c, err := runlog.ParseCursor(runlog.Cursor{Run: "full", Seq: 1, Inc: incOf(t, mem, "full")}.String())
			if err != nil {
				t.Fatal(err)
			}
			resp := post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"full","messages":[]}`, map[string]string{"Accept": accept, "Last-Event-ID": c.String()})
			evs, end := read(resp)
			check("a late resumer", evs)
			if end == "" {
				t.Errorf("the resumer's response has no %s trailer", transport.HeaderEnd)
			}
		})
	}
}

// Past MaxRuns runs in progress a start is answered 503 with Retry-After
// before its body is read; past MaxRunBytes of their bodies too; a run
// that ends gives its place back.
func TestMaxRuns(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	srv, _ := guardServer(t, true, transport.HandlerOptions{MaxRuns: 2, MaxRunBytes: 300, Detach: true}, func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		started <- struct{}{}
		<-release
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	startRun := func(run string, pad int) *http.Response {
		body := `{"threadId":"t","runId":"` + run + `","messages":[],"state":"` + strings.Repeat("x", pad) + `"}`
		return post(t, noCompressionClient(), srv.URL, body, map[string]string{"Accept": transport.MediaTypeSSE})
	}
	a := startRun("a", 0) // ~70 bytes
	wait(t, started, "run a")
	// 70 + 250 > 300: refused for its bytes.
	resp := startRun("big", 250)
	if code, body := status(t, resp); code != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "MaxRunBytes") {
		t.Fatalf("past MaxRunBytes: %d %q (Retry-After %q)", code, body, resp.Header.Get("Retry-After"))
	}
	b := startRun("b", 0)
	wait(t, started, "run b")
	resp = startRun("c", 0)
	if code, body := status(t, resp); code != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "MaxRuns") {
		t.Fatalf("past MaxRuns: %d %q (Retry-After %q)", code, body, resp.Header.Get("Retry-After"))
	}
	// Resuming is not limited.
	resp = post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"a","messages":[]}`, map[string]string{"Accept": transport.MediaTypeSSE, "Last-Event-ID": "a/0"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a resume with MaxRuns runs in progress: %d, want 200", resp.StatusCode)
	}
	close(release)
	status(t, a)
	status(t, b)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := startRun("d", 0)
		code, body := status(t, resp)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the runs ended: %d %q", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An oversized body is answered 413, naming the limit and the option.
func TestMaxBodyBytes413(t *testing.T) {
	srv, _ := guardServer(t, false, transport.HandlerOptions{MaxBodyBytes: 100}, replay(realisticRun()))
	code, body := status(t, post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"r","messages":[],"state":"`+strings.Repeat("x", 200)+`"}`, nil))
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "100 bytes") || !strings.Contains(body, "MaxBodyBytes") {
		t.Fatalf("%d %q; want 413 naming 100 bytes and MaxBodyBytes", code, body)
	}
}

// flakyLog's writers fail every other append with ErrUnacknowledged,
// without appending: a shared log that lost the acknowledgement of a
// publish that did not land.
type flakyLog struct{ *runlog.Memory }

func (l flakyLog) Start(ctx context.Context, run string) (runlog.Writer, error) {
	w, err := l.Memory.Start(ctx, run)
	if err != nil {
		return nil, err
	}
	return &flakyWriter{Writer: w}, nil
}

type flakyWriter struct {
	runlog.Writer
	mu    sync.Mutex
	calls int
}

func (w *flakyWriter) Append(ctx context.Context, wire []byte) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls++; w.calls%2 == 1 {
		return 0, fmt.Errorf("%w: the test lost it", runlog.ErrUnacknowledged)
	}
	return w.Writer.Append(ctx, wire)
}

func (w *flakyWriter) Incarnation() string { return runlog.IncarnationOf(w.Writer) }

// An append the log could not confirm (runlog.ErrUnacknowledged) is tried
// again: the run is logged whole, each event once, and read to its end.
// (The first such error broke the run.)
func TestUnacknowledgedAppendRetried(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	t.Cleanup(func() { mem.Close() })
	evs := realisticRun()
	srv, _ := guardServer(t, true, transport.HandlerOptions{Log: flakyLog{mem}, Detach: true}, replay(evs))
	r, err := startRun(testCtx(t), noCompressionClient(), srv.URL, inputFor("flaky"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r)
	if want := wireOf(t, evs); len(got) != len(want) {
		t.Fatalf("read %s; want the run's %d events", describe(got), len(want))
	}
	for i, w := range wireOf(t, evs) {
		if !bytes.Equal(wireOf(t, got[i:i+1])[0], w) {
			t.Fatalf("event %d differs", i)
		}
	}
}

// slowUpload is a client sending a run request whose body, announced at
// size bytes, arrives one byte per interval, for ever: until stop.
type slowUpload struct {
	conn net.Conn
	done chan struct{}
	err  error // of its writes, once done
}

func startSlowUpload(t *testing.T, addr string, size int, interval time.Duration) *slowUpload {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	u := &slowUpload{conn: conn, done: make(chan struct{})}
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nAccept: %s\r\nContent-Length: %d\r\n\r\n{", transport.MediaTypeSSE, size)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(u.done)
		for range size - 2 {
			time.Sleep(interval)
			if _, err := conn.Write([]byte{' '}); err != nil {
				u.err = err
				return
			}
		}
	}()
	return u
}

// answered reports whether the server has answered the upload (or closed
// its connection), waiting a moment for a response.
func (u *slowUpload) answered() bool {
	u.conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	var b [1]byte
	_, err := u.conn.Read(b[:])
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestSlowUploadsBlockNoStart: requests whose bodies arrive a byte at a
// time, announcing a large body, hold neither a start token nor a place
// among MaxRuns nor their announced size of MaxRunBytes: a 300 KB start
// completes while all of them are still sending, more of them than there
// are start tokens (one per two CPUs) and than MaxRuns allows. (Each such
// request took a token before its body arrived and kept it until the
// server's read timeout; on two CPUs one slow upload every 30 s blocked
// every large start.)
func TestSlowUploadsBlockNoStart(t *testing.T) {
	slow := runtime.GOMAXPROCS(0) + 5 // more than there are tokens of either kind
	var called atomic.Int32
	for _, tc := range []struct {
		name string
		opts transport.HandlerOptions
	}{
		{"default limits", transport.HandlerOptions{}},
		{"MaxRuns below the slow uploads", transport.HandlerOptions{MaxRuns: 2}},
		// Room for the start and a few KiB for each slow upload: what
		// they sent, not what they announced (1 MiB each).
		{"MaxRunBytes below their announced sizes", transport.HandlerOptions{MaxRunBytes: 400 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var entered atomic.Int32
			opts := tc.opts
			opts.ErrorLog = quietLog
			h := mustHandler(opts, echoRun(&called))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				entered.Add(1)
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			var uploads []*slowUpload
			defer func() {
				for _, u := range uploads {
					u.conn.Close()
					<-u.done
				}
			}()
			for range slow {
				uploads = append(uploads, startSlowUpload(t, srv.Listener.Addr().String(), 1<<20, 100*time.Millisecond))
			}
			for deadline := time.Now().Add(20 * time.Second); entered.Load() < int32(slow); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d slow uploads reached the handler", entered.Load(), slow)
				}
			}

			// A hang guard only: the start normally takes a second or two.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			body := `{"threadId":"t","runId":"r","messages":[],"state":"` + strings.Repeat("x", 300_000) + `"}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", transport.MediaTypeBinary)
			began := time.Now()
			resp, err := noCompressionClient().Do(req)
			if err != nil {
				t.Fatalf("the 300 KB start, %d slow uploads in progress: %v (blocked behind them?)", slow, err)
			}
			er, err := transport.NewEventReader(resp, transport.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var evs []event.Event
			for ev, err := range er.Events() {
				if err != nil {
					t.Fatalf("the 300 KB start: after %d events: %v (blocked behind the slow uploads?)", len(evs), err)
				}
				evs = append(evs, ev)
			}
			resp.Body.Close()
			took := time.Since(began)
			if resp.StatusCode != http.StatusOK || len(evs) != 2 || evs[1].Type() != event.TypeRunFinished {
				t.Fatalf("the 300 KB start: %s, %d events", resp.Status, len(evs))
			}
			for i, u := range uploads {
				if u.answered() {
					t.Fatalf("slow upload %d was answered before the start completed: the start did not overtake it", i)
				}
				select {
				case <-u.done:
					t.Fatalf("slow upload %d stopped: %v", i, u.err)
				default:
				}
			}
			t.Logf("a 300 KB start took %v with %d slow uploads in progress", took.Round(time.Millisecond), slow)
		})
	}
}

// TestBodiesBeingReadCountAgainstMaxRunBytes: the bytes of a body that
// has partly arrived count against MaxRunBytes, so that bodies being read
// hold at most that much memory whatever their number: with 700 KB of one
// body held, a second of 600 KB is answered 503 naming the option (or, when
// the two are read at the same time, whichever grows past the bound
// second); once the first client goes, the second starts.
func TestBodiesBeingReadCountAgainstMaxRunBytes(t *testing.T) {
	var called atomic.Int32
	srv, _ := guardServer(t, false, transport.HandlerOptions{MaxRunBytes: 1 << 20}, echoRun(&called))
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n{%s", strings.Repeat(" ", 700_000)); err != nil {
		t.Fatal(err)
	}
	// firstRefused reports whether the server answered the first request,
	// which it may only do with a 503 naming MaxRunBytes.
	firstRefused := func() bool {
		conn.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		got, _ := io.ReadAll(io.LimitReader(conn, 4096))
		if len(got) == 0 {
			return false
		}
		if !bytes.Contains(got, []byte("503")) || !bytes.Contains(got, []byte("MaxRunBytes")) {
			t.Fatalf("the first request, its body not all sent, was answered %.300q", got)
		}
		return true
	}
	second := `{"threadId":"t","runId":"r","messages":[],"state":"` + strings.Repeat("x", 600_000) + `"}`
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp := post(t, noCompressionClient(), srv.URL, second, map[string]string{"Accept": transport.MediaTypeSSE})
		code, body := status(t, resp)
		if code == http.StatusServiceUnavailable {
			if !strings.Contains(body, "MaxRunBytes") || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("503 %q (Retry-After %q); want it to name MaxRunBytes", body, resp.Header.Get("Retry-After"))
			}
			break
		}
		if firstRefused() {
			break
		}
		if time.Now().After(deadline) { // the server has not read the first body in 20 s
			t.Fatalf("with 700 KB of a body being read, a 600 KB start: %d, want 503", code)
		}
	}
	conn.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		code, body := status(t, post(t, noCompressionClient(), srv.URL, second, map[string]string{"Accept": transport.MediaTypeSSE}))
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the first client left: %d %q", code, body)
		}
	}
}

// TestChunkedBody: a body of unknown size (chunked) is read in a buffer
// that grows with it: a small one starts under a small MaxRunBytes, a
// large one is read whole, and one past MaxBodyBytes is answered 413.
func TestChunkedBody(t *testing.T) {
	var called atomic.Int32
	for _, tc := range []struct {
		opts   transport.HandlerOptions
		pad    int
		status int
	}{
		{transport.HandlerOptions{MaxRunBytes: 300}, 0, http.StatusOK},
		{transport.HandlerOptions{MaxRunBytes: 4 << 20}, 700_000, http.StatusOK},
		{transport.HandlerOptions{MaxBodyBytes: 50_000}, 100_000, http.StatusRequestEntityTooLarge},
	} {
		srv, _ := guardServer(t, false, tc.opts, echoRun(&called))
		body := `{"threadId":"t","runId":"r","messages":[],"state":"` + strings.Repeat("x", tc.pad) + `"}`
		// A reader of no known size: the client sends it chunked.
		req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, srv.URL, io.MultiReader(strings.NewReader(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", transport.MediaTypeSSE)
		resp, err := noCompressionClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		code, got := status(t, resp)
		if code != tc.status || (code == http.StatusOK && !strings.Contains(got, "RUN_FINISHED")) {
			t.Errorf("a chunked body of %d bytes, %+v: %d %.200q", len(body), tc.opts, code, got)
		}
	}
}

// TestMaxReaders: past MaxReaders resumptions of the run handler, or
// followers of the follower route, one more is answered 503 with
// Retry-After naming the option; a refused caller still gets the 404 of a
// run that does not exist, not the 503; a reader that leaves gives its
// place back.
func TestMaxReaders(t *testing.T) {
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	authorize := func(_ *http.Request, run string, _ transport.Access) error {
		if run == "denied" {
			return errors.New("not yours")
		}
		return nil
	}
	follow, err := transport.NewFollowHandler(log, transport.FollowOptions{ErrorLog: quietLog, MaxReaders: 1, Authorize: authorize})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /runs/{run}", follow)
	mux.Handle("POST /", mustHandler(transport.HandlerOptions{Log: log, Detach: true, MaxReaders: 1, ErrorLog: quietLog, Authorize: authorize},
		func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
			<-release
			return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	sse := map[string]string{"Accept": transport.MediaTypeSSE}
	start := post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"a","messages":[]}`, sse)
	defer start.Body.Close()
	resume := func() *http.Response {
		return post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"a","messages":[]}`, map[string]string{"Accept": transport.MediaTypeSSE, "Last-Event-ID": "a/0"})
	}
	firstBytes := func(resp *http.Response) {
		t.Helper()
		var b [16]byte
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s", resp.Status)
		}
		if _, err := io.ReadFull(resp.Body, b[:]); err != nil {
			t.Fatal(err)
		}
	}
	firstBytes(start)

	for _, tc := range []struct {
		name   string
		open   func() *http.Response
		option string
	}{
		{"resumption", resume, "HandlerOptions.MaxReaders"},
		{"follower", func() *http.Response { return get(t, srv.URL+"/runs/a", sse) }, "FollowOptions.MaxReaders"},
	} {
		first := tc.open()
		firstBytes(first)
		resp := tc.open()
		code, body := status(t, resp)
		if code != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, tc.option) {
			t.Errorf("a second %s: %d %q (Retry-After %q); want 503 naming %s", tc.name, code, body, resp.Header.Get("Retry-After"), tc.option)
		}
		if tc.name == "follower" {
			if code, _ := status(t, get(t, srv.URL+"/runs/denied", sse)); code != http.StatusNotFound {
				t.Errorf("a refused follower past MaxReaders: %d, want the 404 of an unknown run", code)
			}
		} else {
			resp := post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"denied","messages":[]}`, map[string]string{"Last-Event-ID": "denied/0"})
			if code, _ := status(t, resp); code != http.StatusNotFound {
				t.Errorf("a refused resumption past MaxReaders: %d, want the 404 of an unknown run", code)
			}
		}
		first.Body.Close()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			resp := tc.open()
			if resp.StatusCode == http.StatusOK {
				resp.Body.Close()
				break
			}
			status(t, resp)
			if time.Now().After(deadline) {
				t.Fatalf("a %s after the first left: %d", tc.name, resp.StatusCode)
			}
		}
	}
}
