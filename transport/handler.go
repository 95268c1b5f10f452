package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/agwire/agwire/event"
)

// DefaultMaxBodyBytes is the largest request body Handler reads when
// HandlerOptions.MaxBodyBytes is 0: 8 MiB.
const DefaultMaxBodyBytes = 8 << 20

// HandlerOptions configures Handler.
type HandlerOptions struct {
	// ServerOptions configures the event stream. Its Codec's MaxDepth and
	// DropUnknownFields also configure the parser of the request body.
	ServerOptions
	// MaxBodyBytes is the largest RunAgentInput body accepted; a larger one
	// is answered 413. 0 (or less) means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ErrorLog receives what cannot be told to the client: an error of the
	// run function that came after its RUN_FINISHED or RUN_ERROR event, or
	// one that could not be written because the stream was broken. Errors
	// caused by the client going away are logged at debug level. Nil means
	// slog.Default().
	ErrorLog *slog.Logger
}

// Handler returns an http.Handler that runs fn for each AG-UI run
// request.
//
// The request must be a POST (405 Method Not Allowed otherwise, with an
// Allow header) with a JSON body (Content-Type application/json or another
// +json type; 415 Unsupported Media Type otherwise) of at most MaxBodyBytes
// (413 Content Too Large). The body must be a valid RunAgentInput: a
// malformed one is answered 400 Bad Request with the parser's reason as
// text/plain, which names the field, such as
// "messages[0].metadata (byte 90): metadata must be an object or absent, not
// null". The stream's media type is negotiated before the body is read
// (406 Not Acceptable, see Negotiate).
//
// A CORS preflight (OPTIONS) gets 405 too: answer it in CORS middleware in
// front of the Handler.
//
// Then the response header is sent (status 200, see NewEventWriter) and fn
// runs with the parsed input and the EventWriter; ctx is w.Context(), done
// when the client goes away. Since the status is sent before fn runs, do
// authentication and other checks that need an HTTP status in middleware
// in front of the Handler.
//
// If fn returns an error and no RUN_FINISHED or RUN_ERROR event has been
// written yet, the error is reported to the client as a RUN_ERROR event
// whose message is the error's text: return errors fit for the client to
// read. Otherwise (the run had already ended, or the stream is broken) the
// error goes to ErrorLog. The stream is closed when fn returns.
func Handler(opts HandlerOptions, fn func(ctx context.Context, in *event.RunAgentInput, w EventWriter) error) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return &handler{
		opts:   opts,
		fn:     fn,
		parser: event.Parser{MaxDepth: opts.Codec.MaxDepth, DropUnknownFields: opts.Codec.DropUnknownFields},
	}
}

type handler struct {
	opts   HandlerOptions
	fn     func(context.Context, *event.RunAgentInput, EventWriter) error
	parser event.Parser
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "405 method not allowed: start an AG-UI run with POST", http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); !isJSON(ct) {
		http.Error(w, "415 unsupported media type: the body must be a RunAgentInput as application/json, not "+strconv.Quote(ct), http.StatusUnsupportedMediaType)
		return
	}
	mediaType, ok := Negotiate(r.Header.Values("Accept"))
	if !ok {
		notAcceptable(w)
		return
	}
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		tooLarge(w, limit)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			tooLarge(w, limit)
			return
		}
		http.Error(w, "400 bad request: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	in, err := h.parser.ParseRunAgentInput(body)
	if err != nil {
		http.Error(w, "400 bad request: the body is not a valid RunAgentInput: "+err.Error(), http.StatusBadRequest)
		return
	}

	s, err := newStream(w, r, mediaType, h.opts.ServerOptions)
	if err != nil {
		if errors.Is(err, ErrStreamingUnsupported) || r.Context().Err() == nil {
			http.Error(w, "500 internal server error: cannot stream events", http.StatusInternalServerError)
		}
		h.log(r, slog.LevelError, "agwire: cannot start the event stream", err)
		return
	}
	runErr := h.fn(s.Context(), in, s)
	if runErr != nil {
		switch {
		case s.wroteTerminal():
			h.log(r, slog.LevelError, "agwire: run failed after it ended", runErr)
		default:
			if err := s.WriteEvent(&event.RunError{Message: runErr.Error()}); err != nil {
				h.log(r, h.brokenLevel(r), "agwire: run failed; RUN_ERROR not delivered", runErr, slog.Any("writeError", err))
			}
		}
	}
	if err := s.Close(); err != nil && runErr == nil {
		h.log(r, h.brokenLevel(r), "agwire: event stream broken", err)
	}
}

// brokenLevel is the level of a broken-stream report: debug when the
// client went away, which is ordinary.
func (h *handler) brokenLevel(r *http.Request) slog.Level {
	if r.Context().Err() != nil {
		return slog.LevelDebug
	}
	return slog.LevelError
}

func (h *handler) log(r *http.Request, level slog.Level, msg string, err error, attrs ...slog.Attr) {
	l := h.opts.ErrorLog
	if l == nil {
		l = slog.Default()
	}
	attrs = append(attrs, slog.Any("error", err), slog.String("path", r.URL.Path), slog.String("remote", r.RemoteAddr))
	l.LogAttrs(context.Background(), level, msg, attrs...)
}

func tooLarge(w http.ResponseWriter, limit int64) {
	http.Error(w, "413 content too large: the body exceeds the limit of "+strconv.FormatInt(limit, 10)+" bytes", http.StatusRequestEntityTooLarge)
}

// isJSON reports whether a Content-Type is application/json or a +json type.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}
