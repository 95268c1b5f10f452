package transport

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agwire/agwire/codec"
)

// textError is an error with its own text that wraps others: a sentinel
// shared with another package keeps this package's wording.
type textError struct {
	text string
	errs []error
}

func (e *textError) Error() string   { return e.text }
func (e *textError) Unwrap() []error { return e.errs }

// Errors. Test for them with errors.Is; most arrive wrapped with details.
// Each failure of a stream gives the same sentinel on both transports; the
// transport's own error stays in the chain. A concept that another package
// defines keeps that package's sentinel, on both transports:
// framing.ErrTruncated (a stream cut inside an event; on SSE the error also
// wraps io.ErrUnexpectedEOF), framing.ErrTooManyErrors (more events in a
// row failed to decode than ClientOptions.MaxConsecutiveErrors allows) and
// codec.ErrUnknownEvent (an *EventError for an event from a later protocol
// version: an unknown SSE event type, or a frame whose only field the codec
// does not know).
var (
	// ErrNotAcceptable: the request's Accept header rules out both event
	// stream types. NewEventWriter has answered 406 Not Acceptable.
	ErrNotAcceptable = errors.New("transport: client accepts neither " + MediaTypeSSE + " nor " + MediaTypeBinary)
	// ErrStreamingUnsupported: the http.ResponseWriter cannot flush, so
	// events could not be delivered one at a time. Nothing has been
	// written; the caller can still answer with an error status.
	ErrStreamingUnsupported = errors.New("transport: response writer cannot flush")
	// ErrClosed: a write on an EventWriter after Close.
	ErrClosed = errors.New("transport: event writer closed")
	// ErrUnsupportedMediaType: a response's Content-Type is neither event
	// stream type.
	ErrUnsupportedMediaType = errors.New("transport: response is not an event stream")
	// ErrUnsupportedEncoding: a response's Content-Encoding is not gzip,
	// zstd or identity.
	ErrUnsupportedEncoding = errors.New("transport: unsupported content encoding")
	// ErrCorruptBody: the response body is not valid in its content coding
	// (a broken gzip or zstd stream). It wraps the decoder's own error, and
	// is the same on both carriers. Errors of the connection itself are
	// passed on as they are.
	ErrCorruptBody = errors.New("transport: the response body's content coding is corrupt")
	// ErrEventTooLarge: an event exceeds the size limit: on a reader
	// (ClientOptions.MaxEventSize) it ends the stream, wrapping
	// framing.ErrFrameTooLarge on the binary transport; on a writer
	// (HandlerOptions.MaxEventSize, by default the stock TypeScript client's
	// limits) the event is refused with an *EventError whose text names the
	// limit and the option that raises it.
	ErrEventTooLarge = errors.New("transport: event too large")
)

// StatusError is a response whose status is not 2xx.
type StatusError struct {
	StatusCode int    // such as 406
	Status     string // such as "406 Not Acceptable"
	// Body holds the first bytes of the response body (at most 1 KiB), as
	// sent: usually the server's explanation.
	Body []byte
}

// Error says the status once: a body that starts by repeating it (as
// "409 conflict: ..." does, the form of this package's handlers and of
// http.Error users) is given without that part.
func (e *StatusError) Error() string {
	status := e.Status
	if status == "" {
		status = strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	}
	s := "transport: server answered " + strings.TrimSpace(status)
	b := strings.TrimSpace(string(e.Body))
	for _, prefix := range []string{status, strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode), strconv.Itoa(e.StatusCode)} {
		prefix = strings.TrimSpace(prefix)
		if len(b) >= len(prefix) && strings.EqualFold(b[:len(prefix)], prefix) {
			if rest := b[len(prefix):]; rest == "" || rest[0] == ':' || rest[0] == '\n' {
				b = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
				break
			}
		}
	}
	if b != "" {
		s += ": " + b
	}
	return s
}

// EventError is one event that failed alone, on either transport; the
// stream goes on, and framing.Skippable reports true for it.
//
// On an EventReader it is an event that does not decode: an SSE event
// whose data is not a valid AG-UI JSON event (Err is the parser's
// *event.PathError), or a binary frame that is not a valid Event (Err is
// the *framing.Error wrapping the *codec.Error). errors.Is(err,
// codec.ErrUnknownEvent) tells an event from a later protocol version. The
// reader has consumed it and reads the next event.
//
// On an EventWriter it is an event that could not be written: the codec
// refused it (a *codec.Error), WriteJSON was given text that is not one
// valid AG-UI JSON event (an *event.PathError), or it exceeds
// the options' MaxEventSize (ErrEventTooLarge). Nothing was written.
type EventError struct {
	// Index is the 0-based index of the event in the stream: among the
	// events read, good or bad, or the events written so far.
	Index int64
	// Err is the parser's or codec's error, which names the field.
	Err error

	unknown bool // an event from a later protocol version
}

func (e *EventError) Error() string {
	return "transport: event " + strconv.FormatInt(e.Index, 10) + ": " + e.Err.Error()
}

func (e *EventError) Unwrap() error { return e.Err }

// Is reports codec.ErrUnknownEvent for an event from a later protocol
// version (on SSE the parser's error is event.ErrUnknownType, which this
// makes answer to the codec's sentinel too).
func (e *EventError) Is(target error) bool { return target == codec.ErrUnknownEvent && e.unknown }

// Skippable reports true: the stream goes on after an EventError. It lets
// framing.Skippable, the one test of skippability, recognise it.
func (e *EventError) Skippable() bool { return true }
