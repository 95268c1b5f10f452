package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// sampleRun is testdata/sample.jsonl: a recorded run of its own ids and
// timestamps, other than the built-in one.
func sampleRun(t *testing.T) []byte { return sample(t) }

// withIDs is the JSON of each event of the JSON lines as serve sends it to
// a request with these ids: RUN_STARTED and RUN_FINISHED carry them, and
// RUN_STARTED the request as its input.
func withIDs(t *testing.T, jsonl []byte, threadID, runID string) []string {
	t.Helper()
	var out []string
	for _, line := range events(string(jsonl)) {
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

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeRecorded: serve -i serves a recorded run, given as JSON lines,
// SSE or binary (told from its first bytes), with the request's ids in
// RUN_STARTED and RUN_FINISHED; read back on both carriers, the events are
// the recording's.
func TestServeRecorded(t *testing.T) {
	jsonl := sampleRun(t)
	files := map[string][]byte{
		"run.jsonl": jsonl,
		"run.sse":   convert(t, jsonl, "--from", "jsonl", "--to", "sse"),
		"run.bin":   convert(t, jsonl, "--from", "jsonl", "--to", "binary"),
	}
	want := withIDs(t, jsonl, "ui-thread", "ui-run")
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			rec, err := loadRecorded(writeTemp(t, name, data), nil, "")
			if err != nil {
				t.Fatal(err)
			}
			s := startServe(t, serveOptions{events: rec.events, recorded: name, gaps: gaps(rec.events, paceDelay, 0, time.Second)})
			for _, sse := range []bool{false, true} {
				r, err := startRun(testContext(t), nil, s.url, runInput("ui-thread", "ui-run"), transport.ClientOptions{Prefer: prefer(sse)})
				if err != nil {
					t.Fatal(err)
				}
				got := readRun(t, r)
				r.Close()
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("sse %v: the run differs from the recording:\n%s\nwant\n%s", sse, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// TestServeRecordedStdin: -i - reads the recording from standard input.
func TestServeRecordedStdin(t *testing.T) {
	rec, err := loadRecorded("-", bytes.NewReader(convert(t, sampleRun(t), "--from", "jsonl", "--to", "binary")), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.events) != len(events(string(sampleRun(t)))) {
		t.Fatalf("%d events from standard input, want %d", len(rec.events), len(events(string(sampleRun(t)))))
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// TestServeGaps: the waits before each event: --delay, or the differences
// of the timestamps, clamped to [0, --max-gap], --delay where an event has
// none.
func TestServeGaps(t *testing.T) {
	ts := func(ms int64) event.Base { return event.Base{Timestamp: &ms} }
	evs := []event.Event{
		&event.StepStarted{Base: ts(1_000), StepName: "a"},
		&event.StepStarted{Base: ts(1_250), StepName: "b"},      // 250ms
		&event.StepStarted{Base: ts(1_100), StepName: "c"},      // earlier: 0
		&event.StepStarted{StepName: "d"},                       // none: delay
		&event.StepStarted{Base: ts(9_000), StepName: "e"},      // after none: delay
		&event.StepStarted{Base: ts(1 << 62), StepName: "f"},    // huge: max-gap
		&event.StepStarted{Base: ts(-(1 << 62)), StepName: "g"}, // far back: 0
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		pace paceFlag
		want []time.Duration
	}{
		{paceDelay, []time.Duration{0, 7 * ms, 7 * ms, 7 * ms, 7 * ms, 7 * ms, 7 * ms}},
		{paceTimestamps, []time.Duration{0, 250 * ms, 0, 7 * ms, 7 * ms, 2 * time.Second, 0}},
	} {
		if got := gaps(evs, tc.pace, 7*ms, 2*time.Second); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("--pace %s: %v, want %v", tc.pace, got, tc.want)
		}
	}
}

// TestServePaceTimestamps: with --pace timestamps the events arrive at
// least as far apart as their timestamps say (less a slack for the
// clock), and a recorded gap of an hour waits --max-gap instead.
func TestServePaceTimestamps(t *testing.T) {
	var b strings.Builder
	stamps := []int64{0, 0, 400, 400, 1000, 3_600_000 + 1000, 3_600_000 + 1000}
	for i, ms := range stamps {
		switch i {
		case 0:
			fmt.Fprintf(&b, `{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":%d}`+"\n", 1_700_000_000_000+ms)
		case len(stamps) - 1:
			fmt.Fprintf(&b, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":%d}`+"\n", 1_700_000_000_000+ms)
		default:
			fmt.Fprintf(&b, `{"type":"STEP_STARTED","stepName":"s%d","timestamp":%d}`+"\n", i, 1_700_000_000_000+ms)
		}
	}
	rec, err := loadRecorded(writeTemp(t, "paced.jsonl", []byte(b.String())), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	const maxGap = 300 * time.Millisecond
	s := startServe(t, serveOptions{events: rec.events, recorded: "paced.jsonl", gaps: gaps(rec.events, paceTimestamps, 0, maxGap)})
	r, err := startRun(testContext(t), nil, s.url, runInput("t", "r"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var at []time.Time
	for _, err := range r.Events() {
		if err != nil {
			t.Fatal(err)
		}
		at = append(at, time.Now())
	}
	if len(at) != len(stamps) {
		t.Fatalf("%d events, want %d", len(at), len(stamps))
	}
	const slack = 50 * time.Millisecond // the clock's and the scheduler's
	for i := 1; i < len(at); i++ {
		recorded := min(time.Duration(stamps[i]-stamps[i-1])*time.Millisecond, maxGap)
		if got := at[i].Sub(at[i-1]); got < recorded-slack {
			t.Errorf("event %d came %v after the one before; recorded %v apart (at most --max-gap)", i, got, recorded)
		}
	}
	// The gap of an hour was clamped: the run did not wait it out.
	if total := at[len(at)-1].Sub(at[0]); total > guard {
		t.Errorf("the run took %v", total)
	}
}

// TestServeRecordedUsage: what is wrong with -i and its flags is named.
func TestServeRecordedUsage(t *testing.T) {
	bad := writeTemp(t, "bad.jsonl", []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n"+`{"type":"TEXT_MESSAGE_CONTENT"}`+"\n"))
	empty := writeTemp(t, "empty.jsonl", nil)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--pace", "fast"}, exitUsage, `unknown pace "fast"`},
		{[]string{"--pace", "timestamps"}, exitUsage, "need -i FILE"},
		{[]string{"--from", "sse"}, exitUsage, "need -i FILE"},
		{[]string{"--max-gap", "0s"}, exitUsage, "--max-gap must be positive"},
		{[]string{"--cors", "https://ui.example/"}, exitUsage, `--cors: transport: HandlerOptions.CORS.AllowOrigins: "https://ui.example/" is not an origin`},
		{[]string{"--cors", "null"}, exitUsage, `--cors: transport: HandlerOptions.CORS.AllowOrigins: "null" allows every web site`},
		{[]string{"-i", filepath.Join(t.TempDir(), "missing.jsonl")}, exitFail, "no such file"},
		{[]string{"-i", empty}, exitFail, "holds no event"},
		{[]string{"-i", bad}, exitFail, "line 2"},
	} {
		_, errOut, code := agwire(t, nil, append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.says) {
			t.Errorf("serve %v: exit %d, %q; want %d naming %q", tc.args, code, errOut, tc.code, tc.says)
		}
	}
}

// TestServeHeartbeatPlain: --heartbeat applies without --resumable: a
// plain SSE stream carries comments in its silences, and a binary stream
// zero-length frames when the request asks for them.
func TestServeHeartbeatPlain(t *testing.T) {
	s := startServe(t, serveOptions{heartbeat: 50 * time.Millisecond, delay: 300 * time.Millisecond,
		events: []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}}})
	for _, accept := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
		req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, s.url, strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set(transport.HeaderKeepalive, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch accept {
		case transport.MediaTypeSSE:
			if !bytes.Contains(body, []byte(": keep-alive\n\n")) {
				t.Errorf("SSE stream without a keep-alive comment:\n%s", body)
			}
		default:
			if !bytes.Contains(body, []byte{0, 0, 0, 0}) || resp.Header.Get(transport.HeaderKeepalive) != "1" {
				t.Errorf("binary stream: %s %q, body % x; want keep-alive frames", transport.HeaderKeepalive, resp.Header.Get(transport.HeaderKeepalive), body)
			}
		}
	}
}

// TestServeCORS: with cors origins, the run route and the follower route
// answer a browser's preflights, Authorization allowed, and refuse other
// origins.
func TestServeCORS(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	s := startServe(t, serveOptions{cors: []string{"https://ui.example"}, runLog: mem, runs: context.Background(), delay: 0})
	for _, tc := range []struct {
		path, method, origin string
		status               int
	}{
		{"", "POST", "https://ui.example", http.StatusNoContent},
		{"runs/r1", "GET", "https://ui.example", http.StatusNoContent},
		{"", "POST", "https://evil.example", http.StatusForbidden},
		{"runs/r1", "GET", "https://evil.example", http.StatusForbidden},
	} {
		req, err := http.NewRequestWithContext(testContext(t), http.MethodOptions, s.url+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", tc.method)
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,last-event-id")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		allowed := resp.Header.Get("Access-Control-Allow-Headers")
		if resp.StatusCode != tc.status || (tc.status == http.StatusNoContent) != (resp.Header.Get("Access-Control-Allow-Origin") == tc.origin) ||
			tc.status == http.StatusNoContent && (!strings.Contains(allowed, "Authorization") || !strings.Contains(allowed, "Last-Event-ID") || resp.Header.Get("Access-Control-Max-Age") != "600") {
			t.Errorf("OPTIONS /%s from %s for %s: %d, %v; want %d", tc.path, tc.origin, tc.method, resp.StatusCode, resp.Header, tc.status)
		}
	}
}

// TestServeCommandRecorded: the command line: serve -i FILE --cors
// --heartbeat serves the recording, answers preflights, and says what it
// serves in its startup line.
func TestServeCommandRecorded(t *testing.T) {
	jsonl := sampleRun(t)
	file := writeTemp(t, "run.bin", convert(t, jsonl, "--from", "jsonl", "--to", "binary"))
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"serve", "--addr", "127.0.0.1:0", "--delay", "0", "-i", file, "--cors", "https://ui.example,http://localhost:5173", "--heartbeat", "1s"}, nil, io.Discard, pw)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no startup line")
	}
	first := lines.Text()
	go io.Copy(io.Discard, pr)
	_, rest, _ := strings.Cut(first, "listening on ")
	url, _, _ := strings.Cut(rest, " ")
	if !strings.Contains(first, "replaying "+file+" (") {
		t.Errorf("startup line %q does not name the file", first)
	}
	r, err := startRun(testContext(t), nil, url, runInput("th", "ru"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := readRun(t, r)
	r.Close()
	if strings.Join(got, "\n") != strings.Join(withIDs(t, jsonl, "th", "ru"), "\n") {
		t.Errorf("the run differs from the recording")
	}
	req, _ := http.NewRequest(http.MethodOptions, url, nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Errorf("preflight: %d %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if c := <-code; c != 0 {
		t.Errorf("exit %d", c)
	}
}

// TestServeRecordedUnservable: serve -i refuses at load a recording with an
// event it could never send to a client of one of its carriers — one with
// no protobuf form (THINKING_*), one whose decoding would exceed the
// codec's memory budget, one over the stock client's event size — naming
// the record, the event's type and the reason, instead of answering every
// run request 200 and then a RUN_ERROR.
func TestServeRecordedUnservable(t *testing.T) {
	jsonl := func(evs ...event.Event) []byte {
		var b bytes.Buffer
		for _, ev := range evs {
			js, err := event.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(js)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	start, finish := &event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}
	const thinking = `{"type":"THINKING_START"}`
	dense := &event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "interrupt", Interrupts: make([]event.Interrupt, 40_000)}}
	huge := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("x", 11<<20)}
	for _, tc := range []struct {
		name string
		data []byte
		says []string
	}{
		{"thinking.jsonl", slices.Concat(jsonl(start), []byte("\n"+thinking+"\n"), jsonl(finish)),
			[]string{"line 3", "THINKING_START cannot be served", "the binary stream refuses it", "never had a protobuf form"}},
		{"dense.jsonl", jsonl(start, dense),
			[]string{"line 2", "RUN_FINISHED cannot be served", "memory budget"}},
		{"huge.jsonl", jsonl(start, huge, finish),
			[]string{"line 2", "TEXT_MESSAGE_CONTENT cannot be served", "the binary stream refuses it", "10485760"}},
	} {
		_, err := loadRecorded(writeTemp(t, tc.name, tc.data), nil, "")
		for _, want := range tc.says {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v; want an error saying %q", tc.name, err, want)
			}
		}
		if tc.name == "huge.jsonl" && !errors.Is(err, transport.ErrEventTooLarge) {
			t.Errorf("%s: %v; want transport.ErrEventTooLarge", tc.name, err)
		}
	}
	// The command refuses it before it listens.
	file := writeTemp(t, "thinking.jsonl", slices.Concat(jsonl(start), []byte(thinking+"\n"), jsonl(finish)))
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"serve", "--addr", "127.0.0.1:0", "-i", file}, nil, io.Discard, pw)
		pw.Close()
	}()
	first, _ := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if strings.Contains(first, "listening") { // it loaded the file: stop it
		t.Errorf("serve -i with THINKING_START listens: %q", first)
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	if c := <-code; c != exitFail || !strings.Contains(first, "line 2: THINKING_START cannot be served") {
		t.Errorf("serve -i with THINKING_START: exit %d, %q", c, first)
	}
	// A recording whose RUN_STARTED carries a large input still loads: serve
	// replaces the input by the request's, which the handler checks.
	big := &event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: make([]event.Message, 0)}}
	big.Input.State = event.RawValue(`"` + strings.Repeat("y", 11<<20) + `"`)
	if _, err := loadRecorded(writeTemp(t, "input.jsonl", jsonl(big, finish)), nil, ""); err != nil {
		t.Errorf("a recorded RUN_STARTED with an 11 MiB input: %v", err)
	}
}
