package transport_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// TestStatusSaidOnce: a *StatusError names the status once, also when the
// body starts by repeating it (the handlers' own answers do).
func TestStatusSaidOnce(t *testing.T) {
	s := newResumeServer(t, transport.HandlerOptions{}, replay(realisticRun()))
	r, err := startRun(testCtx(t), nil, s.URL, inputFor("twice"), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	r.Close()
	_, err = startRun(testCtx(t), nil, s.URL, inputFor("twice"), transport.ClientOptions{})
	if se, ok := errors.AsType[*transport.StatusError](err); !ok || se.StatusCode != 409 {
		t.Fatalf("second start: %v", err)
	}
	if msg := strings.ToLower(err.Error()); strings.Count(msg, "409") != 1 || strings.Count(msg, "conflict") != 1 || !strings.Contains(msg, "run exists") {
		t.Errorf("%q", err)
	}
	for _, tc := range []struct{ body, want string }{
		{"404 not found", "transport: server answered 404 Not Found"},
		{"404 Not Found: no agent here", "transport: server answered 404 Not Found: no agent here"},
		{"no agent here", "transport: server answered 404 Not Found: no agent here"},
		{"4040 things", "transport: server answered 404 Not Found: 4040 things"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, tc.body, 404) }))
		_, err := startRun(testCtx(t), nil, srv.URL, testInput(), transport.ClientOptions{})
		srv.Close()
		if err == nil || err.Error() != tc.want {
			t.Errorf("body %q: %v, want %q", tc.body, err, tc.want)
		}
	}
}

// TestOptionErrorsNameTheirStruct: each constructor's errors name the
// options struct it was given, and a negative MaxEventSize is an error for
// every one of them.
func TestOptionErrorsNameTheirStruct(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	newWriter := func(o transport.WriterOptions) error {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		_, err := transport.NewEventWriter(httptest.NewRecorder(), req, o)
		return err
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error {
			_, err := transport.NewHandler(replay(nil), transport.HandlerOptions{Compression: []string{"br"}})
			return err
		}(), "HandlerOptions.Compression"},
		{func() error {
			_, err := transport.NewFollowHandler(log, transport.FollowOptions{Compression: []string{"br"}})
			return err
		}(), "FollowOptions.Compression"},
		{newWriter(transport.WriterOptions{Compression: []string{"br"}}), "WriterOptions.Compression"},
		{func() error {
			_, err := transport.NewHandler(replay(nil), transport.HandlerOptions{MaxEventSize: -1})
			return err
		}(), "HandlerOptions.MaxEventSize is negative"},
		{func() error {
			_, err := transport.NewFollowHandler(log, transport.FollowOptions{MaxEventSize: -1})
			return err
		}(), "FollowOptions.MaxEventSize is negative"},
		{newWriter(transport.WriterOptions{MaxEventSize: -1}), "WriterOptions.MaxEventSize is negative"},
		{func() error {
			_, err := transport.NewEventReader(&http.Response{StatusCode: 200, Body: http.NoBody}, transport.ClientOptions{MaxEventSize: -1})
			return err
		}(), "ClientOptions.MaxEventSize (-1)"},
		{func() error {
			_, err := transport.NewClient("http://x/", transport.ClientOptions{MaxEventSize: -1})
			return err
		}(), "ClientOptions.MaxEventSize is negative"},
		{func() error {
			_, err := transport.NewClient("http://x/", transport.ClientOptions{Compression: transport.Compression{"br"}})
			return err
		}(), `ClientOptions.Compression: unknown content coding "br"`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%v, want %q", tc.err, tc.want)
		}
	}
}

// TestOneSentinelPerConcept: a cut stream is framing.ErrTruncated on both
// carriers, the package that defines the concept; transport does not
// repeat it under a name of its own.
func TestOneSentinelPerConcept(t *testing.T) {
	for _, cs := range streamsByCarrier(t) {
		good := cs.good(&event.StepStarted{StepName: "s"})
		_, errs := readStream(t, serveBody(t, cs.contentType, cs.cut(good)), transport.ClientOptions{})
		last := errs[len(errs)-1]
		if !errors.Is(last, framing.ErrTruncated) {
			t.Errorf("%s: a cut stream: %v", cs.contentType, last)
		}
		if strings.Count(last.Error(), "truncated") > 1 {
			t.Errorf("%s: %q says it twice", cs.contentType, last)
		}
	}
}
