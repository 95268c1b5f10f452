package pipeline

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/agwire/agwire/framing"
)

// DecodeFrames reads a binary stream of AG-UI frames from src and writes
// each event to dst as one line of AG-UI JSON, decoded with r.Codec; frames
// are limited to r.MaxFrameSize and undecodable frames in a row to
// r.MaxConsecutiveErrors, as a framing.Reader does. A frame that does not
// decode is the skippable *framing.Error that framing.Reader.ReadJSON
// returns, with the frame's index and offset; a stream-level error
// (ErrTruncated, ErrFrameTooLarge, ErrTooManyErrors, a failure reading src)
// ends the conversion.
//
// The output and the errors are those of a framing.Reader read with
// ReadJSON frame by frame, each event followed by a newline, which is what
// Workers 1 does.
func DecodeFrames(dst io.Writer, src io.Reader, r framing.ReaderOptions, opts Options) (Stats, error) {
	if opts.workers() == 1 {
		return decodeSequential(dst, src, r, opts)
	}
	e := newEngine(opts)
	return e.run(dst, newFrameSplitter(newSource(src, e.beforeRead), r.MaxFrameSize), func() func(*batch) { return newDecoder(r) }, &frameSequencer{max: maxBad(r)})
}

// decodeSequential is the sequential conversion.
func decodeSequential(dst io.Writer, src io.Reader, ro framing.ReaderOptions, opts Options) (Stats, error) {
	st := Stats{Offset: -1}
	var flushErr error
	r := framing.NewReader(newSource(src, flushing(dst, &flushErr)), ro)
	var js []byte
	for {
		var err error
		js, err = r.ReadJSON(js[:0])
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			if errors.Is(err, errStopped) {
				return st, &OutputError{flushErr}
			}
			var fe *framing.Error
			if errors.As(err, &fe) {
				st.Offset = fe.Offset
			}
			if !opts.onError(err) || !framing.Skippable(err) {
				return st, err
			}
			st.Skipped++
			continue
		}
		js = append(js, '\n')
		m, err := dst.Write(js)
		st.BytesOut += int64(m)
		if err == nil && m < len(js) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return st, &OutputError{err}
		}
		st.Records++
		st.Offset = r.Offset()
		if opts.Progress != nil {
			opts.Progress(st)
		}
	}
}

// newDecoder returns a worker that decodes the frames of a batch (each its
// length prefix and payload) into JSON lines.
func newDecoder(ro framing.ReaderOptions) func(*batch) {
	c := ro.Codec
	// slow reads a frame that does not decode again, for the skippable
	// *framing.Error a Reader gives; the sequencer numbers it.
	slow := framing.NewReader(nil, framing.ReaderOptions{Codec: c, MaxFrameSize: ro.MaxFrameSize, MaxConsecutiveErrors: -1})
	var src bytes.Reader
	return func(b *batch) {
		for i := range b.recs {
			r := &b.recs[i]
			out, err := c.AppendJSONFromWire(b.out, b.data[r.start+4:r.end])
			if err != nil {
				src.Reset(b.data[r.start:r.end])
				slow.Reset(&src)
				_, r.err = slow.ReadJSON(nil)
				if r.err == nil { // cannot happen: the same codec, the same payload
					r.err = fmt.Errorf("pipeline: frame %d decodes once in two: %w", r.num, err)
				}
			} else {
				b.out = append(out, '\n')
			}
			r.outEnd = len(b.out)
		}
	}
}

// frameSequencer numbers a frame that does not decode and counts them in a
// row as a framing.Reader does.
type frameSequencer struct {
	max int // MaxConsecutiveErrors, -1 for no limit
	bad int // undecodable frames in a row
}

func (s *frameSequencer) ok(*Stats) { s.bad = 0 }

func (s *frameSequencer) fail(r *rec, st *Stats) (error, bool) {
	var fe *framing.Error
	if ce, ok := r.err.(*FrameError); ok { // decoded, then refused
		s.bad = 0
		if errors.As(ce.Err, &fe) {
			fe.Offset, fe.Frame = st.BytesOut, st.Records
		}
		return ce, false
	}
	if !errors.As(r.err, &fe) {
		return r.err, true
	}
	fe.Frame, fe.Offset = r.num, r.off
	s.bad++
	if s.max >= 0 && s.bad > s.max {
		return &framing.Error{Offset: r.off, Frame: r.num,
			Err: fmt.Errorf("%w: %d frames in a row did not decode (the last: %v)", framing.ErrTooManyErrors, s.bad, fe.Err)}, true
	}
	return fe, false
}

// frameSplitter splits a binary stream into frames, each with its length
// prefix. It reads through r, whose errors it gives, and takes the whole
// frames that r's buffer br holds past r: r then counts fewer bytes and
// frames than the stream holds, by taken and takenFrames, which the
// splitter adds back.
type frameSplitter struct {
	r           *framing.Reader
	br          *bufio.Reader // what r reads
	max         uint64        // r's frame size limit
	frame       int64         // frames split
	off         int64         // the input offset after the last frame split
	taken       int64         // bytes taken past r
	takenFrames int64         // frames taken past r
}

func newFrameSplitter(br *bufio.Reader, maxFrame int) *frameSplitter {
	s := &frameSplitter{r: framing.NewReader(br, framing.ReaderOptions{MaxFrameSize: maxFrame}), br: br, max: framing.DefaultMaxFrameSize}
	if maxFrame > 0 {
		s.max = uint64(maxFrame)
	}
	return s
}

func (s *frameSplitter) next(dst []byte) ([]byte, int64, int64, error) {
	p, err := s.r.Next()
	if err != nil {
		var fe *framing.Error
		if errors.As(err, &fe) && err == fe { // r's own error: number it in the stream
			fe.Offset += s.taken
			fe.Frame += s.takenFrames
			s.taken, s.takenFrames = 0, 0 // the error is sticky: once
		}
		return dst, 0, 0, err
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(p)))
	dst = append(dst, p...)
	s.frame++
	off := s.r.Offset() + s.taken
	s.off = off + 4 + int64(len(p))
	return dst, s.frame - 1, off, nil
}

// take moves the whole frames within the limit that the buffer holds into
// b, as next would one at a time: one copy for them all, and no read.
func (s *frameSplitter) take(b *batch, size int) {
	if s.br.Buffered() < 4 {
		return
	}
	buf, _ := s.br.Peek(s.br.Buffered())
	start, at := len(b.data), 0
	for start+at < size && len(b.recs) < maxBatchRecords && len(buf)-at >= 4 {
		n := uint64(binary.BigEndian.Uint32(buf[at:]))
		if n > s.max || n > uint64(len(buf)-at-4) {
			break // next reads it, or gives its error
		}
		end := at + 4 + int(n)
		b.recs = append(b.recs, rec{start: start + at, end: start + end, num: s.frame, off: s.off + int64(at)})
		s.frame++
		s.takenFrames++
		at = end
	}
	b.data = append(b.data, buf[:at]...)
	s.br.Discard(at)
	s.off += int64(at)
	s.taken += int64(at)
}
