package pipeline

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// LineFunc converts one JSON line: it appends the line's output to dst.
// line is the line as read, its line end included; num is its 1-based
// number. It returns Skip to write nothing and count nothing, or an error
// for a line it refuses, with dst unchanged. A worker's LineFunc is called
// from one goroutine at a time.
type LineFunc func(dst, line []byte, num int64) ([]byte, error)

// EventFunc converts one decoded event: it appends the event's output to
// dst, or returns an error, with dst unchanged, for an event it refuses. A
// worker's EventFunc is called from one goroutine at a time.
type EventFunc func(dst []byte, ev event.Event) ([]byte, error)

// Skip, returned by a LineFunc, drops a line without an error.
var Skip = errors.New("pipeline: skip the line")

// FrameError is an event that decoded but that the EventFunc refused.
type FrameError struct {
	Frame  int64 // the 0-based index of its frame
	Offset int64 // the byte offset of the frame's length prefix
	Err    error // the EventFunc's error
}

func (e *FrameError) Error() string {
	return "frame " + strconv.FormatInt(e.Frame, 10) + " at byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

func (e *FrameError) Unwrap() error { return e.Err }

// Skippable reports true: the conversion can go on after a refused event.
func (e *FrameError) Skippable() bool { return true }

// ConvertLines converts each line of src that is not blank with a LineFunc
// and writes the output to dst in input order; newFunc makes one LineFunc
// per worker. An error of the LineFunc is reported as a *LineError. A
// *framing.Error in its chain (a frame above a framing.Writer's limit) is
// numbered, as a framing.Writer writing the output would number it, by the
// records and bytes written before. Input errors, memory, flushing and the
// sequential path (Workers 1) are as for EncodeLines.
func ConvertLines(dst io.Writer, src io.Reader, newFunc func() LineFunc, opts Options) (Stats, error) {
	if opts.workers() == 1 {
		return convertLinesSequential(dst, src, newFunc(), opts)
	}
	e := newEngine(opts)
	sp := &lineSplitter{br: newSource(src, e.beforeRead)}
	return e.run(dst, sp, func() func(*batch) {
		f := newFunc()
		return func(b *batch) {
			for i := range b.recs {
				r := &b.recs[i]
				start := len(b.out)
				out, err := f(b.out, b.data[r.start:r.end], r.num)
				switch {
				case err == Skip:
					r.skip = true
				case err != nil:
					r.err = &LineError{Line: r.num, Offset: r.off, Text: bytes.Clone(bytes.TrimSpace(b.data[r.start:r.end])), Err: err}
				default:
					b.out = out
				}
				if err != nil {
					b.out = b.out[:start]
				}
				r.outEnd = len(b.out)
			}
		}
	}, lineSequencer{})
}

func convertLinesSequential(dst io.Writer, src io.Reader, f LineFunc, opts Options) (Stats, error) {
	st := Stats{Offset: -1}
	var flushErr error
	sp := &lineSplitter{br: newSource(src, flushing(dst, &flushErr))}
	var line, out []byte
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
		out, err = f(out[:0], line, num)
		if err == Skip {
			continue
		}
		if err != nil {
			var fe *framing.Error
			if errors.As(err, &fe) {
				fe.Offset, fe.Frame = st.BytesOut, st.Records
			}
			le := &LineError{Line: num, Offset: off, Text: bytes.Clone(bytes.TrimSpace(line)), Err: err}
			st.Offset = off
			if !opts.onError(le) {
				return st, le
			}
			st.Skipped++
			continue
		}
		if err := writeRecord(dst, out, &st); err != nil {
			return st, err
		}
		st.Records++
		st.Offset = off
		if opts.Progress != nil {
			opts.Progress(st)
		}
	}
}

// writeRecord writes one record's output.
func writeRecord(dst io.Writer, out []byte, st *Stats) error {
	m, err := dst.Write(out)
	st.BytesOut += int64(m)
	if err == nil && m < len(out) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return &OutputError{err}
	}
	return nil
}

// ConvertFrames decodes each frame of src as framing.Reader.ReadEvent does
// (with r's codec and limits), converts the event with an EventFunc and
// writes the output to dst in input order; newFunc makes one EventFunc per
// worker. A frame that does not decode is the *framing.Error ReadEvent
// gives; an event the EventFunc refuses is a *FrameError, and a
// *framing.Error in its chain is numbered by the records and bytes written
// before, as for ConvertLines. Stream-level errors, memory, flushing and
// the sequential path (Workers 1) are as for DecodeFrames.
func ConvertFrames(dst io.Writer, src io.Reader, r framing.ReaderOptions, newFunc func() EventFunc, opts Options) (Stats, error) {
	if opts.workers() == 1 {
		return convertFramesSequential(dst, src, r, newFunc(), opts)
	}
	e := newEngine(opts)
	return e.run(dst, newFrameSplitter(newSource(src, e.beforeRead), r.MaxFrameSize), func() func(*batch) {
		f := newFunc()
		c := r.Codec
		slow := framing.NewReader(nil, framing.ReaderOptions{Codec: c, MaxFrameSize: r.MaxFrameSize, MaxConsecutiveErrors: -1})
		var src bytes.Reader
		return func(b *batch) {
			for i := range b.recs {
				rc := &b.recs[i]
				start := len(b.out)
				ev, err := c.Unmarshal(b.data[rc.start+4 : rc.end])
				if err != nil {
					src.Reset(b.data[rc.start:rc.end])
					slow.Reset(&src)
					if _, rc.err = slow.ReadEvent(); rc.err == nil {
						rc.err = err // cannot happen: the same codec, the same payload
					}
				} else if out, ferr := f(b.out, ev); ferr != nil {
					rc.err = &FrameError{Frame: rc.num, Offset: rc.off, Err: ferr}
					b.out = b.out[:start]
				} else {
					b.out = out
				}
				rc.outEnd = len(b.out)
			}
		}
	}, &frameSequencer{max: maxBad(r)})
}

func convertFramesSequential(dst io.Writer, src io.Reader, ro framing.ReaderOptions, f EventFunc, opts Options) (Stats, error) {
	st := Stats{Offset: -1}
	var flushErr error
	r := framing.NewReader(newSource(src, flushing(dst, &flushErr)), ro)
	var out []byte
	var frames int64 // frames read
	for {
		ev, err := r.ReadEvent()
		if err == nil || framing.Skippable(err) {
			frames++
		}
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
		out, err = f(out[:0], ev)
		if err != nil {
			var fe *framing.Error
			if errors.As(err, &fe) {
				fe.Offset, fe.Frame = st.BytesOut, st.Records
			}
			ferr := &FrameError{Frame: frames - 1, Offset: r.Offset(), Err: err}
			st.Offset = ferr.Offset
			if !opts.onError(ferr) {
				return st, ferr
			}
			st.Skipped++
			continue
		}
		if err := writeRecord(dst, out, &st); err != nil {
			return st, err
		}
		st.Records++
		st.Offset = r.Offset()
		if opts.Progress != nil {
			opts.Progress(st)
		}
	}
}

// maxBad is a Reader's limit of undecodable frames in a row, -1 for none.
func maxBad(r framing.ReaderOptions) int {
	switch {
	case r.MaxConsecutiveErrors > 0:
		return r.MaxConsecutiveErrors
	case r.MaxConsecutiveErrors < 0:
		return -1
	}
	return framing.DefaultMaxConsecutiveErrors
}
