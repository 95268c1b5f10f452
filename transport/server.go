package transport

import (
	"bytes"
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
	"github.com/agwire/agwire/framing"
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
// If the client accepts neither transport, NewEventWriter answers 406 Not
// Acceptable, with a body naming both types, and returns ErrNotAcceptable.
// If w cannot flush it writes nothing and returns ErrStreamingUnsupported.
//
// The caller must Close the EventWriter when the run is over (Handler does),
// which also returns a pooled compressor.
func NewEventWriter(w http.ResponseWriter, r *http.Request, opts ServerOptions) (EventWriter, error) {
	mt, ok := Negotiate(r.Header.Values("Accept"))
	if !ok {
		notAcceptable(w)
		return nil, ErrNotAcceptable
	}
	return newStream(w, r, mt, opts)
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

// sseDataPrefix starts every SSE event block.
const sseDataPrefix = "data: "

// stream is the EventWriter of both transports: they differ only in how an
// event becomes bytes.
type stream struct {
	mu        sync.Mutex
	rc        *http.ResponseController
	ctx       context.Context
	cancel    context.CancelCauseFunc
	mediaType string
	timeout   time.Duration
	parser    event.Parser

	out  io.Writer       // the response, or comp
	comp compressor      // nil for identity
	fw   *framing.Writer // binary transport: writes frames to out
	buf  []byte          // SSE transport: the event block being built

	n        int64 // events written
	terminal bool  // a RUN_FINISHED or RUN_ERROR was written
	err      error // sticky write error
	closed   bool
}

func newStream(w http.ResponseWriter, r *http.Request, mediaType string, opts ServerOptions) (*stream, error) {
	if err := checkCodings(opts.Compression); err != nil {
		return nil, err
	}
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
		out:       w,
	}
	s.ctx, s.cancel = context.WithCancelCause(r.Context())
	if coding != "" {
		s.comp = getCompressor(coding, w)
		s.out = s.comp
	}
	if mediaType == MediaTypeBinary {
		s.fw = framing.NewWriter(s.out, framing.WriterOptions{Codec: opts.Codec})
	} else {
		s.buf = append(make([]byte, 0, 512), sseDataPrefix...)
	}
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
	if s.fw != nil {
		return s.writeFrame(ev)
	}
	b, err := event.AppendJSON(s.buf[:len(sseDataPrefix)], ev)
	if err != nil {
		return s.refuse(err)
	}
	return s.writeSSE(b, ev.Type())
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
	if s.fw != nil {
		return s.writeFrame(ev)
	}
	// The text is forwarded as given, on one line: an SSE data line must not
	// contain a line break, or the client would cut the event in two. JSON
	// strings cannot hold a raw CR or LF, so any in the text are whitespace
	// between tokens (a pretty-printed value), and spaces keep the meaning.
	// (event.AppendJSON, used by WriteEvent, already writes one line.)
	b := append(s.buf[:len(sseDataPrefix)], bytes.TrimSpace(jsonEvent)...)
	for data := b[len(sseDataPrefix):]; ; {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		data[i] = ' '
		data = data[i+1:]
	}
	return s.writeSSE(b, ev.Type())
}

// writeFrame encodes ev and writes it as one frame.
func (s *stream) writeFrame(ev event.Event) error {
	if err := s.setDeadline(); err != nil {
		return s.fail(err)
	}
	if err := s.fw.WriteEvent(ev); err != nil {
		if framing.Skippable(err) { // the codec refused it; nothing written
			return s.refuse(err)
		}
		return s.fail(err)
	}
	return s.flush(ev.Type())
}

// writeSSE terminates the event block in b ("data: " and the event's
// one-line JSON) and writes it.
func (s *stream) writeSSE(b []byte, typ event.Type) error {
	b = append(b, '\n', '\n')
	s.buf = b[:len(sseDataPrefix)]
	if err := s.setDeadline(); err != nil {
		return s.fail(err)
	}
	if _, err := s.out.Write(b); err != nil {
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
		s.comp, s.out = nil, io.Discard
		if s.fw != nil {
			s.fw.Reset(io.Discard)
		}
	}
	if s.timeout > 0 {
		// Net/http does not reset a deadline it did not set: clear ours so
		// that a kept-alive connection's next response does not inherit it.
		_ = s.rc.SetWriteDeadline(time.Time{})
	}
	return nil
}
