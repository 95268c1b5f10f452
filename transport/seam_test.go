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

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// carrierStreams builds, for each transport, the body of a stream whose
// failure is the named one, after one good event.
type carrierStreams struct {
	contentType string
	good        func(ev event.Event) []byte
	bad         []byte // one event that does not decode
	unknown     []byte // one event from a later protocol version
	cut         func(good []byte) []byte
	huge        []byte // declares or holds an event of 1 MiB
}

func streamsByCarrier(t *testing.T) []carrierStreams {
	t.Helper()
	binary := func(ev event.Event) []byte {
		var b bytes.Buffer
		if err := framing.NewWriter(&b, framing.WriterOptions{}).WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	sse := func(ev event.Event) []byte {
		js, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return []byte("data: " + string(js) + "\n\n")
	}
	return []carrierStreams{{
		contentType: transport.MediaTypeBinary,
		good:        binary,
		bad:         []byte{0, 0, 0, 1, 0xff},
		unknown:     []byte{0, 0, 0, 5, 0x82, 0x02, 0x02, 0x08, 0x01},
		cut:         func(good []byte) []byte { return good[:len(good)-1] },
		huge:        []byte{0, 0x10, 0, 0},
	}, {
		contentType: transport.MediaTypeSSE,
		good:        sse,
		bad:         []byte("data: {not json}\n\n"),
		unknown:     []byte(`data: {"type":"FUTURE_EVENT","x":1}` + "\n\n"),
		cut:         func(good []byte) []byte { return good[:len(good)-2] },
		huge:        []byte("data: " + strings.Repeat("x", 1<<20) + "\n\n"),
	}}
}

// serveBody answers every request with body as contentType.
func serveBody(t *testing.T, contentType string, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// readStream reads a stream to its end with Next, returning the events and
// every error.
func readStream(t *testing.T, url string, opts transport.ClientOptions) (evs []event.Event, errs []error) {
	t.Helper()
	r, err := startRun(context.Background(), nil, url, testInput(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range 1000 {
		ev, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, err)
			if !framing.Skippable(err) {
				if _, again := r.Next(); again != err {
					t.Errorf("stream-level error not sticky: %v, then %v", err, again)
				}
				return
			}
			continue
		}
		evs = append(evs, ev)
	}
	t.Fatal("no end")
	return
}

// TestSameErrorsOnBothCarriers: each failure gives the same error type on
// SSE and on the binary transport.
func TestSameErrorsOnBothCarriers(t *testing.T) {
	step := &event.StepStarted{StepName: "s"}
	for _, c := range streamsByCarrier(t) {
		good := c.good(step)
		join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
		opts := transport.ClientOptions{MaxEventSize: 1000}

		t.Run(c.contentType, func(t *testing.T) {
			// One bad event: an *EventError, skippable, and the stream goes on.
			evs, errs := readStream(t, serveBody(t, c.contentType, join(good, c.bad, good)), opts)
			var ee *transport.EventError
			if len(evs) != 2 || len(errs) != 1 || !errors.As(errs[0], &ee) || ee.Index != 1 || !framing.Skippable(errs[0]) || errors.Is(errs[0], codec.ErrUnknownEvent) {
				t.Errorf("bad event: %d events, errors %v", len(evs), errs)
			}
			// An event from a later protocol version: the same, and ErrUnknownEvent.
			evs, errs = readStream(t, serveBody(t, c.contentType, join(good, c.unknown, good)), opts)
			if len(evs) != 2 || len(errs) != 1 || !errors.As(errs[0], &ee) || !errors.Is(errs[0], codec.ErrUnknownEvent) {
				t.Errorf("later event: %d events, errors %v", len(evs), errs)
			}
			// Cut inside an event: ErrTruncated, not skippable.
			evs, errs = readStream(t, serveBody(t, c.contentType, join(good, c.cut(good))), opts)
			if len(evs) != 1 || len(errs) != 1 || !errors.Is(errs[0], framing.ErrTruncated) || framing.Skippable(errs[0]) || errors.As(errs[0], &ee) {
				t.Errorf("cut: %d events, errors %v", len(evs), errs)
			}
			// Over the size limit: ErrEventTooLarge.
			evs, errs = readStream(t, serveBody(t, c.contentType, join(good, c.huge)), opts)
			if len(evs) != 1 || len(errs) != 1 || !errors.Is(errs[0], transport.ErrEventTooLarge) || framing.Skippable(errs[0]) {
				t.Errorf("huge: %d events, errors %v", len(evs), errs)
			}
			// A run of bad events past the cap: ErrTooManyErrors.
			body := [][]byte{good}
			for range 4 {
				body = append(body, c.bad)
			}
			body = append(body, good)
			evs, errs = readStream(t, serveBody(t, c.contentType, join(body...)), transport.ClientOptions{MaxConsecutiveErrors: 3})
			if len(evs) != 1 || len(errs) != 4 || !errors.Is(errs[3], framing.ErrTooManyErrors) || framing.Skippable(errs[3]) {
				t.Errorf("bad run: %d events, errors %v", len(evs), errs)
			}
			evs, errs = readStream(t, serveBody(t, c.contentType, join(body...)), transport.ClientOptions{MaxConsecutiveErrors: -1})
			if len(evs) != 2 || len(errs) != 4 {
				t.Errorf("bad run, no cap: %d events, %d errors", len(evs), len(errs))
			}
		})
	}
}

// TestWriterSameRefusals: an event over the size limit is refused with the
// same error on both transports, and nothing is written.
func TestWriterSameRefusals(t *testing.T) {
	big := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("x", 2000)}
	for _, accept := range []string{transport.MediaTypeBinary, transport.MediaTypeSSE} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Header.Set("Accept", accept)
		w, err := transport.NewEventWriter(rec, req, transport.WriterOptions{MaxEventSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		before := rec.Body.Len()
		err = w.WriteEvent(big)
		var ee *transport.EventError
		if !errors.As(err, &ee) || !errors.Is(err, transport.ErrEventTooLarge) || !framing.Skippable(err) || rec.Body.Len() != before {
			t.Errorf("%s: %v, %d bytes written", accept, err, rec.Body.Len()-before)
		}
		if err := w.WriteEvent(&event.StepStarted{StepName: "s"}); err != nil {
			t.Errorf("%s: after the refusal: %v", accept, err)
		}
		w.Close()
	}
}

// TestOptionsCheckedOnce: options that are not valid fail NewHandler, not
// every request.
func TestOptionsCheckedOnce(t *testing.T) {
	fn := replay(nil)
	for _, opts := range []transport.HandlerOptions{
		{Compression: []string{"br"}},
		{Compression: []string{"zstd", "GZIP "}},
		{WriteTimeout: -1},
		{MaxBodyBytes: -1},
		{MaxEventSize: -1},
	} {
		if h, err := transport.NewHandler(fn, opts); err == nil || h != nil {
			t.Errorf("%+v: handler %v, error %v", opts, h, err)
		}
	}
	if _, err := transport.NewHandler(nil, transport.HandlerOptions{}); err == nil {
		t.Error("nil RunFunc accepted")
	}
	if _, err := transport.NewHandler(fn, transport.HandlerOptions{Compression: []string{transport.EncodingZstd, transport.EncodingGzip}}); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
	rec := httptest.NewRecorder()
	if _, err := transport.NewEventWriter(rec, httptest.NewRequest(http.MethodPost, "/", nil), transport.WriterOptions{Compression: []string{"br"}}); err == nil || rec.Body.Len() != 0 {
		t.Errorf("NewEventWriter with a bad coding: %v, %q", err, rec.Body.String())
	}
}

// TestRunFuncSeesRequest: the run function gets the request, its headers
// and remote address.
func TestRunFuncSeesRequest(t *testing.T) {
	type seen struct{ auth, remote, path string }
	got := make(chan seen, 1)
	h, err := transport.NewHandler(func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		got <- seen{req.Header.Get("Authorization"), req.RemoteAddr, req.URL.Path}
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}, transport.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	r, err := startRun(context.Background(), nil, srv.URL+"/agent", testInput(), transport.ClientOptions{Header: http.Header{"Authorization": {"Bearer t0ken"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s.auth != "Bearer t0ken" || !strings.HasPrefix(s.remote, "127.0.0.1:") || s.path != "/agent" {
		t.Errorf("the run function saw %+v", s)
	}
}

// doerFunc is a Doer made of a function: a wrapper that retries, traces or
// signs requests.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// TestRunWithDoer: Run takes any Doer, and a nil *http.Client means the
// default client.
func TestRunWithDoer(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{}, replay(realisticRun())))
	defer srv.Close()
	var calls int
	var traced string
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		r.Header.Set("Traceparent", "00-abc-def-01")
		traced = r.Header.Get("Traceparent")
		return http.DefaultClient.Do(r)
	})
	for _, client := range []transport.Doer{d, (*http.Client)(nil), nil, &http.Client{}} {
		r, err := startRun(context.Background(), client, srv.URL, testInput(), transport.ClientOptions{})
		if err != nil {
			t.Fatalf("%T: %v", client, err)
		}
		n := 0
		for _, err := range r.Events() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		r.Close()
		if n != len(realisticRun()) {
			t.Errorf("%T: %d events", client, n)
		}
	}
	if calls != 1 || traced == "" {
		t.Errorf("the Doer was called %d times", calls)
	}
}

// TestNextAndEvents: Next reads one event at a time, to io.EOF, and picks up
// where a broken-off Events loop stopped.
func TestNextAndEvents(t *testing.T) {
	run := realisticRun()
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{}, replay(run)))
	defer srv.Close()
	for _, sse := range []bool{false, true} {
		r, err := startRun(context.Background(), nil, srv.URL, testInput(), transport.ClientOptions{Prefer: prefer(sse)})
		if err != nil {
			t.Fatal(err)
		}
		var types []event.Type
		for ev, err := range r.Events() {
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, ev.Type())
			if len(types) == 3 {
				break
			}
		}
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, ev.Type())
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("after the end: %v", err)
		}
		r.Close()
		if len(types) != len(run) {
			t.Fatalf("SSE %v: %d events, want %d", sse, len(types), len(run))
		}
		for i, ev := range run {
			if types[i] != ev.Type() {
				t.Errorf("SSE %v: event %d is %s, want %s", sse, i, types[i], ev.Type())
			}
		}
	}
}
