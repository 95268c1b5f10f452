// Package readme_test holds the Go snippets of the repository's README.md
// as compiled, tested code: TestREADMESnippets fails if a Go block of the
// README does not appear, line for line, in this file, and the Example
// functions run the snippets and check their output.
package readme_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// writeStream is the README's "Encode events into a binary stream".
func writeStream(out io.Writer) error {
	w := framing.NewWriter(out, framing.WriterOptions{})
	err := w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "Hello"})
	return err
}

// readStream is the README's "Read a binary stream".
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

// convertJSON is the README's JSON ⇄ binary conversion.
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

// serve is the README's server: it mounts the agent at /agent on mux.
func serve(mux *http.ServeMux) error {
	agent, err := transport.NewHandler(func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		w.WriteEvent(&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)})
		w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "Hello"})
		w.WriteEvent(&event.TextMessageEnd{MessageID: "m1"})
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}, transport.HandlerOptions{})
	if err != nil {
		return err
	}
	mux.Handle("/agent", agent)
	return nil
}

// newServer is the README's http.Server with the timeouts a handler needs.
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

// client is the README's client.
func client(ctx context.Context, serverURL string) error {
	in := &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}
	r, err := transport.Run(ctx, nil, serverURL+"/agent", in, transport.ClientOptions{})
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

// or in one call: assemble.FromSource(r, opts), FromSeq(seq, opts), FromEvents(slice, opts)

// TestFollow runs the README's assembling loop over a framed stream.
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

// resumable is the README's "Resumable runs": a run log, a resumable
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
	r, err := transport.Run(ctx, nil, srv.URL+"/agent", &event.RunAgentInput{ThreadID: "t", RunID: "r1"}, transport.ClientOptions{Reconnect: &transport.ReconnectOptions{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range r.Events() {
		cur, _ := r.Cursor()
		fmt.Println(cur, ev.Type(), err)
	}
	r.Close()
	f, err := transport.Follow(ctx, nil, srv.URL+"/agent/runs/r1", runlog.Cursor{Run: "r1", Seq: 1}, transport.ClientOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	for ev, err := range f.Events() {
		fmt.Println("follower:", ev.Type(), err)
	}
	// Output:
	// r1/1 RUN_STARTED <nil>
	// r1/2 RUN_FINISHED <nil>
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

// TestREADMESnippets: every Go block of README.md is in this file, so it
// compiles, fits the current API and runs in the examples above.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 5 {
		t.Fatalf("README.md has %d Go blocks; expected the framing, JSON, server and client ones", len(blocks))
	}
	code := normalize(string(self))
	for _, b := range blocks {
		if !strings.Contains(code, normalize(b[1])) {
			t.Errorf("this README.md Go block is not in internal/readme/readme_test.go (it must compile and run here):\n%s", b[1])
		}
	}
}
