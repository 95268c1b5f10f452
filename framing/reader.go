package framing

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// ReaderOptions configures a Reader. The zero value reads AG-UI 1.0 frames
// of up to DefaultMaxFrameSize bytes with the strict default codec.
type ReaderOptions struct {
	// Codec decodes the frames in ReadEvent, ReadJSON and Events.
	Codec codec.Codec
	// MaxFrameSize is the largest payload accepted, in bytes; a frame
	// declaring more fails with ErrFrameTooLarge before anything of its size
	// is allocated. 0 (or less) means DefaultMaxFrameSize; math.MaxUint32
	// accepts every frame the prefix can declare.
	MaxFrameSize int
	// MaxConsecutiveErrors is how many frame-level errors in a row
	// ReadEvent, ReadJSON and Events report before the stream is given up
	// with ErrTooManyErrors (a stream-level error): a peer sending nothing
	// but undecodable frames, such as an endless run of zero-length frames,
	// would otherwise keep a reader busy for ever. A frame that decodes
	// resets the count. 0 means DefaultMaxConsecutiveErrors; a negative
	// value means no limit.
	MaxConsecutiveErrors int
}

// DefaultMaxConsecutiveErrors is the number of frame-level errors in a row
// a Reader reports before it gives up the stream, when
// ReaderOptions.MaxConsecutiveErrors is 0.
const DefaultMaxConsecutiveErrors = 100

// Reader reads frames from an io.Reader. It reads exactly the bytes of each
// frame and never ahead, so the underlying reader is left at the start of
// the next frame; give it a buffered reader when reads are costly.
//
// The payload buffer is reused from frame to frame and grows to the largest
// frame read. The declared length is checked against MaxFrameSize before any
// allocation, and a frame larger than 64 KiB is read into a buffer that
// doubles as its bytes arrive, so a peer that declares a large frame and
// sends little costs memory in proportion to what it sent. A Reader is not
// safe for concurrent use.
type Reader struct {
	r        io.Reader
	c        codec.Codec
	max      uint64
	hdr      [prefixLen]byte
	buf      []byte
	off      int64 // bytes consumed from r
	frameOff int64 // offset of the frame last returned, -1 before the first
	frames   int64 // frames returned so far: the index of the next frame
	err      error // sticky stream-level error, or io.EOF
	maxBad   int   // MaxConsecutiveErrors, -1 for no limit
	bad      int   // frame-level errors in a row
}

// NewReader returns a Reader of the frames in r.
func NewReader(r io.Reader, opts ReaderOptions) *Reader {
	fr := &Reader{c: opts.Codec, max: DefaultMaxFrameSize, maxBad: DefaultMaxConsecutiveErrors}
	if opts.MaxFrameSize > 0 {
		fr.max = uint64(opts.MaxFrameSize)
	}
	switch {
	case opts.MaxConsecutiveErrors > 0:
		fr.maxBad = opts.MaxConsecutiveErrors
	case opts.MaxConsecutiveErrors < 0:
		fr.maxBad = -1
	}
	fr.Reset(r)
	return fr
}

// Reset discards the Reader's state and makes it read from src, keeping its
// options and its buffer.
func (r *Reader) Reset(src io.Reader) {
	r.r, r.off, r.frameOff, r.frames, r.err, r.bad = src, 0, -1, 0, nil, 0
}

// Offset returns the byte offset in the stream of the start (the length
// prefix) of the frame last returned, or -1 before the first.
func (r *Reader) Offset() int64 { return r.frameOff }

// initialChunk is how much of a large frame's payload is allocated before
// any of it has arrived.
const initialChunk = 64 << 10

// Next reads the next frame and returns its payload, which stays valid until
// the next call on the Reader. It returns io.EOF at the end of the stream
// and otherwise only stream-level errors, which are sticky. A zero-length
// frame gives an empty payload and no error.
func (r *Reader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	start := r.off
	n, err := io.ReadFull(r.r, r.hdr[:])
	r.off += int64(n)
	if err != nil {
		switch {
		case err == io.EOF:
			r.err = io.EOF
			return nil, io.EOF
		case err == io.ErrUnexpectedEOF:
			err = fmt.Errorf("%w: the stream ends after %d of the %d bytes of the length prefix", ErrTruncated, n, prefixLen)
		}
		return nil, r.fail(start, err)
	}
	size := uint64(binary.BigEndian.Uint32(r.hdr[:]))
	if size > r.max {
		return nil, r.fail(start, fmt.Errorf("%w: declared length %d bytes exceeds the limit of %d", ErrFrameTooLarge, size, r.max))
	}
	if err := r.readPayload(int(size)); err != nil {
		return nil, r.fail(start, err)
	}
	r.frameOff = start
	r.frames++
	return r.buf, nil
}

// readPayload reads size bytes into r.buf. A small frame gets its buffer at
// once (with room to spare for the frames that follow, up to initialChunk);
// a larger one gets a buffer that doubles as its bytes arrive, never beyond
// size.
func (r *Reader) readPayload(size int) error {
	if r.buf == nil {
		r.buf = []byte{} // an empty frame has an empty, non-nil payload
	}
	have := 0
	for {
		want := size
		if want > cap(r.buf) {
			var c int
			if size <= initialChunk {
				c = max(size, min(2*cap(r.buf), initialChunk))
			} else {
				c = min(size, max(2*cap(r.buf), initialChunk))
				want = c
			}
			nb := make([]byte, c)
			copy(nb, r.buf[:have])
			r.buf = nb
		}
		r.buf = r.buf[:want]
		n, err := io.ReadFull(r.r, r.buf[have:want])
		have += n
		r.off += int64(n)
		if err != nil {
			r.buf = r.buf[:have]
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("%w: the stream ends after %d of the %d bytes of the payload", ErrTruncated, have, size)
			}
			return err
		}
		if have == size {
			return nil
		}
	}
}

// fail records a stream-level error for the frame starting at start.
func (r *Reader) fail(start int64, err error) error {
	r.err = &Error{Offset: start, Frame: r.frames, Err: err}
	return r.err
}

// ReadEvent reads and decodes the next frame. A frame that does not decode
// gives an *Error wrapping the *codec.Error (codec.ErrMalformed,
// codec.ErrUnknownEvent, ...); it is consumed, and the next call reads the
// next frame. Other errors are those of Next.
func (r *Reader) ReadEvent() (event.Event, error) {
	p, err := r.Next()
	if err != nil {
		return nil, err
	}
	ev, err := r.c.Unmarshal(p)
	if err != nil {
		return nil, r.frameError(err)
	}
	r.bad = 0
	return ev, nil
}

// ReadJSON reads the next frame and appends its AG-UI JSON form to dst.
// Errors are as for ReadEvent; on error dst is returned unchanged.
func (r *Reader) ReadJSON(dst []byte) ([]byte, error) {
	p, err := r.Next()
	if err != nil {
		return dst, err
	}
	out, err := r.c.AppendJSONFromWire(dst, p)
	if err != nil {
		return dst, r.frameError(err)
	}
	r.bad = 0
	return out, nil
}

// frameError reports a frame that did not decode; past the limit of
// consecutive ones it ends the stream instead.
func (r *Reader) frameError(err error) error {
	r.bad++
	if r.maxBad >= 0 && r.bad > r.maxBad {
		r.err = &Error{Offset: r.frameOff, Frame: r.frames - 1,
			Err: fmt.Errorf("%w: %d frames in a row did not decode (the last: %v)", ErrTooManyErrors, r.bad, err)}
		return r.err
	}
	return &Error{Offset: r.frameOff, Frame: r.frames - 1, Err: err, skippable: true}
}

// Events returns an iterator over the decoded events of the stream. A frame
// that fails to decode is yielded with its error and iteration goes on; a
// stream-level error is yielded and ends it; the end of the stream ends it
// silently. After a break the Reader is positioned at the next frame.
func (r *Reader) Events() iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for {
			ev, err := r.ReadEvent()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || (err != nil && !Skippable(err)) {
				return
			}
		}
	}
}

// Frames returns an iterator over the payloads of the stream's frames, each
// valid until the next iteration. A stream-level error is yielded and ends
// the iteration; the end of the stream ends it silently.
func (r *Reader) Frames() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		for {
			p, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(p, err) || err != nil {
				return
			}
		}
	}
}
