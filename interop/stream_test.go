package interop

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// accepted returns the fixtures the 1.0 peer encodes and decodes, in corpus
// order: the events of a full stream.
func accepted(cases []peerCase) []peerCase {
	var out []peerCase
	for _, c := range cases {
		if len(c.Bytes) > 0 && c.Decoded != nil {
			out = append(out, c)
		}
	}
	return out
}

func rawEvents(cases []peerCase) []json.RawMessage {
	out := make([]json.RawMessage, len(cases))
	for i, c := range cases {
		out[i] = c.Event
	}
	return out
}

// frameConcat is the stream the framing defines: each payload behind its
// 4-byte big-endian length.
func frameConcat(payloads [][]byte) []byte {
	var out []byte
	for _, p := range payloads {
		out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

// TestStreamPeerFramedGoReads: a stream written by the peer's EventEncoder
// (all accepted fixtures, in order) reads in agwire's framing.Reader, through
// the Events iterator, to the events the peer decodes.
func TestStreamPeerFramedGoReads(t *testing.T) {
	cases := accepted(corpus(t))
	r := do(t, FrameRequest(rawEvents(cases)))[0]
	if err := r.Err(); err != nil {
		t.Fatalf("peer frame: %v", err)
	}
	if r.ContentType != transport.MediaTypeBinary {
		t.Errorf("peer content type %q, agwire's MediaType %q", r.ContentType, transport.MediaTypeBinary)
	}
	stream, err := r.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	// The EventEncoder frames exactly what proto.encode writes.
	payloads := make([][]byte, len(cases))
	for i, c := range cases {
		payloads[i] = c.Bytes
	}
	if !bytes.Equal(stream, frameConcat(payloads)) {
		t.Errorf("the peer's framed stream is not its encoded events behind 4-byte big-endian lengths")
	}
	if len(r.FrameLengths) != len(cases) {
		t.Errorf("peer wrote %d frames for %d events", len(r.FrameLengths), len(cases))
	}

	reader := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
	i := 0
	for ev, err := range reader.Events() {
		if i >= len(cases) {
			t.Fatalf("agwire read more than the %d frames written (err %v)", len(cases), err)
		}
		c := cases[i]
		i++
		if err != nil {
			t.Errorf("frame %d (%s): agwire: %v", i-1, c.Name, err)
			continue
		}
		got, err := event.Marshal(ev)
		if err != nil {
			t.Errorf("frame %d (%s): event.Marshal: %v", i-1, c.Name, err)
			continue
		}
		if d := jsonDiff(got, c.Decoded); d != "" {
			t.Errorf("frame %d (%s): %s\nagwire: %s\npeer:   %s", i-1, c.Name, d, short(got), short(c.Decoded))
		}
	}
	if i != len(cases) {
		t.Errorf("agwire read %d of %d frames", i, len(cases))
	}
	t.Logf("peer stream: %d frames, %d bytes", len(cases), len(stream))
}

// goStream frames every accepted fixture with agwire's framing.Writer. The
// stream holds the lossy fixtures too, so the Writer's codec rounds numbers
// as the peer does.
func goStream(t *testing.T, cases []peerCase) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{LossyNumbers: true}})
	for _, c := range cases {
		if err := w.WriteJSON(c.Event); err != nil {
			t.Fatalf("%s: framing.Writer: %v", c.Name, err)
		}
	}
	if w.FramesWritten() != int64(len(cases)) || w.BytesWritten() != int64(buf.Len()) {
		t.Fatalf("Writer counts %d frames / %d bytes, wrote %d events / %d bytes", w.FramesWritten(), w.BytesWritten(), len(cases), buf.Len())
	}
	return buf.Bytes()
}

// TestStreamGoFramedPeerReads: a stream written by agwire's framing.Writer
// reads in the peer's parseProtoStream to the events the peer decodes — fed
// as one chunk, and split every 7 bytes so that length prefixes and payloads
// straddle chunk boundaries.
func TestStreamGoFramedPeerReads(t *testing.T) {
	cases := accepted(corpus(t))
	stream := goStream(t, cases)

	// Framed form of the byte-identity check: frame by frame, agwire's
	// stream carries the peer's bytes wherever the payloads are identical.
	reader := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
	for i, c := range cases {
		payload, err := reader.Next()
		if err != nil {
			t.Fatalf("frame %d (%s): rereading agwire's own stream: %v", i, c.Name, err)
		}
		if !c.IntKeys && !bytes.Equal(payload, c.Bytes) {
			t.Errorf("frame %d (%s): payload differs from the peer's encoding", i, c.Name)
		}
	}
	if _, err := reader.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}

	for _, chunk := range []int{0, 7} {
		t.Run(fmt.Sprintf("chunkSize=%d", chunk), func(t *testing.T) {
			r := do(t, ParseStreamRequest(stream, chunk))[0]
			if err := r.Err(); err != nil {
				t.Errorf("parseProtoStream failed after %d events: %v", len(r.Events), err)
			}
			if r.Warned {
				t.Errorf("parseProtoStream warned: %q", r.Warnings)
			}
			if len(r.Events) != len(cases) {
				t.Errorf("parseProtoStream delivered %d events, %d were written", len(r.Events), len(cases))
			}
			for i := 0; i < len(r.Events) && i < len(cases); i++ {
				if d := jsonDiff(r.Events[i], cases[i].Decoded); d != "" {
					t.Errorf("event %d (%s): %s\nparseProtoStream: %s\nproto.decode:     %s", i, cases[i].Name, d, short(r.Events[i]), short(cases[i].Decoded))
				}
			}
		})
	}
}

// futureFrame is an Event envelope holding only arm 32, which AG-UI 1.0 does
// not define, with a well-formed message in it: field 32, wire type 2
// (82 02), length 2, then field 1 varint 1 (08 01).
var futureFrame = []byte{0x82, 0x02, 0x02, 0x08, 0x01}

// TestStreamFutureArmSkipped: a frame from a later protocol in the middle of
// a stream is skipped by both readers, which go on with the next frame.
func TestStreamFutureArmSkipped(t *testing.T) {
	first := []byte(`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`)
	last := []byte(`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`)
	a, err := codec.AppendFromJSON(nil, first)
	if err != nil {
		t.Fatal(err)
	}
	b, err := codec.AppendFromJSON(nil, last)
	if err != nil {
		t.Fatal(err)
	}
	stream := frameConcat([][]byte{a, futureFrame, b})

	// agwire: the middle frame is a skippable ErrUnknownEvent.
	reader := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
	var got []string
	for ev, err := range reader.Events() {
		switch {
		case err == nil:
			got = append(got, string(ev.Type()))
		case errors.Is(err, codec.ErrUnknownEvent) && framing.Skippable(err):
			got = append(got, "skipped")
		default:
			t.Fatalf("agwire: %v", err)
		}
	}
	if fmt.Sprint(got) != "[TEXT_MESSAGE_START skipped TEXT_MESSAGE_END]" {
		t.Errorf("agwire read %v", got)
	}

	// The peer drops it (with a warning) and delivers the other two.
	r := do(t, ParseStreamRequest(stream, 0))[0]
	if err := r.Err(); err != nil {
		t.Fatalf("parseProtoStream: %v", err)
	}
	if len(r.Events) != 2 || jsonDiff(r.Events[0], first) != "" || jsonDiff(r.Events[1], last) != "" {
		t.Errorf("parseProtoStream delivered %d events: %s", len(r.Events), r.Line)
	}
	if !r.Warned {
		t.Errorf("parseProtoStream dropped the frame without a warning")
	}
}

// TestStreamTruncated: a stream that ends inside a frame is an error for both
// readers, after the complete frames before it.
func TestStreamTruncated(t *testing.T) {
	ev := []byte(`{"type":"STEP_STARTED","stepName":"plan"}`)
	payload, err := codec.AppendFromJSON(nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	full := frameConcat([][]byte{payload, payload})
	for _, cut := range []int{len(payload) + 4 + 2, len(full) - 1} { // in a prefix, in a payload
		stream := full[:cut]
		reader := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
		n := 0
		var last error
		for _, err := range reader.Events() {
			if err != nil {
				last = err
				break
			}
			n++
		}
		if n != 1 || !errors.Is(last, framing.ErrTruncated) {
			t.Errorf("cut at %d: agwire read %d events, then %v; want 1 then ErrTruncated", cut, n, last)
		}
		r := do(t, ParseStreamRequest(stream, 0))[0]
		if r.OK || len(r.Events) != 1 {
			t.Errorf("cut at %d: parseProtoStream ok=%v after %d events (%s); want an error after 1", cut, r.OK, len(r.Events), r.Error)
		}
	}
}

// TestStreamUnreadableFrames records how the two stream readers treat a
// frame that does not decode, in the middle of a stream. agwire's Reader
// reports the frame (framing.Skippable) and reads on; the peer's
// parseProtoStream fails the whole stream at that frame. Two such frames
// occur in practice:
//
//   - the zero-length frame the peer's own EventEncoder writes for a
//     THINKING_* event: unreadable for both;
//   - a frame agwire writes for an int64 (timestamp, usage count) beyond
//     2^53-1, such as a nanosecond timestamp: agwire reads it, the peer
//     throws "Value is larger than Number.MAX_SAFE_INTEGER". This one is a
//     divergence: agwire writes a frame the 1.0 peer cannot read.
func TestStreamUnreadableFrames(t *testing.T) {
	start := json.RawMessage(`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`)
	end := json.RawMessage(`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`)
	thinking := json.RawMessage(`{"type":"THINKING_START"}`)
	nanos := json.RawMessage(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi","timestamp":1733140800123456789}`)

	// The peer frames THINKING_START as a zero-length frame.
	fr := do(t, FrameRequest([]json.RawMessage{start, thinking, end}))[0]
	if err := fr.Err(); err != nil {
		t.Fatalf("peer frame: %v", err)
	}
	peerStream, _ := fr.Bytes()
	if len(fr.FrameLengths) != 3 || fr.FrameLengths[1] != 4 {
		t.Errorf("peer frame lengths %v, want the middle frame to be a bare 4-byte prefix", fr.FrameLengths)
	}

	// agwire refuses the nanosecond timestamp by default (ErrUnsafeInteger);
	// with UnsafeIntegers it frames it exactly.
	if err := framing.NewWriter(io.Discard, framing.WriterOptions{Codec: codec.Codec{}}).WriteJSON(nanos); !errors.Is(err, codec.ErrUnsafeInteger) {
		t.Errorf("default codec on a nanosecond timestamp: %v, want ErrUnsafeInteger", err)
	}
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{UnsafeIntegers: true}})
	for _, ev := range []json.RawMessage{start, nanos, end} {
		if err := w.WriteJSON(ev); err != nil {
			t.Fatalf("framing.Writer: %v", err)
		}
	}
	goStream := buf.Bytes()

	for _, tc := range []struct {
		name   string
		stream []byte
		goErr  error // agwire's error for the middle frame; nil: it reads it
	}{
		{"peer stream with THINKING_START", peerStream, codec.ErrMalformed},
		{"agwire stream with a nanosecond timestamp", goStream, codec.ErrUnsafeInteger},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reader := framing.NewReader(bytes.NewReader(tc.stream), framing.ReaderOptions{})
			var read, skipped int
			for _, err := range reader.Events() {
				switch {
				case err == nil:
					read++
				case tc.goErr != nil && errors.Is(err, tc.goErr) && framing.Skippable(err):
					skipped++
				default:
					t.Errorf("agwire: %v", err)
				}
			}
			wantRead := 3
			if tc.goErr != nil {
				wantRead = 2
			}
			if read != wantRead || skipped != 3-wantRead {
				t.Errorf("agwire read %d events and skipped %d frames, want %d and %d", read, skipped, wantRead, 3-wantRead)
			}

			r := do(t, ParseStreamRequest(tc.stream, 0))[0]
			if r.OK || len(r.Events) != 1 {
				t.Errorf("parseProtoStream: ok=%v after %d events (%s), want a failure after 1", r.OK, len(r.Events), r.Error)
			}
			t.Logf("agwire: %d read, %d skipped; parseProtoStream: %d delivered, then %q", read, skipped, len(r.Events), r.Error)
			if tc.goErr == codec.ErrUnsafeInteger {
				t.Logf("DIVERGENCE: agwire (written with Codec.UnsafeIntegers) skips the frame with timestamp 1733140800123456789 and reads on; the 1.0 peer cannot decode that frame and its stream ends there")
			}
		})
	}
}
