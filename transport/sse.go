package transport

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/agwire/agwire/framing"
)

// DefaultMaxEventSize is the largest event a reader accepts when
// ClientOptions.MaxEventSize is 0: 16 MiB, the framing package's default
// frame limit.
const DefaultMaxEventSize = 16 << 20

// SSEEvent is one event dispatched by an SSEReader.
type SSEEvent struct {
	// Event is the value of the event's "event" field, "" when it had none
	// (which an EventSource dispatches as "message").
	Event string
	// Data is the event's "data" fields joined with "\n".
	Data string
	// ID is the last event ID: the value of the most recent "id" field in
	// the stream, in this event or an earlier one ("" if none).
	ID string
	// Retry is the reconnection time most recently set by a "retry" field
	// in the stream, 0 if none.
	Retry time.Duration
}

// SSEReader parses a text/event-stream following the WHATWG HTML event
// stream rules (§9.2.6, "Interpreting an event stream"):
//
//   - lines end in CRLF, LF or CR; a UTF-8 byte order mark at the start of
//     the stream is skipped;
//   - a line starting with ':' is a comment and is ignored;
//   - "field:value" sets a field, a single space after the colon being
//     removed; a line without a colon is a field with an empty value;
//     fields other than data, event, id and retry are ignored;
//   - data fields accumulate, joined with "\n"; an id containing U+0000 is
//     ignored; a retry that is not all ASCII digits is ignored;
//   - a blank line dispatches the event, unless it had no data field, in
//     which case the event type is reset and nothing is dispatched.
//
// At the end of the stream an event not terminated by a blank line is not
// dispatched, as the specification requires. Next then reports
// framing.ErrTruncated (wrapping io.ErrUnexpectedEOF) instead of io.EOF, so a
// stream cut in the middle of an event is told apart from one that ended
// cleanly.
//
// A line longer than the limit, or an event whose data grows beyond it,
// fails with ErrEventTooLarge before more than the limit is buffered. Errors
// are sticky. An SSEReader buffers its input; it is not safe for concurrent
// use.
type SSEReader struct {
	r   io.Reader
	max int

	buf        []byte // input; unread bytes are buf[start:end]
	start, end int
	scanned    int   // bytes of buf[start:end] already searched for a line end
	searched   int64 // bytes searched in all, for the test of linear cost
	skipLF     bool  // the last line ended in CR: an LF next is part of it
	bomDone    bool
	err        error // sticky; from the source once buf is drained
	srcErr     error // the source's error, met while filling buf

	data    []byte // data buffer of the event being parsed
	hasData bool
	evType  []byte
	pending bool // a field line was read since the last dispatch
	lastID  string
	retry   time.Duration
	n       int64 // events dispatched
	// comments counts the comment lines read: a server's keep-alives.
	comments int64
}

// NewSSEReader returns an SSEReader of r that accepts lines and event data
// of up to maxEventSize bytes; 0 (or less) means DefaultMaxEventSize.
func NewSSEReader(r io.Reader, maxEventSize int) *SSEReader {
	if maxEventSize <= 0 {
		maxEventSize = DefaultMaxEventSize
	}
	// The buffer holds at least a byte order mark and one byte more, however
	// small the limit.
	return &SSEReader{r: r, max: maxEventSize, buf: make([]byte, max(len(bom)+1, min(4096, maxEventSize+1)))}
}

// Next returns the next dispatched event. It returns io.EOF when the
// stream ends cleanly, and otherwise the first error met (sticky).
func (r *SSEReader) Next() (SSEEvent, error) {
	data, err := r.next()
	if err != nil {
		return SSEEvent{}, err
	}
	return SSEEvent{Event: string(r.evType), Data: string(data), ID: r.lastID, Retry: r.retry}, nil
}

// next parses lines up to the next dispatch and returns the event's data,
// valid until the next call. The event's type is left in r.evType.
func (r *SSEReader) next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.data, r.hasData, r.evType, r.pending = r.data[:0], false, r.evType[:0], false
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = err
			return nil, err
		}
		if len(line) == 0 { // dispatch
			if !r.hasData {
				r.evType, r.pending = r.evType[:0], false
				continue
			}
			r.n++
			return r.data, nil
		}
		if line[0] == ':' {
			r.comments++
			continue
		}
		r.pending = true
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if r.hasData {
				r.data = append(r.data, '\n')
			}
			r.data, r.hasData = append(r.data, value...), true
			if len(r.data) > r.max {
				r.err = fmt.Errorf("%w: the data of SSE event %d exceeds the limit of %d bytes", ErrEventTooLarge, r.n, r.max)
				return nil, r.err
			}
		case "event":
			r.evType = append(r.evType[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID = string(value)
			}
		case "retry":
			if ms, ok := parseDigits(value); ok {
				if ms > math.MaxInt64/int64(time.Millisecond) {
					r.retry = math.MaxInt64 // beyond a Duration: the longest one
				} else {
					r.retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
	}
}

// parseDigits parses a non-empty run of ASCII digits, saturating.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < (1<<62)/10 {
			n = n*10 + int64(c-'0')
		}
	}
	return n, true
}

var bom = []byte("\xEF\xBB\xBF")

// readLine returns the next line without its terminator, valid until the
// next call. At the end of the source it returns io.EOF if the stream ended
// between events, and an io.ErrUnexpectedEOF otherwise.
func (r *SSEReader) readLine() ([]byte, error) {
	for {
		if r.skipLF && r.start < r.end {
			if r.buf[r.start] == '\n' {
				r.start++ // (scanned is 0 here: a line was just returned)
			}
			r.skipLF = false
		}
		if !r.bomDone {
			avail := r.buf[r.start:r.end]
			switch {
			case bytes.HasPrefix(avail, bom):
				r.start += len(bom)
				r.bomDone = true
			case !bytes.HasPrefix(bom, avail) || r.srcErr != nil:
				r.bomDone = true // not a BOM, or all there will be
			}
		}
		if r.bomDone {
			// Search only what earlier calls have not: a line arriving in
			// many small reads is scanned once, not once per read.
			avail := r.buf[r.start:r.end]
			r.searched += int64(len(avail) - r.scanned)
			if i := bytes.IndexAny(avail[r.scanned:], "\r\n"); i >= 0 {
				i += r.scanned
				if i > r.max {
					// (The buffer can hold more than the limit: never less
					// than a byte order mark and one byte.)
					return nil, fmt.Errorf("%w: an SSE line exceeds the limit of %d bytes", ErrEventTooLarge, r.max)
				}
				r.start += i + 1
				r.scanned = 0
				r.skipLF = avail[i] == '\r'
				return avail[:i], nil
			}
			r.scanned = len(avail)
			if len(avail) > r.max {
				return nil, fmt.Errorf("%w: an SSE line exceeds the limit of %d bytes", ErrEventTooLarge, r.max)
			}
		}
		if r.srcErr != nil {
			if r.srcErr != io.EOF {
				return nil, r.srcErr
			}
			if r.start < r.end || r.pending {
				return nil, &textError{"transport: stream ends inside an event (SSE: unexpected EOF)", []error{framing.ErrTruncated, io.ErrUnexpectedEOF}}
			}
			return nil, io.EOF
		}
		r.fill()
	}
}

// fill reads more of the source into buf, making room first.
func (r *SSEReader) fill() {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == len(r.buf) {
		nb := make([]byte, min(2*len(r.buf), r.max+1))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for range 100 {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.srcErr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.srcErr = io.ErrNoProgress
}
