package transport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// sizedDelta returns a TEXT_MESSAGE_CONTENT event of x's for which size
// reports exactly n.
func sizedDelta(t testing.TB, n int, size func(ev event.Event) int) *event.TextMessageContent {
	t.Helper()
	ev := &event.TextMessageContent{MessageID: "m", Delta: "x"}
	k := n - size(ev) + 1
	for ; k > 0; k-- {
		ev.Delta = strings.Repeat("x", k)
		if got := size(ev); got <= n {
			if got != n {
				t.Fatalf("no delta gives a size of %d (got %d)", n, got)
			}
			return ev
		}
	}
	t.Fatalf("no delta gives a size of %d", n)
	return nil
}

// frameSize is the binary frame of ev, prefix included.
func frameSize(t testing.TB) func(event.Event) int {
	return func(ev event.Event) int {
		b, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		return 4 + len(b)
	}
}

// sseHeld is what the stock SSE parser holds of ev's block before its last
// line feed arrives: "data: <JSON>\n".
func sseHeld(t testing.TB) func(event.Event) int {
	return func(ev event.Event) int {
		b, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return len("data: ") + len(b) + 1
	}
}

// TestWriterPeerLimits: with default options a writer sends the largest
// event the stock TypeScript client reads — a frame of 10 MiB, prefix
// included; an SSE block holding 10 MiB before its last line feed — and
// refuses one byte more with an *EventError wrapping ErrEventTooLarge that
// names the limit and the option raising it. A default reader (16 MiB)
// reads what was sent.
func TestWriterPeerLimits(t *testing.T) {
	for _, tc := range []struct {
		accept string
		size   func(event.Event) int
		limit  int
	}{
		{transport.MediaTypeBinary, frameSize(t), framing.PeerMaxFrame},
		{transport.MediaTypeSSE, sseHeld(t), transport.PeerMaxSSEBuffer},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			if tc.limit != 10<<20 {
				t.Fatalf("limit %d", tc.limit)
			}
			fits := sizedDelta(t, tc.limit, tc.size)
			over := sizedDelta(t, tc.limit+1, tc.size)
			var overErr error
			h, err := transport.NewHandler(func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
				if err := w.WriteEvent(fits); err != nil {
					return err
				}
				overErr = w.WriteEvent(over)
				return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
			}, transport.HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			r, err := startRun(context.Background(), nil, srv.URL, testInput(), transport.ClientOptions{Prefer: prefer(tc.accept == transport.MediaTypeSSE)})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []event.Event
			for ev, err := range r.Events() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			if len(got) != 2 || got[0].(*event.TextMessageContent).Delta != fits.Delta {
				t.Fatalf("read %d events", len(got))
			}
			ee, ok := errors.AsType[*transport.EventError](overErr)
			if !ok || !errors.Is(overErr, transport.ErrEventTooLarge) || ee.Index != 1 {
				t.Fatalf("one byte more: %v, want an *EventError wrapping ErrEventTooLarge", overErr)
			}
			if msg := overErr.Error(); !strings.Contains(msg, "10485760") || !strings.Contains(msg, "HandlerOptions.MaxEventSize") {
				t.Errorf("%q does not name the limit and the option", msg)
			}
			// NewEventWriter names its own option.
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept", tc.accept)
			w, err := transport.NewEventWriter(rec, req, transport.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteEvent(over); !strings.Contains(err.Error(), "WriterOptions.MaxEventSize") {
				t.Errorf("NewEventWriter: %v", err)
			}
			// A raised limit sends it.
			rec = httptest.NewRecorder()
			w, err = transport.NewEventWriter(rec, req, transport.WriterOptions{MaxEventSize: 12 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteEvent(over); err != nil {
				t.Errorf("raised limit: %v", err)
			}
		})
	}
}
