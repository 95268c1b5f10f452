package transport

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
)

// ClientOptions configures NewClient. The zero value asks for the binary
// transport, uncompressed, and reads it with the strict default codec.
// Seven of its fields are ReaderOptions' (see there), with which the Client
// reads each response.
type ClientOptions struct {
	// Codec decodes binary frames. Its MaxDepth and DropUnknownFields also
	// configure the parser of SSE events.
	Codec codec.Codec
	// MaxEventSize is the largest event accepted, in bytes: a binary
	// frame's payload or an SSE line or event's data. A larger one ends the
	// stream with ErrEventTooLarge, on both transports. 0 means
	// DefaultMaxEventSize; negative is an error (NewClient, NewEventReader).
	MaxEventSize int
	// MaxConsecutiveErrors is how many events in a row may fail to decode
	// (each reported as an *EventError) before the stream is given up with
	// framing.ErrTooManyErrors: a server sending nothing but undecodable events
	// would otherwise keep a reader busy for ever. An event that decodes
	// resets the count. 0 means DefaultMaxConsecutiveErrors; a negative
	// value means no limit.
	MaxConsecutiveErrors int
	// Compression lists the content codings requests ask for, in
	// Accept-Encoding in this order: Compression{EncodingZstd,
	// EncodingGzip} sends "Accept-Encoding: zstd, gzip". Nil, the default,
	// sends "Accept-Encoding: identity", which also keeps net/http's
	// transparent gzip out of the way. A response is decoded according to
	// its Content-Encoding either way. An unknown coding is an error of
	// NewClient.
	Compression Compression
	// Reconnect makes a reader from Client.Run or Client.Follow resume a
	// resumable run whose stream is cut, however early: a cut inside the
	// response's header is resumed from the run's start (see
	// ReconnectOptions). Nil, the default, ends the stream with the cut's
	// error.
	Reconnect *ReconnectOptions
	// Header holds extra request headers for Run, such as Authorization.
	// Content-Type, Accept, Accept-Encoding and HeaderKeepalive are set by Run.
	Header http.Header
	// IdleTimeout ends a read when no byte of the response arrives for
	// this long, with an error wrapping ErrIdleTimeout; a resumable stream
	// read with Reconnect resumes instead. Every byte that arrives resets
	// it, compressed or not, so it bounds a silence, not a run. A server
	// that sends keep-alives (an agwire server does, every 15 s by
	// default, on SSE and, for a client like this one that asks with
	// HeaderKeepalive, on binary) keeps a quiet run within it; against
	// others allow for the longest silence of a run. 0 means no limit.
	IdleTimeout time.Duration
	// MaxQuiet ends a read that has waited this long for an event, with an
	// error wrapping ErrQuiet: keep-alives reset IdleTimeout but not
	// MaxQuiet, so a server that sends nothing but keep-alives cannot hold
	// the reader for ever. Only the time spent waiting in Next counts, not
	// the caller's own time between events; with Reconnect it runs on
	// across reconnections, and a quiet stream is given up, not resumed
	// (the server is answering; a new request would wait the same way). 0
	// means DefaultMaxQuiet (10 minutes); a negative value, no limit.
	MaxQuiet time.Duration
	// HTTPClient sends the requests of a Client; nil means
	// http.DefaultClient.
	HTTPClient Doer
	// FollowURL is the follower route of a Client's Follow, with "{run}"
	// standing for the run id (%-escaped). "" means the agent URL with
	// "/runs/{run}" appended, the route "agwire serve" uses.
	FollowURL string
	// Consume makes the reader the consumer stage of AG-UI 1.0's
	// processing model (event.Parser.Consume), as a client applying the
	// events needs: properties no schema describes are removed and events
	// of types the protocol does not describe are skipped (SSE events and
	// binary frames), each reported to Warn; malformed known values are
	// still errors (*EventError), a binary frame's checked through its
	// JSON form.
	Consume bool
	// Warn receives the warnings of Consume; nil discards them.
	Warn func(event.Warning)
	// Prefer chooses the transport a Client asks for: PreferBinary (the
	// default: "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5",
	// which servers that negotiate — agwire's, the TypeScript and Python
	// SDKs' — answer with binary, and SSE-only servers with SSE),
	// PreferSSEOnly (text/event-stream only, as the TypeScript HttpAgent
	// asks) or PreferAuto (ask the server's capabilities once, then binary
	// if it says it speaks it, else SSE only).
	Prefer Prefer
}

// ReaderOptions configures NewEventReader: how the events of a response
// are read. ClientOptions has the same seven fields for the responses of
// a Client. The zero value reads either carrier with the strict default codec
// and the default limits, with no idle timeout and DefaultMaxQuiet.
type ReaderOptions struct {
	// Codec decodes binary frames. Its MaxDepth and DropUnknownFields also
	// configure the parser of SSE events.
	Codec codec.Codec
	// MaxEventSize is the largest event accepted, in bytes: a binary
	// frame's payload or an SSE line or event's data. A larger one ends the
	// stream with ErrEventTooLarge, on both transports. 0 means
	// DefaultMaxEventSize; negative is an error (NewClient, NewEventReader).
	MaxEventSize int
	// MaxConsecutiveErrors is how many events in a row may fail to decode
	// (each reported as an *EventError) before the stream is given up with
	// framing.ErrTooManyErrors: a server sending nothing but undecodable events
	// would otherwise keep a reader busy for ever. An event that decodes
	// resets the count. 0 means DefaultMaxConsecutiveErrors; a negative
	// value means no limit.
	MaxConsecutiveErrors int
	// IdleTimeout ends a read when no byte of the response arrives for
	// this long, with an error wrapping ErrIdleTimeout; a resumable stream
	// read with Reconnect resumes instead. Every byte that arrives resets
	// it, compressed or not, so it bounds a silence, not a run. A server
	// that sends keep-alives (an agwire server does, every 15 s by
	// default, on SSE and, for a client like this one that asks with
	// HeaderKeepalive, on binary) keeps a quiet run within it; against
	// others allow for the longest silence of a run. 0 means no limit.
	IdleTimeout time.Duration
	// MaxQuiet ends a read that has waited this long for an event,
	// keep-alives or not, with an error wrapping ErrQuiet (see
	// ClientOptions.MaxQuiet). 0 means DefaultMaxQuiet; negative, no
	// limit.
	MaxQuiet time.Duration
	// Consume makes the reader the consumer stage of AG-UI 1.0's
	// processing model (event.Parser.Consume), as a client applying the
	// events needs: properties no schema describes are removed and events
	// of types the protocol does not describe are skipped (SSE events and
	// binary frames), each reported to Warn; malformed known values are
	// still errors (*EventError), a binary frame's checked through its
	// JSON form.
	Consume bool
	// Warn receives the warnings of Consume; nil discards them.
	Warn func(event.Warning)
}

// reader is the reading half of o.
func (o *ClientOptions) reader() ReaderOptions {
	return ReaderOptions{Codec: o.Codec, MaxEventSize: o.MaxEventSize, MaxConsecutiveErrors: o.MaxConsecutiveErrors,
		IdleTimeout: o.IdleTimeout, MaxQuiet: o.MaxQuiet, Consume: o.Consume, Warn: o.Warn}
}

// Prefer is the transport a Client asks for (ClientOptions.Prefer).
type Prefer int

const (
	// PreferBinary asks for the binary stream with SSE as the fallback.
	PreferBinary Prefer = iota
	// PreferSSEOnly asks for text/event-stream only.
	PreferSSEOnly
	// PreferAuto reads the server's capabilities (Client.Capabilities)
	// before the first run and asks for binary when their
	// transport.httpBinary is true, for SSE only otherwise.
	PreferAuto
)

// DefaultMaxConsecutiveErrors is the number of undecodable events in a row
// an EventReader reports before it gives up the stream, when
// ClientOptions.MaxConsecutiveErrors is 0.
const DefaultMaxConsecutiveErrors = framing.DefaultMaxConsecutiveErrors

func (o *ReaderOptions) parser() event.Parser {
	return event.Parser{MaxDepth: o.Codec.MaxDepth, DropUnknownFields: o.Codec.DropUnknownFields, Consume: o.Consume, Warn: o.Warn, Protocol: o.Codec.Profile.ProtocolVersion()}
}

// EventReader reads the events of one run from an HTTP response, SSE or
// binary, as the response's Content-Type says. It reports the same errors
// for the same failures on both transports. It is not safe for concurrent
// use, except that Close may be called from another goroutine to abandon a
// read in progress.
type EventReader struct {
	resp      *http.Response
	mediaType string
	coding    string
	dec       decoder
	n         int64 // events read, good or bad: the index of the next
	maxBad    int   // MaxConsecutiveErrors, -1 for no limit
	bad       int   // undecodable events in a row
	err       error // sticky stream-level error

	opts ReaderOptions
	// Resumable streams (a response with HeaderCursor).
	resumable bool
	cursor    runlog.Cursor // of the last event read
	ended     bool          // a RUN_FINISHED or RUN_ERROR was read
	re        *reconnector  // nil: no reconnection

	quiet      *quietClock // MaxQuiet; nil: no limit
	keepalives int64       // keep-alives read since the last event
}

// NewEventReader checks resp and returns a reader of its events.
//
// A status other than 2xx gives a *StatusError carrying the start of the
// body. A Content-Type (parameters allowed) that is neither MediaTypeSSE nor
// MediaTypeBinary gives ErrUnsupportedMediaType; a Content-Encoding other
// than gzip, zstd or identity gives ErrUnsupportedEncoding. On error the
// response body has been closed. NewEventReader does not read the body of a
// 2xx response.
func NewEventReader(resp *http.Response, opts ReaderOptions) (*EventReader, error) {
	r, err := newEventReader(opts)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if err := r.attach(resp); err != nil {
		r.stop()
		return nil, err
	}
	return r, nil
}

// newEventReader returns a reader with no response yet: attach gives it
// one.
func newEventReader(opts ReaderOptions) (*EventReader, error) {
	if opts.MaxEventSize < 0 || opts.IdleTimeout < 0 {
		return nil, fmt.Errorf("transport: ReaderOptions.MaxEventSize (%d) or IdleTimeout (%v) is negative", opts.MaxEventSize, opts.IdleTimeout)
	}
	r := &EventReader{opts: opts, maxBad: DefaultMaxConsecutiveErrors}
	switch {
	case opts.MaxConsecutiveErrors > 0:
		r.maxBad = opts.MaxConsecutiveErrors
	case opts.MaxConsecutiveErrors < 0:
		r.maxBad = -1
	}
	r.quiet = newQuietClock(opts.MaxQuiet)
	return r, nil
}

// stop releases what a reader holds beyond its response: the MaxQuiet
// clock.
func (r *EventReader) stop() {
	if r.quiet != nil {
		r.quiet.stop()
	}
}

// attach makes r read resp.
func (r *EventReader) attach(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
		return &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, Body: snippet}
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	car := carrierFor(mt)
	if err != nil || car == nil {
		resp.Body.Close()
		return fmt.Errorf("%w: Content-Type %q", ErrUnsupportedMediaType, ct)
	}
	// The idle timer watches the bytes of the connection: it wraps the body
	// under the decompressor, so that every byte that arrives resets it,
	// even one that completes no decompressed output yet.
	var idle *idleBody
	if r.opts.IdleTimeout > 0 {
		idle = newIdleBody(resp.Body, r.opts.IdleTimeout)
		resp.Body = idle
	}
	body, coding, err := decompress(resp.Header.Values("Content-Encoding"), resp.Body)
	if err != nil {
		resp.Body.Close()
		return err
	}
	if idle != nil && coding != "" {
		body = &idleReader{body, idle}
	}
	r.resp, r.mediaType, r.coding, r.dec = resp, mt, coding, car.newDecoder(body, r.opts)
	switch d := r.dec.(type) {
	case *binaryDecoder:
		d.keepalive = resp.Header.Get(HeaderKeepalive) == "1"
		d.keepalives = &r.keepalives
	case *sseDecoder:
		d.keepalives = &r.keepalives
	}
	if r.quiet != nil {
		r.quiet.watch(resp.Body)
	}
	// A resumed response without a cursor is not taken for one with the
	// cursor asked for: it is not resumable, which the reconnection checks.
	r.resumable = false
	if v := resp.Header.Get(HeaderCursor); v != "" {
		c, err := runlog.ParseCursor(v)
		if err != nil {
			resp.Body.Close()
			return fmt.Errorf("transport: the response's %s header: %w", HeaderCursor, err)
		}
		r.resumable, r.cursor = true, c
	}
	return nil
}

// Cursor returns the cursor of the last event read from a resumable run
// (reading from it yields the events after that one), and whether the
// stream is resumable: the server sent HeaderCursor.
func (r *EventReader) Cursor() (runlog.Cursor, bool) { return r.cursor, r.resumable }

// ContentType returns the stream's media type, MediaTypeSSE or
// MediaTypeBinary.
func (r *EventReader) ContentType() string { return r.mediaType }

// ContentEncoding returns the coding the stream was decompressed from,
// EncodingGzip or EncodingZstd, or "" for identity.
func (r *EventReader) ContentEncoding() string { return r.coding }

// Response returns the response the events are read from.
func (r *EventReader) Response() *http.Response { return r.resp }

// Next reads the next event. It returns io.EOF, unwrapped, when the stream
// ends cleanly.
//
// An event that does not decode is reported alone, as an *EventError, and
// consumed; the next call reads the next event. errors.Is(err,
// codec.ErrUnknownEvent) tells an event from a later protocol version (wrapping
// event.ErrUnknownType on SSE, codec.ErrUnknownEvent on the binary
// transport).
//
// Other errors end the stream and are sticky: framing.ErrTruncated for a stream cut
// inside an event, ErrEventTooLarge for an event over MaxEventSize,
// framing.ErrTooManyErrors past MaxConsecutiveErrors bad events in a row, a network
// or decompression error. The transport's own error stays in the chain
// (framing.ErrTruncated, io.ErrUnexpectedEOF, ...).
//
// With ClientOptions.Consume, an event the consumer stage drops (an unknown
// type, on either transport) is reported to Warn and skipped; it still
// counts as read (EventError indexes, the resume cursor).
//
// A wait of ClientOptions.MaxQuiet for an event, keep-alives or not, ends
// the stream with an error wrapping ErrQuiet.
func (r *EventReader) Next() (event.Event, error) {
	if r.quiet != nil {
		// Odd while waiting: the MaxQuiet clock counts only this time.
		r.quiet.marks.Add(1)
		defer r.quiet.marks.Add(1)
	}
	for {
		ev, err := r.next()
		if ev == nil && err == nil {
			continue // dropped by the consumer stage, and counted
		}
		return ev, err
	}
}

func (r *EventReader) next() (event.Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	ev, err := r.dec.next()
	for err != nil && !isBadEvent(err) && r.re != nil && !r.quietFired() {
		if err == io.EOF && r.resumable && r.endTrailer() {
			r.ended = true // the run ended, with or without its RUN_FINISHED
		}
		if r.ended || !r.resumable || !reconnectable(err) {
			break
		}
		if rerr := r.reconnect(err); rerr != nil {
			err = rerr
			break
		}
		ev, err = r.dec.next()
	}
	if err == nil {
		r.n++
		r.bad = 0
		r.keepalives = 0
		r.cursor.Seq++
		if ev == nil {
			return nil, nil // dropped by the consumer stage (Consume)
		}
		if endsRun(ev.Type()) {
			r.ended = true
		}
		return ev, nil
	}
	var bad *badEvent
	if !errors.As(err, &bad) {
		if r.quietFired() {
			err = r.quiet.err(r.keepalives)
		}
		if r.re != nil && r.ended && (reconnectable(err) || errors.Is(err, ErrQuiet)) {
			err = io.EOF // the run has ended: a cut after it loses nothing
		}
		r.err = err
		r.stop()
		return nil, err
	}
	r.keepalives = 0
	r.cursor.Seq++
	index := r.n
	r.n++
	if bad.unknown && r.opts.Consume {
		// A frame of a type this version does not know: dropped, as the
		// consumer stage drops an unknown JSON event.
		r.bad = 0
		if r.opts.Warn != nil {
			r.opts.Warn(event.Warning{Reason: fmt.Sprintf("dropping event %d, of a type this version does not describe: %v", index, bad.err)})
		}
		return nil, nil
	}
	r.bad++
	if r.maxBad >= 0 && r.bad > r.maxBad {
		r.err = &textError{fmt.Sprintf("transport: too many undecodable events in a row: %d events in a row did not decode (the last, event %d: %v)", r.bad, index, bad.err), []error{framing.ErrTooManyErrors}}
		return nil, r.err
	}
	return nil, &EventError{Index: index, Err: bad.err, unknown: bad.unknown}
}

// Events returns an iterator over the stream's events. An event that does
// not decode is yielded with its *EventError and iteration goes on; an
// error that ends the stream is yielded and ends it; the clean end of the
// stream ends it silently. After a break, Next reads on from there.
func (r *EventReader) Events() iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for {
			ev, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || (err != nil && !framing.Skippable(err)) {
				return
			}
		}
	}
}

// Close closes the response body. Closing before the end of the stream
// abandons it: the server sees the connection go away.
func (r *EventReader) Close() error {
	r.stop()
	return r.resp.Body.Close()
}

// quietFired reports whether the MaxQuiet clock ended the stream.
func (r *EventReader) quietFired() bool { return r.quiet != nil && r.quiet.fired.Load() }

// Accept header values Run sends.
const (
	acceptBinaryFirst = MediaTypeBinary + ", " + MediaTypeSSE + ";q=0.5"
	acceptSSEOnly     = MediaTypeSSE
)

// Doer sends an HTTP request: *http.Client is one, and so is any wrapper
// that retries, traces or signs requests.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// setAccept sets the Accept and Accept-Encoding headers opts ask for, and
// HeaderKeepalive: the reader skips zero-length frames.
func setAccept(req *http.Request, opts ClientOptions) {
	req.Header.Set(HeaderKeepalive, "1")
	if opts.Prefer == PreferSSEOnly {
		req.Header.Set("Accept", acceptSSEOnly)
	} else {
		req.Header.Set("Accept", acceptBinaryFirst)
	}
	if len(opts.Compression) > 0 {
		req.Header.Set("Accept-Encoding", strings.Join(opts.Compression, ", "))
	} else {
		req.Header.Set("Accept-Encoding", "identity")
	}
}

// endTrailer reports whether the response ended with the HeaderEnd
// trailer. The trailer arrives after the body's last byte: a decompressor
// may stop before reading it, so the rest of the body is read first (a
// clean end leaves at most the chunked encoding's terminator).
func (r *EventReader) endTrailer() bool {
	io.Copy(io.Discard, io.LimitReader(r.resp.Body, 64))
	return r.resp.Trailer.Get(HeaderEnd) != ""
}
