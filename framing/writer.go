package framing

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// Writer writes events as frames to an io.Writer. Each frame goes out in a
// single Write call, so frames are never interleaved or split by this
// package; the Writer itself keeps nothing back between frames (wrap the
// destination in a bufio.Writer to batch small frames, and flush it).
//
// The frame is built in a buffer the Writer reuses, which grows to the
// largest frame written; in steady state writing an event allocates nothing
// beyond what the codec allocates. A Writer is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	c   codec.Codec
	max uint64 // largest payload written
	// explicit: max was given in WriterOptions, not the peer's default
	explicit bool
	buf      []byte // prefix + payload of the frame being built
	err      error  // sticky error of w
	frames   int64
	bytes    int64
}

// WriterOptions configures a Writer. The zero value writes frames of up to
// DefaultMaxWriteFrameSize bytes with the strict default codec, so that the
// stock TypeScript client, and a Reader with default options, read
// everything a default Writer writes.
type WriterOptions struct {
	// Codec encodes the events of WriteEvent and WriteJSON.
	Codec codec.Codec
	// MaxFrameSize is the largest payload written, in bytes; a longer one is
	// refused with ErrFrameTooLarge and nothing is written. 0 (or less)
	// means DefaultMaxWriteFrameSize (the stock TypeScript client's limit);
	// math.MaxUint32 allows every frame the length prefix can declare.
	MaxFrameSize int
}

// NewWriter returns a Writer that encodes events as opts says and writes
// the frames to w.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	fw := &Writer{w: w, c: opts.Codec, max: DefaultMaxWriteFrameSize}
	if opts.MaxFrameSize > 0 {
		fw.max = min(uint64(opts.MaxFrameSize), maxPayload)
		fw.explicit = true
	}
	return fw
}

// Reset discards the Writer's error and counters and makes it write to dst,
// keeping its buffer.
func (w *Writer) Reset(dst io.Writer) {
	w.w, w.err, w.frames, w.bytes = dst, nil, 0, 0
}

// WriteEvent encodes ev and writes it as one frame. If the codec refuses ev
// the error is the *codec.Error, nothing is written and the Writer stays
// usable.
func (w *Writer) WriteEvent(ev event.Event) error {
	if w.err != nil {
		return w.err
	}
	b, err := w.c.Append(w.prefix(), ev)
	if err != nil {
		return err
	}
	return w.write(b)
}

// WriteJSON converts one AG-UI JSON event (the object an SSE data line
// carries) with the Writer's codec and writes it as one frame. Errors are
// as for WriteEvent.
func (w *Writer) WriteJSON(jsonEvent []byte) error {
	if w.err != nil {
		return w.err
	}
	b, err := w.c.AppendFromJSON(w.prefix(), jsonEvent)
	if err != nil {
		return err
	}
	return w.write(b)
}

// WriteFrame writes payload, the protobuf encoding of one Event, as one
// frame. The payload is not checked; the length prefix is added.
func (w *Writer) WriteFrame(payload []byte) error {
	if w.err != nil {
		return w.err
	}
	if err := w.checkLen(len(payload)); err != nil {
		return err
	}
	return w.write(append(w.prefix(), payload...))
}

// FramesWritten returns the number of frames written in full.
func (w *Writer) FramesWritten() int64 { return w.frames }

// BytesWritten returns the number of bytes written to the underlying
// writer, length prefixes included.
func (w *Writer) BytesWritten() int64 { return w.bytes }

// prefix returns the buffer holding a placeholder length prefix.
func (w *Writer) prefix() []byte {
	if cap(w.buf) < prefixLen {
		w.buf = make([]byte, prefixLen, 512)
	}
	return w.buf[:prefixLen]
}

func (w *Writer) checkLen(n int) error {
	if uint64(n) > w.max {
		var err error
		switch {
		case uint64(n) > maxPayload:
			err = fmt.Errorf("%w: payload of %d bytes exceeds the %d a 4-byte length prefix can declare", ErrFrameTooLarge, n, uint64(maxPayload))
		case w.explicit:
			err = fmt.Errorf("%w: payload of %d bytes exceeds the limit of %d (WriterOptions.MaxFrameSize)", ErrFrameTooLarge, n, w.max)
		default:
			err = fmt.Errorf("%w: a frame of %d bytes (4-byte prefix and payload) exceeds %d, the most @ag-ui/client 1.0.0 reads; raise the limit with WriterOptions.MaxFrameSize", ErrFrameTooLarge, n+prefixLen, PeerMaxFrame)
		}
		return &Error{Offset: w.bytes, Frame: w.frames, skippable: true, Err: err}
	}
	return nil
}

// write fills in the length prefix of the frame in b and writes it.
func (w *Writer) write(b []byte) error {
	w.buf = b[:0] // keep what the codec grew
	n := len(b) - prefixLen
	if err := w.checkLen(n); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	m, err := w.w.Write(b)
	w.bytes += int64(m)
	if err == nil && m < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
		return err
	}
	w.frames++
	return nil
}
