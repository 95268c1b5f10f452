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
	"sync/atomic"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// bearerPrincipal is a Principal: the request's bearer token (a test
// stands in for a hash of it).
func bearerPrincipal(r *http.Request) (string, error) {
	if tok := bearer(r); tok != "" {
		return tok, nil
	}
	return "", errors.New("no bearer token")
}

// principalServer is a handler with log, runs bound to their principal by
// bearerPrincipal, and the follower route at /runs/{run}.
func principalServer(t *testing.T, log runlog.Log, opts transport.HandlerOptions, fn transport.RunFunc) *httptest.Server {
	t.Helper()
	opts.Log, opts.Principal, opts.ErrorLog = log, bearerPrincipal, quietLog
	follow, err := transport.NewFollowHandler(log, transport.FollowOptions{ErrorLog: quietLog, Principal: bearerPrincipal})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /runs/{run}", follow)
	mux.Handle("POST /", mustHandler(opts, fn))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// client is who sends requests to a principalServer, and how.
type client struct {
	t      *testing.T
	url    string
	accept string
}

func (c client) header(who string, h map[string]string) map[string]string {
	out := map[string]string{"Accept": c.accept}
	if who != "" {
		out["Authorization"] = "Bearer " + who
	}
	for k, v := range h {
		out[k] = v
	}
	return out
}

func (c client) start(who, body string) (int, string) {
	return status(c.t, post(c.t, noCompressionClient(), c.url, body, c.header(who, nil)))
}

func (c client) resume(who, run, cursor string) (int, string) {
	return status(c.t, post(c.t, noCompressionClient(), c.url, `{"threadId":"x","runId":"`+run+`","messages":[]}`, c.header(who, map[string]string{"Last-Event-ID": cursor})))
}

func (c client) follow(who, run string) (int, string) {
	return status(c.t, get(c.t, c.url+"/runs/"+run, c.header(who, nil)))
}

// With Principal, a run is the principal's that started it, as the log
// records it: another principal, or none, resuming or following it gets
// byte for byte what a run that does not exist gets (404), on both
// carriers; a start of its id by another principal gets what the owner's
// own second start gets (409), so an id of one's own and someone else's
// answer alike; a start without a principal is 403; the owner resumes and
// follows. A run started without an owner (Log.Start) is nobody's.
func TestPrincipalRuns(t *testing.T) {
	for name, accept := range carriers() {
		t.Run(name, func(t *testing.T) {
			log := runlog.NewMemory(runlog.MemoryOptions{})
			defer log.Close()
			var called atomic.Int32
			srv := principalServer(t, log, transport.HandlerOptions{Detach: true}, echoRun(&called))
			c := client{t: t, url: srv.URL, accept: accept}
			in := `{"threadId":"t","runId":"secret","messages":[{"id":"m","role":"user","content":"my password is hunter2"}]}`
			if code, body := c.start("alice", in); code != http.StatusOK || name == "sse" && !strings.Contains(body, "hunter2") {
				t.Fatalf("alice's start: %d %q", code, body)
			}
			cursor := runlog.Cursor{Run: "secret", Inc: incOf(t, log, "secret"), Seq: 1}.String()
			uCode, uBody := c.resume("mallory", "nosuch", runlog.Cursor{Run: "nosuch", Seq: 1}.String())
			fuCode, fuBody := c.follow("mallory", "nosuch")
			if uCode != http.StatusNotFound || fuCode != http.StatusNotFound {
				t.Fatalf("unknown run: resume %d, follow %d; want 404", uCode, fuCode)
			}
			for _, who := range []string{"mallory", ""} {
				if code, body := c.resume(who, "secret", cursor); code != uCode || body != strings.ReplaceAll(uBody, "nosuch", "secret") {
					t.Errorf("resume by %q: %d %q; want what an unknown run gets: %d %q", who, code, body, uCode, uBody)
				}
				if code, body := c.follow(who, "secret"); code != fuCode || body != strings.ReplaceAll(fuBody, "nosuch", "secret") {
					t.Errorf("follow by %q: %d %q; want what an unknown run gets: %d %q", who, code, body, fuCode, fuBody)
				}
			}
			aCode, aBody := c.start("alice", in)
			mCode, mBody := c.start("mallory", in)
			if aCode != http.StatusConflict || mCode != aCode || mBody != aBody {
				t.Errorf("a start of the taken id by mallory: %d %q; by its owner: %d %q; want the same 409", mCode, mBody, aCode, aBody)
			}
			if code, body := c.start("", strings.Replace(in, "secret", "anon", 1)); code != http.StatusForbidden {
				t.Errorf("a start without a principal: %d %q; want 403", code, body)
			}
			if code, body := c.resume("alice", "secret", cursor); code != http.StatusOK || name == "sse" && !strings.Contains(body, "RUN_FINISHED") {
				t.Errorf("alice's resume: %d %q", code, body)
			}
			if code, body := c.follow("alice", "secret"); code != http.StatusOK || name == "sse" && !strings.Contains(body, "hunter2") {
				t.Errorf("alice's follow: %d %q", code, body)
			}
			if got, err := log.Owner(context.Background(), "secret"); err != nil || got != "alice" {
				t.Errorf("the log's owner of the run: %q, %v; want alice", got, err)
			}
			// A run the log holds without an owner is nobody's.
			w, err := log.Start(context.Background(), "ownerless")
			if err != nil {
				t.Fatal(err)
			}
			w.End(context.Background())
			if code, body := c.follow("alice", "ownerless"); code != fuCode || body != strings.ReplaceAll(fuBody, "nosuch", "ownerless") {
				t.Errorf("follow of a run without an owner: %d %q; want what an unknown run gets", code, body)
			}
			if n := called.Load(); n != 1 {
				t.Errorf("the run function ran %d times, want 1", n)
			}
		})
	}
}

// A refused start claims nothing: mallory's start of an id refused 422
// (an input RUN_STARTED cannot carry), 413 (too large) or 400 (not a
// RunAgentInput) leaves the id free, and alice then starts it and reads
// it. (An owner recorded when a start was asked for, before it succeeded,
// gave the id to whoever asked first: alice then got 403.)
func TestPrincipalRefusedStartClaimsNothing(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	var called atomic.Int32
	srv := principalServer(t, log, transport.HandlerOptions{Detach: true, MaxBodyBytes: 4 << 20}, echoRun(&called))
	c := client{t: t, url: srv.URL, accept: transport.MediaTypeSSE}
	unservable := `{"threadId":"t","runId":"claimed","messages":[],"tools":[` + strings.Repeat(`{"name":"","description":""},`, 59999) + `{"name":"","description":""}]}`
	tooLarge := `{"threadId":"t","runId":"claimed","messages":[{"id":"m","role":"user","content":"` + strings.Repeat("x", 4<<20) + `"}]}`
	for _, r := range []struct {
		body string
		code int
	}{{unservable, http.StatusUnprocessableEntity}, {tooLarge, http.StatusRequestEntityTooLarge}, {`{"threadId":"t","runId":"claimed","messages":{}}`, http.StatusBadRequest}} {
		if code, body := c.start("mallory", r.body); code != r.code {
			t.Fatalf("mallory's start: %d %.200q; want %d", code, body, r.code)
		}
	}
	if got, err := log.Owner(context.Background(), "claimed"); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("the log's owner of the refused run: %q, %v; want ErrUnknownRun", got, err)
	}
	if code, body := c.start("alice", `{"threadId":"t","runId":"claimed","messages":[]}`); code != http.StatusOK || !strings.Contains(body, "RUN_FINISHED") {
		t.Fatalf("alice's start of the id: %d %q; want 200", code, body)
	}
	if code, _ := c.follow("alice", "claimed"); code != http.StatusOK {
		t.Errorf("alice's follow: %d, want 200", code)
	}
	if code, _ := c.follow("mallory", "claimed"); code != http.StatusNotFound {
		t.Errorf("mallory's follow: %d, want 404", code)
	}
}

// The owner of a run is never forgotten while the log holds the run,
// however many runs are started meanwhile: while alice's run goes on,
// mallory starts 300 runs of his own through a log whose retention holds
// about twenty, then starts alice's id (409, as alice's own second start)
// and follows it (the 404 of an unknown run); alice resumes it to its
// end. (Owners kept beside the log in a table of bounded size, the oldest
// forgotten, handed the run to the next to start its id once enough other
// runs had started: a table of 100,000 took 100,001 starts.)
func TestPrincipalOwnerOutlivesOtherStarts(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{MaxBytes: 32 << 10, MaxAge: -1})
	defer log.Close()
	release := make(chan struct{})
	var called atomic.Int32
	echo := echoRun(&called)
	srv := principalServer(t, log, transport.HandlerOptions{Detach: true}, func(ctx context.Context, r *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		if in.RunID != "victim" {
			return echo(ctx, r, in, w)
		}
		if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	c := client{t: t, url: srv.URL, accept: transport.MediaTypeSSE}
	victim := `{"threadId":"t","runId":"victim","messages":[{"id":"m","role":"user","content":"my password is hunter2"}]}`
	// Alice's start: its header comes once the log has started the run;
	// the rest streams while the run goes on (it is detached).
	resp := post(t, noCompressionClient(), srv.URL, victim, c.header("alice", nil))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's start: %d", resp.StatusCode)
	}
	cursor := runlog.Cursor{Run: "victim", Inc: incOf(t, log, "victim"), Seq: 1}.String()
	const others = 300
	for i := range others {
		if code, body := c.start("mallory", fmt.Sprintf(`{"threadId":"t","runId":"r%d","messages":[]}`, i)); code != http.StatusOK {
			t.Fatalf("mallory's start %d: %d %q", i, code, body)
		}
	}
	if s := log.Stats(); s.Tombstones < others/2 {
		t.Fatalf("retention dropped %d of mallory's %d runs; the test needs it to drop most", s.Tombstones, others)
	}
	aCode, aBody := c.start("alice", victim)
	mCode, mBody := c.start("mallory", victim)
	if aCode != http.StatusConflict || mCode != aCode || mBody != aBody {
		t.Errorf("mallory's start of the victim's id: %d %q; alice's: %d %q; want the same 409", mCode, mBody, aCode, aBody)
	}
	fuCode, fuBody := c.follow("mallory", "nosuch")
	if code, body := c.follow("mallory", "victim"); code != fuCode || body != strings.ReplaceAll(fuBody, "nosuch", "victim") {
		t.Errorf("mallory's follow of the victim's run: %d %q; want what an unknown run gets: %d %q", code, body, fuCode, fuBody)
	}
	close(release)
	// Retention dropped the run's first event, so alice resumes after it.
	if code, body := c.resume("alice", "victim", cursor); code != http.StatusOK || !strings.Contains(body, "RUN_FINISHED") {
		t.Errorf("alice's resume: %d %q; want the rest of her run", code, body)
	}
}

// Principal needs a log that records owners, on both routes: NewHandler
// and NewFollowHandler say so instead of serving runs they cannot bind.
func TestPrincipalNeedsOwners(t *testing.T) {
	run := func(context.Context, *http.Request, *event.RunAgentInput, transport.EventWriter) error { return nil }
	if _, err := transport.NewHandler(run, transport.HandlerOptions{Principal: bearerPrincipal}); err == nil || !strings.Contains(err.Error(), "HandlerOptions.Principal") {
		t.Errorf("Principal without a Log: %v; want an error naming HandlerOptions.Principal", err)
	}
	plain := struct{ runlog.Log }{runlog.NewMemory(runlog.MemoryOptions{})} // a Log that keeps no owners
	if _, err := transport.NewHandler(run, transport.HandlerOptions{Log: plain, Principal: bearerPrincipal}); err == nil || !strings.Contains(err.Error(), "runlog.Owners") {
		t.Errorf("Principal with a log without owners: %v; want an error naming runlog.Owners", err)
	}
	if _, err := transport.NewFollowHandler(plain, transport.FollowOptions{Principal: bearerPrincipal}); err == nil || !strings.Contains(err.Error(), "FollowOptions.Principal") {
		t.Errorf("FollowOptions.Principal with a log without owners: %v; want an error naming it", err)
	}
}

// A principal the log would not record (longer than runlog.MaxOwnerLen)
// is no principal: the start is refused 403, nothing starts, and the
// refusal goes to ErrorLog at debug level naming why.
func TestPrincipalTooLong(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	var logged strings.Builder
	var mu sync.Mutex
	errorLog := slog.New(slog.NewTextHandler(lockedBuilder{&mu, &logged}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var called atomic.Int32
	h, err := transport.NewHandler(echoRun(&called), transport.HandlerOptions{Log: log, ErrorLog: errorLog,
		Principal: func(*http.Request) (string, error) { return strings.Repeat("x", runlog.MaxOwnerLen+1), nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := status(t, post(t, noCompressionClient(), srv.URL, `{"threadId":"t","runId":"r","messages":[]}`, nil))
	if code != http.StatusForbidden || called.Load() != 0 {
		t.Fatalf("%d %q, run called %d times; want 403 and no run", code, body, called.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if text := logged.String(); !strings.Contains(text, transport.ErrDenied.Error()) || !strings.Contains(text, runlog.ErrBadOwner.Error()) {
		t.Errorf("ErrorLog: %q; want the refusal, naming ErrDenied and ErrBadOwner", text)
	}
}

type lockedBuilder struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (l lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
