// Package readme_test holds the Go snippets of the repository's README.md
// and docs/*.md as compiled, tested code: TestDocSnippets fails if a Go
// block of a page does not appear, line for line, in this file, or if a page
// loses a block, and the Example functions run the snippets and check their
// output. TestDesignGraph holds docs/design.md's package graph to the
// imports.
package readme_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/build"
	"io"
	"io/fs"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// writeStream is docs/transport.md's "Encode events into a binary stream".
func writeStream(out io.Writer) error {
	w := framing.NewWriter(out, framing.WriterOptions{})
	err := w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "Hello"})
	return err
}

// readStream is docs/transport.md's "Read a binary stream".
func readStream(in io.Reader) error {
	r := framing.NewReader(bufio.NewReader(in), framing.ReaderOptions{})
	for ev, err := range r.Events() {
		if err != nil {
			if framing.Skippable(err) {
				continue // one bad frame; the stream goes on
			}
			return err
		}
		fmt.Println(ev.Type())
	}
	return nil
}

// convertJSON is docs/transport.md's JSON ⇄ binary conversion.
func convertJSON() error {
	wire, err := codec.AppendFromJSON(nil, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`))
	if err != nil {
		return err
	}
	js, err := codec.AppendJSONFromWire(nil, wire) // and back
	if err != nil {
		return err
	}
	fmt.Println(len(wire), "bytes on the wire;", string(js))
	return nil
}

func Example_framing() {
	var stream bytes.Buffer
	if err := writeStream(&stream); err != nil {
		fmt.Println(err)
	}
	if err := readStream(&stream); err != nil {
		fmt.Println(err)
	}
	if err := convertJSON(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// TEXT_MESSAGE_CONTENT
	// 14 bytes on the wire; {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}
}

// serve is the server of README.md and docs/transport.md: it mounts the agent at /agent on mux.
func serve(mux *http.ServeMux) error {
	agent, err := transport.NewHandler(func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for _, ev := range []event.Event{
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)},
			&event.TextMessageContent{MessageID: "m1", Delta: "Hello"},
			&event.TextMessageEnd{MessageID: "m1"},
			&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID},
		} {
			if err := w.WriteEvent(ev); err != nil {
				return err // the client went away, or the event was refused (*transport.EventError)
			}
		}
		return nil
	}, transport.HandlerOptions{})
	if err != nil {
		return err
	}
	mux.Handle("/agent", agent)
	return nil
}

// newServer is docs/transport.md's http.Server with the timeouts a handler needs.
func newServer(mux *http.ServeMux) *http.Server {
	srv := &http.Server{
		Addr:              "127.0.0.1:8080",
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the request, not the run
		IdleTimeout:       60 * time.Second,
	}
	return srv
}

// corsAgent is docs/transport.md's handler for pages on other origins.
func corsAgent(run transport.RunFunc) (http.Handler, error) {
	agent, err := transport.NewHandler(run, transport.HandlerOptions{
		CORS: &transport.CORSOptions{
			AllowOrigins: []string{"https://app.example", "http://localhost:5173"}, // or "*"
			// Request headers beyond the ones AG-UI uses.
			AllowHeaders: []string{"Authorization"},
			MaxAge:       10 * time.Minute, // how long a browser keeps the preflight
		},
	})
	return agent, err
}

// client is docs/transport.md's client.
func client(ctx context.Context, serverURL string) error {
	c, err := transport.NewClient(serverURL+"/agent", transport.ClientOptions{})
	if err != nil {
		return err
	}
	in := &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}
	r, err := c.Run(ctx, in)
	if err != nil {
		return err
	}
	defer r.Close()
	for ev, err := range r.Events() {
		if err != nil {
			if framing.Skippable(err) {
				continue // one bad event; the stream goes on
			}
			return err
		}
		fmt.Println(ev.Type())
	}
	return nil
}

func Example_http() {
	mux := http.NewServeMux()
	if err := serve(mux); err != nil {
		fmt.Println(err)
		return
	}
	srv := newServer(mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0") // instead of srv.ListenAndServe on :8080
	if err != nil {
		fmt.Println(err)
		return
	}
	go srv.Serve(ln)
	defer srv.Close()
	if err := client(context.Background(), "http://"+ln.Addr().String()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}

// follow keeps a UI current: r is a framing.Reader or a transport.EventReader.
func follow(r interface {
	Events() iter.Seq2[event.Event, error]
}, render func([]event.Message, event.RawValue)) error {
	c, err := assemble.New(assemble.Options{Check: true})
	if err != nil {
		return err
	}
	for ev, err := range r.Events() {
		if err != nil {
			return err
		}
		if err := c.Apply(ev); err != nil {
			return err // *SequenceError or *ApplyError, with the event index
		}
		render(c.Messages(), c.State()) // the current conversation, any time
	}
	return nil
}

// or in one call, the whole stream with its read errors: assemble.FromSeq(r.Events(), opts)

// TestFollow runs docs/assembling.md's assembling loop over a framed stream.
func TestFollow(t *testing.T) {
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{})
	for _, ev := range []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.TextMessageStart{MessageID: "m", Role: event.Ptr("assistant")},
		&event.TextMessageContent{MessageID: "m", Delta: "hi"},
		&event.TextMessageEnd{MessageID: "m"},
		&event.RunFinished{ThreadID: "t", RunID: "r"},
	} {
		if err := w.WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	var last []event.Message
	err := follow(framing.NewReader(&buf, framing.ReaderOptions{}), func(m []event.Message, _ event.RawValue) { last = m })
	if err != nil || len(last) != 1 || last[0].Content == nil || *last[0].Content != "hi" {
		t.Fatalf("follow: %v, %+v", err, last)
	}
}

// turn runs one turn of a conversation to its end: each run that stops
// for approvals (RUN_FINISHED with an interrupt outcome) is answered by
// the next run, which resumes the agent's work with the answers.
func turn(ctx context.Context, c *transport.Client, text string) error {
	thread := agent.New(agent.Adapt(c.Run), agent.Options{})
	thread.AddMessages(event.Message{ID: "u1", Role: event.RoleUser, Content: event.Ptr(text)})
	res, err := thread.Run(ctx, agent.RunParams{})
	for err == nil && len(res.Interrupts) > 0 {
		var resume []event.ResumeEntry
		for _, in := range res.Interrupts { // each pending interrupt needs an answer
			fmt.Println("approving", in.ID, in.Reason)
			resume = append(resume, event.ResumeEntry{InterruptID: in.ID, Status: event.ResumeResolved,
				Payload: event.RawValue(`{"approved":true}`)})
		}
		res, err = thread.Run(ctx, agent.RunParams{Resume: resume}) // the resumed run
	}
	if err != nil {
		return err
	}
	for _, m := range res.NewMessages {
		if m.Content != nil {
			fmt.Println(m.Role+":", *m.Content)
		}
	}
	return nil
}

// Example_interrupt runs docs/assembling.md's turn against an agent that
// asks for an approval before it sends a report.
func Example_interrupt() {
	run := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		evs := []event.Event{&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}}
		if len(in.Resume) == 0 {
			evs = append(evs, &event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Outcome: &event.RunOutcome{
				Type:       event.OutcomeInterrupt,
				Interrupts: []event.Interrupt{{ID: "send-report", Reason: "tool_approval"}},
			}})
		} else {
			fmt.Printf("resumed with %s %s %s\n", in.Resume[0].InterruptID, in.Resume[0].Status, in.Resume[0].Payload)
			evs = append(evs,
				&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)},
				&event.TextMessageContent{MessageID: "m1", Delta: "Sent."},
				&event.TextMessageEnd{MessageID: "m1"},
				&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}
		for _, ev := range evs {
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}
	h, err := transport.NewHandler(run, transport.HandlerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := transport.NewClient(srv.URL, transport.ClientOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := turn(context.Background(), c, "Send the report to Ana."); err != nil {
		fmt.Println(err)
	}
	// Output:
	// approving send-report tool_approval
	// resumed with send-report resolved {"approved":true}
	// assistant: Sent.
}

// resumable is docs/resumable-runs.md's "Over HTTP": a run log, a resumable
// agent and its follower route.
func resumable(mux *http.ServeMux, run transport.RunFunc) error {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	agent, err := transport.NewHandler(run, transport.HandlerOptions{
		Log:    log,
		Detach: true, // the run goes on when its client leaves (RunContext, RunDeadline end it)
	})
	if err != nil {
		return err
	}
	follow, err := transport.NewFollowHandler(log, transport.FollowOptions{})
	if err != nil {
		return err
	}
	mux.Handle("POST /agent", agent)
	mux.Handle("GET /agent/runs/{run}", follow) // any number of followers, from any cursor
	return nil
}

// browserAgent is docs/browser.md's handler for a web UI on another origin:
// resumable, compressed, with CORS.
func browserAgent(mux *http.ServeMux, run transport.RunFunc) error {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	agent, err := transport.NewHandler(run, transport.HandlerOptions{
		Log:         log,
		Compression: []string{"zstd", "gzip"},
		CORS:        &transport.CORSOptions{AllowOrigins: []string{"https://app.example"}},
	})
	if err != nil {
		return err
	}
	mux.Handle("/agent", agent)
	return nil
}

func Example_browserAgent() {
	mux := http.NewServeMux()
	err := browserAgent(mux, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/agent", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type, agwire-keepalive, last-event-id")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	// Output: 204 https://app.example
}

func Example_resumable() {
	mux := http.NewServeMux()
	err := resumable(mux, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	c, err := transport.NewClient(srv.URL+"/agent", transport.ClientOptions{Reconnect: &transport.ReconnectOptions{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "t", RunID: "r1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var first runlog.Cursor
	for ev, err := range r.Events() {
		cur, _ := r.Cursor() // r1/<the run's incarnation>/N
		if cur.Seq == 1 {
			first = cur
		}
		fmt.Println(cur.Run, cur.Seq, ev.Type(), err)
	}
	r.Close()
	f, err := c.Follow(ctx, "r1", first)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	for ev, err := range f.Events() {
		fmt.Println("follower:", ev.Type(), err)
	}
	// Output:
	// r1 1 RUN_STARTED <nil>
	// r1 2 RUN_FINISHED <nil>
	// follower: RUN_FINISHED <nil>
}

// normalize drops blank lines and the indentation of every line.
func normalize(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// goBlocks are the Go blocks each page must have, in order, by their first
// line: a page that loses one, or gains one not listed here, fails
// TestDocSnippets. Every block must also be in this file, where it compiles
// and the examples above run it.
var goBlocks = map[string][]string{
	"README.md": {
		"agent, err := transport.NewHandler(",
	},
	"docs/transport.md": {
		"w := framing.NewWriter(out, framing.WriterOptions{})",
		"r := framing.NewReader(bufio.NewReader(in), framing.ReaderOptions{})",
		"wire, err := codec.AppendFromJSON(",
		"agent, err := transport.NewHandler(",
		"srv := &http.Server{",
		"c, err := transport.NewClient(serverURL+\"/agent\", transport.ClientOptions{})",
		"agent, err := transport.NewHandler(run, transport.HandlerOptions{",
	},
	"docs/assembling.md": {
		"// follow keeps a UI current: r is a framing.Reader or a transport.EventReader.",
		"// turn runs one turn of a conversation to its end: each run that stops",
	},
	"docs/resumable-runs.md": {
		"log := runlog.NewMemory(runlog.MemoryOptions{})",
	},
	"docs/browser.md": {
		"log := runlog.NewMemory(runlog.MemoryOptions{})",
	},
	"docs/cli.md":         nil,
	"docs/design.md":      nil,
	"docs/performance.md": nil,
}

// maxFrontPage bounds README.md: what agwire is, why binary, the two
// commands, an example and the map of the packages; the rest is in docs/.
const maxFrontPage = 12 << 10

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestDocSnippets: every page (README.md and docs/*.md, each listed in
// goBlocks) has exactly the Go blocks listed for it, and every Go block is
// in this file, so it compiles, fits the current API and runs in the
// examples above.
func TestDocSnippets(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md")
	if len(pages) != len(goBlocks) {
		t.Errorf("%d pages (README.md and docs/*.md), %d listed in goBlocks", len(pages), len(goBlocks))
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := normalize(string(self))
	for _, page := range pages {
		name := strings.TrimPrefix(page, "../../")
		want, listed := goBlocks[name]
		if !listed {
			t.Errorf("%s is not listed in goBlocks", name)
			continue
		}
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if name == "README.md" && len(text) > maxFrontPage {
			t.Errorf("README.md is %d bytes: the front page stays within %d; the guides are in docs/", len(text), maxFrontPage)
		}
		var got []string
		for _, b := range goBlock.FindAllStringSubmatch(string(text), -1) {
			first, _, _ := strings.Cut(b[1], "\n")
			got = append(got, first)
			if !strings.Contains(code, normalize(b[1])) {
				t.Errorf("this Go block of %s is not in internal/readme/readme_test.go (it must compile and run here):\n%s", name, b[1])
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s has %d Go blocks, want %d: %q", name, len(got), len(want), want)
			continue
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("%s: Go block %d starts %q, want %q", name, i+1, got[i], want[i])
			}
		}
	}
}

// TestDesignGraph: the table of imports in docs/design.md is the main
// module's import graph, bottom to top: each package imports (outside its
// tests) exactly the agwire packages its row lists, all of them on earlier
// rows, and every package of the module is in the table or named beside
// it (besideGraph).
func TestDesignGraph(t *testing.T) {
	const module = "github.com/agwire/agwire/"
	text, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\| (.*) \\|$")
	tick := regexp.MustCompile("`([a-z/]+)`")
	seen := map[string]bool{}
	rows := row.FindAllStringSubmatch(string(text), -1)
	if len(rows) < 10 {
		t.Fatalf("docs/design.md has %d rows of imports", len(rows))
	}
	for _, r := range rows {
		pkg := r[1]
		var listed []string
		for _, m := range tick.FindAllStringSubmatch(r[2], -1) {
			listed = append(listed, m[1])
			if !seen[m[1]] {
				t.Errorf("docs/design.md: %s imports %s, which is not on an earlier row", pkg, m[1])
			}
		}
		bp, err := build.ImportDir(filepath.Join("../..", pkg), 0)
		if err != nil {
			t.Errorf("docs/design.md names %s: %v", pkg, err)
			continue
		}
		var actual []string
		for _, imp := range bp.Imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				actual = append(actual, rest)
			}
		}
		slices.Sort(actual)
		slices.Sort(listed)
		if !slices.Equal(actual, listed) {
			t.Errorf("docs/design.md: %s imports %q, the table says %q", pkg, actual, listed)
		}
		seen[pkg] = true
	}
	// Every package of the main module (nested modules are their own).
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		rel = filepath.ToSlash(rel)
		if rel != "." {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil || len(bp.GoFiles) == 0 {
			return nil // no package, or only tests
		}
		if !seen[rel] && !besideGraph[rel] {
			t.Errorf("package %s is neither in docs/design.md's table of imports nor beside it (besideGraph)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range besideGraph {
		if !strings.Contains(string(text), "`"+pkg+"`") && !strings.Contains(string(text), "`"+pkg+"/`") {
			t.Errorf("docs/design.md does not name %s beside the graph", pkg)
		}
	}
}

// besideGraph are the main module's packages docs/design.md names beside
// the graph: test helpers, generators and the test-only packages.
var besideGraph = map[string]bool{
	"assemble/assembletest": true,
	"runlog/runlogtest":     true,
	"internal/codecgen":     true,
	"internal/difftest":     true,
	"internal/linkcheck":    true,
	"internal/readme":       true,
	"internal/webagent":     true,
	"internal/cmd/webagent": true,
	"fuzz":                  true,
	"interop":               true,
	"conformance":           true,
}

// TestDocSnippetsCheckWrites: no Go block of README.md or docs/*.md drops
// the error of a write (an event refused, a client gone): a reader copies
// the examples.
func TestDocSnippetsCheckWrites(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	dropped := regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_.]*\.(WriteEvent|WriteJSON|Write)\(`)
	for _, page := range append(pages, "../../README.md") {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range goBlock.FindAllStringSubmatch(string(text), -1) {
			for line := range strings.SplitSeq(b[1], "\n") {
				if dropped.MatchString(line) {
					t.Errorf("%s: a Go block drops a write's error: %s", strings.TrimPrefix(page, "../../"), strings.TrimSpace(line))
				}
			}
		}
	}
}
