package interop

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// largestDelta returns the TEXT_MESSAGE_CONTENT of x's whose size, by
// size, is exactly n.
func largestDelta(t *testing.T, n int, size func(event.Event) int) *event.TextMessageContent {
	t.Helper()
	ev := &event.TextMessageContent{MessageID: "big", Delta: "x"}
	for k := n - size(ev) + 1; k > 0; k-- {
		ev.Delta = strings.Repeat("x", k)
		if got := size(ev); got <= n {
			if got != n {
				t.Fatalf("no delta gives %d bytes (got %d)", n, got)
			}
			return ev
		}
	}
	t.Fatalf("no delta gives %d bytes", n)
	return nil
}

// splitLast is a ResponseWriter that sends each SSE write of more than 1
// KiB in two chunks, all but its last byte and then the last byte, flushed
// 4 s apart: the block reaches the client without its final line feed
// first, the most its parser ever holds of it. (The client takes a few
// seconds to take in 10 MiB; with a shorter pause the last byte joins the
// last chunk it reads, and one byte more than the limit goes through.)
type splitLast struct {
	http.ResponseWriter
}

func (s splitLast) Write(b []byte) (int, error) {
	if len(b) <= 1<<10 || s.Header().Get("Content-Type") != transport.MediaTypeSSE {
		return s.ResponseWriter.Write(b)
	}
	n, err := s.ResponseWriter.Write(b[:len(b)-1])
	if err != nil {
		return n, err
	}
	http.NewResponseController(s.ResponseWriter).Flush()
	time.Sleep(4 * time.Second)
	m, err := s.ResponseWriter.Write(b[len(b)-1:])
	return n + m, err
}

func (s splitLast) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// TestHTTPAgentReadsLargestDefaultEvent: with default options agwire's
// handler writes the largest event the real HttpAgent of @ag-ui/client
// 1.0.0 reads — a binary frame of 10 MiB (prefix included), an SSE block
// holding 10 MiB before its last line feed, delivered so that the client's
// parser holds all of it at once — and HttpAgent reads it. One byte more is
// refused by agwire's writer, with ErrEventTooLarge, before anything is
// sent, and the run goes on to RUN_FINISHED.
func TestHTTPAgentReadsLargestDefaultEvent(t *testing.T) {
	requireNode(t, "httpagent.mjs")
	frame := func(ev event.Event) int {
		b, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		return 4 + len(b)
	}
	held := func(ev event.Event) int {
		b, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return len("data: ") + len(b) + 1
	}
	largest := map[string][2]*event.TextMessageContent{
		transport.MediaTypeBinary: {largestDelta(t, framing.PeerMaxFrame, frame), largestDelta(t, framing.PeerMaxFrame+1, frame)},
		transport.MediaTypeSSE:    {largestDelta(t, transport.PeerMaxSSEBuffer, held), largestDelta(t, transport.PeerMaxSSEBuffer+1, held)},
	}
	var mu sync.Mutex
	overErrs := map[string]error{}
	h := mustHandler(transport.HandlerOptions{}, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		evs := largest[w.ContentType()]
		for _, ev := range []event.Event{
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.TextMessageStart{MessageID: "big", Role: event.Ptr("assistant")},
			evs[0],
		} {
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		err := w.WriteEvent(evs[1])
		mu.Lock()
		overErrs[w.ContentType()] = err
		mu.Unlock()
		if err := w.WriteEvent(&event.TextMessageEnd{MessageID: "big"}); err != nil {
			return err
		}
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(splitLast{w}, r)
	}))
	defer srv.Close()

	outs := runHTTPAgent(t, srv.URL, "binary", srv.URL, "sse")
	for i, mt := range []string{transport.MediaTypeBinary, transport.MediaTypeSSE} {
		t.Run(mt, func(t *testing.T) {
			out := outs[i]
			if out.RunError != "" || len(out.Errors) > 0 {
				t.Fatalf("HttpAgent failed: %s %v", out.RunError, out.Errors)
			}
			if out.Response.ContentType != mt {
				t.Fatalf("served %s", out.Response.ContentType)
			}
			var types []string
			var delta int
			for _, raw := range out.Events {
				var ev struct {
					Type  string `json:"type"`
					Delta string `json:"delta"`
				}
				if err := json.Unmarshal(raw, &ev); err != nil {
					t.Fatal(err)
				}
				types = append(types, ev.Type)
				if ev.Type == "TEXT_MESSAGE_CONTENT" {
					delta = len(ev.Delta)
				}
			}
			want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
			if strings.Join(types, " ") != want {
				t.Fatalf("HttpAgent saw %v", types)
			}
			if delta != len(largest[mt][0].Delta) {
				t.Fatalf("HttpAgent read a delta of %d bytes, want %d", delta, len(largest[mt][0].Delta))
			}
			mu.Lock()
			err := overErrs[mt]
			mu.Unlock()
			if _, ok := errors.AsType[*transport.EventError](err); !ok || !errors.Is(err, transport.ErrEventTooLarge) {
				t.Fatalf("one byte more: %v, want an *EventError wrapping ErrEventTooLarge", err)
			}
		})
	}
}
