package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

const (
	uiOrigin    = "https://ui.example"
	otherOrigin = "https://evil.example"
)

// preflight sends the OPTIONS request a browser sends before a
// cross-origin fetch of method with the given non-safelisted request
// headers (lower case, sorted, comma-separated, as Chrome and Firefox
// write them), and returns the response, its body read.
func preflight(t *testing.T, url, origin, method, headers string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodOptions, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		req.Header.Set("Access-Control-Request-Headers", headers)
	}
	req.Header.Set("Accept", "*/*")
	req.Header.Set("Sec-Fetch-Mode", "cors")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	resp, err := noCompressionClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// listed reports whether the comma-separated header value lists name,
// case-insensitively.
func listed(value, name string) bool {
	for v := range strings.SplitSeq(value, ",") {
		if strings.EqualFold(strings.TrimSpace(v), name) {
			return true
		}
	}
	return false
}

// accessControl returns the Access-Control-* headers of h.
func accessControl(h http.Header) []string {
	var out []string
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// checkAllowed fails the test unless resp answers a preflight from origin
// for method as a browser needs: 204, the origin echoed, the method and
// each of headers allowed.
func checkAllowed(t *testing.T, resp *http.Response, origin, method string, headers ...string) {
	t.Helper()
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight: status %d, want 204", resp.StatusCode)
	}
	if got := h.Get("Access-Control-Allow-Origin"); got != origin {
		t.Errorf("Access-Control-Allow-Origin %q, want %q", got, origin)
	}
	if !listed(h.Get("Access-Control-Allow-Methods"), method) {
		t.Errorf("Access-Control-Allow-Methods %q does not list %s", h.Get("Access-Control-Allow-Methods"), method)
	}
	for _, name := range headers {
		if !listed(h.Get("Access-Control-Allow-Headers"), name) {
			t.Errorf("Access-Control-Allow-Headers %q does not list %s", h.Get("Access-Control-Allow-Headers"), name)
		}
	}
	if !listed(strings.Join(h.Values("Vary"), ","), "Origin") {
		t.Errorf("Vary %q does not name Origin", h.Values("Vary"))
	}
}

// TestCORSPreflight: a handler with CORS answers a browser's preflights
// for a run (POST, with the headers AG-UI clients send and the extra
// Authorization) and for the capabilities (GET), and refuses an origin it
// does not list with 403 and no Access-Control-* header.
func TestCORSPreflight(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{CORS: &transport.CORSOptions{
		AllowOrigins: []string{uiOrigin, "http://localhost:5173"},
		MaxAge:       10 * time.Minute,
		AllowHeaders: []string{"Authorization"},
	}}, replay(realisticRun())))
	defer srv.Close()

	resp := preflight(t, srv.URL, uiOrigin, "POST", "accept,agwire-keepalive,authorization,content-type")
	checkAllowed(t, resp, uiOrigin, "POST", "Content-Type", "Accept", "Last-Event-ID", "Agwire-Keepalive", "Authorization")
	if got := resp.Header.Get("Access-Control-Max-Age"); got != "600" {
		t.Errorf("Access-Control-Max-Age %q, want 600", got)
	}
	if got := resp.Header.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("Access-Control-Allow-Credentials %q without AllowCredentials", got)
	}
	checkAllowed(t, preflight(t, srv.URL, "http://localhost:5173", "GET", "accept"), "http://localhost:5173", "GET")

	for _, origin := range []string{otherOrigin, uiOrigin + ":8443", "http://ui.example", "null"} {
		resp := preflight(t, srv.URL, origin, "POST", "content-type")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("preflight from %s: status %d, want 403", origin, resp.StatusCode)
		}
		if ac := accessControl(resp.Header); len(ac) != 0 {
			t.Errorf("preflight from %s: the refusal carries %v", origin, ac)
		}
	}
}

// TestCORSRun: the stream of a run started by an allowed origin carries
// Access-Control-Allow-Origin with the origin and exposes the headers a
// client reads, on both carriers; a refused origin's run (a client that
// is not a browser may send any Origin) is served without them; an error
// answer to an allowed origin is readable by it.
func TestCORSRun(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{CORS: &transport.CORSOptions{AllowOrigins: []string{uiOrigin}}}, replay(realisticRun())))
	defer srv.Close()
	for _, sse := range []bool{false, true} {
		for _, origin := range []string{uiOrigin, otherOrigin} {
			c, err := transport.NewClient(srv.URL, transport.ClientOptions{Prefer: prefer(sse), Header: http.Header{"Origin": {origin}}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Run(testCtx(t), testInput())
			if err != nil {
				t.Fatal(err)
			}
			evs := readAll(t, r)
			r.Close()
			h := r.Response().Header
			if len(evs) != len(realisticRun()) {
				t.Errorf("sse %v, %s: %d events", sse, origin, len(evs))
			}
			if !listed(strings.Join(h.Values("Vary"), ","), "Origin") {
				t.Errorf("sse %v, %s: Vary %q does not name Origin", sse, origin, h.Values("Vary"))
			}
			if origin == otherOrigin {
				if ac := accessControl(h); len(ac) != 0 {
					t.Errorf("sse %v: the stream to a refused origin carries %v", sse, ac)
				}
				continue
			}
			if got := h.Get("Access-Control-Allow-Origin"); got != uiOrigin {
				t.Errorf("sse %v: Access-Control-Allow-Origin %q, want %q", sse, got, uiOrigin)
			}
			for _, name := range []string{"Agwire-Cursor", "Agwire-Keepalive", "Content-Encoding"} {
				if !listed(h.Get("Access-Control-Expose-Headers"), name) {
					t.Errorf("sse %v: Access-Control-Expose-Headers %q does not list %s", sse, h.Get("Access-Control-Expose-Headers"), name)
				}
			}
		}
	}
	resp := post(t, noCompressionClient(), srv.URL, `{"threadId":1}`, map[string]string{"Origin": uiOrigin})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Access-Control-Allow-Origin") != uiOrigin {
		t.Errorf("a bad request: %d with Access-Control-Allow-Origin %q, want 400 readable by %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), uiOrigin)
	}
}

// TestCORSCredentials: with AllowCredentials the origin is echoed (never
// "*") with Access-Control-Allow-Credentials: true, on the preflight and
// the stream; AllowOrigin decides; "*" with credentials is refused by
// NewHandler.
func TestCORSCredentials(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{CORS: &transport.CORSOptions{
		AllowOrigin:      func(o string) bool { return strings.HasSuffix(o, ".ui.example") },
		AllowCredentials: true,
	}}, replay(realisticRun())))
	defer srv.Close()
	const origin = "https://tenant.ui.example"
	resp := preflight(t, srv.URL, origin, "POST", "content-type")
	checkAllowed(t, resp, origin, "POST", "Content-Type")
	if got := resp.Header.Get("Access-Control-Allow-Credentials"); got != "true" {
		t.Errorf("preflight: Access-Control-Allow-Credentials %q, want true", got)
	}
	resp = post(t, noCompressionClient(), srv.URL, validBody, map[string]string{"Origin": origin, "Cookie": "session=1"})
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != origin || resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("stream: Access-Control-Allow-Origin %q, -Credentials %q", resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Access-Control-Allow-Credentials"))
	}
	if resp := preflight(t, srv.URL, uiOrigin, "POST", "content-type"); resp.StatusCode != http.StatusForbidden || len(accessControl(resp.Header)) != 0 {
		t.Errorf("an origin AllowOrigin refuses: %d %v", resp.StatusCode, accessControl(resp.Header))
	}

	// "*" without credentials: every origin, echoed.
	star := httptest.NewServer(mustHandler(transport.HandlerOptions{CORS: &transport.CORSOptions{AllowOrigins: []string{"*"}}}, replay(realisticRun())))
	defer star.Close()
	checkAllowed(t, preflight(t, star.URL, otherOrigin, "POST", "content-type"), otherOrigin, "POST", "Content-Type")
}

// TestCORSOptionsChecked: CORS options that cannot be what was meant are
// refused with an error naming the field.
func TestCORSOptionsChecked(t *testing.T) {
	fn := replay(nil)
	for _, tc := range []struct {
		cors transport.CORSOptions
		want string
	}{
		{transport.CORSOptions{}, "CORS allows no origin"},
		{transport.CORSOptions{AllowOrigins: []string{"*"}, AllowCredentials: true}, "AllowCredentials"},
		{transport.CORSOptions{AllowOrigins: []string{"https://ui.example/"}}, `write "https://ui.example"`},
		{transport.CORSOptions{AllowOrigins: []string{"ui.example"}}, "not an origin"},
		{transport.CORSOptions{AllowOrigins: []string{"https://*.ui.example"}}, "no patterns"},
		{transport.CORSOptions{AllowOrigins: []string{uiOrigin}, MaxAge: -1}, "CORS.MaxAge is negative"},
		{transport.CORSOptions{AllowOrigins: []string{uiOrigin}, AllowHeaders: []string{"X-A, X-B"}}, "not a header name"},
	} {
		_, err := transport.NewHandler(fn, transport.HandlerOptions{CORS: &tc.cors})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "HandlerOptions.CORS") {
			t.Errorf("%+v: %v, want an error naming HandlerOptions.CORS and %q", tc.cors, err, tc.want)
		}
	}
}

// TestCORSNullOriginRefused: "null" in AllowOrigins is refused with
// ErrNullOrigin, with credentials and without, on both routes, saying why
// (every site can send Origin: null from a sandboxed iframe); AllowOrigin
// may still allow it on purpose.
func TestCORSNullOriginRefused(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	for _, creds := range []bool{true, false} {
		cors := &transport.CORSOptions{AllowOrigins: []string{uiOrigin, "null"}, AllowCredentials: creds}
		_, err := transport.NewHandler(replay(nil), transport.HandlerOptions{CORS: cors})
		_, ferr := transport.NewFollowHandler(log, transport.FollowOptions{CORS: cors})
		for what, err := range map[string]error{"HandlerOptions": err, "FollowOptions": ferr} {
			if !errors.Is(err, transport.ErrNullOrigin) || !strings.Contains(err.Error(), what+".CORS.AllowOrigins") || !strings.Contains(err.Error(), "sandboxed iframes") {
				t.Errorf("%s, credentials %v: %v, want ErrNullOrigin naming the field and saying why", what, creds, err)
			}
			if creds && (err == nil || !strings.Contains(err.Error(), "credentials")) {
				t.Errorf("%s with credentials: %v, want the reason to name the credentials", what, err)
			}
		}
	}
	if _, err := transport.NewHandler(replay(nil), transport.HandlerOptions{CORS: &transport.CORSOptions{AllowOrigin: func(o string) bool { return o == "null" }}}); err != nil {
		t.Errorf("AllowOrigin allowing null on purpose: %v", err)
	}
}

// TestCORSVaryOrigin: every response that carries Access-Control-Allow-Origin
// for the request's origin also says Vary: Origin, so that no cache serves
// it to another origin: the run (both carriers), a resumption, the
// capabilities, the preflight, the follower route, and each error answer.
func TestCORSVaryOrigin(t *testing.T) {
	cors := &transport.CORSOptions{AllowOrigins: []string{uiOrigin}}
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	authorize := func(_ *http.Request, run string, _ transport.Access) error {
		if run == "denied" {
			return errors.New("not yours")
		}
		return nil
	}
	follow, err := transport.NewFollowHandler(log, transport.FollowOptions{CORS: cors, ErrorLog: quietLog, Authorize: authorize})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", mustHandler(transport.HandlerOptions{Log: log, Detach: true, CORS: cors, ErrorLog: quietLog, MaxBodyBytes: 4096, Authorize: authorize}, replay(realisticRun())))
	mux.Handle("/busy", mustHandler(transport.HandlerOptions{CORS: cors, ErrorLog: quietLog, MaxRunBytes: 1}, replay(realisticRun())))
	mux.Handle("/runs/{run}", follow)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	body := func(run string) string { return fmt.Sprintf(`{"threadId":"t","runId":%q,"messages":[]}`, run) }
	for _, tc := range []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
	}{
		{"run, SSE", "POST", "/", body("vary-1"), map[string]string{"Accept": transport.MediaTypeSSE}, 200},
		{"run, binary", "POST", "/", body("vary-2"), map[string]string{"Accept": transport.MediaTypeBinary}, 200},
		{"resumption", "POST", "/", body("vary-1"), map[string]string{"Last-Event-ID": "vary-1/2"}, 200},
		{"capabilities", "GET", "/", "", nil, 200},
		{"capabilities, HEAD", "HEAD", "/", "", nil, 200},
		{"preflight", "OPTIONS", "/", "", map[string]string{"Access-Control-Request-Method": "POST"}, 204},
		{"follower", "GET", "/runs/vary-1", "", nil, 200},
		{"follower preflight", "OPTIONS", "/runs/vary-1", "", map[string]string{"Access-Control-Request-Method": "GET"}, 204},
		{"405", "PUT", "/", body("x"), nil, 405},
		{"415", "POST", "/", body("x"), map[string]string{"Content-Type": "text/plain"}, 415},
		{"406", "POST", "/", body("x"), map[string]string{"Accept": "image/png"}, 406},
		{"400", "POST", "/", `{"threadId":1}`, nil, 400},
		{"413", "POST", "/", strings.Repeat(" ", 5000) + body("x"), nil, 413},
		{"403", "POST", "/", body("denied"), nil, 403},
		{"409", "POST", "/", body("vary-1"), nil, 409},
		{"404 resumption", "POST", "/", body("nothing"), map[string]string{"Last-Event-ID": "nothing/1"}, 404},
		{"503", "POST", "/busy", body("x"), nil, 503},
		{"follower 404", "GET", "/runs/nothing", "", nil, 404},
		{"follower 404, refused", "GET", "/runs/denied", "", nil, 404},
		{"follower 400", "GET", "/runs/vary-1", "", map[string]string{"Last-Event-ID": "bad cursor"}, 400},
		{"follower 405", "POST", "/runs/vary-1", "", nil, 405},
	} {
		req, err := http.NewRequestWithContext(testCtx(t), tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", uiOrigin)
		if tc.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		resp, err := noCompressionClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != uiOrigin {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want %q", tc.name, got, uiOrigin)
		}
		if !listed(strings.Join(resp.Header.Values("Vary"), ","), "Origin") {
			t.Errorf("%s: Access-Control-Allow-Origin %q with Vary %q, which does not name Origin", tc.name, resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Values("Vary"))
		}
	}
}

// TestCORSResumeAndFollow: a browser resuming a run sends Last-Event-ID,
// which needs a preflight: the run handler and the follower route allow
// it, and their responses expose Agwire-Cursor. The follower route
// allows GET only; a refused origin gets 403 there too.
func TestCORSResumeAndFollow(t *testing.T) {
	cors := &transport.CORSOptions{AllowOrigins: []string{uiOrigin}}
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	follow, err := transport.NewFollowHandler(log, transport.FollowOptions{CORS: cors, ErrorLog: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", mustHandler(transport.HandlerOptions{Log: log, Detach: true, CORS: cors, ErrorLog: quietLog}, replay(realisticRun())))
	mux.Handle("/runs/{run}", follow)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	checkAllowed(t, preflight(t, srv.URL, uiOrigin, "POST", "content-type,last-event-id"), uiOrigin, "POST", "Content-Type", "Last-Event-ID")
	checkAllowed(t, preflight(t, srv.URL+"/runs/r1", uiOrigin, "GET", "agwire-keepalive,last-event-id"), uiOrigin, "GET", "Last-Event-ID", "Agwire-Keepalive")
	resp := preflight(t, srv.URL+"/runs/r1", uiOrigin, "GET", "last-event-id")
	if listed(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("the follower route allows %q", resp.Header.Get("Access-Control-Allow-Methods"))
	}
	if resp := preflight(t, srv.URL+"/runs/r1", otherOrigin, "GET", "last-event-id"); resp.StatusCode != http.StatusForbidden || len(accessControl(resp.Header)) != 0 {
		t.Errorf("follower preflight from a refused origin: %d %v", resp.StatusCode, accessControl(resp.Header))
	}

	// The run, then a resumption after its second event, then a follower.
	header := http.Header{"Origin": {uiOrigin}}
	c, err := transport.NewClient(srv.URL, transport.ClientOptions{Header: header, Prefer: transport.PreferSSEOnly})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(testCtx(t), inputFor("cors"))
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	r.Close()
	check := func(what string, h http.Header) {
		t.Helper()
		if h.Get("Access-Control-Allow-Origin") != uiOrigin || !listed(h.Get("Access-Control-Expose-Headers"), transport.HeaderCursor) || h.Get(transport.HeaderCursor) == "" {
			t.Errorf("%s: Access-Control-Allow-Origin %q, -Expose-Headers %q, %s %q", what, h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Expose-Headers"), transport.HeaderCursor, h.Get(transport.HeaderCursor))
		}
	}
	check("run", r.Response().Header)
	resp = post(t, noCompressionClient(), srv.URL, `{"threadId":"thread-1","runId":"cors","messages":[]}`, map[string]string{"Origin": uiOrigin, "Last-Event-ID": "cors/2"})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	check("resumption", resp.Header)
	if resp.Header.Get(transport.HeaderCursor) != "cors/2" || strings.Count(string(body), "data: ") != len(realisticRun())-2 {
		t.Errorf("resumption from cors/2: %s %q and %d events", transport.HeaderCursor, resp.Header.Get(transport.HeaderCursor), strings.Count(string(body), "data: "))
	}
	fr, err := c.Follow(testCtx(t), "cors", runlog.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readAll(t, fr)); n != len(realisticRun()) {
		t.Errorf("follower: %d events", n)
	}
	fr.Close()
	check("follower", fr.Response().Header)
}

// TestNoCORS: without CORS options a preflight is a 405 like any OPTIONS
// request, and no response carries a CORS header.
func TestNoCORS(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{}, func(ctx context.Context, _ *http.Request, _ *event.RunAgentInput, w transport.EventWriter) error {
		return w.WriteEvent(&event.RunStarted{ThreadID: "t", RunID: "r"})
	}))
	defer srv.Close()
	resp := preflight(t, srv.URL, uiOrigin, "POST", "content-type")
	if resp.StatusCode != http.StatusMethodNotAllowed || len(accessControl(resp.Header)) != 0 {
		t.Errorf("preflight without CORS: %d %v", resp.StatusCode, accessControl(resp.Header))
	}
	resp = post(t, noCompressionClient(), srv.URL, validBody, map[string]string{"Origin": uiOrigin})
	resp.Body.Close()
	if len(accessControl(resp.Header)) != 0 || listed(strings.Join(resp.Header.Values("Vary"), ","), "Origin") {
		t.Errorf("stream without CORS: %v, Vary %q", accessControl(resp.Header), resp.Header.Values("Vary"))
	}
}
