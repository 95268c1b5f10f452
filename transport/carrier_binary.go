package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// binaryCarrier is the AG-UI 1.0 binary stream: length-prefixed protobuf
// frames (package framing).
var binaryCarrier = carrier{
	mediaType: MediaTypeBinary,
	newEncoder: func(w io.Writer, opts ServerOptions) encoder {
		return &binaryEncoder{framing.NewWriter(w, framing.WriterOptions{Codec: opts.Codec, MaxFrameSize: opts.maxEventSize()})}
	},
	newDecoder: func(r io.Reader, opts ClientOptions) decoder {
		return &binaryDecoder{framing.NewReader(bufio.NewReaderSize(r, 32<<10), framing.ReaderOptions{
			Codec:                opts.Codec,
			MaxFrameSize:         max(opts.MaxEventSize, 0),
			MaxConsecutiveErrors: -1, // counted by the EventReader, for every carrier
		})}
	},
}

type binaryEncoder struct{ w *framing.Writer }

func (e *binaryEncoder) reset(w io.Writer) { e.w.Reset(w) }

func (e *binaryEncoder) writeEvent(ev event.Event) error { return e.check(e.w.WriteEvent(ev)) }

// writeWire writes the wire bytes as one frame. The binary stream has no
// place for the cursor: the response's Agwire-Cursor header names where the
// stream starts, and a client counts frames.
func (e *binaryEncoder) writeWire(wire []byte, _ string) error {
	return e.check(e.w.WriteFrame(wire))
}

// heartbeat writes nothing. The format has no frame that is not an event:
// a zero-length frame is a valid frame to the framing package (a
// malformed event, skipped), but @ag-ui/proto@1.0.0's stream reader fails
// on it, so a binary stream stays silent while a run is, and a connection
// cut by an idle timeout is resumed from its cursor instead.
func (e *binaryEncoder) heartbeat() (bool, error) { return false, nil }

func (e *binaryEncoder) writeJSON(ev event.Event, _ []byte) error {
	return e.check(e.w.WriteEvent(ev))
}

// check turns the Writer's refusals (the codec's, or a frame over the
// limit) into the carrier-neutral form.
func (e *binaryEncoder) check(err error) error {
	if err == nil || !framing.Skippable(err) {
		return err
	}
	var fe *framing.Error
	if errors.As(err, &fe) { // over the limit: the Writer's own error
		err = fe.Err
		if errors.Is(err, framing.ErrFrameTooLarge) {
			err = fmt.Errorf("%w (%w)", ErrEventTooLarge, err)
		}
	}
	return refuse(err)
}

type binaryDecoder struct{ r *framing.Reader }

func (d *binaryDecoder) next() (event.Event, error) {
	ev, err := d.r.ReadEvent()
	switch {
	case err == nil || err == io.EOF:
		return ev, err
	case framing.Skippable(err):
		return nil, &badEvent{err: err, unknown: errors.Is(err, codec.ErrUnknownEvent)}
	case errors.Is(err, framing.ErrTruncated):
		return nil, fmt.Errorf("%w: %w", ErrTruncated, err)
	case errors.Is(err, framing.ErrFrameTooLarge):
		return nil, fmt.Errorf("%w: %w", ErrEventTooLarge, err)
	}
	return nil, err
}
