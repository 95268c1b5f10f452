package framing_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// sampleEvents returns events of several types and shapes, built with the
// event types.
func sampleEvents() []event.Event {
	content := &event.TextMessageContent{MessageID: "msg_01", Delta: "Hello, world! 안녕하세요 🚀"}
	content.Timestamp = event.Ptr(int64(1733140800187))
	content.Metadata = event.Object(`{"tokenIndex":3,"tags":["a","b"]}`)
	return []event.Event{
		&event.RunStarted{ThreadID: "thread_1", RunID: "run_1"},
		&event.TextMessageStart{MessageID: "msg_01", Role: event.Ptr("assistant")},
		content,
		&event.ToolCallStart{ToolCallID: "call_1", ToolCallName: "get_weather", ParentMessageID: event.Ptr("msg_01")},
		&event.ToolCallArgs{ToolCallID: "call_1", Delta: `{"city":"Seoul"}`},
		&event.StateSnapshot{Snapshot: event.RawValue(`{"count":1,"items":[true,null,"x"]}`)},
		&event.ReasoningStart{MessageID: "rsn_1"},
		&event.RunFinished{ThreadID: "thread_1", RunID: "run_1", Result: event.RawValue(`{"ok":true}`)},
	}
}

// framed concatenates the payloads, each with its length prefix.
func framed(payloads ...[]byte) []byte {
	var out []byte
	for _, p := range payloads {
		out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

func mustEncode(t testing.TB, ev event.Event) []byte {
	t.Helper()
	b, err := codec.Append(nil, ev)
	if err != nil {
		t.Fatalf("encode %s: %v", ev.Type(), err)
	}
	return b
}

func mustJSON(t testing.TB, ev event.Event) string {
	t.Helper()
	b, err := event.Marshal(ev)
	if err != nil {
		t.Fatalf("marshal %s: %v", ev.Type(), err)
	}
	return string(b)
}

// sampleStream returns the payloads of sampleEvents and their framed stream.
func sampleStream(t testing.TB) ([][]byte, []byte) {
	var payloads [][]byte
	for _, ev := range sampleEvents() {
		payloads = append(payloads, mustEncode(t, ev))
	}
	return payloads, framed(payloads...)
}

// asError returns err as a *framing.Error or fails the test.
func asError(t testing.TB, err error) *framing.Error {
	t.Helper()
	var fe *framing.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *framing.Error", err, err)
	}
	return fe
}

// readers wraps a stream in the io.Readers a Reader must cope with.
var readers = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"bytes", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"one-byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"data-err", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
}

func TestRoundTrip(t *testing.T) {
	events := sampleEvents()
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, ev := range events {
		if err := w.WriteEvent(ev); err != nil {
			t.Fatalf("WriteEvent(%s): %v", ev.Type(), err)
		}
	}
	payloads, want := sampleStream(t)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("stream differs from the framed codec output\n got %x\nwant %x", buf.Bytes(), want)
	}
	if w.FramesWritten() != int64(len(events)) || w.BytesWritten() != int64(len(want)) {
		t.Errorf("Frames, Bytes = %d, %d; want %d, %d", w.FramesWritten(), w.BytesWritten(), len(events), len(want))
	}

	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			r := framing.NewReader(rd.wrap(want), framing.ReaderOptions{})
			if r.Offset() != -1 {
				t.Errorf("Offset before the first frame = %d, want -1", r.Offset())
			}
			off := int64(0)
			for i, ev := range events {
				got, err := r.ReadEvent()
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				if g, w := mustJSON(t, got), mustJSON(t, ev); g != w {
					t.Errorf("event %d:\n got %s\nwant %s", i, g, w)
				}
				if r.Offset() != off {
					t.Errorf("event %d: Offset = %d, want %d", i, r.Offset(), off)
				}
				off += 4 + int64(len(payloads[i]))
			}
			for range 2 { // io.EOF, unwrapped, and sticky
				if ev, err := r.ReadEvent(); err != io.EOF || ev != nil {
					t.Fatalf("at the end: %v, %v; want nil, io.EOF", ev, err)
				}
			}
		})
	}
}

func TestJSON(t *testing.T) {
	lines := []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2}]}`,
		`{"type":"CUSTOM","name":"ping","value":{"n":1},"timestamp":17,"metadata":{"k":"v"}}`,
	}
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, l := range lines {
		if err := w.WriteJSON([]byte(l)); err != nil {
			t.Fatalf("WriteJSON(%s): %v", l, err)
		}
	}
	r := framing.NewReader(&buf, framing.ReaderOptions{})
	var dst []byte
	for i, l := range lines {
		var err error
		dst, err = r.ReadJSON(dst[:0])
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if string(dst) != l {
			t.Errorf("line %d:\n got %s\nwant %s", i, dst, l)
		}
	}
	if _, err := r.ReadJSON(nil); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

func TestWriteFrame(t *testing.T) {
	payloads, want := sampleStream(t)
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, p := range payloads {
		if err := w.WriteFrame(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFrame(nil); err != nil { // an empty frame is still a frame
		t.Fatal(err)
	}
	want = append(want, 0, 0, 0, 0)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("got %x\nwant %x", buf.Bytes(), want)
	}
}

// TestTruncation cuts a 3-frame stream at every byte: every frame before
// the cut is delivered, then ErrTruncated, or io.EOF at a frame boundary.
func TestTruncation(t *testing.T) {
	evs := sampleEvents()[:3]
	var payloads [][]byte
	starts := []int{0}
	for _, ev := range evs {
		p := mustEncode(t, ev)
		payloads = append(payloads, p)
		starts = append(starts, starts[len(starts)-1]+4+len(p))
	}
	stream := framed(payloads...)
	for _, rd := range readers {
		for cut := 0; cut <= len(stream); cut++ {
			r := framing.NewReader(rd.wrap(stream[:cut]), framing.ReaderOptions{})
			n := 0
			var err error
			for {
				var ev event.Event
				if ev, err = r.ReadEvent(); err != nil {
					break
				}
				if g, w := mustJSON(t, ev), mustJSON(t, evs[n]); g != w {
					t.Fatalf("%s, cut %d: event %d = %s, want %s", rd.name, cut, n, g, w)
				}
				n++
			}
			complete := 0
			for complete < 3 && starts[complete+1] <= cut {
				complete++
			}
			if n != complete {
				t.Fatalf("%s, cut %d: %d events delivered, want %d (err %v)", rd.name, cut, n, complete, err)
			}
			if cut == starts[complete] {
				if err != io.EOF {
					t.Fatalf("%s, cut %d at a frame boundary: %v, want io.EOF", rd.name, cut, err)
				}
				continue
			}
			if !errors.Is(err, framing.ErrTruncated) || framing.Skippable(err) {
				t.Fatalf("%s, cut %d: %v, want a stream-level ErrTruncated", rd.name, cut, err)
			}
			fe := asError(t, err)
			if fe.Frame != int64(complete) || fe.Offset != int64(starts[complete]) {
				t.Fatalf("%s, cut %d: frame %d at %d, want frame %d at %d", rd.name, cut, fe.Frame, fe.Offset, complete, starts[complete])
			}
			in := cut - starts[complete]
			var wantMsg string
			if in < 4 {
				wantMsg = "after " + strconv.Itoa(in) + " of the 4 bytes of the length prefix"
			} else {
				wantMsg = "after " + strconv.Itoa(in-4) + " of the " + strconv.Itoa(len(payloads[complete])) + " bytes of the payload"
			}
			if !strings.Contains(err.Error(), wantMsg) || !strings.Contains(err.Error(), "frame "+strconv.Itoa(complete)+" at byte "+strconv.Itoa(starts[complete])) {
				t.Fatalf("%s, cut %d: message %q lacks %q", rd.name, cut, err, wantMsg)
			}
			if _, err2 := r.ReadEvent(); err2 != err {
				t.Fatalf("%s, cut %d: truncation is not sticky: then %v", rd.name, cut, err2)
			}
		}
	}
}

func TestFrameTooLarge(t *testing.T) {
	good := mustEncode(t, sampleEvents()[0])
	for _, tc := range []struct {
		name  string
		max   int
		size  int
		large bool
	}{
		{"at limit", 100, 100, false},
		{"above limit", 100, 101, true},
		{"default limit", 0, framing.DefaultMaxFrameSize + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := framed(good)
			stream = binary.BigEndian.AppendUint32(stream, uint32(tc.size))
			stream = append(stream, make([]byte, min(tc.size, 1000))...)
			r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{MaxFrameSize: tc.max})
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			_, err := r.Next()
			if !tc.large {
				if err != nil {
					t.Fatalf("frame at the limit: %v", err)
				}
				return
			}
			if !errors.Is(err, framing.ErrFrameTooLarge) || framing.Skippable(err) {
				t.Fatalf("got %v, want a stream-level ErrFrameTooLarge", err)
			}
			fe := asError(t, err)
			limit := tc.max
			if limit == 0 {
				limit = framing.DefaultMaxFrameSize
			}
			wantOff := int64(4 + len(good))
			if fe.Frame != 1 || fe.Offset != wantOff {
				t.Errorf("frame %d at %d, want 1 at %d", fe.Frame, fe.Offset, wantOff)
			}
			msg := err.Error()
			for _, s := range []string{"frame 1 at byte " + strconv.FormatInt(wantOff, 10), strconv.Itoa(tc.size), strconv.Itoa(limit)} {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
			if _, err2 := r.Next(); err2 != err {
				t.Errorf("not sticky: then %v", err2)
			}
		})
	}
}

// endless yields the 4 bytes of a length prefix, then zeros forever,
// counting what it was asked for.
type endless struct {
	hdr  []byte
	read int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.hdr)
	e.hdr = e.hdr[n:]
	for i := n; i < len(p); i++ {
		p[i] = 0
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestHugeDeclaredLength: a prefix declaring 4 GiB-1 fails from the 4
// header bytes alone, allocating nothing near that size and reading nothing
// past the prefix.
func TestHugeDeclaredLength(t *testing.T) {
	src := &endless{}
	r := framing.NewReader(src, framing.ReaderOptions{})
	var err error
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	allocs := testing.AllocsPerRun(100, func() {
		src.hdr, src.read = []byte{0xff, 0xff, 0xff, 0xff}, 0
		r.Reset(src)
		_, err = r.Next()
	})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, framing.ErrFrameTooLarge) || !strings.Contains(err.Error(), "4294967295") {
		t.Fatalf("got %v, want ErrFrameTooLarge naming 4294967295", err)
	}
	if src.read != 4 {
		t.Errorf("read %d bytes, want only the 4 of the prefix", src.read)
	}
	perRun := (after.TotalAlloc - before.TotalAlloc) / 101
	t.Logf("%.0f allocations, %d bytes per rejected frame (the error)", allocs, perRun)
	if perRun > 4<<10 || allocs > 8 {
		t.Errorf("rejecting the frame cost %.0f allocations, %d bytes: the declared size was allocated", allocs, perRun)
	}
}

// TestHugeDeclaredLengthUnlimited: with no practical limit, a peer that
// declares 4 GiB-1 and sends 1000 bytes costs memory for what it sent only.
func TestHugeDeclaredLengthUnlimited(t *testing.T) {
	stream := append([]byte{0xff, 0xff, 0xff, 0xff}, make([]byte, 1000)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{MaxFrameSize: math.MaxUint32})
	_, err := r.Next()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, framing.ErrTruncated) || !strings.Contains(err.Error(), "after 1000 of the 4294967295 bytes") {
		t.Fatalf("got %v, want ErrTruncated after 1000 of 4294967295 bytes", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("allocated %d bytes for a frame of which 1000 bytes arrived", n)
	}
}

// TestLargeFrameGrowth: a frame above the initial chunk is read whole
// through the doubling buffer, from a reader giving a byte at a time too.
func TestLargeFrameGrowth(t *testing.T) {
	big := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("0123456789abcdef", 50_000)} // 800 kB
	small := sampleEvents()[1]
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, ev := range []event.Event{small, big, small, big} {
		if err := w.WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, rd := range readers {
		r := framing.NewReader(rd.wrap(buf.Bytes()), framing.ReaderOptions{})
		for i, want := range []event.Event{small, big, small, big} {
			got, err := r.ReadEvent()
			if err != nil {
				t.Fatalf("%s: event %d: %v", rd.name, i, err)
			}
			if mustJSON(t, got) != mustJSON(t, want) {
				t.Fatalf("%s: event %d differs", rd.name, i)
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("%s: %v, want io.EOF", rd.name, err)
		}
	}
}

// TestBadFrameSkipped: a frame that fails to decode fails alone; the
// frames around it are delivered.
func TestBadFrameSkipped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload []byte
		want    error
	}{
		{"malformed", []byte{0xff}, codec.ErrMalformed},
		{"bad arm wire type", []byte{0x10, 0x01}, codec.ErrMalformed},
		// field 32 (an arm from a later protocol), length 2, payload 08 01.
		{"unknown future arm", []byte{0x82, 0x02, 0x02, 0x08, 0x01}, codec.ErrUnknownEvent},
		{"empty frame", []byte{}, codec.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := sampleEvents()
			first, last := mustEncode(t, evs[0]), mustEncode(t, evs[1])
			stream := framed(first, tc.payload, last)

			r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
			if _, err := r.ReadEvent(); err != nil {
				t.Fatal(err)
			}
			ev, err := r.ReadEvent()
			if ev != nil || !errors.Is(err, tc.want) || !framing.Skippable(err) {
				t.Fatalf("bad frame: %v, %v; want a skippable %v", ev, err, tc.want)
			}
			var ce *codec.Error
			if !errors.As(err, &ce) {
				t.Errorf("%v does not wrap a *codec.Error", err)
			}
			fe := asError(t, err)
			if fe.Frame != 1 || fe.Offset != int64(4+len(first)) || r.Offset() != fe.Offset {
				t.Errorf("frame %d at %d (Offset %d), want 1 at %d", fe.Frame, fe.Offset, r.Offset(), 4+len(first))
			}
			if !strings.HasPrefix(err.Error(), "framing: frame 1 at byte "+strconv.Itoa(4+len(first))+": agwire: decode") {
				t.Errorf("message %q", err)
			}
			ev, err = r.ReadEvent()
			if err != nil || mustJSON(t, ev) != mustJSON(t, evs[1]) {
				t.Fatalf("after the bad frame: %v, %v", ev, err)
			}
			if _, err := r.ReadEvent(); err != io.EOF {
				t.Fatalf("at the end: %v", err)
			}

			// The same through ReadJSON, and Next sees a plain frame.
			r = framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
			r.Next()
			p, err := r.Next()
			if err != nil || !bytes.Equal(p, tc.payload) || p == nil {
				t.Fatalf("Next on the bad frame: %x, %v", p, err)
			}
			r = framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
			r.ReadJSON(nil)
			dst := []byte("kept")
			dst, err = r.ReadJSON(dst)
			if !errors.Is(err, tc.want) || !framing.Skippable(err) || string(dst) != "kept" {
				t.Fatalf("ReadJSON on the bad frame: %q, %v", dst, err)
			}
			if dst, err = r.ReadJSON(nil); err != nil || string(dst) != mustJSON(t, evs[1]) {
				t.Fatalf("ReadJSON after the bad frame: %s, %v", dst, err)
			}
		})
	}
}

func TestEventsIterator(t *testing.T) {
	evs := sampleEvents()
	bad := []byte{0x82, 0x02, 0x02, 0x08, 0x01}
	stream := framed(mustEncode(t, evs[0]), bad, mustEncode(t, evs[1]), mustEncode(t, evs[2]))

	t.Run("all", func(t *testing.T) {
		r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
		var got []string
		for ev, err := range r.Events() {
			if err != nil {
				got = append(got, "skip:"+strconv.FormatBool(framing.Skippable(err)))
				continue
			}
			got = append(got, string(ev.Type()))
		}
		want := "RUN_STARTED skip:true TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT"
		if strings.Join(got, " ") != want {
			t.Errorf("got %v, want %s", got, want)
		}
	})
	t.Run("break", func(t *testing.T) {
		r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
		for ev, err := range r.Events() {
			if err != nil || ev.Type() != event.TypeRunStarted {
				t.Fatalf("first: %v, %v", ev, err)
			}
			break
		}
		// The reader is at the next frame.
		if _, err := r.ReadEvent(); !errors.Is(err, codec.ErrUnknownEvent) {
			t.Fatalf("after break: %v", err)
		}
		n := 0
		for _, err := range r.Events() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 2 {
			t.Errorf("resumed iteration gave %d events, want 2", n)
		}
	})
	t.Run("stream error ends", func(t *testing.T) {
		r := framing.NewReader(bytes.NewReader(stream[:len(stream)-1]), framing.ReaderOptions{})
		var errs []error
		n := 0
		for _, err := range r.Events() {
			if err != nil {
				errs = append(errs, err)
			} else {
				n++
			}
		}
		if n != 2 || len(errs) != 2 || !errors.Is(errs[0], codec.ErrUnknownEvent) || !errors.Is(errs[1], framing.ErrTruncated) {
			t.Errorf("got %d events, errors %v", n, errs)
		}
	})
}

func TestFramesIterator(t *testing.T) {
	payloads, stream := sampleStream(t)
	r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
	i := 0
	for p, err := range r.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p, payloads[i]) {
			t.Fatalf("frame %d: %x, want %x", i, p, payloads[i])
		}
		i++
		if i == 3 {
			break
		}
	}
	for p, err := range r.Frames() {
		if err != nil || !bytes.Equal(p, payloads[i]) {
			t.Fatalf("frame %d after break: %x, %v", i, p, err)
		}
		i++
	}
	if i != len(payloads) {
		t.Fatalf("%d frames, want %d", i, len(payloads))
	}

	r = framing.NewReader(bytes.NewReader(stream[:len(stream)-1]), framing.ReaderOptions{})
	var last error
	n := 0
	for _, err := range r.Frames() {
		n++
		last = err
	}
	if n != len(payloads) || !errors.Is(last, framing.ErrTruncated) {
		t.Fatalf("%d yields, last error %v", n, last)
	}
}

func TestReadErrors(t *testing.T) {
	payloads, stream := sampleStream(t)
	// TimeoutReader fails the second Read: inside the first frame's payload.
	r := framing.NewReader(iotest.TimeoutReader(bytes.NewReader(stream)), framing.ReaderOptions{})
	_, err := r.Next()
	if !errors.Is(err, iotest.ErrTimeout) || framing.Skippable(err) {
		t.Fatalf("got %v, want a stream-level iotest.ErrTimeout", err)
	}
	if fe := asError(t, err); fe.Frame != 0 || fe.Offset != 0 {
		t.Errorf("frame %d at %d", fe.Frame, fe.Offset)
	}
	if _, err2 := r.Next(); err2 != err {
		t.Errorf("read error is not sticky: then %v", err2)
	}

	// An error between frames.
	boom := errors.New("boom")
	src := io.MultiReader(bytes.NewReader(stream[:4+len(payloads[0])]), iotest.ErrReader(boom))
	r = framing.NewReader(src, framing.ReaderOptions{})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if fe := asError(t, err); fe.Frame != 1 || fe.Offset != int64(4+len(payloads[0])) {
		t.Errorf("frame %d at %d", fe.Frame, fe.Offset)
	}
}

func TestReaderReset(t *testing.T) {
	_, stream := sampleStream(t)
	r := framing.NewReader(bytes.NewReader(stream[:3]), framing.ReaderOptions{})
	if _, err := r.Next(); !errors.Is(err, framing.ErrTruncated) {
		t.Fatal(err)
	}
	r.Reset(bytes.NewReader(stream))
	n := 0
	for _, err := range r.Events() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(sampleEvents()) {
		t.Fatalf("%d events after Reset", n)
	}
}

func TestSkippable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{io.EOF, false},
		{errors.New("other"), false},
		{&framing.Error{Err: framing.ErrTruncated}, false},
		{&codec.Error{Op: "encode", Err: event.ErrUnsupportedEvent}, true},
	} {
		if got := framing.Skippable(tc.err); got != tc.want {
			t.Errorf("Skippable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// failWriter accepts ok frames, then fails every Write.
type failWriter struct {
	ok, calls int
	short     bool
	err       error
	buf       bytes.Buffer
}

func (f *failWriter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls <= f.ok {
		return f.buf.Write(p)
	}
	if f.short {
		return f.buf.Write(p[:len(p)/2])
	}
	f.buf.Write(p[:1])
	return 1, f.err
}

func TestWriterErrors(t *testing.T) {
	evs := sampleEvents()
	t.Run("sticky write error", func(t *testing.T) {
		boom := errors.New("boom")
		fw := &failWriter{ok: 2, err: boom}
		w := framing.NewWriter(fw, framing.WriterOptions{Codec: codec.Codec{}})
		for _, ev := range evs[:2] {
			if err := w.WriteEvent(ev); err != nil {
				t.Fatal(err)
			}
		}
		frames, written := w.FramesWritten(), w.BytesWritten()
		if err := w.WriteEvent(evs[2]); err != boom {
			t.Fatalf("got %v, want boom", err)
		}
		calls := fw.calls
		if err := w.WriteEvent(evs[3]); err != boom {
			t.Errorf("WriteEvent after failure: %v", err)
		}
		if err := w.WriteJSON([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)); err != boom {
			t.Errorf("WriteJSON after failure: %v", err)
		}
		if err := w.WriteFrame([]byte{1}); err != boom {
			t.Errorf("WriteFrame after failure: %v", err)
		}
		if fw.calls != calls {
			t.Errorf("the failed Writer called Write %d more times", fw.calls-calls)
		}
		if framing.Skippable(boom) {
			t.Error("a write error is skippable")
		}
		if w.FramesWritten() != frames || w.BytesWritten() != written+1 {
			t.Errorf("Frames, Bytes = %d, %d; want %d, %d", w.FramesWritten(), w.BytesWritten(), frames, written+1)
		}
		// Reset makes it usable again.
		var buf bytes.Buffer
		w.Reset(&buf)
		if err := w.WriteEvent(evs[0]); err != nil || w.FramesWritten() != 1 {
			t.Fatalf("after Reset: %v", err)
		}
	})
	t.Run("short write", func(t *testing.T) {
		w := framing.NewWriter(&failWriter{short: true}, framing.WriterOptions{Codec: codec.Codec{}})
		if err := w.WriteEvent(evs[0]); err != io.ErrShortWrite {
			t.Fatalf("got %v, want io.ErrShortWrite", err)
		}
		if err := w.WriteEvent(evs[0]); err != io.ErrShortWrite {
			t.Fatalf("not sticky: %v", err)
		}
	})
	t.Run("encode errors write nothing", func(t *testing.T) {
		var buf bytes.Buffer
		w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{Profile: codec.PreV1}})
		thinking, err := event.Parse([]byte(`{"type":"THINKING_START"}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			write func() error
			want  error
		}{
			{"thinking", func() error { return w.WriteEvent(thinking) }, event.ErrUnsupportedEvent},
			{"not in profile", func() error { return w.WriteEvent(evs[6]) }, codec.ErrNotInProfile},
			{"nil", func() error { return w.WriteEvent(nil) }, codec.ErrInvalid},
			{"lossy", func() error {
				return w.WriteJSON([]byte(`{"type":"STATE_SNAPSHOT","snapshot":9007199254740993}`))
			}, codec.ErrLossyNumber},
			{"bad json", func() error { return w.WriteJSON([]byte(`{"type":"RUN_STARTED","runId":"r",}`)) }, event.ErrSyntax},
		} {
			err := tc.write()
			if !errors.Is(err, tc.want) || !framing.Skippable(err) {
				t.Errorf("%s: got %v, want a skippable %v", tc.name, err, tc.want)
			}
			if buf.Len() != 0 || w.FramesWritten() != 0 {
				t.Errorf("%s: wrote %d bytes", tc.name, buf.Len())
			}
			if err := w.WriteEvent(evs[0]); err != nil {
				t.Fatalf("%s: the Writer is not usable after an encode error: %v", tc.name, err)
			}
			r := framing.NewReader(&buf, framing.ReaderOptions{})
			if ev, err := r.ReadEvent(); err != nil || ev.Type() != event.TypeRunStarted {
				t.Fatalf("%s: the next frame reads %v, %v", tc.name, ev, err)
			}
			buf.Reset()
			w.Reset(&buf)
		}
	})
}

// realistic is a TEXT_MESSAGE_CONTENT with a 40-byte delta.
func realistic() *event.TextMessageContent {
	return &event.TextMessageContent{MessageID: "msg_01JD8Y3K2VQ4", Delta: "The weather in Seoul is sunny, 23 C. Ok."}
}

// TestWriterAllocs: in steady state the Writer allocates nothing per event.
func TestWriterAllocs(t *testing.T) {
	ev := realistic()
	if len(ev.Delta) != 40 {
		t.Fatalf("delta is %d bytes", len(ev.Delta))
	}
	c := codec.Codec{}
	var scratch []byte
	codecAllocs := testing.AllocsPerRun(1000, func() { scratch, _ = c.Append(scratch[:0], ev) })

	w := framing.NewWriter(io.Discard, framing.WriterOptions{Codec: c})
	js := []byte(mustJSON(t, ev))
	payload := mustEncode(t, ev)
	for _, tc := range []struct {
		name  string
		write func() error
		max   float64
	}{
		{"WriteEvent", func() error { return w.WriteEvent(ev) }, codecAllocs},
		{"WriteFrame", func() error { return w.WriteFrame(payload) }, 0},
	} {
		if err := tc.write(); err != nil { // warm up the buffer
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(1000, func() {
			if err := tc.write(); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %v allocations per event (the codec's share: %v)", tc.name, n, tc.max)
		if n > tc.max {
			t.Errorf("%s: %v allocations per event; the framing adds %v", tc.name, n, n-tc.max)
		}
		if n != 0 {
			t.Errorf("%s: %v allocations per event, want 0", tc.name, n)
		}
	}
	// WriteJSON costs what the JSON parser allocates, nothing more.
	var out []byte
	parseAllocs := testing.AllocsPerRun(1000, func() { out, _ = c.AppendFromJSON(out[:0], js) })
	n := testing.AllocsPerRun(1000, func() { w.WriteJSON(js) })
	t.Logf("WriteJSON: %v allocations per event (codec.AppendFromJSON alone: %v)", n, parseAllocs)
	if n > parseAllocs {
		t.Errorf("WriteJSON: %v allocations per event, the codec %v", n, parseAllocs)
	}
}

// repeat is an endless stream repeating one frame.
type repeat struct {
	frame []byte
	off   int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.frame[r.off:])
		n += c
		r.off = (r.off + c) % len(r.frame)
	}
	return n, nil
}

// TestReaderAllocs: in steady state Next allocates nothing, and ReadEvent
// only what the codec allocates for the event.
func TestReaderAllocs(t *testing.T) {
	payload := mustEncode(t, realistic())
	r := framing.NewReader(&repeat{frame: framed(payload)}, framing.ReaderOptions{})
	r.Next()
	if n := testing.AllocsPerRun(1000, func() { r.Next() }); n != 0 {
		t.Errorf("Next: %v allocations per frame, want 0", n)
	}
	codecAllocs := testing.AllocsPerRun(1000, func() { codec.Unmarshal(payload) })
	n := testing.AllocsPerRun(1000, func() { r.ReadEvent() })
	t.Logf("ReadEvent: %v allocations per event (codec.Unmarshal alone: %v)", n, codecAllocs)
	if n > codecAllocs {
		t.Errorf("ReadEvent: %v allocations per event, the codec %v", n, codecAllocs)
	}
	var dst []byte
	r.ReadJSON(nil)
	codecAllocs = testing.AllocsPerRun(1000, func() { dst, _ = codec.AppendJSONFromWire(dst[:0], payload) })
	n = testing.AllocsPerRun(1000, func() { dst, _ = r.ReadJSON(dst[:0]) })
	t.Logf("ReadJSON: %v allocations per event (codec.AppendJSONFromWire alone: %v)", n, codecAllocs)
	if n > codecAllocs {
		t.Errorf("ReadJSON: %v allocations per event, the codec %v", n, codecAllocs)
	}
}

func BenchmarkWriterWriteEvent(b *testing.B) {
	ev := realistic()
	w := framing.NewWriter(io.Discard, framing.WriterOptions{Codec: codec.Codec{}})
	b.ReportAllocs()
	b.SetBytes(int64(len(mustEncode(b, ev)) + 4))
	for b.Loop() {
		if err := w.WriteEvent(ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriterWriteFrame(b *testing.B) {
	payload := mustEncode(b, realistic())
	w := framing.NewWriter(io.Discard, framing.WriterOptions{Codec: codec.Codec{}})
	b.ReportAllocs()
	b.SetBytes(int64(len(payload) + 4))
	for b.Loop() {
		if err := w.WriteFrame(payload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderNext(b *testing.B) {
	f := framed(mustEncode(b, realistic()))
	r := framing.NewReader(&repeat{frame: f}, framing.ReaderOptions{})
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for b.Loop() {
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderReadEvent(b *testing.B) {
	f := framed(mustEncode(b, realistic()))
	r := framing.NewReader(&repeat{frame: f}, framing.ReaderOptions{})
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for b.Loop() {
		if _, err := r.ReadEvent(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderReadJSON(b *testing.B) {
	f := framed(mustEncode(b, realistic()))
	r := framing.NewReader(&repeat{frame: f}, framing.ReaderOptions{})
	var dst []byte
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for b.Loop() {
		var err error
		if dst, err = r.ReadJSON(dst[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
