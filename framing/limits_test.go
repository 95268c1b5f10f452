package framing_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// TestWriterPeerLimit: a default Writer writes a frame of exactly
// PeerMaxFrame bytes (prefix included) and refuses one byte more, which the
// stock TypeScript client would refuse; a default Reader reads both.
func TestWriterPeerLimit(t *testing.T) {
	if framing.DefaultMaxWriteFrameSize != 10<<20-4 {
		t.Fatalf("DefaultMaxWriteFrameSize = %d", framing.DefaultMaxWriteFrameSize)
	}
	// A frame of PeerMaxFrame bytes: a payload of PeerMaxFrame-4.
	payload := func(n int) []byte {
		ev := &event.Custom{Name: "n", Value: event.RawValue(`""`)}
		base, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		// grow the string value until the payload is n bytes long
		for k := n - len(base); ; k-- {
			ev.Value = event.RawValue(`"` + strings.Repeat("x", k) + `"`)
			b, err := codec.Append(nil, ev)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) <= n {
				if len(b) != n {
					t.Fatalf("cannot build a payload of %d bytes (got %d)", n, len(b))
				}
				return b
			}
		}
	}
	fits := payload(framing.PeerMaxFrame - 4)
	over := payload(framing.PeerMaxFrame - 3)
	for _, tc := range []struct {
		name    string
		payload []byte
		ok      bool
	}{{"at the limit", fits, true}, {"one byte more", over, false}} {
		ev, err := codec.Unmarshal(tc.payload)
		if err != nil {
			t.Fatal(err)
		}
		for _, write := range []func(*framing.Writer) error{
			func(w *framing.Writer) error { return w.WriteEvent(ev) },
			func(w *framing.Writer) error { return w.WriteFrame(tc.payload) },
		} {
			var buf bytes.Buffer
			err := write(framing.NewWriter(&buf, framing.WriterOptions{}))
			if tc.ok != (err == nil) {
				t.Fatalf("%s: got %v", tc.name, err)
			}
			if !tc.ok {
				if !errors.Is(err, framing.ErrFrameTooLarge) || !framing.Skippable(err) || buf.Len() != 0 {
					t.Fatalf("%s: got %v after %d bytes, want a skippable ErrFrameTooLarge and nothing written", tc.name, err, buf.Len())
				}
				continue
			}
			if buf.Len() != framing.PeerMaxFrame {
				t.Fatalf("%s: wrote %d bytes", tc.name, buf.Len())
			}
			if _, err := framing.NewReader(&buf, framing.ReaderOptions{}).ReadEvent(); err != nil {
				t.Fatalf("%s: default reader: %v", tc.name, err)
			}
		}
	}
}

// TestWriterMaxFrameSize: a default Writer refuses what a default Reader
// would refuse, writes nothing for it, and goes on.
func TestWriterMaxFrameSize(t *testing.T) {
	big := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("x", framing.DefaultMaxFrameSize)}
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{})
	err := w.WriteEvent(big)
	if !errors.Is(err, framing.ErrFrameTooLarge) || !framing.Skippable(err) {
		t.Fatalf("got %v, want a skippable ErrFrameTooLarge", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprint(framing.PeerMaxFrame)) || !strings.Contains(err.Error(), "WriterOptions.MaxFrameSize") {
		t.Errorf("%q does not name the limit and the option that raises it", err)
	}
	if buf.Len() != 0 || w.FramesWritten() != 0 {
		t.Fatalf("wrote %d bytes for a refused event", buf.Len())
	}
	if err := w.WriteEvent(&event.TextMessageContent{MessageID: "m", Delta: "ok"}); err != nil {
		t.Fatal(err)
	}

	// A raised limit on both sides carries it.
	buf.Reset()
	w = framing.NewWriter(&buf, framing.WriterOptions{MaxFrameSize: 32 << 20})
	if err := w.WriteEvent(big); err != nil {
		t.Fatal(err)
	}
	if _, err := framing.NewReader(&buf, framing.ReaderOptions{}).ReadEvent(); !errors.Is(err, framing.ErrFrameTooLarge) {
		t.Fatalf("default reader: %v", err)
	}

	// A small limit.
	w = framing.NewWriter(io.Discard, framing.WriterOptions{MaxFrameSize: 8})
	if err := w.WriteFrame(make([]byte, 9)); !errors.Is(err, framing.ErrFrameTooLarge) {
		t.Fatalf("9 bytes over a limit of 8: %v", err)
	}
	if err := w.WriteFrame(make([]byte, 8)); err != nil {
		t.Fatalf("8 bytes at a limit of 8: %v", err)
	}
}

// zeroFrames is a stream of n zero-length frames (each undecodable), then
// one good frame.
func zeroFrames(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(make([]byte, 4*n))
	if err := framing.NewWriter(&buf, framing.WriterOptions{}).WriteEvent(&event.StepStarted{StepName: "s"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMaxConsecutiveErrors: a run of undecodable frames longer than the
// limit ends the stream with ErrTooManyErrors; up to the limit, the good
// frame after it is still read; a decoded frame resets the count.
func TestMaxConsecutiveErrors(t *testing.T) {
	count := func(stream []byte, opts framing.ReaderOptions) (bad, good int, last error) {
		r := framing.NewReader(bytes.NewReader(stream), opts)
		for ev, err := range r.Events() {
			switch {
			case err != nil:
				bad++
				last = err
			case ev != nil:
				good++
			}
		}
		return
	}
	def := framing.DefaultMaxConsecutiveErrors

	bad, good, last := count(zeroFrames(t, def), framing.ReaderOptions{})
	if bad != def || good != 1 || !errors.Is(last, codec.ErrMalformed) {
		t.Errorf("%d bad frames at the default limit: %d errors, %d events, last %v", def, bad, good, last)
	}
	bad, good, last = count(zeroFrames(t, def+1), framing.ReaderOptions{})
	if bad != def+1 || good != 0 || !errors.Is(last, framing.ErrTooManyErrors) || framing.Skippable(last) {
		t.Errorf("%d bad frames: %d errors, %d events, last %v (want a stream-level ErrTooManyErrors)", def+1, bad, good, last)
	}
	if errors.Is(last, codec.ErrMalformed) {
		t.Errorf("the stream-level error %v claims to be a malformed frame", last)
	}

	bad, good, last = count(zeroFrames(t, 4), framing.ReaderOptions{MaxConsecutiveErrors: 3})
	if bad != 4 || good != 0 || !errors.Is(last, framing.ErrTooManyErrors) {
		t.Errorf("limit 3: %d errors, %d events, last %v", bad, good, last)
	}
	bad, good, _ = count(zeroFrames(t, def+50), framing.ReaderOptions{MaxConsecutiveErrors: -1})
	if bad != def+50 || good != 1 {
		t.Errorf("no limit: %d errors, %d events", bad, good)
	}

	// Good frames between bad runs reset the count.
	var stream []byte
	for range 3 {
		stream = append(stream, zeroFrames(t, 3)...)
	}
	bad, good, _ = count(stream, framing.ReaderOptions{MaxConsecutiveErrors: 3})
	if bad != 9 || good != 3 {
		t.Errorf("runs of 3 at limit 3: %d errors, %d events", bad, good)
	}

	// ReadJSON counts too.
	r := framing.NewReader(bytes.NewReader(zeroFrames(t, 3)), framing.ReaderOptions{MaxConsecutiveErrors: 2})
	var err error
	for range 3 {
		_, err = r.ReadJSON(nil)
	}
	if !errors.Is(err, framing.ErrTooManyErrors) {
		t.Errorf("ReadJSON, third bad frame at limit 2: %v", err)
	}
	if _, err2 := r.ReadJSON(nil); err2 != err {
		t.Errorf("not sticky: %v then %v", err, err2)
	}
}

type skippableErr struct{ skip bool }

func (e skippableErr) Error() string   { return "e" }
func (e skippableErr) Skippable() bool { return e.skip }

// TestSkippableMethod: Skippable honours a Skippable method anywhere in the
// chain (how transport's errors join in).
func TestSkippableMethod(t *testing.T) {
	if !framing.Skippable(fmt.Errorf("wrapped: %w", skippableErr{true})) {
		t.Error("a wrapped Skippable() == true error is not skippable")
	}
	if framing.Skippable(fmt.Errorf("wrapped: %w", skippableErr{false})) {
		t.Error("a Skippable() == false error is skippable")
	}
	if framing.Skippable(nil) || framing.Skippable(io.EOF) {
		t.Error("nil or io.EOF skippable")
	}
}
