package transport_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// The idle timer of ClientOptions.IdleTimeout measures silence on the
// connection: every byte that arrives resets it, on both carriers,
// compressed or not, with reconnection or without. These tests pace their
// servers at idleGap with an IdleTimeout of idleLimit: a run longer than
// the limit whose bytes come more often than it is read whole, and one
// that goes silent for longer is cut.
const (
	idleGap   = 300 * time.Millisecond
	idleLimit = time.Second
)

type idleCase struct{ name, accept, coding string }

// idleCases are the carriers and codings the idle tests cover.
var idleCases = []idleCase{
	{"sse", transport.MediaTypeSSE, ""},
	{"sse+gzip", transport.MediaTypeSSE, transport.EncodingGzip},
	{"sse+zstd", transport.MediaTypeSSE, transport.EncodingZstd},
	{"binary", transport.MediaTypeBinary, ""},
	{"binary+gzip", transport.MediaTypeBinary, transport.EncodingGzip},
	{"binary+zstd", transport.MediaTypeBinary, transport.EncodingZstd},
}

// pacedCases are fewer, since each takes 3 s: each carrier plain and
// compressed, each decompressor once.
var pacedCases = []idleCase{idleCases[0], idleCases[1], idleCases[3], idleCases[5]}

// pacedEvents are n small events: RUN_STARTED, text deltas, RUN_FINISHED.
func pacedEvents(n int) []event.Event {
	evs := []event.Event{&event.RunStarted{ThreadID: "thread-1", RunID: "run-1"}}
	for i := range n - 2 {
		evs = append(evs, &event.TextMessageContent{MessageID: "m", Delta: strconv.Itoa(i)})
	}
	return append(evs, &event.RunFinished{ThreadID: "thread-1", RunID: "run-1"})
}

// pacedRun writes evs, gap apart.
func pacedRun(evs []event.Event, gap time.Duration) transport.RunFunc {
	return func(ctx context.Context, _ *http.Request, _ *event.RunAgentInput, w transport.EventWriter) error {
		for i, ev := range evs {
			if i > 0 {
				select {
				case <-time.After(gap):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}
}

func idleClient(t *testing.T, url, accept, coding string, opts transport.ClientOptions) *transport.Client {
	t.Helper()
	opts.Prefer = prefer(accept == transport.MediaTypeSSE)
	opts.Compression = compressIf(coding != "")
	opts.IdleTimeout = idleLimit
	if opts.HTTPClient == nil {
		opts.HTTPClient = noCompressionClient()
	}
	c, err := transport.NewClient(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkCoding fails the test unless r was read in the carrier and coding
// asked for, so that each case tests what it names.
func checkCoding(t *testing.T, r *transport.EventReader, accept, coding string) {
	t.Helper()
	if r.ContentType() != accept || r.ContentEncoding() != coding {
		t.Fatalf("the stream is %s %q, want %s %q", r.ContentType(), r.ContentEncoding(), accept, coding)
	}
}

// TestIdleTimeoutPacedStream: a run of 10 events idleGap apart (2.7 s in
// all) is read whole with an IdleTimeout of 1 s. Before the idle timer
// watched the connection's bytes, it fired 1 s into the response whatever
// arrived, after about 4 events.
func TestIdleTimeoutPacedStream(t *testing.T) {
	evs := pacedEvents(10)
	for _, tc := range pacedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var codings []string
			if tc.coding != "" {
				codings = []string{tc.coding}
			}
			srv := httptest.NewServer(mustHandler(transport.HandlerOptions{Compression: codings, Heartbeat: -1}, pacedRun(evs, idleGap)))
			defer srv.Close()
			r, err := idleClient(t, srv.URL, tc.accept, tc.coding, transport.ClientOptions{}).Run(testCtx(t), testInput())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkCoding(t, r, tc.accept, tc.coding)
			if got := readAll(t, r); describe(got) != describe(evs) {
				t.Fatalf("got %s, want %s", describe(got), describe(evs))
			}
		})
	}
}

// TestIdleTimeoutSilentStream: a stream that sends one event and then
// nothing ends with ErrIdleTimeout, compressed or not.
func TestIdleTimeoutSilentStream(t *testing.T) {
	for _, tc := range idleCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var codings []string
			if tc.coding != "" {
				codings = []string{tc.coding}
			}
			release := make(chan struct{})
			defer close(release)
			srv := httptest.NewServer(mustHandler(transport.HandlerOptions{Compression: codings, Heartbeat: -1},
				func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
					w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
					select {
					case <-release:
					case <-ctx.Done():
					}
					return nil
				}))
			defer srv.Close()
			r, err := idleClient(t, srv.URL, tc.accept, tc.coding, transport.ClientOptions{}).Run(testCtx(t), testInput())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkCoding(t, r, tc.accept, tc.coding)
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Next(); !errors.Is(err, transport.ErrIdleTimeout) {
				t.Fatalf("after the silence: %v, want ErrIdleTimeout", err)
			}
		})
	}
}

// encodeStream is evs as the bytes of a response body of carrier accept,
// compressed with coding.
func encodeStream(t *testing.T, evs []event.Event, accept, coding string) []byte {
	t.Helper()
	var plain bytes.Buffer
	for _, ev := range evs {
		if accept == transport.MediaTypeSSE {
			b, err := event.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			plain.WriteString("data: ")
			plain.Write(b)
			plain.WriteString("\n\n")
			continue
		}
		plain.Write(frameOf(t, ev))
	}
	var out bytes.Buffer
	switch coding {
	case "":
		return plain.Bytes()
	case transport.EncodingGzip:
		w := gzip.NewWriter(&out)
		w.Write(plain.Bytes())
		w.Close()
	case transport.EncodingZstd:
		w, err := zstd.NewWriter(&out)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(plain.Bytes())
		w.Close()
	}
	return out.Bytes()
}

// frameOf is one event as a binary frame.
func frameOf(t *testing.T, ev event.Event) []byte {
	t.Helper()
	w := wireOf(t, []event.Event{ev})[0]
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(w))), w...)
}

// dripServer sends body in pieces idleGap apart: the first piece with the
// header, the last piece pieces*idleGap later.
func dripServer(t *testing.T, accept, coding string, body []byte, pieces int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", accept)
		if coding != "" {
			w.Header().Set("Content-Encoding", coding)
		}
		size := (len(body) + pieces - 1) / pieces
		for i := 0; len(body) > 0; i++ {
			if i > 0 {
				select {
				case <-time.After(idleGap):
				case <-r.Context().Done():
					return
				}
			}
			n := min(size, len(body))
			w.Write(body[:n])
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestIdleTimeoutDrip: a response whose bytes come idleGap apart, the
// events split across the pieces (compressed: the compressed stream split,
// so most pieces complete no decompressed byte), is read whole, though
// each event takes longer than the IdleTimeout to arrive.
func TestIdleTimeoutDrip(t *testing.T) {
	evs := pacedEvents(3)
	for _, tc := range idleCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := encodeStream(t, evs, tc.accept, tc.coding)
			const pieces = 7 // 1.8 s from the first to the last
			if len(body) < pieces {
				t.Fatalf("a body of %d bytes cannot be sent in %d pieces", len(body), pieces)
			}
			srv := dripServer(t, tc.accept, tc.coding, body, pieces)
			r, err := idleClient(t, srv.URL, tc.accept, tc.coding, transport.ClientOptions{}).Run(testCtx(t), testInput())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkCoding(t, r, tc.accept, tc.coding)
			if got := readAll(t, r); describe(got) != describe(evs) {
				t.Fatalf("got %s, want %s", describe(got), describe(evs))
			}
		})
	}
}

// countingDoer counts the requests it sends.
type countingDoer struct {
	client *http.Client
	n      atomic.Int64
}

func (d *countingDoer) Do(req *http.Request) (*http.Response, error) {
	d.n.Add(1)
	return d.client.Do(req)
}

// TestIdleTimeoutPacedResumable: with Reconnect, a resumable run of
// events idleGap apart is read on its first connection: no byte-starved
// timer cuts it every IdleTimeout (which, MaxReconnects past, ended the
// read with ErrReconnectLimit).
func TestIdleTimeoutPacedResumable(t *testing.T) {
	evs := pacedEvents(10)
	for _, tc := range pacedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var codings []string
			if tc.coding != "" {
				codings = []string{tc.coding}
			}
			run := "idle-" + strings.ReplaceAll(tc.name, "+", "-")
			s := newResumeServer(t, transport.HandlerOptions{Compression: codings, Heartbeat: -1}, pacedRun(evs, idleGap))
			d := &countingDoer{client: freshClient()}
			reconnect := *fastReconnect
			reconnect.MaxReconnects = 1
			r, err := idleClient(t, s.URL, tc.accept, tc.coding, transport.ClientOptions{HTTPClient: d, Reconnect: &reconnect}).Run(testCtx(t), inputFor(run))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkCoding(t, r, tc.accept, tc.coding)
			if _, ok := r.Cursor(); !ok {
				t.Fatal("the stream is not resumable")
			}
			if got := readAll(t, r); describe(got) != describe(evs) {
				t.Fatalf("got %s, want %s", describe(got), describe(evs))
			}
			if n := d.n.Load(); n != 1 {
				t.Fatalf("%d requests, want 1: the stream was cut while events were arriving", n)
			}
		})
	}
}
