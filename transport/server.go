package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// EventWriter writes the events of one run to a client, one at a time:
// each event is on its way (written and flushed, through the compressor
// too) when WriteEvent returns.
//
// NewEventWriter returns the implementation for HTTP; an agent written
// against this interface can be driven by a fake in its tests.
type EventWriter interface {
	// WriteEvent sends one event. An event that cannot be encoded is
	// refused with an *EventError and nothing is written; the stream goes
	// on. Any other error is the connection's, is sticky, and cancels
	// Context.
	WriteEvent(ev event.Event) error
	// WriteJSON sends one AG-UI JSON event (the object an SSE data line
	// carries), for servers that already have their events as JSON. The
	// text is checked with the parser of ServerOptions.Codec on both
	// transports, so both refuse the same input; SSE then forwards the text
	// itself, with any line breaks between tokens turned into spaces.
	// Errors are as for WriteEvent.
	WriteJSON(jsonEvent []byte) error
	// ContentType is the negotiated media type, MediaTypeSSE or
	// MediaTypeBinary.
	ContentType() string
	// Context is done when the request's context is (the client went away
	// or the server is shutting down), when a write failed, or after Close.
	// context.Cause tells which.
	Context() context.Context
	// Close ends the stream: it finishes the compressed stream, if any, and
	// flushes. It does not close the connection; the handler returning
	// does. Writes after Close fail with ErrClosed. Close returns the error
	// that broke the stream earlier, if any, so a caller that did not check
	// every write learns of it here.
	Close() error
}

// ServerOptions configures the event stream of NewEventWriter. The zero
// value streams uncompressed events encoded with the strict default codec.
type ServerOptions struct {
	// Codec encodes events on the binary transport. Its MaxDepth and
	// DropUnknownFields also configure the parser that checks WriteJSON's
	// input on both transports.
	Codec codec.Codec
	// Compression lists the content codings the server may use, in its
	// order of preference: EncodingZstd, EncodingGzip, or both. The client's
	// Accept-Encoding decides among them (highest q first, then this
	// order); a client that asks for neither gets the identity coding. Nil,
	// the default, never compresses. See the package documentation for why.
	Compression []string
	// WriteTimeout bounds the time to write and flush one event, as a write
	// deadline on the connection renewed before each event. A client that
	// stops reading then fails the write once the deadline passes, instead
	// of holding the handler until it leaves. 0 means no deadline beyond
	// http.Server.WriteTimeout (which bounds the whole response, and so the
	// whole run). A ResponseWriter that cannot set deadlines makes
	// NewEventWriter fail when this is set.
	WriteTimeout time.Duration
	// MaxEventSize is the largest event written, in bytes (a binary frame's
	// payload, an SSE event's JSON): a larger one is refused with an
	// *EventError wrapping ErrEventTooLarge, on both transports, so that a
	// client with the same limit reads everything the server writes. 0 (or
	// less) means DefaultMaxEventSize, the client's default.
	MaxEventSize int
}

func (o *ServerOptions) maxEventSize() int {
	if o.MaxEventSize > 0 {
		return o.MaxEventSize
	}
	return DefaultMaxEventSize
}

// validate checks the options.
func (o *ServerOptions) validate() error {
	if err := checkCodings(o.Compression); err != nil {
		return err
	}
	if o.WriteTimeout < 0 {
		return fmt.Errorf("transport: ServerOptions.WriteTimeout is negative (%v)", o.WriteTimeout)
	}
	return nil
}

// NewEventWriter negotiates the event stream's media type (see Negotiate)
// and content coding from the request and sends the response header at
// once, so a client waiting for it learns the stream has started.
//
// The header carries Content-Type, Cache-Control: no-cache,
// X-Accel-Buffering: no (so that nginx and similar proxies pass each event
// on instead of buffering the response; binary streams need that as much
// as SSE), Vary: Accept, Accept-Encoding, and Content-Encoding when the
// stream is compressed. Set other headers on w before calling.
//
// Options that are not valid (an unknown coding in Compression, a
// negative WriteTimeout) give an error before anything is written. If the
// client accepts neither transport, NewEventWriter answers 406 Not
// Acceptable, with a body naming both types, and returns ErrNotAcceptable.
// If w cannot flush it writes nothing and returns ErrStreamingUnsupported.
//
// The caller must Close the EventWriter when the run is over (a Handler
// does), which also returns a pooled compressor.
func NewEventWriter(w http.ResponseWriter, r *http.Request, opts ServerOptions) (EventWriter, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	mt, ok := Negotiate(r.Header.Values("Accept"))
	if !ok {
		notAcceptable(w)
		return nil, ErrNotAcceptable
	}
	return newStream(w, r, mt, &opts)
}

// notAcceptable answers 406 with the two media types in the body.
func notAcceptable(w http.ResponseWriter) {
	addVary(w.Header(), "Accept")
	http.Error(w, "406 not acceptable: this endpoint streams AG-UI events as\n"+
		MediaTypeSSE+"\n"+MediaTypeBinary, http.StatusNotAcceptable)
}

// addVary adds names to the Vary header unless already listed.
func addVary(h http.Header, names ...string) {
	have := strings.ToLower(strings.Join(h.Values("Vary"), ","))
	for _, n := range names {
		found := false
		for v := range splitList(have) {
			if v == strings.ToLower(n) || v == "*" {
				found = true
				break
			}
		}
		if !found {
			h.Add("Vary", n)
		}
	}
}

// stream is the EventWriter of every carrier: they differ only in their
// encoder, which turns an event into bytes.
type stream struct {
	mu        sync.Mutex
	rc        *http.ResponseController
	ctx       context.Context
	cancel    context.CancelCauseFunc
	mediaType string
	timeout   time.Duration
	parser    event.Parser

	comp compressor // nil for identity
	enc  encoder    // writes to the response, or to comp

	n        int64 // events written
	terminal bool  // a RUN_FINISHED or RUN_ERROR was written
	err      error // sticky write error
	closed   bool
}

// newStream starts the stream of a negotiated media type; opts are valid.
func newStream(w http.ResponseWriter, r *http.Request, mediaType string, opts *ServerOptions) (*stream, error) {
	car := carrierFor(mediaType)
	rc := http.NewResponseController(w)
	if opts.WriteTimeout > 0 {
		if err := rc.SetWriteDeadline(time.Time{}); err != nil {
			return nil, fmt.Errorf("transport: ServerOptions.WriteTimeout needs write deadlines: %w", err)
		}
	}
	coding := negotiateEncoding(r.Header.Values("Accept-Encoding"), opts.Compression)

	h := w.Header()
	h.Set("Content-Type", mediaType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	addVary(h, "Accept", "Accept-Encoding")
	if coding != "" {
		h.Set("Content-Encoding", coding)
	} else {
		h.Del("Content-Encoding")
	}
	h.Del("Content-Length")
	if err := rc.Flush(); err != nil { // sends the header
		if errors.Is(err, http.ErrNotSupported) {
			for _, k := range [...]string{"Content-Type", "Cache-Control", "X-Accel-Buffering", "Content-Encoding"} {
				h.Del(k)
			}
			return nil, fmt.Errorf("%w: %T", ErrStreamingUnsupported, w)
		}
		return nil, fmt.Errorf("transport: sending the response header: %w", err)
	}

	s := &stream{
		rc:        rc,
		mediaType: mediaType,
		timeout:   opts.WriteTimeout,
		parser:    event.Parser{MaxDepth: opts.Codec.MaxDepth, DropUnknownFields: opts.Codec.DropUnknownFields},
	}
	s.ctx, s.cancel = context.WithCancelCause(r.Context())
	var out io.Writer = w
	if coding != "" {
		s.comp = getCompressor(coding, w)
		out = s.comp
	}
	s.enc = car.newEncoder(out, *opts)
	return s, nil
}

func (s *stream) ContentType() string      { return s.mediaType }
func (s *stream) Context() context.Context { return s.ctx }

func (s *stream) WriteEvent(ev event.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	if ev == nil {
		return s.refuse(errors.New("nil event"))
	}
	return s.write(ev.Type(), func() error { return s.enc.writeEvent(ev) })
}

func (s *stream) WriteJSON(jsonEvent []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	ev, err := s.parser.Parse(jsonEvent)
	if err != nil {
		return s.refuse(err)
	}
	return s.write(ev.Type(), func() error { return s.enc.writeJSON(ev, jsonEvent) })
}

// writeWire writes an event read from a run log, with its cursor text.
func (s *stream) writeWire(wire []byte, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	return s.write("", func() error { return s.enc.writeWire(wire, id) })
}

// heartbeat writes the carrier's keep-alive, if it has one, and flushes.
func (s *stream) heartbeat() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.setDeadline(); err != nil {
		return s.fail(err)
	}
	wrote, err := s.enc.heartbeat()
	if err != nil {
		return s.fail(err)
	}
	if !wrote {
		return nil
	}
	if s.comp != nil {
		if err := s.comp.Flush(); err != nil {
			return s.fail(err)
		}
	}
	if err := s.rc.Flush(); err != nil {
		return s.fail(err)
	}
	return nil
}

// write runs the encoder's write of one event under the write deadline and
// flushes it.
func (s *stream) write(typ event.Type, encode func() error) error {
	if err := s.setDeadline(); err != nil {
		return s.fail(err)
	}
	if err := encode(); err != nil {
		if r, ok := err.(*refusal); ok {
			return s.refuse(r.err)
		}
		return s.fail(err)
	}
	return s.flush(typ)
}

// flush pushes the event written through the compressor and the response.
func (s *stream) flush(typ event.Type) error {
	if s.comp != nil {
		if err := s.comp.Flush(); err != nil {
			return s.fail(err)
		}
	}
	if err := s.rc.Flush(); err != nil {
		return s.fail(err)
	}
	s.n++
	if typ == event.TypeRunFinished || typ == event.TypeRunError {
		s.terminal = true
	}
	return nil
}

func (s *stream) setDeadline() error {
	if s.timeout <= 0 {
		return nil
	}
	return s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
}

func (s *stream) usable() error {
	if s.closed {
		return ErrClosed
	}
	return s.err
}

// refuse reports an event that was not written; the stream goes on.
func (s *stream) refuse(err error) error {
	return &EventError{Index: s.n, Err: err}
}

// fail records a write error of the connection: sticky, and it cancels the
// stream's context.
func (s *stream) fail(err error) error {
	s.err = fmt.Errorf("transport: writing event %d: %w", s.n, err)
	s.cancel(s.err)
	return s.err
}

// wroteTerminal reports whether a RUN_FINISHED or RUN_ERROR went out.
func (s *stream) wroteTerminal() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.terminal
}

func (s *stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.err
	}
	s.closed = true
	defer s.cancel(ErrClosed)
	if s.err != nil {
		return s.err // a broken compressor is not pooled again
	}
	if s.comp != nil {
		err := s.setDeadline()
		if err == nil {
			err = s.comp.Close()
		}
		if err == nil {
			err = s.rc.Flush()
		}
		if err != nil {
			s.comp = nil
			return s.fail(err)
		}
		putCompressor(s.comp)
		s.comp = nil
		s.enc.reset(io.Discard)
	}
	if s.timeout > 0 {
		// Net/http does not reset a deadline it did not set: clear ours so
		// that a kept-alive connection's next response does not inherit it.
		_ = s.rc.SetWriteDeadline(time.Time{})
	}
	return nil
}
