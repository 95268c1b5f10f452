package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// refFrame is one frame as the reference splitter sees it.
type refFrame struct {
	off     int64 // offset of the length prefix
	payload []byte
}

// refSplit is the reference splitter, written from the framing rules alone
// (wire-1.0.md "Framing"): a 4-byte big-endian length, then that many
// bytes, until the stream ends. It returns the whole frames and how the
// stream ends: nil (cleanly between frames), framing.ErrTruncated (inside a
// prefix or a payload) or framing.ErrFrameTooLarge (a declared length above
// max), with the offset of the frame that failed.
func refSplit(data []byte, max uint64) (frames []refFrame, end error, endOff int64) {
	off := 0
	for {
		rest := data[off:]
		switch {
		case len(rest) == 0:
			return frames, nil, int64(off)
		case len(rest) < 4:
			return frames, framing.ErrTruncated, int64(off)
		}
		n := uint64(binary.BigEndian.Uint32(rest))
		if n > max {
			return frames, framing.ErrFrameTooLarge, int64(off)
		}
		if uint64(len(rest)-4) < n {
			return frames, framing.ErrTruncated, int64(off)
		}
		frames = append(frames, refFrame{off: int64(off), payload: rest[4 : 4+n]})
		off += 4 + int(n)
	}
}

// frameLimit turns the fuzzer's number into a ReaderOptions.MaxFrameSize
// and the limit it means: 0 is the default, 1 is "every length the prefix
// can declare", anything else is itself (small limits are the interesting
// ones, so the number is taken modulo 2^16 above 1).
func frameLimit(sel uint32) (opt int, limit uint64) {
	switch sel {
	case 0:
		return 0, framing.DefaultMaxFrameSize
	case 1:
		return math.MaxUint32, math.MaxUint32
	}
	v := int(sel % (1 << 16))
	if v == 0 {
		v = 1
	}
	return v, uint64(v)
}

// frameStream joins payloads into a well-formed stream.
func frameStream(payloads ...[]byte) []byte {
	var out []byte
	for _, p := range payloads {
		out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

// FuzzFramingReader: framing.Reader over an arbitrary stream, read 1 byte,
// 7 bytes and a random number of bytes at a time, gives exactly the frames
// of the reference splitter above, at the same offsets, and ends the same
// way: io.EOF itself after a whole frame, otherwise a sticky *framing.Error
// wrapping ErrTruncated or ErrFrameTooLarge with the failing frame's offset
// and index. It never reads past the frame it returns. Decoding through
// ReadEvent, Events and ReadJSON agrees with codec.Unmarshal of each
// reference payload: an event exactly when the payload decodes (never an
// event together with an error), otherwise a skippable *framing.Error
// wrapping the codec's *codec.Error at that frame. Memory: splitting the
// stream allocates at most 256 KiB plus 4 bytes per input byte, whatever
// length a prefix declares (a declared 4 GiB frame costs what was sent).
func FuzzFramingReader(f *testing.F) {
	ok := wEvent(armTextMessageContent, enumTextMessageContent, wStr(2, "m"), wStr(3, "hi"))
	bad := []byte{0x00}
	future := wMsg(40, wStr(1, "x"))
	for _, s := range []struct {
		data []byte
		sel  uint32
	}{
		{nil, 0},
		{frameStream(ok), 0},
		{frameStream(ok, nil, bad, future, ok), 0},
		{frameStream(ok, ok)[:9], 0},                 // truncated payload
		{append(frameStream(ok), 0, 0), 0},           // truncated prefix
		{[]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3}, 1}, // a declared 4 GiB frame, limit 2^32-1
		{[]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3}, 0}, // ... over the default limit
		{append(frameStream(ok), 0, 1, 0, 0, 9), 1},  // 64 KiB declared, 1 byte sent
		{frameStream(ok, ok), 12},                    // limit below the second frame
		{frameStream(wCustom(wvNumBits(math.Float64bits(math.NaN())))), 0},
	} {
		f.Add(s.data, s.sel, uint64(len(s.data)))
	}
	if !fuzzing() {
		// A whole frame beyond the first 64 KiB chunk, whose buffer grows.
		big := frameStream(ok, bytes.Repeat([]byte{7}, 70000), ok)
		f.Add(big, uint32(1), uint64(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, sel uint32, seed uint64) {
		opt, limit := frameLimit(sel)
		opts := framing.ReaderOptions{MaxFrameSize: opt}
		frames, end, endOff := refSplit(data, limit)
		var refEvents []event.Event
		var refErrs []error
		for _, fr := range frames {
			ev, err := codec.Unmarshal(fr.payload)
			refEvents, refErrs = append(refEvents, ev), append(refErrs, err)
		}
		cks := chunkings(seed)

		// Next, in every chunking: the frames, offsets, the end, and
		// the memory bound.
		for _, ck := range cks {
			src := newChunkReader(data, ck, nil)
			r := framing.NewReader(src, opts)
			var got int
			var last error
			alloc := allocated(func() {
				for {
					p, err := r.Next()
					if err != nil {
						last = err
						break
					}
					if got >= len(frames) {
						t.Fatalf("%s: frame %d beyond the reference's %d frames", ck.name, got, len(frames))
					}
					fr := frames[got]
					if !bytes.Equal(p, fr.payload) || p == nil {
						t.Fatalf("%s: frame %d: payload %x, want %x", ck.name, got, p, fr.payload)
					}
					if r.Offset() != fr.off {
						t.Fatalf("%s: frame %d: Offset %d, want %d", ck.name, got, r.Offset(), fr.off)
					}
					if want := int(fr.off) + 4 + len(fr.payload); src.pos != want {
						t.Fatalf("%s: frame %d: read %d bytes of the source, the frame ends at %d", ck.name, got, src.pos, want)
					}
					got++
				}
			})
			if got != len(frames) {
				t.Fatalf("%s: %d frames, want %d", ck.name, got, len(frames))
			}
			checkStreamEnd(t, ck.name, last, end, endOff, int64(len(frames)))
			if _, again := r.Next(); again != last {
				t.Fatalf("%s: error not sticky: %v, then %v", ck.name, last, again)
			}
			if bound := uint64(256<<10) + 4*uint64(len(data)) + allocSlack; alloc > bound {
				t.Fatalf("%s: splitting %d bytes allocated %d bytes, bound %d", ck.name, len(data), alloc, bound)
			}
		}

		// ReadEvent (7-byte reads), Events (random reads), ReadJSON (1-byte
		// reads): the same decisions as codec.Unmarshal on each payload.
		check := func(how string, i int, ev event.Event, js []byte, err error) {
			t.Helper()
			if i >= len(frames) {
				t.Fatalf("%s: item %d beyond the reference's %d frames (err %v)", how, i, len(frames), err)
			}
			if refErrs[i] == nil {
				if err != nil {
					t.Fatalf("%s: frame %d: %v; codec.Unmarshal decodes it", how, i, err)
				}
				want := mustMarshal(t, refEvents[i])
				if ev != nil && !bytes.Equal(mustMarshal(t, ev), want) || js != nil && !bytes.Equal(js, want) {
					t.Fatalf("%s: frame %d: event differs from codec.Unmarshal's", how, i)
				}
				return
			}
			if ev != nil || js != nil {
				t.Fatalf("%s: frame %d: an event together with the error %v", how, i, err)
			}
			var fe *framing.Error
			var ce *codec.Error
			if !errors.As(err, &fe) || !errors.As(err, &ce) || !framing.Skippable(err) {
				t.Fatalf("%s: frame %d: error %T %v, want a skippable *framing.Error wrapping a *codec.Error", how, i, err, err)
			}
			if fe.Frame != int64(i) || fe.Offset != frames[i].off {
				t.Fatalf("%s: frame %d at %d: error says frame %d at %d", how, i, frames[i].off, fe.Frame, fe.Offset)
			}
			if s := decodeSentinel(refErrs[i]); s == nil || !errors.Is(err, s) {
				t.Fatalf("%s: frame %d: %v, codec.Unmarshal says %v", how, i, err, refErrs[i])
			}
		}

		r := framing.NewReader(newChunkReader(data, cks[1], nil), opts)
		i := 0
		for {
			ev, err := r.ReadEvent()
			if err != nil && !framing.Skippable(err) {
				checkStreamEnd(t, "ReadEvent", err, end, endOff, int64(len(frames)))
				break
			}
			if err == nil && ev == nil {
				t.Fatalf("ReadEvent: frame %d: nil event and nil error", i)
			}
			check("ReadEvent", i, ev, nil, err)
			i++
		}
		if i != len(frames) {
			t.Fatalf("ReadEvent: %d frames, want %d", i, len(frames))
		}

		r = framing.NewReader(newChunkReader(data, cks[2], nil), opts)
		i = 0
		var streamErr error
		for ev, err := range r.Events() {
			if err != nil && !framing.Skippable(err) {
				streamErr = err
				continue // the iterator must stop by itself
			}
			if streamErr != nil {
				t.Fatal("Events: an item after a stream-level error")
			}
			check("Events", i, ev, nil, err)
			i++
		}
		if i != len(frames) {
			t.Fatalf("Events: %d frames, want %d", i, len(frames))
		}
		if streamErr == nil {
			streamErr = io.EOF // the iterator ends silently at a clean end
		}
		checkStreamEnd(t, "Events", streamErr, end, endOff, int64(len(frames)))

		r = framing.NewReader(newChunkReader(data, cks[0], nil), opts)
		i = 0
		for {
			prefix := []byte("prefix")
			out, err := r.ReadJSON(prefix)
			if !bytes.HasPrefix(out, prefix) {
				t.Fatalf("ReadJSON: frame %d: dst not kept: %q", i, out)
			}
			if err != nil && !framing.Skippable(err) {
				checkStreamEnd(t, "ReadJSON", err, end, endOff, int64(len(frames)))
				break
			}
			var js []byte
			if err == nil {
				js = out[len(prefix):]
			} else if len(out) != len(prefix) {
				t.Fatalf("ReadJSON: frame %d: %q written with the error %v", i, out, err)
			}
			check("ReadJSON", i, nil, js, err)
			i++
		}
		if i != len(frames) {
			t.Fatalf("ReadJSON: %d frames, want %d", i, len(frames))
		}
	})
}

// checkStreamEnd compares how a Reader ended with the reference.
func checkStreamEnd(t *testing.T, how string, got, want error, off, frame int64) {
	t.Helper()
	if want == nil {
		if got != io.EOF {
			t.Fatalf("%s: stream ends with %v, want io.EOF itself", how, got)
		}
		return
	}
	var fe *framing.Error
	if !errors.As(got, &fe) || !errors.Is(got, want) || framing.Skippable(got) {
		t.Fatalf("%s: stream ends with %T %v, want a stream-level *framing.Error wrapping %v", how, got, got, want)
	}
	if fe.Offset != off || fe.Frame != frame {
		t.Fatalf("%s: error at frame %d offset %d, want frame %d offset %d: %v", how, fe.Frame, fe.Offset, frame, off, got)
	}
}

func mustMarshal(t *testing.T, ev event.Event) []byte {
	t.Helper()
	b, err := event.Marshal(ev)
	if err != nil {
		t.Fatalf("event.Marshal of a decoded event: %v", err)
	}
	return b
}
