package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

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

// ServerOptions is HandlerOptions, for NewEventWriter, which uses its
// stream settings only: Codec, Compression, WriteTimeout, MaxEventSize and
// WildcardSSE (NewEventWriter refuses options that set any other field).
//
// Deprecated: write HandlerOptions; the two names are one type.
type ServerOptions = HandlerOptions

func (o *HandlerOptions) parser() event.Parser {
	return event.Parser{MaxDepth: o.Codec.MaxDepth, DropUnknownFields: o.Codec.DropUnknownFields}
}

// validate checks the options, given in the struct named name
// (ServerOptions, HandlerOptions, FollowOptions), which errors name.
func (o *HandlerOptions) validate(name string) error {
	if err := checkCodings(name, o.Compression); err != nil {
		return err
	}
	if o.WriteTimeout < 0 {
		return fmt.Errorf("transport: %s.WriteTimeout is negative (%v)", name, o.WriteTimeout)
	}
	if o.MaxEventSize < 0 {
		return fmt.Errorf("transport: %s.MaxEventSize is negative (%d)", name, o.MaxEventSize)
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
	if err := opts.validate("ServerOptions"); err != nil {
		return nil, err
	}
	if err := opts.only("ServerOptions", "NewEventWriter", streamFields...); err != nil {
		return nil, err
	}
	mt, ok := negotiate(r.Header.Values("Accept"), opts.WildcardSSE)
	if !ok {
		notAcceptable(w)
		return nil, ErrNotAcceptable
	}
	return newStream(w, r, mt, &opts, "ServerOptions.MaxEventSize", -1)
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
// valid, and option names the MaxEventSize option in errors. A positive hb
// keeps the stream alive: after each hb without an event it writes the
// carrier's heartbeat, an SSE comment, or on binary a zero-length frame
// when the request asked for them (HeaderKeepalive).
func newStream(w http.ResponseWriter, r *http.Request, mediaType string, opts *HandlerOptions, option string, hb time.Duration) (*runWriter, error) {
	car := carrierFor(mediaType)
	rc := http.NewResponseController(w)
	if opts.WriteTimeout > 0 {
		if err := rc.SetWriteDeadline(time.Time{}); err != nil {
			return nil, fmt.Errorf("transport: %s.WriteTimeout needs write deadlines: %w", optStruct(option), err)
		}
	}
	coding := negotiateEncoding(r.Header.Values("Accept-Encoding"), opts.Compression)

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

	out := &response{rc: rc, timeout: opts.WriteTimeout}
	var dst io.Writer = w
	if coding != "" {
		out.comp = getCompressor(coding, w)
		dst = out.comp
	}
	out.enc = car.newEncoder(dst, opts.Codec, newSizeLimit(opts.MaxEventSize, option))
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

// optStruct returns the struct of an option's name, "ServerOptions" of
// "ServerOptions.MaxEventSize".
func optStruct(option string) string {
	s, _, _ := strings.Cut(option, ".")
	return s
}

// streamFields are the HandlerOptions fields of an event stream, the ones
// NewEventWriter uses.
var streamFields = []string{"Codec", "Compression", "WriteTimeout", "MaxEventSize", "WildcardSSE"}

// only refuses options that set a field outside allowed: one that fn
// would ignore. name is the struct's name for the error.
func (o *HandlerOptions) only(name, fn string, allowed ...string) error {
	v := reflect.ValueOf(o).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !slices.Contains(allowed, f.Name) && !v.Field(i).IsZero() {
			return fmt.Errorf("transport: %s.%s is set, but %s does not use it", name, f.Name, fn)
		}
	}
	return nil
}
