package transport

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// binaryCarrier is the AG-UI 1.0 binary stream: length-prefixed protobuf
// frames (package framing).
var binaryCarrier = carrier{
	mediaType: MediaTypeBinary,
	newEncoder: func(w io.Writer, c codec.Codec, lim sizeLimit) encoder {
		return &binaryEncoder{w: w, c: c, lim: lim, buf: make([]byte, 4, 512)}
	},
	newDecoder: func(r io.Reader, opts ReaderOptions) decoder {
		d := &binaryDecoder{src: countingReader{r: bufio.NewReaderSize(r, 32<<10)}, keepalives: new(int64)}
		c := opts.Codec
		if opts.Consume && opts.Warn != nil && c.Skipped == nil {
			// A field of a later protocol version that the codec's profile
			// skips is said, as the consuming parse says it of JSON: the
			// decoded event no longer holds it, so the check below cannot.
			warn := opts.Warn
			c.Skipped = func(t event.Type, pointer string) {
				warn(event.Warning{Type: t, Path: pointer, Reason: "removed an unrecognised property"})
			}
		}
		d.r = framing.NewReader(&d.src, framing.ReaderOptions{
			Codec:                c,
			MaxFrameSize:         max(opts.MaxEventSize, 0),
			MaxConsecutiveErrors: -1, // counted by the EventReader, for every carrier
		})
		if opts.Consume {
			p := opts.parser()
			d.consume = &p
		}
		return d
	},
}

// binaryEncoder writes each event as one frame, built in buf: the 4-byte
// big-endian length, then the payload (the framing package's format).
type binaryEncoder struct {
	w   io.Writer
	c   codec.Codec
	lim sizeLimit
	buf []byte // the frame being built
	// keepalive makes heartbeat write zero-length frames: the client sent
	// HeaderKeepalive.
	keepalive bool
}

func (e *binaryEncoder) reset(w io.Writer) { e.w = w }

func (e *binaryEncoder) writeEvent(ev event.Event) error {
	b, err := e.c.Append(e.buf[:4], ev)
	e.buf = append(reuse(b), 0, 0, 0, 0) // keep what the codec grew, unless large
	if err != nil {
		return refuse(err)
	}
	if err := e.lim.frame(len(b) - 4); err != nil {
		return refuse(err)
	}
	return e.write(b)
}

func (e *binaryEncoder) writeJSON(ev event.Event, _ []byte) error { return e.writeEvent(ev) }

// writeWire writes the wire bytes as one frame. The binary stream has no
// place for the cursor: the response's Agwire-Cursor header names where the
// stream starts, and a client counts frames.
func (e *binaryEncoder) writeWire(wire []byte, _ string) error {
	if err := e.lim.frame(len(wire)); err != nil {
		return refuse(err)
	}
	if len(wire) >= shareFrom {
		// Written from the log's bytes, not copied into this response's
		// buffer: a client that stops reading holds no copy of a large
		// event (see sharedJSON for SSE). Two writes, prefix and payload.
		var prefix [4]byte
		binary.BigEndian.PutUint32(prefix[:], uint32(len(wire)))
		if _, err := e.w.Write(prefix[:]); err != nil {
			return err
		}
		_, err := e.w.Write(wire)
		return err
	}
	return e.write(append(e.buf[:4], wire...))
}

// write fills in the length of the frame in b, checked against the limit,
// and writes it.
func (e *binaryEncoder) write(b []byte) error {
	e.buf = append(reuse(b), 0, 0, 0, 0)
	n := len(b) - 4
	if uint64(n) > math.MaxUint32 {
		return refuse(fmt.Errorf("%w: a payload of %d bytes is more than a 4-byte length prefix can declare", ErrEventTooLarge, n))
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	_, err := e.w.Write(b)
	return err
}

// heartbeat writes a zero-length frame, agwire's keep-alive, when the
// client asked for them (keepalive), and otherwise nothing. AG-UI 1.0 has
// no frame that is not an event: @ag-ui/proto@1.0.0's stream reader fails
// on a zero-length frame, so a stock client's binary stream stays silent
// while its run is.
func (e *binaryEncoder) heartbeat() (bool, error) {
	if !e.keepalive {
		return false, nil
	}
	_, err := e.w.Write(keepaliveFrame[:])
	return true, err
}

// keepaliveFrame is a frame of no payload: a length prefix of 0.
var keepaliveFrame [4]byte

// binaryDecoder reads frames. With keepalive (the response carried
// HeaderKeepalive) it skips zero-length frames: they are not events, not
// undecodable events, and not counted in a resume cursor. Without it a
// zero-length frame is what it is in AG-UI 1.0, an event that does not
// decode (codec.ErrMalformed): @ag-ui/encoder 1.0.0 writes one for each
// THINKING_* event, and a reader should hear of those.
type binaryDecoder struct {
	r         *framing.Reader
	src       countingReader // what r reads
	keepalive bool
	// keepalives counts the keep-alive frames skipped, for ErrQuiet's
	// report (the EventReader's count since its last event).
	keepalives *int64
	// consume, with ClientOptions.Consume, checks each decoded event as the
	// consumer stage checks a JSON one: through its JSON form, which is
	// what @ag-ui/client validates after decoding a frame.
	consume *event.Parser
}

func (d *binaryDecoder) next() (event.Event, error) {
	start := d.src.n
	ev, err := d.r.ReadEvent()
	for d.keepalive && err != nil && framing.Skippable(err) && d.src.n-start == int64(len(keepaliveFrame)) {
		start = d.src.n // the frame was its length prefix alone
		*d.keepalives++
		ev, err = d.r.ReadEvent()
	}
	switch {
	case err == nil && d.consume != nil:
		js, err := event.Marshal(ev)
		if err == nil {
			ev, err = d.consume.Parse(js)
		}
		if err != nil {
			return nil, &badEvent{err: err}
		}
		return ev, nil
	case err == nil || err == io.EOF:
		return ev, err
	case framing.Skippable(err):
		return nil, &badEvent{err: err, unknown: errors.Is(err, codec.ErrUnknownEvent)}
	case errors.Is(err, framing.ErrTruncated):
		return nil, err
	case errors.Is(err, framing.ErrFrameTooLarge):
		return nil, fmt.Errorf("%w: %w", ErrEventTooLarge, err)
	}
	return nil, err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
