package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// TestZeroLengthFrameIsNoHeartbeat: why a binary stream gets keep-alive
// frames only when its request asks for them (transport.HeaderKeepalive,
// agwire's extension). The only frame the format has is an event's; an
// empty one, the one candidate, is not ignored by @ag-ui/proto's stream
// reader: it does not deliver the events after it.
func TestZeroLengthFrameIsNoHeartbeat(t *testing.T) {
	payload, err := codec.AppendFromJSON(nil, []byte(`{"type":"STEP_STARTED","stepName":"plan"}`))
	if err != nil {
		t.Fatal(err)
	}
	stream := frameConcat([][]byte{payload, {}, payload})
	r := do(t, ParseStreamRequest(stream, 0))[0]
	if r.Err() == nil && len(r.Events) == 2 {
		t.Fatalf("parseProtoStream read past a zero-length frame (%d events): a binary heartbeat would be possible", len(r.Events))
	}
	t.Logf("parseProtoStream on a zero-length frame between two events: %d events, error %v, warned %v", len(r.Events), r.Err(), r.Warned)
}

// capturedResponse is what a slowAgentServer sent for one request.
type capturedResponse struct {
	keepaliveAsked bool // the request carried transport.HeaderKeepalive
	header         http.Header
	body           bytes.Buffer
}

// captureWriter keeps a copy of what a handler writes; Unwrap lets
// http.ResponseController reach the connection's Flush.
type captureWriter struct {
	http.ResponseWriter
	c *capturedResponse
}

func (w *captureWriter) Write(p []byte) (int, error) {
	w.c.body.Write(p)
	return w.ResponseWriter.Write(p)
}

func (w *captureWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// slowAgentServer serves weatherRun with a silence of pause before its
// second and its eighth event, and keeps each response's bytes by run id.
type slowAgentServer struct {
	*httptest.Server
	mu   sync.Mutex
	resp map[string]*capturedResponse
}

func newSlowAgentServer(t *testing.T, heartbeat, pause time.Duration) *slowAgentServer {
	s := &slowAgentServer{resp: map[string]*capturedResponse{}}
	type key struct{}
	agent := mustHandler(transport.HandlerOptions{Heartbeat: heartbeat}, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		s.mu.Lock()
		s.resp[in.RunID] = ctx.Value(key{}).(*capturedResponse)
		s.mu.Unlock()
		for i, ev := range weatherRun(in) {
			if i == 1 || i == 7 {
				select {
				case <-time.After(pause):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &capturedResponse{keepaliveAsked: r.Header.Get(transport.HeaderKeepalive) != "", header: w.Header()}
		agent.ServeHTTP(&captureWriter{w, c}, r.WithContext(context.WithValue(r.Context(), key{}, c)))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *slowAgentServer) response(t *testing.T, runID string) *capturedResponse {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.resp[runID]
	if c == nil {
		t.Fatalf("no run %q reached the server", runID)
	}
	return c
}

// TestHTTPAgentThroughHeartbeats: the stock HttpAgent of @ag-ui/client
// 1.0.0 against a server that keeps its streams alive every 20 ms, with
// two silences of 300 ms in the run, sees the same events and assembles
// the same conversation as against a server without heartbeats, on both
// carriers. On SSE it skipped the keep-alive comments (they were sent); on
// binary it got none: it does not send transport.HeaderKeepalive, so the
// stream is the events' frames alone, as AG-UI 1.0 has it.
func TestHTTPAgentThroughHeartbeats(t *testing.T) {
	requireNode(t, "httpagent.mjs")
	const pause = 300 * time.Millisecond
	quiet := newSlowAgentServer(t, -1, pause)
	beating := newSlowAgentServer(t, 20*time.Millisecond, pause)
	outs := runHTTPAgent(t, quiet.URL, "binary", beating.URL, "binary", quiet.URL, "sse", beating.URL, "sse")
	for i, mode := range []string{"binary", "sse"} {
		without, with := outs[2*i], outs[2*i+1]
		for _, out := range []*agentOutput{without, with} {
			if out.RunError != "" || len(out.Errors) > 0 {
				t.Fatalf("%s: HttpAgent failed: %s %v", mode, out.RunError, out.Errors)
			}
		}
		if len(with.Events) != len(without.Events) || len(with.Events) != len(weatherRun(&event.RunAgentInput{})) {
			t.Errorf("%s: %d events with heartbeats, %d without, want %d", mode, len(with.Events), len(without.Events), len(weatherRun(&event.RunAgentInput{})))
		}
		for j := range min(len(with.Events), len(without.Events)) {
			if d := jsonDiff(with.Events[j], without.Events[j]); d != "" {
				t.Errorf("%s: event %d: %s", mode, j, d)
			}
		}
		for _, pair := range [][2]json.RawMessage{{with.Messages, without.Messages}, {with.State, without.State}, {with.Result, without.Result}} {
			if d := jsonDiff(pair[0], pair[1]); d != "" {
				t.Errorf("%s, with heartbeats vs without: %s", mode, d)
			}
		}

		c := beating.response(t, "run-"+mode)
		body := c.body.Bytes()
		switch mode {
		case "sse":
			if n := bytes.Count(body, []byte(": keep-alive\n\n")); n < 2 {
				t.Errorf("sse: the server sent %d keep-alive comments in two silences of %v", n, pause)
			}
		case "binary":
			if c.keepaliveAsked || c.header.Get(transport.HeaderKeepalive) != "" {
				t.Errorf("binary: HttpAgent asked for keep-alive frames (%v) or the server offered them (%q)", c.keepaliveAsked, c.header.Get(transport.HeaderKeepalive))
			}
			frames := 0
			for p, err := range framing.NewReader(bytes.NewReader(body), framing.ReaderOptions{}).Frames() {
				if err != nil {
					t.Fatal(err)
				}
				if len(p) == 0 {
					t.Fatalf("binary: the server sent a zero-length frame to a client that did not ask")
				}
				frames++
			}
			if frames != len(with.Events) {
				t.Errorf("binary: %d frames sent, %d events seen", frames, len(with.Events))
			}
		}
	}
}
