package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// TestKeepaliveSlowRun: a run whose events come 2 s apart is read whole
// with an IdleTimeout of 1 s, on both carriers, plain and resumable,
// because the server keeps the stream alive every 200 ms: SSE comments,
// and on binary the zero-length frames agwire's client asks for. The
// binary response says it sends them (HeaderKeepalive). Before, only
// resumable SSE streams had heartbeats: the others were cut at 1 s.
func TestKeepaliveSlowRun(t *testing.T) {
	evs := pacedEvents(3)
	for _, tc := range []struct {
		name      string
		accept    string
		coding    string
		resumable bool
	}{
		{"sse", transport.MediaTypeSSE, "", false},
		{"binary", transport.MediaTypeBinary, "", false},
		{"binary+zstd", transport.MediaTypeBinary, transport.EncodingZstd, false},
		{"binary/resumable", transport.MediaTypeBinary, "", true},
		{"sse+gzip/resumable", transport.MediaTypeSSE, transport.EncodingGzip, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := transport.HandlerOptions{Heartbeat: 200 * time.Millisecond}
			if tc.coding != "" {
				opts.Compression = []string{tc.coding}
			}
			fn := pacedRun(evs, 2*time.Second)
			var url string
			if tc.resumable {
				url = newResumeServer(t, opts, fn).URL
			} else {
				srv := httptest.NewServer(mustHandler(opts, fn))
				t.Cleanup(srv.Close)
				url = srv.URL
			}
			r, err := idleClient(t, url, tc.accept, tc.coding, transport.ClientOptions{}).Run(testCtx(t), inputFor("slow-"+strings.NewReplacer("+", "-", "/", "-").Replace(tc.name)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkCoding(t, r, tc.accept, tc.coding)
			if _, ok := r.Cursor(); ok != tc.resumable {
				t.Fatalf("resumable %v, want %v", ok, tc.resumable)
			}
			if got, want := r.Response().Header.Get(transport.HeaderKeepalive), map[bool]string{true: "1"}[tc.accept == transport.MediaTypeBinary]; got != want {
				t.Errorf("response %s %q, want %q", transport.HeaderKeepalive, got, want)
			}
			if got := readAll(t, r); describe(got) != describe(evs) {
				t.Fatalf("got %s, want %s", describe(got), describe(evs))
			}
		})
	}
}

// rawBinary posts a run request for the binary stream, with the
// keep-alive header when keepalive, and returns the response with its
// whole body.
func rawBinary(t *testing.T, url string, keepalive bool) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{"Accept": transport.MediaTypeBinary}
	if keepalive {
		h[transport.HeaderKeepalive] = "1"
	}
	resp := post(t, noCompressionClient(), url, validBody, h)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestKeepaliveFramesOnlyWhenAsked: a binary stream gets zero-length
// frames only when its request carries HeaderKeepalive: 1, and then says
// so in the response. Without it, as from the stock @ag-ui/proto client,
// the body is exactly the events' frames, however long the silences; on
// a resumable run too.
func TestKeepaliveFramesOnlyWhenAsked(t *testing.T) {
	evs := pacedEvents(2)
	var want []byte
	for _, ev := range evs {
		want = append(want, frameOf(t, ev)...)
	}
	fn := pacedRun(evs, 500*time.Millisecond)
	opts := transport.HandlerOptions{Heartbeat: 50 * time.Millisecond}
	plain := httptest.NewServer(mustHandler(opts, fn))
	defer plain.Close()
	resumable := newResumeServer(t, opts, fn)
	for name, url := range map[string]string{"plain": plain.URL, "resumable": resumable.URL} {
		t.Run(name, func(t *testing.T) {
			resp, body := rawBinary(t, url, false)
			if !bytes.Equal(body, want) {
				t.Errorf("without %s: body % x, want the two frames alone, % x", transport.HeaderKeepalive, body, want)
			}
			if v := resp.Header.Get(transport.HeaderKeepalive); v != "" {
				t.Errorf("without %s the response says %q", transport.HeaderKeepalive, v)
			}
			if !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), transport.HeaderKeepalive) {
				t.Errorf("Vary %q does not name %s", resp.Header.Values("Vary"), transport.HeaderKeepalive)
			}
		})
	}
	// The run log holds run-1 now: ask the plain server only.
	resp, body := rawBinary(t, plain.URL, true)
	if v := resp.Header.Get(transport.HeaderKeepalive); v != "1" {
		t.Errorf("with %s: the response says %q, want 1", transport.HeaderKeepalive, v)
	}
	first := frameOf(t, evs[0])
	last := frameOf(t, evs[1])
	if !bytes.HasPrefix(body, first) || !bytes.HasSuffix(body, last) {
		t.Fatalf("with %s: body % x does not start and end with the events' frames", transport.HeaderKeepalive, body)
	}
	mid := body[len(first) : len(body)-len(last)]
	if len(mid) < 4*3 || len(mid)%4 != 0 || bytes.ContainsFunc(mid, func(r rune) bool { return r != 0 }) {
		t.Fatalf("with %s: between the events % x, want several zero-length frames (00 00 00 00)", transport.HeaderKeepalive, mid)
	}
}

// cutDoer cuts the body of its first response after limit bytes.
type cutDoer struct {
	client *http.Client
	limit  int
	n      int
}

func (d *cutDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if err == nil && d.n == 0 {
		resp.Body = &cutBody{ReadCloser: resp.Body, left: d.limit}
	}
	d.n++
	return resp, err
}

type cutBody struct {
	io.ReadCloser
	left int
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errors.New("cut by the test")
	}
	n, err := b.ReadCloser.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}

// TestKeepaliveFramesNotInCursor: keep-alive frames are not events: a
// binary stream of a resumable run cut after three events and two
// keep-alive frames resumes from the third event's cursor, and the reader
// gets every event once.
func TestKeepaliveFramesNotInCursor(t *testing.T) {
	evs := pacedEvents(6)
	fn := func(ctx context.Context, _ *http.Request, _ *event.RunAgentInput, w transport.EventWriter) error {
		for i, ev := range evs {
			if i == 3 {
				time.Sleep(400 * time.Millisecond) // 8 heartbeats
			}
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}
	s := newResumeServer(t, transport.HandlerOptions{Detach: true, Heartbeat: 50 * time.Millisecond}, fn)
	limit := 2 * 4
	for _, ev := range evs[:3] {
		limit += len(frameOf(t, ev))
	}
	d := &cutDoer{client: freshClient(), limit: limit}
	c, err := transport.NewClient(s.URL, transport.ClientOptions{HTTPClient: d, Reconnect: fastReconnect})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(testCtx(t), inputFor("keepalive-cursor"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Response().Header.Get(transport.HeaderKeepalive) != "1" {
		t.Fatal("the first response does not send keep-alive frames")
	}
	if got := readAll(t, r); describe(got) != describe(evs) {
		t.Fatalf("got %s, want %s", describe(got), describe(evs))
	}
	if d.n != 2 {
		t.Fatalf("%d requests, want 2 (the cut, then the resumption)", d.n)
	}
}

// TestZeroLengthFrameWithoutKeepalive: from a server that did not say it
// sends keep-alive frames, a zero-length frame is what AG-UI 1.0 makes of
// it, an event that does not decode (the TypeScript encoder writes one for
// a THINKING_* event): an *EventError, and the stream goes on.
func TestZeroLengthFrameWithoutKeepalive(t *testing.T) {
	evs := pacedEvents(2)
	body := append(append(frameOf(t, evs[0]), 0, 0, 0, 0), frameOf(t, evs[1])...)
	for _, echo := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", transport.MediaTypeBinary)
			if echo {
				w.Header().Set(transport.HeaderKeepalive, "1")
			}
			w.Write(body)
		}))
		r, err := startRun(testCtx(t), nil, srv.URL, testInput(), transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []event.Event
		var bad []error
		for ev, err := range r.Events() {
			if err != nil {
				bad = append(bad, err)
				continue
			}
			got = append(got, ev)
		}
		r.Close()
		srv.Close()
		if describe(got) != describe(evs) {
			t.Errorf("echo %v: events %s, want %s", echo, describe(got), describe(evs))
		}
		var ee *transport.EventError
		switch {
		case echo && len(bad) != 0:
			t.Errorf("with %s: errors %v, want the empty frame skipped", transport.HeaderKeepalive, bad)
		case !echo && (len(bad) != 1 || !errors.As(bad[0], &ee) || ee.Index != 1):
			t.Errorf("without %s: errors %v, want one *EventError for event 1", transport.HeaderKeepalive, bad)
		}
	}
}
