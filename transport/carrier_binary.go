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
	newDecoder: func(r io.Reader, opts ClientOptions) decoder {
		return &binaryDecoder{framing.NewReader(bufio.NewReaderSize(r, 32<<10), framing.ReaderOptions{
			Codec:                opts.Codec,
			MaxFrameSize:         max(opts.MaxEventSize, 0),
			MaxConsecutiveErrors: -1, // counted by the EventReader, for every carrier
		})}
	},
}

// binaryEncoder writes each event as one frame, built in buf: the 4-byte
// big-endian length, then the payload (the framing package's format).
type binaryEncoder struct {
	w   io.Writer
	c   codec.Codec
	lim sizeLimit
	buf []byte // the frame being built
}

func (e *binaryEncoder) reset(w io.Writer) { e.w = w }

func (e *binaryEncoder) writeEvent(ev event.Event) error {
	b, err := e.c.Append(e.buf[:4], ev)
	e.buf = b[:4] // keep what the codec grew
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
	return e.write(append(e.buf[:4], wire...))
}

// write fills in the length of the frame in b, checked against the limit,
// and writes it.
func (e *binaryEncoder) write(b []byte) error {
	e.buf = b[:4]
	n := len(b) - 4
	if uint64(n) > math.MaxUint32 {
		return refuse(fmt.Errorf("%w: a payload of %d bytes is more than a 4-byte length prefix can declare", ErrEventTooLarge, n))
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	_, err := e.w.Write(b)
	return err
}

// heartbeat writes nothing. The format has no frame that is not an event:
// a zero-length frame is a valid frame to the framing package (a
// malformed event, skipped), but @ag-ui/proto@1.0.0's stream reader fails
// on it, so a binary stream stays silent while a run is, and a connection
// cut by an idle timeout is resumed from its cursor instead.
func (e *binaryEncoder) heartbeat() (bool, error) { return false, nil }

type binaryDecoder struct{ r *framing.Reader }

func (d *binaryDecoder) next() (event.Event, error) {
	ev, err := d.r.ReadEvent()
	switch {
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
