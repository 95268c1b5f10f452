package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/runlog"
)

// agwire serve --resumable --auth bearer: a run is bound to the bearer
// token that started it. Another token, or none, gets the 404 of a run
// that does not exist when it resumes or follows it (over HTTP and with
// agwire follow), and a start of the same id the 403 of any refused start,
// never the 409 that would tell the id is taken; the owner reads it.
// (Without --auth, anyone who knew the id read the run, its input too.)
func TestServeAuthBearer(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	h, err := newServeHandler(serveOptions{runLog: mem, detach: true, auth: "bearer", runs: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(method, path, token, body string, header map[string]string) (int, string) {
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
	in := `{"threadId":"t","runId":"mine","messages":[{"id":"m","role":"user","content":"a secret"}]}`
	if code, body := do("POST", "/", "alice", in, nil); code != http.StatusOK || !strings.Contains(body, "a secret") {
		t.Fatalf("alice's run: %d %q", code, body)
	}
	if code, body := do("POST", "/", "", strings.Replace(in, "mine", "other", 1), nil); code != http.StatusForbidden {
		t.Fatalf("a start without a token: %d %q; want 403", code, body)
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
	sCode, sBody := do("POST", "/", "mallory", in, nil)
	nCode, nBody := do("POST", "/", "", in, nil)
	if sCode != http.StatusForbidden || sCode != nCode || sBody != nBody {
		t.Errorf("a stranger's start of a taken id: %d %q; a start without a token: %d %q; want the same 403", sCode, sBody, nCode, nBody)
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
