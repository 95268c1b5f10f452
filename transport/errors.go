package transport

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agwire/agwire/framing"
)

// Errors. Test for them with errors.Is; most arrive wrapped with details.
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
	// ErrEventTooLarge: an SSE line or event's data exceeds the reader's
	// limit (ClientOptions.MaxEventSize). The binary transport reports
	// framing.ErrFrameTooLarge for the same limit.
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

func (e *StatusError) Error() string {
	s := "transport: server answered " + e.Status
	if e.Status == "" {
		s += strconv.Itoa(e.StatusCode)
	}
	if b := strings.TrimSpace(string(e.Body)); b != "" {
		s += ": " + b
	}
	return s
}

// EventError is one event that failed alone; the stream goes on and
// Skippable reports true.
//
// On an EventReader it is an SSE event whose data is not a valid AG-UI JSON
// event: an event type from a later protocol (event.ErrUnknownType),
// malformed JSON, a missing field... The reader has consumed it and reads
// the next event. (The binary transport reports the same case as a
// frame-level *framing.Error.)
//
// On an EventWriter it is an event that could not be encoded: the codec
// refused it (a *codec.Error), or WriteJSON was given text that is not one
// valid AG-UI JSON event (an *event.PathError). Nothing was written.
type EventError struct {
	// Index is the 0-based index of the event in the stream: among the
	// events the SSE stream dispatched, or the events written so far.
	Index int64
	// Err is the parser's or codec's error, which names the field.
	Err error
}

func (e *EventError) Error() string {
	return "transport: event " + strconv.FormatInt(e.Index, 10) + ": " + e.Err.Error()
}

func (e *EventError) Unwrap() error { return e.Err }

// Skippable reports whether a reader that returned err can go on with the
// next event: true for an event that did not decode (an *EventError on SSE,
// a frame-level *framing.Error on the binary transport, including events
// from a later protocol version), false for nil, io.EOF and every error that
// ends the stream.
//
// For an EventWriter it reports true for an event that was refused before
// anything was written (an *EventError): the stream goes on. Any other
// write error is sticky and ends the stream.
func Skippable(err error) bool {
	var ee *EventError
	if errors.As(err, &ee) {
		return true
	}
	return framing.Skippable(err)
}
