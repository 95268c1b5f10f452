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
	if !strings.Contains(err.Error(), fmt.Sprint(framing.DefaultMaxFrameSize)) {
		t.Errorf("%q does not name the limit", err)
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
