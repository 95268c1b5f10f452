package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// 200 clients stream 1,000 events each from one server at the same time,
// over both transports and all codings: every event arrives, in order,
// once.
func TestManyConcurrentClients(t *testing.T) {
	clients, events := 200, 1000
	if testing.Short() {
		clients, events = 20, 200
	}
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{
		Compression: []string{transport.EncodingZstd, transport.EncodingGzip},
		ErrorLog:    quietLog,
	}, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		for i := range events {
			// The delta is the sequence number.
			if err := w.WriteEvent(&event.TextMessageContent{MessageID: in.RunID, Delta: strconv.Itoa(i)}); err != nil {
				return err
			}
		}
		return nil
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	// A bound against hangs only: a loaded machine under -race is slow.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			errs <- func() error {
				in := testInput()
				in.RunID = "run-" + strconv.Itoa(c)
				opts := transport.ClientOptions{Prefer: prefer(c%2 == 1), Compression: compressIf(c%4 == 3)}
				r, err := startRun(ctx, client, srv.URL, in, opts)
				if err != nil {
					return err
				}
				defer r.Close()
				n := 0
				for ev, err := range r.Events() {
					if err != nil {
						return fmt.Errorf("client %d after %d events: %w", c, n, err)
					}
					tc, ok := ev.(*event.TextMessageContent)
					if !ok || tc.MessageID != in.RunID || tc.Delta != strconv.Itoa(n) {
						return fmt.Errorf("client %d: event %d is %+v", c, n, ev)
					}
					n++
				}
				if n != events {
					return fmt.Errorf("client %d: %d events; want %d", c, n, events)
				}
				return nil
			}()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// A client that reads one event and then stops reading holds up its own
// handler only: 20 other clients finish meanwhile.
func TestStalledClientDoesNotStallOthers(t *testing.T) {
	const others = 20
	bigDone := make(chan error, 1)
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog},
		func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
			if in.RunID != "big" {
				return replay(realisticRun())(ctx, nil, in, w)
			}
			// 50 MB of events: far more than the TCP buffers between a
			// client that stops reading and this writer can hold.
			delta := strings.Repeat("x", 1000)
			var err error
			for i := 0; i < 50_000 && err == nil; i++ {
				err = w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: delta})
			}
			bigDone <- err
			return err
		}))
	defer srv.Close()

	in := testInput()
	in.RunID = "big"
	stalled, err := startRun(testCtx(t), srv.Client(), srv.URL, in, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stalled.Next(); err != nil {
		t.Fatal(err)
	}
	// ... and reads no more.

	done := make(chan error, others)
	for range others {
		go func() {
			r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{Prefer: transport.PreferSSEOnly})
			if err == nil {
				var n int
				for _, err = range r.Events() {
					if err != nil {
						break
					}
					n++
				}
				if err == nil && n != len(realisticRun()) {
					err = fmt.Errorf("%d events", n)
				}
				r.Close()
			}
			done <- err
		}()
	}
	for range others {
		if err := wait(t, done, "the other clients"); err != nil {
			t.Error(err)
		}
	}
	select {
	case err := <-bigDone:
		t.Fatalf("the stalled client's handler finished (%v) while its client was not reading", err)
	default:
	}
	// The stalled client goes away; its handler's blocked write fails.
	stalled.Close()
	if err := wait(t, bigDone, "the stalled handler to end"); err == nil {
		t.Error("the stalled handler wrote 50 MB to a client that read one event")
	}
}

// HandlerOptions.WriteTimeout turns a client that stops reading into a
// write error and a cancelled context.
func TestWriteTimeout(t *testing.T) {
	ended := make(chan error, 1)
	srv := httptest.NewServer(mustHandler(transport.HandlerOptions{
		WriteTimeout: 200 * time.Millisecond,
		ErrorLog:     quietLog,
	}, func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		delta := strings.Repeat("x", 1000)
		var err error
		for i := 0; i < 50_000 && err == nil; i++ {
			err = w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: delta})
		}
		if err != nil && !errors.Is(context.Cause(ctx), err) {
			err = fmt.Errorf("context cause %v, not the write error %w", context.Cause(ctx), err)
		}
		ended <- err
		return err
	}))
	defer srv.Close()
	r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, ended, "the write to time out"); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("handler ended with %v; want os.ErrDeadlineExceeded", err)
	}
}

// A client that goes away ends its handler's context, and later writes
// fail instead of blocking.
func TestClientDisconnectCancelsContext(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			type outcome struct {
				cause    error
				writeErr error
			}
			ended := make(chan outcome, 1)
			srv := httptest.NewServer(mustHandler(transport.HandlerOptions{ErrorLog: quietLog},
				func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
					w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
					select {
					case <-ctx.Done():
					case <-time.After(15 * time.Second): // a safety net, so a failure does not hang srv.Close
					}
					var o outcome
					o.cause = context.Cause(ctx)
					for i := 0; i < 1000 && o.writeErr == nil; i++ {
						o.writeErr = w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: "too late"})
					}
					ended <- o
					return o.writeErr
				}))
			defer srv.Close()
			r, err := startRun(testCtx(t), srv.Client(), srv.URL, testInput(), transport.ClientOptions{Prefer: prefer(sse)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			o := wait(t, ended, "the handler")
			if !errors.Is(o.cause, context.Canceled) {
				t.Errorf("context cause %v; want context.Canceled", o.cause)
			}
			if o.writeErr == nil {
				t.Error("1000 writes after the client left all succeeded")
			}
		})
	}
}

// rawServer serves one connection by hand: it reads the request and then
// writes what respond writes, and closes the connection.
func rawServer(t *testing.T, respond func(w io.Writer)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		req, err := http.ReadRequest(br)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, req.Body)
		respond(conn)
	}()
	return "http://" + ln.Addr().String()
}

// frames returns n events as frames, each event's own bytes in a slice.
func frames(t testing.TB, n int) [][]byte {
	var out [][]byte
	for i := range n {
		var b bytes.Buffer
		if err := framing.NewWriter(&b, framing.WriterOptions{Codec: codec.Codec{}}).WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// A connection cut inside a frame gives framing.ErrTruncated after every
// earlier event, intact; on SSE a stream cut inside an event gives
// io.ErrUnexpectedEOF.
func TestTruncatedStream(t *testing.T) {
	fr := frames(t, 4)
	whole := bytes.Join(fr[:3], nil)
	compressed := func(w interface {
		io.Writer
		Flush() error
	}, buf *bytes.Buffer) []byte {
		var end3 int
		for i, f := range fr {
			w.Write(f)
			w.Flush()
			if i == 2 {
				end3 = buf.Len()
			}
		}
		return buf.Bytes()[:end3+2] // inside the last frame's block
	}
	var gzBuf, zsBuf bytes.Buffer
	gz := gzip.NewWriter(&gzBuf)
	gzCut := compressed(gz, &gzBuf)
	zs, _ := zstd.NewWriter(&zsBuf, zstd.WithEncoderConcurrency(1))
	zsCut := compressed(zs, &zsBuf)

	tests := []struct {
		name    string
		header  string
		body    []byte
		chunked bool
		want    error
	}{
		{"inside a payload", "Content-Type: " + transport.MediaTypeBinary, append(whole, fr[3][:6]...), false, framing.ErrTruncated},
		{"inside a length prefix", "Content-Type: " + transport.MediaTypeBinary, append(whole, fr[3][:2]...), false, framing.ErrTruncated},
		{"chunked, between frames", "Content-Type: " + transport.MediaTypeBinary, whole, true, framing.ErrTruncated},
		{"chunked, inside a payload", "Content-Type: " + transport.MediaTypeBinary, append(whole, fr[3][:6]...), true, framing.ErrTruncated},
		{"gzip", "Content-Type: " + transport.MediaTypeBinary + "\r\nContent-Encoding: gzip", gzCut, false, framing.ErrTruncated},
		{"zstd", "Content-Type: " + transport.MediaTypeBinary + "\r\nContent-Encoding: zstd", zsCut, false, framing.ErrTruncated},
		{"SSE inside an event", "Content-Type: text/event-stream",
			[]byte("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"0\"}\n\n" +
				"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"1\"}\n\n" +
				"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"2\"}\n\n" +
				"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\","), false, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := rawServer(t, func(w io.Writer) {
				if tt.chunked {
					fmt.Fprintf(w, "HTTP/1.1 200 OK\r\n%s\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", tt.header, len(tt.body), tt.body)
					return // no last chunk
				}
				fmt.Fprintf(w, "HTTP/1.1 200 OK\r\n%s\r\nConnection: close\r\n\r\n%s", tt.header, tt.body)
			})
			r, err := startRun(testCtx(t), noCompressionClient(), url, testInput(), transport.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var n int
			var last error
			for ev, err := range r.Events() {
				if err != nil {
					last = err
					break
				}
				if d := ev.(*event.TextMessageContent).Delta; d != strconv.Itoa(n) {
					t.Errorf("event %d: delta %q", n, d)
				}
				n++
			}
			if n != 3 || !errors.Is(last, tt.want) || framing.Skippable(last) {
				t.Errorf("%d events, then %v; want 3, then %v", n, last, tt.want)
			}
			if _, again := r.Next(); again == nil || again == io.EOF {
				t.Errorf("error not sticky: then %v", again)
			}
		})
	}
}

// A frame declaring 4 GiB is refused from its length prefix, and a reader
// told to accept it anyway spends memory only as bytes arrive.
func TestHugeFrame(t *testing.T) {
	junk := make([]byte, 4<<20) // what a hostile server sends after the prefix
	tests := []struct {
		name string
		max  int
		want error
	}{
		{"default limit", 0, framing.ErrFrameTooLarge},
		{"no limit", math.MaxUint32, framing.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := rawServer(t, func(w io.Writer) {
				fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nConnection: close\r\n\r\n", transport.MediaTypeBinary)
				w.Write(fr0)
				w.Write([]byte{0xFF, 0xFF, 0xFF, 0xFF})
				w.Write(junk)
			})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := startRun(testCtx(t), noCompressionClient(), url, testInput(), transport.ClientOptions{MaxEventSize: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			_, err = r.Next()
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v; want %v", err, tt.want)
			}
			if growth := int64(after.HeapAlloc) - int64(before.HeapAlloc); growth > 64<<20 {
				t.Errorf("heap grew by %d MiB", growth>>20)
			}
			runtime.KeepAlive(r)
		})
	}
}

// fr0 is one small frame.
var fr0 = func() []byte {
	var b bytes.Buffer
	framing.NewWriter(&b, framing.WriterOptions{Codec: codec.Codec{}}).WriteEvent(&event.StepStarted{StepName: "s"})
	return b.Bytes()
}()
