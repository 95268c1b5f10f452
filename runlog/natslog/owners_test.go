package natslog_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
	"github.com/agwire/agwire/transport"
)

// A run's owner is in the ids bucket, so it holds across replicas: a run
// started by alice through one Log names her as its owner to a second
// Log on its own connection, and a start of its id there by mallory is
// refused without changing its owner.
func TestOwnersAcrossReplicas(t *testing.T) {
	ns := startServer(t)
	opts := natslog.Options{Stream: "OWNERS", Subject: "owners", Storage: jetstream.MemoryStorage}
	a, b := newLog(t, connect(t, ns), opts), newLog(t, connect(t, ns), opts)
	c := context.Background()
	w, err := a.StartOwned(c, "run", "alice")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 2)
	if got, err := b.Owner(c, "run"); err != nil || got != "alice" {
		t.Fatalf("the other replica's Owner = %q, %v; want alice", got, err)
	}
	if _, err := b.StartOwned(c, "run", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("mallory's start on the other replica: %v; want ErrRunExists", err)
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*natslog.Log{a, b} {
		if got, err := l.Owner(c, "run"); err != nil || got != "alice" {
			t.Fatalf("Owner after the refused start = %q, %v; want alice", got, err)
		}
	}
}

// An owner names the run of its own incarnation only. If the ids bucket
// loses a run's entry (an operator purged or recreated it) while the
// stream still holds the run, a start of its id by someone else creates a
// new entry and is then refused (the stream holds the run): its owner
// must not become the owner of the run the stream holds.
func TestOwnerOfAnotherIncarnation(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	opts := natslog.Options{Stream: "OWNERS", Subject: "owners", Storage: jetstream.MemoryStorage}
	l := newLog(t, js, opts)
	c := context.Background()
	w, err := l.StartOwned(c, "run", "alice")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 1)
	ids, err := js.KeyValue(c, natslog.IDsBucket(opts.Stream))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ids.Keys(c)
	if err != nil || len(keys) != 1 {
		t.Fatalf("the ids bucket's keys: %v, %v; want the run's one", keys, err)
	}
	if err := ids.Purge(c, keys[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Owner(c, "run"); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("Owner without the entry = %q, %v; want ErrUnknownRun", got, err)
	}
	if _, err := l.StartOwned(c, "run", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("mallory's start: %v; want ErrRunExists (the stream holds the run)", err)
	}
	if got, err := l.Owner(c, "run"); err != nil || got != "" {
		t.Fatalf("Owner after mallory's refused start = %q, %v; want none", got, err)
	}
}

// Over HTTP, two replicas on one stream: alice starts a run on A; on B,
// mallory (or a request without a principal) following or resuming it
// gets byte for byte the 404 of a run that does not exist, and his start
// of its id the very 409 alice's own second start gets there; alice
// follows it on B. (With the owners kept in one process, B knew no owner.)
func TestOwnersOverHTTPAcrossReplicas(t *testing.T) {
	ns := startServer(t)
	opts := natslog.Options{Stream: "OWNED", Subject: "owned", Storage: jetstream.MemoryStorage}
	logA, logB := newLog(t, connect(t, ns), opts), newLog(t, connect(t, ns), opts)
	principal := func(r *http.Request) (string, error) {
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && tok != "" {
			return tok, nil
		}
		return "", errors.New("no bearer token")
	}
	agent := func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err != nil {
			return err
		}
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}
	replica := func(l *natslog.Log) *httptest.Server {
		h, err := transport.NewHandler(agent, transport.HandlerOptions{Log: l, Principal: principal, Detach: true, ErrorLog: quiet})
		if err != nil {
			t.Fatal(err)
		}
		f, err := transport.NewFollowHandler(l, transport.FollowOptions{Principal: principal, ErrorLog: quiet})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("POST /", h)
		mux.Handle("GET /runs/{run}", f)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := replica(logA), replica(logB)
	do := func(srv *httptest.Server, method, path, who, body string, header map[string]string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", transport.MediaTypeSSE)
		if who != "" {
			req.Header.Set("Authorization", "Bearer "+who)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text)
	}
	in := `{"threadId":"t","runId":"secret","messages":[{"id":"m","role":"user","content":"my password is hunter2"}]}`
	if code, body := do(a, "POST", "/", "alice", in, nil); code != http.StatusOK || !strings.Contains(body, "hunter2") {
		t.Fatalf("alice's start on A: %d %q", code, body)
	}
	cursor := func(run string) map[string]string {
		return map[string]string{transport.HeaderLastEventID: runlog.Cursor{Run: run, Seq: 1}.String()}
	}
	fuCode, fuBody := do(b, "GET", "/runs/nosuch", "mallory", "", nil)
	ruCode, ruBody := do(b, "POST", "/", "mallory", strings.Replace(in, "secret", "nosuch", 1), cursor("nosuch"))
	if fuCode != http.StatusNotFound || ruCode != http.StatusNotFound {
		t.Fatalf("an unknown run on B: follow %d, resume %d; want 404", fuCode, ruCode)
	}
	for _, who := range []string{"mallory", ""} {
		if code, body := do(b, "GET", "/runs/secret", who, "", nil); code != fuCode || body != strings.ReplaceAll(fuBody, "nosuch", "secret") {
			t.Errorf("follow by %q on B: %d %q; want what an unknown run gets, %d %q", who, code, body, fuCode, fuBody)
		}
		if code, body := do(b, "POST", "/", who, in, cursor("secret")); code != ruCode || body != strings.ReplaceAll(ruBody, "nosuch", "secret") {
			t.Errorf("resume by %q on B: %d %q; want what an unknown run gets, %d %q", who, code, body, ruCode, ruBody)
		}
	}
	aCode, aBody := do(b, "POST", "/", "alice", in, nil)
	mCode, mBody := do(b, "POST", "/", "mallory", in, nil)
	if aCode != http.StatusConflict || mCode != aCode || mBody != aBody {
		t.Errorf("mallory's start of the id on B: %d %q; alice's: %d %q; want the same 409", mCode, mBody, aCode, aBody)
	}
	if code, body := do(b, "GET", "/runs/secret", "alice", "", nil); code != http.StatusOK || !strings.Contains(body, "hunter2") || !strings.Contains(body, "RUN_FINISHED") {
		t.Errorf("alice's follow on B: %d %q; want her run", code, body)
	}
	if owner, err := logB.Owner(context.Background(), "secret"); err != nil || owner != "alice" {
		t.Errorf("B's log names the owner %q, %v; want alice", owner, err)
	}
}
