package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
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
	// text is checked with the parser of the options' Codec on both
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

// HeaderKeepalive is agwire's keep-alive header for binary streams. A
// client that skips zero-length frames sends it on its request with the
// value 1; a server that keeps the stream alive (HandlerOptions.Heartbeat)
// answers with it, value 1, and then writes a zero-length frame (the four
// bytes 00 00 00 00) after each heartbeat interval without an event.
// Without it on the request a binary stream gets no keep-alive frames:
// AG-UI 1.0 has none, and the stock @ag-ui/proto reader fails on them. SSE
// streams are kept alive with comment lines, which every client skips,
// whether or not the request carries it.
const HeaderKeepalive = "Agwire-Keepalive"

// WriterOptions configures NewEventWriter: the event stream's settings,
// each as the HandlerOptions field of the same name describes it. The zero
// value streams uncompressed events encoded with the strict default codec,
// with no keep-alive (the caller writes when it has something to say).
type WriterOptions struct {
	// Codec encodes events on the binary transport; its MaxDepth and
	// DropUnknownFields also configure the parser of WriteJSON's input.
	Codec codec.Codec
	// Compression lists the content codings the stream may use, in order
	// of preference (see Compression). Nil never compresses.
	Compression Compression
	// WriteTimeout bounds the time to write and flush one event; 0 means no
	// deadline. A ResponseWriter that cannot set deadlines makes
	// NewEventWriter fail when this is set.
	WriteTimeout time.Duration
	// MaxEventSize is the largest event written, in bytes; 0 keeps to the
	// stock TypeScript client's limits (see HandlerOptions.MaxEventSize).
	MaxEventSize int
	// WildcardSSE keeps SSE for a client that admits the binary stream
	// only by a wildcard (see HandlerOptions.WildcardSSE).
	WildcardSSE bool
}

// stream is the settings of one event stream, whichever options struct
// (named name, for errors) they came from.
type stream struct {
	name         string
	codec        codec.Codec
	compression  Compression
	writeTimeout time.Duration
	maxEventSize int
	wildcardSSE  bool
}

func (o *WriterOptions) stream() stream {
	return stream{"WriterOptions", o.Codec, o.Compression, o.WriteTimeout, o.MaxEventSize, o.WildcardSSE}
}

func (o *HandlerOptions) stream() stream {
	return stream{"HandlerOptions", o.Codec, o.Compression, o.WriteTimeout, o.MaxEventSize, o.WildcardSSE}
}

func (o *FollowOptions) stream() stream {
	return stream{"FollowOptions", o.Codec, o.Compression, o.WriteTimeout, o.MaxEventSize, o.WildcardSSE}
}

func (s *stream) parser() event.Parser {
	return event.Parser{MaxDepth: s.codec.MaxDepth, DropUnknownFields: s.codec.DropUnknownFields, Protocol: s.codec.Profile.ProtocolVersion()}
}

// option names a field of the options struct the settings came from.
func (s *stream) option(field string) string { return s.name + "." + field }

// validate checks the stream settings; errors name the options struct.
func (s *stream) validate() error {
	if err := s.compression.check(s.option("Compression")); err != nil {
		return err
	}
	if s.writeTimeout < 0 {
		return fmt.Errorf("transport: %s is negative (%v)", s.option("WriteTimeout"), s.writeTimeout)
	}
	if s.maxEventSize < 0 {
		return fmt.Errorf("transport: %s is negative (%d)", s.option("MaxEventSize"), s.maxEventSize)
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
func NewEventWriter(w http.ResponseWriter, r *http.Request, opts WriterOptions) (EventWriter, error) {
	st := opts.stream()
	if err := st.validate(); err != nil {
		return nil, err
	}
	mt, ok := negotiate(r.Header.Values("Accept"), st.wildcardSSE)
	if !ok {
		notAcceptable(w)
		return nil, ErrNotAcceptable
	}
	return newStream(w, r, mt, &st, -1)
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

// newStream starts the response of a negotiated media type; opts are
// valid. A positive hb keeps the stream alive: after each hb without an
// event it writes the carrier's heartbeat, an SSE comment, or on binary a
// zero-length frame when the request asked for them (HeaderKeepalive).
func newStream(w http.ResponseWriter, r *http.Request, mediaType string, opts *stream, hb time.Duration) (*runWriter, error) {
	car := carrierFor(mediaType)
	rc := http.NewResponseController(w)
	if opts.writeTimeout > 0 {
		if err := rc.SetWriteDeadline(time.Time{}); err != nil {
			return nil, fmt.Errorf("transport: %s needs write deadlines: %w", opts.option("WriteTimeout"), err)
		}
	}
	coding := negotiateEncoding(r.Header.Values("Accept-Encoding"), opts.compression)

	h := w.Header()
	h.Set("Content-Type", mediaType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	addVary(h, "Accept", "Accept-Encoding")
	frames := false // zero-length keep-alive frames on a binary stream
	if hb > 0 && mediaType == MediaTypeBinary {
		addVary(h, HeaderKeepalive)
		if frames = wantsKeepalive(r); frames {
			h.Set(HeaderKeepalive, "1")
		}
	}
	if coding != "" {
		h.Set("Content-Encoding", coding)
	} else {
		h.Del("Content-Encoding")
	}
	h.Del("Content-Length")
	if err := rc.Flush(); err != nil { // sends the header
		if errors.Is(err, http.ErrNotSupported) {
			for _, k := range [...]string{"Content-Type", "Cache-Control", "X-Accel-Buffering", "Content-Encoding", HeaderKeepalive} {
				h.Del(k)
			}
			return nil, fmt.Errorf("%w: %T", ErrStreamingUnsupported, w)
		}
		return nil, fmt.Errorf("transport: sending the response header: %w", err)
	}

	out := &response{rc: rc, timeout: opts.writeTimeout}
	var dst io.Writer = w
	if coding != "" {
		out.comp = getCompressor(coding, w)
		dst = out.comp
	}
	out.enc = car.newEncoder(dst, opts.codec, newSizeLimit(opts.maxEventSize, opts.option("MaxEventSize")))
	if be, ok := out.enc.(*binaryEncoder); ok {
		be.keepalive = frames
	}
	rw := newRunWriter(r.Context(), mediaType, opts.parser(), out, "writing")
	if hb > 0 && (mediaType == MediaTypeSSE || frames) {
		rw.keepAlive(hb)
	}
	return rw, nil
}

// wantsKeepalive reports whether a request says its client skips
// zero-length frames: HeaderKeepalive with the value 1.
func wantsKeepalive(r *http.Request) bool {
	for _, v := range r.Header.Values(HeaderKeepalive) {
		if strings.TrimSpace(v) == "1" {
			return true
		}
	}
	return false
}
