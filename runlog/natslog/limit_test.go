package natslog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
	"github.com/agwire/agwire/transport"
)

// limitedLog returns a log on a stream whose operators set its MaxMsgSize
// to maxMsgSize (NoCreate, as they would use it).
func limitedLog(t *testing.T, js jetstream.JetStream, maxMsgSize int32) *natslog.Log {
	t.Helper()
	c := context.Background()
	opts := natslog.Options{Stream: "LIMITED", Subject: "limited", Storage: jetstream.MemoryStorage}
	newLog(t, js, opts) // the stream and its buckets
	st, err := js.Stream(c, opts.Stream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.MaxMsgSize = maxMsgSize
	if _, err := js.UpdateStream(c, cfg); err != nil {
		t.Fatal(err)
	}
	opts.NoCreate = true
	return newLog(t, js, opts)
}

// MaxEventBytes is what a message of the stream can carry, headers taken
// off: the server's max_payload (1 MiB here), or a smaller MaxMsgSize of
// the stream, or Options.MaxEventBytes. An event of exactly that size is
// appended and read back; one byte more is ErrTooLarge, before anything is
// published. (An event over the stream's MaxMsgSize was published and
// refused by the server with an error that aborted the run.)
func TestMaxEventBytes(t *testing.T) {
	c := context.Background()
	js := connect(t, startServer(t))
	for name, tc := range map[string]struct {
		log  func() *natslog.Log
		want int
	}{
		"max_payload": {func() *natslog.Log {
			return newLog(t, js, natslog.Options{Stream: "PAYLOAD", Subject: "payload", Storage: jetstream.MemoryStorage})
		}, int(js.Conn().MaxPayload()) - 1024 - len("PAYLOAD")},
		"MaxMsgSize": {func() *natslog.Log { return limitedLog(t, js, 4096) }, 4096 - 1024 - len("LIMITED")},
		"Options.MaxEventBytes": {func() *natslog.Log {
			return newLog(t, js, natslog.Options{Stream: "OPTION", Subject: "option", Storage: jetstream.MemoryStorage, MaxEventBytes: 100})
		}, 100},
	} {
		t.Run(name, func(t *testing.T) {
			l := tc.log()
			if got := l.MaxEventBytes(); got != tc.want {
				t.Fatalf("MaxEventBytes = %d, want %d", got, tc.want)
			}
			w, err := l.Start(c, "r")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Append(c, bytes.Repeat([]byte{'x'}, tc.want+1)); !errors.Is(err, runlog.ErrTooLarge) || !contains(err, strconv.Itoa(tc.want)) {
				t.Fatalf("Append of %d bytes: %v; want ErrTooLarge naming the limit", tc.want+1, err)
			}
			full := bytes.Repeat([]byte{'y'}, tc.want)
			if _, err := w.Append(c, full); err != nil {
				t.Fatalf("Append of MaxEventBytes: %v", err)
			}
			if err := w.End(c); err != nil {
				t.Fatal(err)
			}
			rd, err := l.Read(c, runlog.Cursor{Run: "r"})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if e, err := rd.Next(c); err != nil || !bytes.Equal(e.Wire, full) {
				t.Fatalf("the event read back: %d bytes, %v", len(e.Wire), err)
			}
			if _, err := rd.Next(c); err != io.EOF {
				t.Fatalf("after the event: %v, want io.EOF", err)
			}
		})
	}
}

// inputOfSize returns a run request whose RUN_STARTED echo (the input in
// its input field) is size bytes on the wire.
func inputOfSize(t *testing.T, run string, size int) string {
	t.Helper()
	for n := max(0, size-400); n <= size; n++ {
		body := fmt.Sprintf(`{"threadId":"t","runId":%q,"messages":[{"id":"u","role":"user","content":%q}]}`, run, strings.Repeat("x", n))
		in, err := event.Parser{}.ParseRunAgentInput([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := (codec.Codec{}).Servable(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err == nil && got == size {
			return body
		}
	}
	t.Fatalf("no input of %d bytes", size)
	return ""
}

// A run whose RUN_STARTED echo of its input is larger than the stream
// takes is refused at the start, 422 naming the limit, before the run
// begins; one of exactly the limit is served, RUN_STARTED to
// RUN_FINISHED. (It was answered 200, then a RUN_ERROR: the stream
// refused the first event.)
func TestRunStartedOverStreamLimit(t *testing.T) {
	js := connect(t, startServer(t))
	l := limitedLog(t, js, 4096)
	limit := l.MaxEventBytes()
	ran := make(chan string, 2)
	h, err := transport.NewHandler(func(_ context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		ran <- in.RunID
		if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err != nil {
			return err
		}
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}, transport.HandlerOptions{Log: l, ErrorLog: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", transport.MediaTypeBinary)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	resp := do(inputOfSize(t, "over", limit+1))
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(text), strconv.Itoa(limit)+" bytes") || !strings.Contains(string(text), "run log") {
		t.Fatalf("a RUN_STARTED of %d bytes: %d %q; want 422 naming the limit, %d bytes", limit+1, resp.StatusCode, text, limit)
	}
	if _, err := l.Read(context.Background(), runlog.Cursor{Run: "over"}); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("the refused run in the log: %v; want ErrUnknownRun", err)
	}

	resp = do(inputOfSize(t, "under", limit))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a RUN_STARTED of %d bytes: %d", limit, resp.StatusCode)
	}
	fr := framing.NewReader(resp.Body, framing.ReaderOptions{})
	var types []event.Type
	for {
		ev, err := fr.ReadEvent()
		if err != nil {
			break
		}
		types = append(types, ev.Type())
	}
	if len(types) != 2 || types[0] != event.TypeRunStarted || types[1] != event.TypeRunFinished {
		t.Fatalf("the run at the limit: %v; want RUN_STARTED, RUN_FINISHED", types)
	}
	if end := resp.Trailer.Get(transport.HeaderEnd); end == "" {
		t.Errorf("no %s trailer", transport.HeaderEnd)
	}
	if got := <-ran; got != "under" || len(ran) != 0 {
		t.Fatalf("the run function ran for %q (and %d more); want only the run at the limit", got, len(ran))
	}
}
