package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/runlog"
)

// authServer is agwire serve --auth bearer, with log (nil: not resumable).
func authServer(t *testing.T, log runlog.Log) *httptest.Server {
	t.Helper()
	h, err := newServeHandler(serveOptions{runLog: log, detach: log != nil, auth: "bearer", runs: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// authDo sends one request to an authServer as token ("" sends none) and
// returns its status and body.
func authDo(t *testing.T, srv *httptest.Server, method, path, token, body string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// agwire serve --resumable --auth bearer: a run is bound to the bearer
// token that started it, as the log records it. Another token, or none,
// gets the 404 of a run that does not exist when it resumes or follows
// it (over HTTP and with agwire follow); a start of the same id by another
// token gets what the owner's own second start gets (409), so that an id
// of one's own and someone else's answer alike; the owner reads it. The
// log holds the token's SHA-256, never the token. (Without --auth, anyone
// who knew the id read the run, its input too; with the owners kept in a
// table beside the log, a stranger's start got 403 where the owner's got
// 409, telling owned ids apart.)
func TestServeAuthBearer(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	srv := authServer(t, mem)
	do := func(method, path, token, body string, header map[string]string) (int, string) {
		t.Helper()
		return authDo(t, srv, method, path, token, body, header)
	}
	in := `{"threadId":"t","runId":"mine","messages":[{"id":"m","role":"user","content":"a secret"}]}`
	if code, body := do("POST", "/", "alice", in, nil); code != http.StatusOK || !strings.Contains(body, "a secret") {
		t.Fatalf("alice's run: %d %q", code, body)
	}
	if code, body := do("POST", "/", "", strings.Replace(in, "mine", "other", 1), nil); code != http.StatusForbidden {
		t.Fatalf("a start without a token: %d %q; want 403", code, body)
	}
	sum := sha256.Sum256([]byte("alice"))
	if owner, err := mem.Owner(context.Background(), "mine"); err != nil || owner != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("the log's owner of alice's run: %q, %v; want the SHA-256 of her token", owner, err)
	}
	inc := ""
	if rd, err := mem.Read(context.Background(), runlog.Cursor{Run: "mine"}); err == nil {
		e, _ := rd.Next(context.Background())
		inc = e.Inc
		rd.Close()
	}
	cur := func(run string) string { return runlog.Cursor{Run: run, Inc: inc, Seq: 1}.String() }
	uCode, uBody := do("GET", "/runs/nosuch", "mallory", "", nil)
	rCode, rBody := do("POST", "/", "mallory", strings.Replace(in, "mine", "nosuch", 1), map[string]string{"Last-Event-ID": runlog.Cursor{Run: "nosuch", Seq: 1}.String()})
	if uCode != http.StatusNotFound || rCode != http.StatusNotFound {
		t.Fatalf("an unknown run: follow %d, resume %d; want 404", uCode, rCode)
	}
	for _, who := range []string{"mallory", ""} {
		code, body := do("GET", "/runs/mine", who, "", nil)
		if code != uCode || body != strings.ReplaceAll(uBody, "nosuch", "mine") {
			t.Errorf("follow by %q: %d %q; want what an unknown run gets, %d %q", who, code, body, uCode, uBody)
		}
		code, body = do("POST", "/", who, in, map[string]string{"Last-Event-ID": cur("mine")})
		if code != rCode || body != strings.ReplaceAll(rBody, "nosuch", "mine") {
			t.Errorf("resume by %q: %d %q; want what an unknown run gets, %d %q", who, code, body, rCode, rBody)
		}
	}
	aCode, aBody := do("POST", "/", "alice", in, nil)
	sCode, sBody := do("POST", "/", "mallory", in, nil)
	if aCode != http.StatusConflict || sCode != aCode || sBody != aBody {
		t.Errorf("a stranger's start of a taken id: %d %q; the owner's: %d %q; want the same 409", sCode, sBody, aCode, aBody)
	}
	if code, body := do("GET", "/runs/mine", "alice", "", nil); code != http.StatusOK || !strings.Contains(body, "a secret") {
		t.Errorf("alice's follow: %d %q", code, body)
	}
	// agwire follow, with and without the owner's token.
	follow := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"follow"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, out, errText := follow(srv.URL, "mine", "--bearer", "alice"); code != exitOK || !strings.Contains(out, "RUN_FINISHED") {
		t.Errorf("agwire follow --bearer alice: exit %d, %q, %q", code, out, errText)
	}
	if code, _, errText := follow(srv.URL, "mine", "--bearer", "mallory", "--reconnect", "0"); code != exitFail || !strings.Contains(errText, "404") {
		t.Errorf("agwire follow --bearer mallory: exit %d, %q; want 1 naming the 404", code, errText)
	}
}

// A refused start claims nothing: mallory's start of an id that the
// server refuses (422: an input RUN_STARTED cannot carry; 400: not a
// RunAgentInput) leaves the id free for alice, who starts and follows it.
// (The owner was recorded when a start was asked for, before it
// succeeded: alice then got 403 for her own id.)
func TestServeAuthRefusedStartClaimsNothing(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	srv := authServer(t, mem)
	unservable := `{"threadId":"t","runId":"free","messages":[],"tools":[` + strings.Repeat(`{"name":"","description":""},`, 59999) + `{"name":"","description":""}]}`
	if code, body := authDo(t, srv, "POST", "/", "mallory", unservable, nil); code != http.StatusUnprocessableEntity {
		t.Fatalf("mallory's unservable start: %d %.200q; want 422", code, body)
	}
	if code, body := authDo(t, srv, "POST", "/", "mallory", `{"threadId":"t","runId":"free","messages":{}}`, nil); code != http.StatusBadRequest {
		t.Fatalf("mallory's malformed start: %d %q; want 400", code, body)
	}
	in := `{"threadId":"t","runId":"free","messages":[{"id":"m","role":"user","content":"a secret"}]}`
	if code, body := authDo(t, srv, "POST", "/", "alice", in, nil); code != http.StatusOK || !strings.Contains(body, "a secret") {
		t.Fatalf("alice's start of the id: %d %q; want 200", code, body)
	}
	if code, body := authDo(t, srv, "GET", "/runs/free", "alice", "", nil); code != http.StatusOK || !strings.Contains(body, "a secret") {
		t.Errorf("alice's follow: %d %q", code, body)
	}
	if code, _ := authDo(t, srv, "GET", "/runs/free", "mallory", "", nil); code != http.StatusNotFound {
		t.Errorf("mallory's follow: %d; want 404", code)
	}
}

// Without --resumable there is no log and no run to bind, but --auth
// bearer still needs a token on every run request.
func TestServeAuthBearerWithoutLog(t *testing.T) {
	srv := authServer(t, nil)
	in := `{"threadId":"t","runId":"r","messages":[]}`
	if code, body := authDo(t, srv, "POST", "/", "", in, nil); code != http.StatusForbidden {
		t.Errorf("a start without a token: %d %q; want 403", code, body)
	}
	if code, body := authDo(t, srv, "POST", "/", "alice", in, nil); code != http.StatusOK || !strings.Contains(body, "RUN_FINISHED") {
		t.Errorf("a start with a token: %d %q; want the run", code, body)
	}
}
