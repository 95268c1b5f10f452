package pipeline

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/agwire/agwire/framing"
)

// EncodeLines reads AG-UI JSON events from src, one per line, and writes
// them to dst as binary frames, encoded with w.Codec and limited to
// w.MaxFrameSize as a framing.Writer does. Blank lines are skipped; a line
// may be of any length. A line that does not encode is a *LineError
// (wrapping the *codec.Error, or the *framing.Error of a frame above the
// limit, whose Frame and Offset count the frames and bytes written); a
// failure reading src ends the conversion with an *InputError, after the
// partial line before it has been converted.
//
// The output and the errors are those of a framing.Writer fed each line in
// turn, which is what Workers 1 does.
func EncodeLines(dst io.Writer, src io.Reader, w framing.WriterOptions, opts Options) (Stats, error) {
	if opts.workers() == 1 {
		return encodeSequential(dst, src, w, opts)
	}
	e := newEngine(opts)
	sp := &lineSplitter{br: newSource(src, e.beforeRead)}
	return e.run(dst, sp, func() func(*batch) { return newEncoder(w) }, lineSequencer{})
}

// encodeSequential is the sequential conversion.
func encodeSequential(dst io.Writer, src io.Reader, wo framing.WriterOptions, opts Options) (Stats, error) {
	st := Stats{Offset: -1}
	var flushErr error
	sp := &lineSplitter{br: newSource(src, flushing(dst, &flushErr))}
	w := framing.NewWriter(dst, wo)
	var line []byte
	for {
		var num, off int64
		var err error
		line, num, off, err = sp.next(line[:0])
		switch {
		case errors.Is(err, errStopped):
			return st, &OutputError{flushErr}
		case err == io.EOF:
			return st, nil
		case err != nil:
			opts.onError(err)
			return st, err
		}
		text := bytes.TrimSpace(line)
		err = w.WriteJSON(text)
		st.BytesOut = w.BytesWritten()
		if err != nil {
			if !framing.Skippable(err) {
				return st, &OutputError{err}
			}
			le := &LineError{Line: num, Offset: off, Text: bytes.Clone(text), Err: err}
			st.Offset = off
			if !opts.onError(le) {
				return st, le
			}
			st.Skipped++
			continue
		}
		st.Records, st.Offset = w.FramesWritten(), off
		if opts.Progress != nil {
			opts.Progress(st)
		}
	}
}

// flushing returns the watcher's hook of a sequential conversion: it
// flushes dst, when dst buffers, before a read that may block. A failure
// is kept in *errp and stops the conversion.
func flushing(dst io.Writer, errp *error) func() error {
	fl, ok := dst.(flusher)
	if !ok {
		return func() error { return nil }
	}
	return func() error {
		if err := fl.Flush(); err != nil {
			*errp = err
			return errStopped
		}
		return nil
	}
}

// newEncoder returns a worker that encodes the lines of a batch into frames.
func newEncoder(wo framing.WriterOptions) func(*batch) {
	limit := uint64(framing.DefaultMaxWriteFrameSize)
	if wo.MaxFrameSize > 0 {
		limit = min(uint64(wo.MaxFrameSize), math.MaxUint32)
	}
	c := wo.Codec
	var slow *framing.Writer // for the error of a frame above the limit
	return func(b *batch) {
		for i := range b.recs {
			r := &b.recs[i]
			text := bytes.TrimSpace(b.data[r.start:r.end])
			start := len(b.out)
			out, err := c.AppendFromJSON(append(b.out, 0, 0, 0, 0), text)
			if err == nil && uint64(len(out)-start-4) > limit {
				if slow == nil {
					slow = framing.NewWriter(io.Discard, wo)
				}
				err = slow.WriteJSON(text)
			}
			if err != nil {
				r.err = &LineError{Line: r.num, Offset: r.off, Text: bytes.Clone(text), Err: err}
				b.out = b.out[:start]
			} else {
				binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
				b.out = out
			}
			r.outEnd = len(b.out)
		}
	}
}

// lineSequencer numbers a frame too large by the frames written before it.
type lineSequencer struct{}

func (lineSequencer) ok(*Stats) {}

func (lineSequencer) fail(r *rec, st *Stats) (error, bool) {
	var fe *framing.Error
	if errors.As(r.err, &fe) {
		fe.Offset, fe.Frame = st.BytesOut, st.Records
	}
	return r.err, false
}

// lineSplitter splits JSON lines. A record is a line that is not blank,
// with its line end.
type lineSplitter struct {
	br   *bufio.Reader
	line int64 // lines read
	off  int64 // bytes read
	end  error // what ended the input, once it has
}

func (s *lineSplitter) next(dst []byte) ([]byte, int64, int64, error) {
	for s.end == nil {
		start := len(dst)
		b, err := s.br.ReadSlice('\n')
		dst = append(dst, b...)
		for err == bufio.ErrBufferFull {
			b, err = s.br.ReadSlice('\n')
			dst = append(dst, b...)
		}
		text := dst[start:]
		off := s.off
		s.off += int64(len(text))
		if len(text) > 0 || err == nil {
			s.line++
		}
		switch {
		case errors.Is(err, errStopped):
			return dst[:start], 0, 0, err
		case err == io.EOF:
			s.end = io.EOF
		case err != nil:
			s.end = &InputError{Line: s.line, Err: err}
		}
		if len(bytes.TrimSpace(text)) > 0 {
			return dst, s.line, off, nil
		}
		dst = dst[:start]
	}
	return dst, 0, 0, s.end
}

// take moves the whole lines the buffer holds into b, each record with its
// line end, as next would one at a time: one copy for them all, and no
// read, so the input is read at the same places.
func (s *lineSplitter) take(b *batch, size int) {
	if s.end != nil || s.br.Buffered() == 0 {
		return
	}
	buf, _ := s.br.Peek(s.br.Buffered())
	buf = buf[:bytes.LastIndexByte(buf, '\n')+1]
	start, at := len(b.data), 0
	for at < len(buf) && start+at < size && len(b.recs) < maxBatchRecords {
		end := at + bytes.IndexByte(buf[at:], '\n') + 1
		s.line++
		if line := buf[at:end]; line[0] == '{' || len(bytes.TrimSpace(line)) > 0 {
			b.recs = append(b.recs, rec{start: start + at, end: start + end, num: s.line, off: s.off + int64(at)})
		}
		at = end
	}
	b.data = append(b.data, buf[:at]...)
	s.off += int64(at)
	s.br.Discard(at)
}
