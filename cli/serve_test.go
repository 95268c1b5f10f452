package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is the demo endpoint served in-process on 127.0.0.1:0.
type testServer struct {
	url  string
	log  *syncBuffer
	stop func() // shuts the server down and waits for it
}

func startServe(t *testing.T, opts serveOptions) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	opts.log = log.New(logs, "", 0)
	opts.errorLog = slog.New(slog.NewTextHandler(logs, nil))
	h, err := newServeHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, ln, h, opts) }()
	var once sync.Once
	s := &testServer{url: serverURL(ln.Addr()), log: logs}
	s.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serveOn: %v", err)
			}
		})
	}
	t.Cleanup(s.stop)
	return s
}

// wantDemoRun is the built-in run as a client with these ids must see it.
func wantDemoRun(t *testing.T, threadID, runID string) []string {
	t.Helper()
	var out []string
	for _, line := range demoLines() {
		ev, err := event.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *event.RunStarted:
			e.ThreadID, e.RunID, e.Input = threadID, runID, runInput(threadID, runID)
		case *event.RunFinished:
			e.ThreadID, e.RunID = threadID, runID
		}
		js, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(js))
	}
	return out
}

// runInput is a request with an empty resume list: the binary form has no
// absent list, so what the server echoes over it carries one either way.
func runInput(threadID, runID string) *event.RunAgentInput {
	return &event.RunAgentInput{ThreadID: threadID, RunID: runID, Messages: []event.Message{}, Resume: []event.ResumeEntry{}}
}

// readRun reads every event of r as JSON.
func readRun(t *testing.T, r *transport.EventReader) []string {
	t.Helper()
	var got []string
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatalf("reading the run: %v", err)
		}
		js, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(js))
	}
	return got
}

func TestServeRun(t *testing.T) {
	s := startServe(t, serveOptions{compression: []string{transport.EncodingZstd, transport.EncodingGzip}})
	for i, tc := range []struct {
		name     string
		opts     transport.ClientOptions
		wantType string
		wantEnc  string
	}{
		{"binary", transport.ClientOptions{}, transport.MediaTypeBinary, ""},
		{"sse", transport.ClientOptions{Prefer: transport.PreferSSEOnly}, transport.MediaTypeSSE, ""},
		{"binary compressed", transport.ClientOptions{Compression: allCodings}, transport.MediaTypeBinary, transport.EncodingZstd},
		{"sse compressed", transport.ClientOptions{Compression: allCodings, Prefer: transport.PreferSSEOnly}, transport.MediaTypeSSE, transport.EncodingZstd},
		{"binary gzip", transport.ClientOptions{}, transport.MediaTypeBinary, transport.EncodingGzip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			threadID, runID := "thread-"+tc.name, "run-"+string(rune('a'+i))
			var r *transport.EventReader
			var err error
			if tc.wantEnc == transport.EncodingGzip {
				r, err = gzipRun(t, s.url, runInput(threadID, runID))
			} else {
				r, err = startRun(context.Background(), nil, s.url, runInput(threadID, runID), tc.opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.ContentType() != tc.wantType || r.ContentEncoding() != tc.wantEnc {
				t.Errorf("got %s %q, want %s %q", r.ContentType(), r.ContentEncoding(), tc.wantType, tc.wantEnc)
			}
			got, want := readRun(t, r), wantDemoRun(t, threadID, runID)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the run differs:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}

	s.stop() // waits for the handlers, so the log is complete
	logs := s.log.String()
	for _, want := range []string{
		" POST / 200 " + transport.MediaTypeBinary + " identity, 27 events, ",
		" POST / 200 " + transport.MediaTypeSSE + " identity, 27 events, ",
		" POST / 200 " + transport.MediaTypeBinary + " zstd, 27 events, ",
		" POST / 200 " + transport.MediaTypeSSE + " zstd, 27 events, ",
		" POST / 200 " + transport.MediaTypeBinary + " gzip, 27 events, ",
		"shutting down",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

// gzipRun posts in asking for binary, gzip only.
func gzipRun(t *testing.T, url string, in *event.RunAgentInput) (*transport.EventReader, error) {
	t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", transport.MediaTypeBinary)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	return transport.NewEventReader(resp, transport.ClientOptions{})
}

// TestServeNoCompression: with compression off, a client asking for it
// gets the identity coding.
func TestServeNoCompression(t *testing.T) {
	s := startServe(t, serveOptions{})
	r, err := startRun(context.Background(), nil, s.url, runInput("t", "r"), transport.ClientOptions{Compression: allCodings})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.ContentEncoding() != "" {
		t.Errorf("coding %q", r.ContentEncoding())
	}
	if got := readRun(t, r); len(got) != len(demoLines()) {
		t.Errorf("%d events", len(got))
	}
}

func TestServeHelp(t *testing.T) {
	s := startServe(t, serveOptions{compression: []string{transport.EncodingGzip}})
	resp, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("%s, Content-Type %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		"curl -N -H 'Content-Type: application/json'",
		"-H 'Accept: " + transport.MediaTypeBinary + "'",
		s.url + " | agwire decode",
		`"threadId":"t1","runId":"r1","messages":[`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the help lacks %q:\n%s", want, body)
		}
	}
	if strings.Count(string(body), "curl ") != 2 {
		t.Errorf("the help has %d curl commands, want 2:\n%s", strings.Count(string(body), "curl "), body)
	}

	// The help's curl body is a valid RunAgentInput.
	i := strings.Index(string(body), "-d '") + len("-d '")
	j := strings.Index(string(body)[i:], "'")
	if _, err := (event.Parser{}).ParseRunAgentInput(body[i : i+j]); err != nil {
		t.Errorf("the help's body: %v", err)
	}
}

// TestServeBadRequests: the transport handler's checks, and the log line that
// says why.
func TestServeBadRequests(t *testing.T) {
	s := startServe(t, serveOptions{})

	// A malformed RunAgentInput: the client refuses to send it, naming the
	// field, and the server answers 400 naming it too.
	in := runInput("t", "r")
	in.Messages = []event.Message{{ID: "m1", Role: "user"}} // no content
	_, err := startRun(context.Background(), nil, s.url, in, transport.ClientOptions{})
	if !errors.Is(err, event.ErrMissingField) || !strings.Contains(err.Error(), "messages[0].content") {
		t.Fatalf("client: got %v", err)
	}
	resp, err := http.Post(s.url, "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"id":"m1","role":"user"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	badBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(badBody), "messages[0].content: missing required field") {
		t.Fatalf("server: %d %s", resp.StatusCode, badBody)
	}

	for _, tc := range []struct {
		method, path, contentType, accept, body string
		status                                  int
		allow                                   string
	}{
		{"PUT", "/", "application/json", "", "{}", 405, "GET, HEAD, POST"},
		{"POST", "/", "text/plain", "", "{}", 415, ""},
		{"POST", "/", "application/json", "application/json", `{"threadId":"t","runId":"r","messages":[]}`, 406, ""},
		{"POST", "/", "application/json", "", `{"threadId":"t","runId":"r"`, 400, ""},
		{"GET", "/agent", "", "", "", 404, ""},
	} {
		req, _ := http.NewRequest(tc.method, strings.TrimSuffix(s.url, "/")+tc.path, strings.NewReader(tc.body))
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s (%s): %s, Allow %q; want %d, Allow %q", tc.method, tc.path, tc.contentType, resp.Status, resp.Header.Get("Allow"), tc.status, tc.allow)
		}
	}

	s.stop()
	logs := s.log.String()
	for _, want := range []string{
		" POST / 400 text/plain, ", ": 400 bad request: the body is not a valid RunAgentInput: messages[0].content: missing required field\n",
		" PUT / 405 text/plain, ",
		" POST / 415 text/plain, ",
		" POST / 406 text/plain, ",
		" GET /agent 404 text/plain, ",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

// TestServeShutdown: a run still going when the server stops, past the
// grace period, is ended with a RUN_ERROR event. The log counts the events
// the response delivered, the RUN_ERROR too.
func TestServeShutdown(t *testing.T) {
	old := serveShutdownTimeout
	serveShutdownTimeout = time.Millisecond
	t.Cleanup(func() { serveShutdownTimeout = old })

	s := startServe(t, serveOptions{delay: time.Hour})
	r, err := startRun(context.Background(), nil, s.url, runInput("t-1", "r-1"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ev, err := r.Next()
	if err != nil || ev.Type() != event.TypeRunStarted {
		t.Fatalf("first event: %v, %v", ev, err)
	}
	go s.stop()
	ev, err = r.Next()
	if err != nil {
		t.Fatalf("second event: %v", err)
	}
	re, ok := ev.(*event.RunError)
	if !ok || re.Message != errShuttingDown.Error() {
		t.Fatalf("second event: %#v", ev)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the RUN_ERROR: %v", err)
	}
	s.stop()
	if logs := s.log.String(); !strings.Contains(logs, "2 events, ") || !strings.Contains(logs, "stopped: the server is shutting down") {
		t.Errorf("log:\n%s", logs)
	}
}

// TestServeCommand runs "agwire serve" itself: it listens, logs, answers,
// and stops on SIGINT.
func TestServeCommand(t *testing.T) {
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"serve", "--addr", "127.0.0.1:0", "--delay", "0"}, nil, io.Discard, pw)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no startup line")
	}
	first := lines.Text()
	_, rest, ok := strings.Cut(first, "listening on ")
	url, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(first, "agwire serve: ") {
		t.Fatalf("startup line %q", first)
	}
	var logs []string
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for lines.Scan() {
			logs = append(logs, lines.Text())
		}
	}()

	r, err := startRun(context.Background(), nil, url, runInput("th", "ru"), transport.ClientOptions{Compression: allCodings})
	if err != nil {
		t.Fatal(err)
	}
	got := readRun(t, r)
	r.Close()
	if strings.Join(got, "\n") != strings.Join(wantDemoRun(t, "th", "ru"), "\n") {
		t.Errorf("the run differs")
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if c := <-code; c != 0 {
		t.Errorf("exit %d", c)
	}
	<-logged
	all := strings.Join(logs, "\n")
	for _, want := range []string{" POST / 200 " + transport.MediaTypeBinary + " zstd, 27 events, ", "agwire serve: shutting down", "agwire serve: stopped"} {
		if !strings.Contains(all, want) {
			t.Errorf("the log lacks %q:\n%s", want, all)
		}
	}
}

func TestServeUsage(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{args: []string{"serve", "--help"}, stdout: []string{"Usage: agwire serve", "--addr HOST:PORT", "(default 127.0.0.1:8080)", "--delay DURATION", "(default 50ms)", "--compression LIST", "Example:\n  agwire serve", "| agwire decode"}},
		{args: []string{"serve", "--addr", taken.Addr().String()}, code: 1, stderr: []string{"agwire serve: cannot listen on " + taken.Addr().String() + ": the address is already in use", "--addr"}},
		{args: []string{"serve", "--addr", "256.0.0.1:80"}, code: 1, stderr: []string{"agwire serve: cannot listen on 256.0.0.1:80: "}},
		{args: []string{"serve", "--delay", "-1s"}, code: 2, stderr: []string{"--delay must not be negative"}},
		{args: []string{"serve", "--compression", "br"}, code: 2, stderr: []string{`--compression: unknown coding "br"`}},
		{args: []string{"serve", "extra"}, code: 2, stderr: []string{`unexpected argument "extra"`}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := agwire(t, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, errOut)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}

	for in, want := range map[string]string{"none": "", "off": "", "zstd": "zstd", "gzip, zstd": "gzip,zstd", "ZSTD,gzip": "zstd,gzip"} {
		got, err := parseCodings(in)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("parseCodings(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := parseCodings("gzip,gzip"); err == nil {
		t.Error("gzip twice accepted")
	}
}

// TestServeResumableGrace: serve --resumable (no --detach) keeps a run going
// when its client is cut: the client resumes with its cursor and gets the
// rest of the run, and the request log counts the events each response
// delivered (8, then 19 of the 27).
func TestServeResumableGrace(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	s := startServe(t, serveOptions{runLog: mem, grace: 10 * time.Second, heartbeat: time.Second, runs: context.Background(), delay: 5 * time.Millisecond})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	r, err := startRun(context.Background(), client, s.url, runInput("t-1", "r-1"), transport.ClientOptions{})
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
	r, err = startRun(context.Background(), client, s.url, runInput("t-1", "r-1"), transport.ClientOptions{
		Header: http.Header{transport.HeaderLastEventID: {cursor.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	var types []event.Type
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type())
	}
	r.Close()
	if len(types) != 19 || types[len(types)-1] != event.TypeRunFinished {
		t.Fatalf("resumed: %v", types)
	}
	s.stop()
	logs := s.log.String()
	if !strings.Contains(logs, " 8 events, ") || !strings.Contains(logs, " 19 events, ") {
		t.Errorf("log:\n%s", logs)
	}
}

// TestServeCapabilities: agwire serve advertises its capabilities to a GET
// asking for JSON, with the transport flags of its options.
func TestServeCapabilities(t *testing.T) {
	for _, resumable := range []bool{false, true} {
		opts := serveOptions{}
		if resumable {
			mem := runlog.NewMemory(runlog.MemoryOptions{})
			defer mem.Close()
			opts = serveOptions{runLog: mem, grace: time.Second, heartbeat: time.Second, runs: context.Background()}
		}
		s := startServe(t, opts)
		c, err := transport.NewClient(s.url, transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		caps, err := c.Capabilities(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if caps.Identity == nil || *caps.Identity.Name != "agwire serve" || !*caps.Transport.HTTPBinary || *caps.Transport.Resumable != resumable {
			b, _ := json.Marshal(caps)
			t.Errorf("resumable %v: %s", resumable, b)
		}
		s.stop()
	}
}

// TestServeWildcardSSE: agwire serve answers SSE to a client that names
// neither type ("Accept: */*", what curl sends) and binary to one that
// names it.
func TestServeWildcardSSE(t *testing.T) {
	s := startServe(t, serveOptions{delay: 0})
	for accept, want := range map[string]string{"*/*": transport.MediaTypeSSE, transport.MediaTypeBinary: transport.MediaTypeBinary} {
		req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Errorf("Accept %q: %s, want %s", accept, got, want)
		}
	}
}

// TestServeNoGraceSaysWhy: serve --resumable --reconnect-grace -1s (no
// grace, the value that means none in the library too) ends a run when its
// client leaves, and the RUN_ERROR a follower reads says why, not "context
// canceled".
func TestServeNoGraceSaysWhy(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	s := startServe(t, serveOptions{runLog: mem, grace: -time.Second, heartbeat: time.Second, runs: context.Background(), delay: 20 * time.Millisecond})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	r, err := startRun(context.Background(), client, s.url, runInput("t-1", "r-1"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	c, err := transport.NewClient(s.url, transport.ClientOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Follow(context.Background(), "r-1", runlog.Cursor{})
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
	re, ok := last.(*event.RunError)
	if !ok || strings.Contains(re.Message, "context canceled") || !strings.Contains(re.Message, "no reconnect grace") {
		t.Fatalf("the run ended with %#v", last)
	}
}
