package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// The same run crosses both transports, each with every coding, to the same
// events.
func TestRoundTrip(t *testing.T) {
	run := realisticRun()
	want := jsonOf(t, run)
	var gotInput *event.RunAgentInput
	var mu sync.Mutex
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{
		Compression: []string{transport.EncodingZstd, transport.EncodingGzip},
		ErrorLog:    quietLog,
	}, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		mu.Lock()
		gotInput = in
		mu.Unlock()
		return replay(run)(ctx, nil, in, w)
	}))
	defer srv.Close()

	for _, sse := range []bool{false, true} {
		for _, compress := range []bool{false, true} {
			t.Run(fmt.Sprintf("sse=%v/compress=%v", sse, compress), func(t *testing.T) {
				r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{Prefer: prefer(sse), Compression: compressIf(compress)})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				wantType, wantCoding := transport.MediaTypeBinary, ""
				if sse {
					wantType = transport.MediaTypeSSE
				}
				if compress {
					wantCoding = transport.EncodingZstd
				}
				if r.ContentType() != wantType || r.ContentEncoding() != wantCoding {
					t.Errorf("stream is %s/%q; want %s/%q", r.ContentType(), r.ContentEncoding(), wantType, wantCoding)
				}
				got := jsonOf(t, readAll(t, r))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("events differ:\n got %q\nwant %q", got, want)
				}
				mu.Lock()
				defer mu.Unlock()
				gotJSON, _ := json.Marshal(gotInput)
				wantJSON, _ := json.Marshal(testInput())
				if string(gotJSON) != string(wantJSON) {
					t.Errorf("server got input %s; want %s", gotJSON, wantJSON)
				}
			})
		}
	}
}

// The SSE wire is exactly one "data: <JSON>\n\n" block per event, the JSON
// on one line even when a dynamic value was written with line breaks.
func TestSSEWire(t *testing.T) {
	pretty := "{\n  \"type\": \"CUSTOM\",\r\n  \"name\": \"n\",\n  \"value\": {\"a\": [1,\n 2]}\n}\n"
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog},
		func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			if err := w.WriteEvent(&event.StepStarted{StepName: "a\nb"}); err != nil {
				return err
			}
			if err := w.WriteEvent(&event.Custom{Name: "raw", Value: event.RawValue("{\"k\":\n1}")}); err != nil {
				return err
			}
			return w.WriteJSON([]byte(pretty))
		}))
	defer srv.Close()
	resp := post(t, noCompressionClient(), srv.URL, validBody, map[string]string{"Accept": "text/event-stream"})
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := `data: {"type":"STEP_STARTED","stepName":"a\nb"}` + "\n\n" +
		`data: {"type":"CUSTOM","name":"raw","value":{"k": 1}}` + "\n\n" +
		`data: {   "type": "CUSTOM",    "name": "n",   "value": {"a": [1,  2]} }` + "\n\n"
	if string(body) != want {
		t.Errorf("body:\n%q\nwant\n%q", body, want)
	}
	for k, v := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
		"Vary": "Accept", "Content-Encoding": "",
	} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q; want %q", k, got, v)
		}
	}
	if got := resp.Header.Values("Vary"); !reflect.DeepEqual(got, []string{"Accept", "Accept-Encoding"}) {
		t.Errorf("Vary = %q", got)
	}
}

// Compression both ways: each coding over each transport, with the
// Content-Encoding the client asked for, and identity for a client that
// does not ask.
func TestCompression(t *testing.T) {
	run := realisticRun()
	want := jsonOf(t, run)
	for _, coding := range []string{transport.EncodingGzip, transport.EncodingZstd} {
		srv := httptest.NewServer(mustHandler(transport.HandlerOptions{
			Compression: []string{coding},
			ErrorLog:    quietLog,
		}, replay(run)))
		defer srv.Close()
		for _, accept := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
			for _, acceptEncoding := range []string{"zstd, gzip", "", "identity", "br"} {
				wantCoding := coding
				if acceptEncoding != "zstd, gzip" {
					wantCoding = ""
				}
				t.Run(fmt.Sprintf("%s/%s/accept-encoding=%q", coding, accept, acceptEncoding), func(t *testing.T) {
					h := map[string]string{"Accept": accept}
					if acceptEncoding != "" {
						h["Accept-Encoding"] = acceptEncoding
					}
					resp := post(t, noCompressionClient(), srv.URL, validBody, h)
					if got := resp.Header.Get("Content-Encoding"); got != wantCoding {
						t.Errorf("Content-Encoding = %q; want %q", got, wantCoding)
					}
					r, err := transport.NewEventReader(resp, transport.ClientOptions{})
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					if r.ContentType() != accept || r.ContentEncoding() != wantCoding {
						t.Errorf("reader: %s %q", r.ContentType(), r.ContentEncoding())
					}
					if got := jsonOf(t, readAll(t, r)); !reflect.DeepEqual(got, want) {
						t.Errorf("events differ:\n got %q\nwant %q", got, want)
					}
				})
			}
		}
	}
}

// A run that writes nothing is a valid, empty stream in every coding.
func TestEmptyStream(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{
		Compression: []string{transport.EncodingZstd, transport.EncodingGzip},
		ErrorLog:    quietLog,
	}, replay(nil)))
	defer srv.Close()
	for _, accept := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
		for _, coding := range []string{"identity", "gzip", "zstd"} {
			resp := post(t, noCompressionClient(), srv.URL, validBody, map[string]string{"Accept": accept, "Accept-Encoding": coding})
			r, err := transport.NewEventReader(resp, transport.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ev, err := r.Next(); err != io.EOF {
				t.Errorf("%s/%s: got %v, %v; want io.EOF", accept, coding, ev, err)
			}
			r.Close()
		}
	}
}

// Each event reaches the client before the server writes the next: the
// server waits for the client's signal after the first event.
func TestFlushPerEvent(t *testing.T) {
	for _, coding := range []string{"", transport.EncodingGzip, transport.EncodingZstd} {
		for _, sse := range []bool{false, true} {
			t.Run(fmt.Sprintf("coding=%q/sse=%v", coding, sse), func(t *testing.T) {
				proceed := make(chan struct{})
				opts := transport.HandlerOptions{ErrorLog: quietLog}
				if coding != "" {
					opts.Compression = []string{coding}
				}
				srv := httptest.NewServer(mustHandler(opts, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
					if err := w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: "first"}); err != nil {
						return err
					}
					select {
					case <-proceed:
					case <-ctx.Done():
						return ctx.Err()
					}
					return w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: "second"})
				}))
				defer srv.Close()
				// testCtx bounds the wait: without a flush the read would
				// block until the deadline and fail.
				r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{Prefer: prefer(sse), Compression: compressIf(coding != "")})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if r.ContentEncoding() != coding {
					t.Fatalf("coding %q; want %q", r.ContentEncoding(), coding)
				}
				for i, want := range []string{"first", "second"} {
					ev, err := r.Next()
					if err != nil {
						t.Fatalf("event %d: %v", i, err)
					}
					if d := ev.(*event.TextMessageContent).Delta; d != want {
						t.Fatalf("event %d: %q; want %q", i, d, want)
					}
					if i == 0 {
						close(proceed)
					}
				}
				if _, err := r.Next(); err != io.EOF {
					t.Fatalf("end: %v; want io.EOF", err)
				}
			})
		}
	}
}

func TestHandlerRequestErrors(t *testing.T) {
	var called sync.Map
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{MaxBodyBytes: 1024, ErrorLog: quietLog},
		func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			called.Store(in.RunID, true)
			return nil
		}))
	defer srv.Close()

	tests := []struct {
		name        string
		method      string
		contentType string
		accept      string
		body        io.Reader
		status      int
		bodyHas     []string
	}{
		{"GET: the capabilities", http.MethodGet, "application/json", "", nil, 200, []string{`"httpBinary":true`}},
		{"PUT", http.MethodPut, "application/json", "", strings.NewReader(validBody), 405, []string{"POST"}},
		{"text/plain", http.MethodPost, "text/plain", "", strings.NewReader(validBody), 415, []string{"application/json", `"text/plain"`}},
		{"form", http.MethodPost, "application/x-www-form-urlencoded", "", strings.NewReader(validBody), 415, nil},
		{"no content type", http.MethodPost, "", "", strings.NewReader(validBody), 415, nil},
		{"too large", http.MethodPost, "application/json", "", strings.NewReader(`{"threadId":"` + strings.Repeat("x", 2000) + `"}`), 413, []string{"1024"}},
		{"too large, chunked", http.MethodPost, "application/json", "", io.MultiReader(strings.NewReader(`{"threadId":"`), strings.NewReader(strings.Repeat("x", 2000))), 413, []string{"1024"}},
		{"not JSON", http.MethodPost, "application/json", "", strings.NewReader(`{"threadId":`), 400, []string{"invalid JSON"}},
		{"metadata of the wrong kind", http.MethodPost, "application/json", "",
			strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":"hi","metadata":5}]}`),
			400, []string{"messages[0].metadata", "must be an object"}},
		{"metadata null", http.MethodPost, "application/json", "",
			strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":"hi","metadata":null}]}`),
			400, []string{"messages[0].metadata", "not null"}},
		{"missing messages", http.MethodPost, "application/json", "", strings.NewReader(`{"threadId":"t","runId":"r"}`), 400, []string{"messages"}},
		{"not acceptable", http.MethodPost, "application/json", "application/json", strings.NewReader(validBody), 406,
			[]string{transport.MediaTypeSSE, transport.MediaTypeBinary}},
		{"not acceptable, q=0", http.MethodPost, "application/json", "text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0", strings.NewReader(validBody), 406, nil},
		{"+json accepted", http.MethodPost, "application/vnd.example+json; charset=utf-8", "", strings.NewReader(`{"threadId":"t","runId":"ok","messages":[]}`), 200, nil},
	}
	client := noCompressionClient()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(testCtx(t), tt.method, srv.URL, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d; want %d (body %q)", resp.StatusCode, tt.status, body)
			}
			for _, s := range tt.bodyHas {
				if !strings.Contains(string(body), s) {
					t.Errorf("body %q does not mention %q", body, s)
				}
			}
			if tt.status >= 400 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
				t.Errorf("Content-Type %q; want text/plain", resp.Header.Get("Content-Type"))
			}
			switch tt.status {
			case 405:
				if got := resp.Header.Get("Allow"); got != "GET, HEAD, POST" {
					t.Errorf("Allow = %q; want POST", got)
				}
			case 406:
				if got := resp.Header.Get("Vary"); got != "Accept" {
					t.Errorf("Vary = %q; want Accept", got)
				}
			}
		})
	}
	var runs []any
	called.Range(func(k, v any) bool { runs = append(runs, k); return true })
	if !reflect.DeepEqual(runs, []any{"ok"}) {
		t.Errorf("run function called for %v; want only the +json request", runs)
	}
}

// The client sees the server's refusal as a *StatusError with the reason.
func TestRunStatusError(t *testing.T) {
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{MaxBodyBytes: 100, ErrorLog: quietLog}, replay(nil)))
	defer srv.Close()
	in := testInput()
	in.Messages[0].Content = event.Ptr(strings.Repeat("long ", 100))
	_, err := startRun(testCtx(t), srv.Client(), srv.URL, in, transport.ClientOptions{})
	var se *transport.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T); want *StatusError", err, err)
	}
	if se.StatusCode != 413 || !strings.Contains(string(se.Body), "limit of 100 bytes") || !strings.Contains(err.Error(), "413 Request Entity Too Large") {
		t.Errorf("got %d %q: %v", se.StatusCode, se.Body, err)
	}
}

func TestRunErrorReporting(t *testing.T) {
	var log logBuffer
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: log.logger()},
		func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
			if in.RunID == "after-finish" {
				w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
				return errors.New("cleanup failed")
			}
			return errors.New("model unavailable")
		}))
	defer srv.Close()

	t.Run("reported as RUN_ERROR", func(t *testing.T) {
		r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got := jsonOf(t, readAll(t, r))
		want := []string{
			`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`,
			`{"type":"RUN_ERROR","message":"model unavailable"}`,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %q; want %q", got, want)
		}
	})
	t.Run("logged after RUN_FINISHED", func(t *testing.T) {
		in := testInput()
		in.RunID = "after-finish"
		r, err := startRun(testCtx(t), srv.Client(), srv.URL, in, transport.ClientOptions{Prefer: transport.PreferSSEOnly})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		evs := readAll(t, r)
		if len(evs) != 2 || evs[1].Type() != event.TypeRunFinished {
			t.Errorf("got %q", jsonOf(t, evs))
		}
		// The log line is written before the handler closes the stream,
		// so it is there once the client has seen the end.
		if l := log.String(); !strings.Contains(l, "cleanup failed") || !strings.Contains(l, "level=ERROR") {
			t.Errorf("log %q does not report the error", l)
		}
		if strings.Contains(log.String(), "model unavailable") {
			t.Errorf("a delivered error was logged: %q", log.String())
		}
	})
}

// An event that cannot be encoded is refused alone on both transports; the
// stream goes on. Writes after Close fail.
func TestWriterRefusals(t *testing.T) {
	results := make(chan []error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w, err := transport.NewEventWriter(rw, r, transport.WriterOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		var errs []error
		errs = append(errs, w.WriteJSON([]byte(`{"type":"NOT_A_TYPE"}`)))
		errs = append(errs, w.WriteJSON([]byte(`{"type":"STEP_STARTED","stepName":"x","metadata":null}`)))
		errs = append(errs, w.WriteJSON([]byte(`{"type":"STEP_STARTED","stepName":"x"} {}`)))
		errs = append(errs, w.WriteEvent(nil))
		errs = append(errs, w.WriteEvent(&event.StepStarted{StepName: "ok"}))
		errs = append(errs, w.Close())
		errs = append(errs, w.WriteEvent(&event.StepStarted{StepName: "late"}))
		errs = append(errs, w.Close())
		results <- errs
	}))
	defer srv.Close()

	for _, accept := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
		t.Run(accept, func(t *testing.T) {
			resp := post(t, noCompressionClient(), srv.URL, validBody, map[string]string{"Accept": accept})
			r, err := transport.NewEventReader(resp, transport.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := jsonOf(t, readAll(t, r))
			if want := []string{`{"type":"STEP_STARTED","stepName":"ok"}`}; !reflect.DeepEqual(got, want) {
				t.Errorf("events %q; want %q", got, want)
			}
			errs := <-results
			for i := range 4 {
				var ee *transport.EventError
				if !errors.As(errs[i], &ee) || !framing.Skippable(errs[i]) || ee.Index != 0 {
					t.Errorf("write %d: %v; want a skippable *EventError at index 0", i, errs[i])
				}
			}
			if !errors.Is(errs[0], event.ErrUnknownType) || !errors.Is(errs[1], event.ErrNullMetadata) {
				t.Errorf("errors do not say why: %v; %v", errs[0], errs[1])
			}
			if errs[4] != nil || errs[5] != nil || errs[7] != nil {
				t.Errorf("write or close failed: %v", errs)
			}
			if !errors.Is(errs[6], transport.ErrClosed) || framing.Skippable(errs[6]) {
				t.Errorf("write after close: %v; want ErrClosed", errs[6])
			}
		})
	}
}

// Events the binary codec cannot encode are refused there; the SSE
// transport forwards them (THINKING_* has no protobuf form).
func TestWriterCodecRefusal(t *testing.T) {
	thinking := `{"type":"THINKING_START","title":"t"}`
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w, err := transport.NewEventWriter(rw, r, transport.WriterOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		defer w.Close()
		err = w.WriteJSON([]byte(thinking))
		if w.ContentType() == transport.MediaTypeBinary {
			if !errors.Is(err, event.ErrUnsupportedEvent) || !framing.Skippable(err) {
				t.Errorf("binary: %v; want skippable event.ErrUnsupportedEvent", err)
			}
		} else if err != nil {
			t.Errorf("SSE: %v", err)
		}
		w.WriteEvent(&event.StepFinished{StepName: "s"})
	}))
	defer srv.Close()
	for _, accept := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
		resp := post(t, noCompressionClient(), srv.URL, validBody, map[string]string{"Accept": accept})
		r, err := transport.NewEventReader(resp, transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := jsonOf(t, readAll(t, r))
		r.Close()
		want := []string{`{"type":"STEP_FINISHED","stepName":"s"}`}
		if accept == transport.MediaTypeSSE {
			want = append([]string{thinking}, want...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q; want %q", accept, got, want)
		}
	}
}

// An event from a later protocol fails alone on both transports, and the
// reader goes on.
func TestUnknownEventSkipped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sse" {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			io.WriteString(w, "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n\n"+
				": a comment\nevent: future\ndata: {\"type\":\"HOLOGRAM_START\",\"x\":1}\n\n"+
				"data: {\"type\":\"STEP_FINISHED\",\n"+ // one event split over two data lines
				"data: \"stepName\":\"a\"}\n\n")
			return
		}
		w.Header().Set("Content-Type", transport.MediaTypeBinary)
		fw := framing.NewWriter(w, framing.WriterOptions{Codec: codec.Codec{}})
		fw.WriteEvent(&event.StepStarted{StepName: "a"})
		fw.WriteFrame([]byte{0x82, 0x02, 0x02, 0x08, 0x01}) // an envelope arm from a later protocol
		fw.WriteEvent(&event.StepFinished{StepName: "a"})
	}))
	defer srv.Close()
	for path, sentinel := range map[string]error{"/sse": event.ErrUnknownType, "/bin": codec.ErrUnknownEvent} {
		t.Run(path, func(t *testing.T) {
			resp := post(t, noCompressionClient(), srv.URL+path, validBody, nil)
			r, err := transport.NewEventReader(resp, transport.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var types []string
			for ev, err := range r.Events() {
				switch {
				case errors.Is(err, sentinel) && framing.Skippable(err):
					types = append(types, "skipped")
				case err != nil:
					t.Fatalf("unexpected error: %v", err)
				default:
					types = append(types, string(ev.Type()))
				}
			}
			if want := []string{"STEP_STARTED", "skipped", "STEP_FINISHED"}; !reflect.DeepEqual(types, want) {
				t.Errorf("got %q; want %q", types, want)
			}
		})
	}
}

func TestNewEventReaderErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
		case "/none":
			io.WriteString(w, "hello")
		case "/br":
			w.Header().Set("Content-Type", transport.MediaTypeSSE)
			w.Header().Set("Content-Encoding", "br")
		case "/double":
			w.Header().Set("Content-Type", transport.MediaTypeSSE)
			w.Header().Set("Content-Encoding", "gzip, zstd")
		case "/500":
			http.Error(w, "agent crashed: "+strings.Repeat("x", 5000), 500)
		}
	}))
	defer srv.Close()
	tests := []struct {
		path string
		want error
	}{
		{"/json", transport.ErrUnsupportedMediaType},
		{"/none", transport.ErrUnsupportedMediaType},
		{"/br", transport.ErrUnsupportedEncoding},
		{"/double", transport.ErrUnsupportedEncoding},
	}
	for _, tt := range tests {
		_, err := startRun(testCtx(t), srv.Client(), srv.URL+tt.path, testInput(), transport.ClientOptions{})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v; want %v", tt.path, err, tt.want)
		}
	}
	_, err := startRun(testCtx(t), srv.Client(), srv.URL+"/500", testInput(), transport.ClientOptions{})
	var se *transport.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || len(se.Body) != 1024 || !strings.HasPrefix(string(se.Body), "agent crashed") {
		t.Errorf("got %v; want a *StatusError 500 with a 1 KiB snippet", err)
	}
}

// Run sends the request the other SDKs expect.
func TestRunRequest(t *testing.T) {
	type seen struct{ accept, acceptEncoding, contentType, auth string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Header.Get("Accept"), r.Header.Get("Accept-Encoding"), r.Header.Get("Content-Type"), r.Header.Get("Authorization")}
		w.Header().Set("Content-Type", transport.MediaTypeSSE)
	}))
	defer srv.Close()
	tests := []struct {
		opts transport.ClientOptions
		want seen
	}{
		{transport.ClientOptions{}, seen{"application/vnd.ag-ui.event+proto, text/event-stream;q=0.5", "identity", "application/json", ""}},
		{transport.ClientOptions{Prefer: transport.PreferSSEOnly, Compression: allCodings, Header: http.Header{"Authorization": {"Bearer x"}}},
			seen{"text/event-stream", "zstd, gzip", "application/json", "Bearer x"}},
	}
	for _, tt := range tests {
		r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if s := <-got; s != tt.want {
			t.Errorf("request headers %+v; want %+v", s, tt.want)
		}
	}
}

// A ResponseWriter that cannot flush cannot stream: nothing is written and
// the caller can still answer.
func TestStreamingUnsupported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := transport.NewEventWriter(struct{ http.ResponseWriter }{w}, r, transport.WriterOptions{})
		if !errors.Is(err, transport.ErrStreamingUnsupported) {
			t.Errorf("got %v; want ErrStreamingUnsupported", err)
		}
		_, err = transport.NewEventWriter(w, r, transport.WriterOptions{Compression: []string{"br"}})
		if err == nil || !strings.Contains(err.Error(), `"br"`) {
			t.Errorf("unknown coding: got %v", err)
		}
		http.Error(w, "sorry", http.StatusTeapot)
	}))
	defer srv.Close()
	resp := post(t, noCompressionClient(), srv.URL, validBody, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// Writes from many goroutines are serialized whole.
func TestConcurrentWrites(t *testing.T) {
	const writers, each = 8, 50
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog},
		func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			var wg sync.WaitGroup
			for g := range writers {
				wg.Go(func() {
					for i := range each {
						w.WriteEvent(&event.TextMessageContent{MessageID: fmt.Sprint(g), Delta: fmt.Sprint(i)})
					}
				})
			}
			wg.Wait()
			return nil
		}))
	defer srv.Close()
	for _, sse := range []bool{false, true} {
		r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{Prefer: prefer(sse)})
		if err != nil {
			t.Fatal(err)
		}
		next := make(map[string]int)
		for _, ev := range readAll(t, r) {
			c := ev.(*event.TextMessageContent)
			if c.Delta != fmt.Sprint(next[c.MessageID]) {
				t.Fatalf("writer %s: got %s; want %d", c.MessageID, c.Delta, next[c.MessageID])
			}
			next[c.MessageID]++
		}
		r.Close()
		for g := range writers {
			if next[fmt.Sprint(g)] != each {
				t.Errorf("writer %d: %d events", g, next[fmt.Sprint(g)])
			}
		}
	}
}
