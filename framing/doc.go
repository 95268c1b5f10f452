// Package framing reads and writes the AG-UI 1.0 binary event stream, media
// type application/vnd.ag-ui.event+proto (transport.MediaTypeBinary).
//
// The stream is a sequence of frames. Each frame is a 4-byte big-endian
// unsigned length n followed by n bytes: one protobuf Event message, as
// package codec encodes it. There are no flags, no trailer and no stream
// header; a stream ends at the end of a frame.
//
//	+--------+--------+--------+--------+------------------------------+
//	|   length (uint32, big endian)     |  Event message (length bytes) |
//	+--------+--------+--------+--------+------------------------------+
//
// A Writer encodes events into frames, one Write call on the underlying
// writer per frame, with no allocation per event in steady state. A Reader
// splits a stream into frames and decodes them; it reads exactly the bytes of
// each frame, never ahead, so wrap an unbuffered source (a net.Conn, an
// *os.File) in a bufio.Reader.
//
// # Errors
//
// Reader errors come in two kinds, and Skippable tells them apart.
//
// Frame-level errors concern one frame's payload: it is not a well-formed
// Event (codec.ErrMalformed, codec.ErrNonFinite, event.ErrTooDeep, ...) or
// it carries only an event from a later protocol version
// (codec.ErrUnknownEvent). ReadEvent, ReadJSON and the Events iterator
// report them as an *Error wrapping the *codec.Error; the frame has been
// consumed and the next call reads the next frame. A zero-length frame is
// such a frame: Next returns its empty payload, ReadEvent reports
// codec.ErrMalformed.
//
// Stream-level errors end the stream: a declared length above the reader's
// limit (ErrFrameTooLarge, detected from the length prefix before anything
// of that size is allocated), a stream that ends inside a frame
// (ErrTruncated), more undecodable frames in a row than the reader allows
// (ErrTooManyErrors), or an error from the underlying reader. They arrive as an
// *Error too and are sticky: every later call returns the same error.
//
// A stream that ends exactly between two frames reports io.EOF itself,
// unwrapped, so err == io.EOF holds.
//
// Writer errors: an event the codec cannot encode (a *codec.Error, returned
// as is) or a payload longer than the writer's MaxFrameSize
// (ErrFrameTooLarge; by default the limit a default Reader applies) writes
// nothing and leaves the Writer usable. An error
// from the underlying writer is returned as is and is sticky, as with
// bufio.Writer.
package framing

import (
	"errors"
	"strconv"

	"github.com/agwire/agwire/codec"
)

// DefaultMaxFrameSize is the largest frame payload a Reader accepts when
// ReaderOptions.MaxFrameSize is 0: 16 MiB.
const DefaultMaxFrameSize = 16 << 20

// PeerMaxFrame is the largest frame, its 4-byte length prefix included,
// that the stock TypeScript client (@ag-ui/client 1.0.0) reads: 10 MiB. It
// fails the whole stream on a longer one ("Protobuf message size exceeded
// maximum limit of 10 MB").
const PeerMaxFrame = 10 << 20

// DefaultMaxWriteFrameSize is the largest payload a Writer writes when
// WriterOptions.MaxFrameSize is 0: PeerMaxFrame less the prefix, so that
// everything a default Writer writes is read by the stock client. Readers
// accept more (DefaultMaxFrameSize): be strict in what you send.
const DefaultMaxWriteFrameSize = PeerMaxFrame - prefixLen

// prefixLen is the size of the length prefix; maxPayload the largest length
// it can declare.
const (
	prefixLen  = 4
	maxPayload = 1<<32 - 1
)

// Errors. Each arrives wrapped in an *Error; test with errors.Is.
var (
	// ErrFrameTooLarge: a frame's declared length exceeds the Reader's
	// MaxFrameSize, or a payload given to a Writer is longer than the
	// 4-byte length prefix can declare (2^32-1 bytes).
	ErrFrameTooLarge = errors.New("frame too large")
	// ErrTruncated: the stream ends inside a frame, in its length prefix or
	// in its payload.
	ErrTruncated = errors.New("truncated frame")
	// ErrTooManyErrors: more frames in a row failed to decode than
	// ReaderOptions.MaxConsecutiveErrors allows; the Reader gave up the
	// stream.
	ErrTooManyErrors = errors.New("too many undecodable frames in a row")
)

// Error is a failure located in the stream.
type Error struct {
	// Offset is the byte offset in the stream of the start of the frame
	// (its length prefix). For a frame-level error the payload starts at
	// Offset+4, and offsets inside the wrapped *codec.Error count from there.
	Offset int64
	// Frame is the 0-based index of the frame in the stream.
	Frame int64
	// Err is ErrFrameTooLarge or ErrTruncated (wrapped with the lengths
	// involved), an error of the underlying reader, or the *codec.Error of a
	// frame that did not decode.
	Err error

	skippable bool // the Reader or Writer can go on after this error
}

func (e *Error) Error() string {
	return "framing: frame " + strconv.FormatInt(e.Frame, 10) + " at byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Skippable reports whether the Reader or Writer that returned err can go
// on: true for a frame that failed to decode (the Reader has consumed it and
// continues with the next frame) and for an event the Writer could not
// encode or frame (it wrote nothing); false for nil, for io.EOF and for every
// stream-level error (ErrFrameTooLarge and ErrTruncated from a Reader, errors
// of the underlying reader or writer).
//
// It also reports true for any error whose chain holds an error with a
// Skippable() bool method that returns true, such as transport.EventError,
// so one function serves every layer of agwire.
func Skippable(err error) bool {
	var s interface{ Skippable() bool }
	if errors.As(err, &s) {
		return s.Skippable()
	}
	var ce *codec.Error
	return errors.As(err, &ce)
}

// Skippable reports whether the Reader or Writer can go on after e (see the
// function Skippable).
func (e *Error) Skippable() bool { return e.skippable }
