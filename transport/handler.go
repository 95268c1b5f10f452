package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// DefaultMaxBodyBytes is the largest request body a handler reads when
// HandlerOptions.MaxBodyBytes is 0: 8 MiB.
const DefaultMaxBodyBytes = 8 << 20

// HandlerOptions configures NewHandler: the event stream, the request,
// resumable runs, CORS and the capabilities. The package's other servers
// have options of their own, holding only what they use: WriterOptions
// (NewEventWriter: the stream settings) and FollowOptions
// (NewFollowHandler: those, Heartbeat, CORS and ErrorLog). The zero value
// streams uncompressed events encoded with the strict default codec.
type HandlerOptions struct {
	// Codec encodes events on the binary transport. Its MaxDepth and
	// DropUnknownFields also configure the parser of the request body and
	// of WriteJSON's input on both transports, and its Profile the protocol
	// version written: with codec.V11 the 1.1 fields are carried on both
	// transports, and a RUN_STARTED that names no protocolVersion is sent
	// declaring "1.1" (the caller's event is not changed).
	Codec codec.Codec
	// Compression lists the content codings the server may use, in its
	// order of preference: EncodingZstd, EncodingGzip, or both. The client's
	// Accept-Encoding decides among them (highest q first, then this
	// order); a client that asks for neither gets the identity coding. Nil,
	// the default, never compresses (see Compression, and the package
	// documentation for why).
	Compression Compression
	// WriteTimeout bounds the time to write and flush one event, as a write
	// deadline on the connection renewed before each event. A client that
	// stops reading then fails the write once the deadline passes, instead
	// of holding the handler until it leaves. 0 means no deadline beyond
	// http.Server.WriteTimeout (which bounds the whole response, and so the
	// whole run). A ResponseWriter that cannot set deadlines makes
	// NewEventWriter fail when this is set.
	WriteTimeout time.Duration
	// MaxEventSize is the largest event written, in bytes: a binary
	// frame's payload, an SSE event's JSON. A larger one is refused with an
	// *EventError wrapping ErrEventTooLarge, and nothing is written. 0, the
	// default, keeps to what the stock TypeScript client (@ag-ui/client
	// 1.0.0) reads: a frame of at most framing.PeerMaxFrame bytes (10 MiB,
	// the 4-byte prefix included), an SSE event block of at most
	// PeerMaxSSEBuffer bytes before its last line feed (10 MiB). Readers
	// accept more by default (DefaultMaxEventSize, 16 MiB). Negative is an
	// error.
	MaxEventSize int
	// WildcardSSE keeps SSE for a client that admits the binary stream
	// only by a wildcard ("*/*", "application/*") and accepts SSE: binary
	// goes only to clients that name its media type. By default a wildcard
	// admits binary, as @ag-ui/encoder and the draft spec have it (see
	// Negotiate).
	WildcardSSE bool
	// MaxBodyBytes is the largest RunAgentInput body accepted; a larger one
	// is answered 413, with the limit named. 0 means DefaultMaxBodyBytes
	// (8 MiB).
	MaxBodyBytes int64
	// MaxRuns bounds the runs the handler holds at once: those streaming
	// to their client, and, with Log, those still running without one
	// (within ReconnectGrace, or detached). A request that would start one
	// more is answered 503 Service Unavailable with Retry-After: before its
	// body is read when MaxRuns are in progress then, else once its body
	// has arrived; a request whose body is still arriving holds no place.
	// Resumptions are bounded by MaxReaders instead. 0 means
	// DefaultMaxRuns (1024); negative, no bound.
	MaxRuns int
	// MaxRunBytes bounds the request bodies the handler holds at once, in
	// bytes: those of the runs in progress (a run holds its parsed
	// RunAgentInput, and the agent usually a copy in RUN_STARTED, until it
	// ends, a few times its body's size in memory) and those being read,
	// counted as they arrive, not as announced. A request that would go
	// past it is answered 503 with Retry-After. 0 means DefaultMaxRunBytes
	// (256 MiB); negative, no bound.
	MaxRunBytes int64
	// MaxReaders bounds the responses resuming runs (requests with
	// Last-Event-ID) that the handler serves at once; one more is answered
	// 503 with Retry-After once Authorize and Principal have allowed it. A
	// reader's memory is bounded whether or not its client reads: a large
	// event is written from the log's bytes, or on SSE from a rendering
	// shared by every response writing it, never copied per response. 0
	// means DefaultMaxReaders (1024); negative, no bound. Only with Log; the
	// follower route has its own (FollowOptions.MaxReaders).
	MaxReaders int
	// Authorize, when set, decides who may start, resume and follow which
	// run: it is called with the request and the run id before anything
	// else is done with the run (before the log is asked whether it holds
	// it). A nil error allows; any other denies. A denied start is answered
	// 403 Forbidden; a denied resume or follow 404 Not Found with exactly
	// the body of a run the log does not hold, so that a caller learns
	// nothing of which run ids exist. The error goes to ErrorLog at debug
	// level, wrapped with ErrDenied. Without Authorize or Principal a
	// run's id is the only credential needed to read it (see "Security
	// model" in docs/resumable-runs.md).
	Authorize func(r *http.Request, run string, access Access) error
	// Principal, when set, names who sends a request (a user id, or a
	// hash of its credential) and binds each run to the principal that
	// started it: the Log, which must keep owners (runlog.Owners),
	// records it with the run when the run starts, and only then, for as
	// long as it holds the run. A resume by any other principal is
	// answered exactly as a run the log does not hold (404, the same
	// body), as is a follow (FollowOptions.Principal). A request whose
	// Principal fails has none: its start is answered 403 as a refused
	// Authorize (a start's principal is asked first, before Authorize and
	// the input's checks), its resume 404. A start of a run id the log
	// holds gets the 409 of a taken id, whoever started it, so an id of
	// one's own and someone else's answer alike. The log stores the
	// principal as it is, so return a name or a hash, never a secret; one
	// that runlog.CheckOwner refuses (empty, over runlog.MaxOwnerLen
	// bytes, a control character) refuses the request as a failed
	// Principal. The refusals go to ErrorLog at debug level, wrapped with
	// ErrDenied. Only with a Log that implements runlog.Owners (both of
	// agwire's do); Authorize, if set, is asked as well.
	Principal func(r *http.Request) (string, error)
	// Log makes runs resumable (see "Resumable runs" in the package
	// documentation): each run's events go to the log, and every
	// response, the first and any resumed one, is served from it. Nil, the
	// default, streams each run straight to its one client.
	Log runlog.Log
	// Detach lets a resumable run outlive its client: its context ends
	// only when RunContext does or RunDeadline passes, not when the
	// client goes. Without Detach a run waits ReconnectGrace for a client
	// to come back. Only with Log.
	Detach bool
	// ReconnectGrace is how long a resumable run without Detach keeps
	// running after its last client left: a client that resumes it within
	// the grace (with its cursor in Last-Event-ID) gets the rest of the run
	// exactly once, as if nothing had happened. Clients are the response
	// that started the run, responses resuming it and followers
	// (NewFollowHandler on the same Log, in this process). When the grace
	// passes with no client connected, the run's context ends with cause
	// ErrNoClient: the run ends with RUN_ERROR, and what it logged can
	// still be read. 0 means DefaultReconnectGrace (30 s); negative, none:
	// the run's context ends when the client that started it goes, also
	// with cause ErrNoClient (whose text says there was no grace). "agwire
	// serve --reconnect-grace" reads the same: 0 the default, negative
	// none. Only with Log.
	ReconnectGrace time.Duration
	// RunContext is the parent of detached runs' contexts; cancel it when
	// the server shuts down. Nil means context.Background().
	RunContext context.Context
	// RunDeadline bounds a detached run; 0 means no bound.
	RunDeadline time.Duration
	// Heartbeat is the silence after which a stream gets a keep-alive, so
	// that proxies do not close an idle connection: every stream, plain or
	// resumable. An SSE stream gets a comment line (": keep-alive"); a
	// binary stream a zero-length frame, but only when its request asked
	// for them with HeaderKeepalive (see "Keep-alive" in the package
	// documentation). 0 means DefaultHeartbeat (15 s); negative, none.
	Heartbeat time.Duration
	// Capabilities is what the handler says the agent can do, served as
	// JSON to a GET of its route (see NewHandler). The handler fills in the
	// transport flags it decides — streaming and httpBinary true,
	// resumable true exactly when Log is set — and NewHandler refuses
	// Capabilities that set one of them otherwise. Nil serves those flags
	// alone.
	Capabilities *event.AgentCapabilities
	// CORS, when set, lets web pages of the origins it allows use the
	// handler from the browser: it answers their preflights and marks its
	// responses for them (see CORSOptions). Nil, the default, answers a
	// preflight 405 like any OPTIONS request, and adds no CORS header.
	CORS *CORSOptions
	// ErrorLog receives what cannot be told to the client: an error of the
	// run function that came after its RUN_FINISHED or RUN_ERROR event, or
	// one that could not be written because the stream was broken. Errors
	// caused by the client going away are logged at debug level. Nil means
	// slog.Default().
	ErrorLog *slog.Logger
}

// RunFunc is an agent run: it streams the events of the run that in asks
// for to w. ctx is w.Context(), done when the client goes away, when a
// write fails or when the server shuts down; req is the HTTP request, for
// its headers (authorization, tracing, a resume token) and remote address.
// Its body has been read.
type RunFunc func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w EventWriter) error

// NewHandler returns an http.Handler that runs fn for each AG-UI run
// request. It checks the options once, here: an unknown coding in
// Compression, or a negative WriteTimeout, MaxEventSize or MaxBodyBytes,
// gives an error instead of a handler that fails every request.
//
// The request must be a POST (405 Method Not Allowed otherwise, with an
// Allow header) with a JSON body (Content-Type application/json or another
// +json type; 415 Unsupported Media Type otherwise) of at most MaxBodyBytes
// (413 Content Too Large). The body must be a valid RunAgentInput: a
// malformed one is answered 400 Bad Request with the parser's reason as
// text/plain, which names the field, such as
// "messages[0].metadata (byte 90): metadata must be an object or absent, not
// null". The stream's media type is negotiated before the body is read
// (406 Not Acceptable, see Negotiate). Then Authorize, if set, is asked
// (403 Forbidden for a refused start); an input that a RUN_STARTED event
// cannot carry within the codec's memory budget is refused 422
// Unprocessable Content (ErrUnservable); a handler holding MaxRuns runs, or
// MaxRunBytes of their bodies, answers 503 Service Unavailable with
// Retry-After (ErrBusy).
//
// A GET (or HEAD) of the route is answered with the agent's capabilities,
// an AG-UI AgentCapabilities object as application/json
// (HandlerOptions.Capabilities; Client.Capabilities reads it). Any other
// method but POST gets 405 Method Not Allowed, a CORS preflight (OPTIONS)
// too unless HandlerOptions.CORS allows cross-origin requests.
//
// Then the response header is sent (status 200, see NewEventWriter) and fn
// runs. Since the status is sent before fn runs, checks that need an HTTP
// status belong in Authorize (which also sees the run id) or in middleware
// in front of the handler (authentication); fn sees the request to use
// what they established.
//
// If fn returns an error and no RUN_FINISHED or RUN_ERROR event has been
// written yet, the error is reported to the client as a RUN_ERROR event
// whose message is the error's text: return errors fit for the client to
// read. Otherwise (the run had already ended, or the stream is broken) the
// error goes to ErrorLog. The stream is closed when fn returns.
//
// # Server timeouts
//
// Serve the handler from an http.Server with ReadHeaderTimeout and
// ReadTimeout set (they bound reading the request, headers and body; a run
// that outlasts them is not cut short) and IdleTimeout (a kept-alive
// connection between requests). Leave http.Server.WriteTimeout at 0: it
// bounds the whole response, which is the whole run; set
// HandlerOptions.WriteTimeout instead, which bounds each event and so a
// client that stops reading. "agwire serve" is set up that way.
func NewHandler(fn RunFunc, opts HandlerOptions) (http.Handler, error) {
	if fn == nil {
		return nil, errors.New("transport: NewHandler: nil RunFunc")
	}
	st := opts.stream()
	if err := st.validate(); err != nil {
		return nil, err
	}
	switch {
	case opts.MaxBodyBytes < 0:
		return nil, fmt.Errorf("transport: HandlerOptions.MaxBodyBytes is negative (%d)", opts.MaxBodyBytes)
	case opts.MaxBodyBytes == 0:
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case opts.RunDeadline < 0:
		return nil, fmt.Errorf("transport: HandlerOptions.RunDeadline is negative (%v)", opts.RunDeadline)
	case opts.Log == nil && (opts.Detach || opts.RunDeadline > 0 || opts.RunContext != nil || opts.ReconnectGrace > 0):
		return nil, errors.New("transport: HandlerOptions.Detach, RunDeadline, RunContext and ReconnectGrace need a Log")
	}
	owners, err := ownersOf("HandlerOptions", opts.Log, opts.Principal)
	if err != nil {
		return nil, err
	}
	if opts.ReconnectGrace == 0 {
		opts.ReconnectGrace = DefaultReconnectGrace
	}
	if opts.MaxRuns == 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	if opts.MaxRunBytes == 0 {
		opts.MaxRunBytes = DefaultMaxRunBytes
	}
	if opts.MaxReaders == 0 {
		opts.MaxReaders = DefaultMaxReaders
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	cors, err := newCORS("HandlerOptions", opts.CORS)
	if err != nil {
		return nil, err
	}
	caps, err := capabilitiesOf(&opts)
	if err != nil {
		return nil, err
	}
	capsJSON, err := json.Marshal(caps)
	if err != nil {
		return nil, fmt.Errorf("transport: HandlerOptions.Capabilities: %w", err)
	}
	return &handler{
		cors:    cors,
		caps:    capsJSON,
		opts:    opts,
		st:      opts.stream(),
		fn:      fn,
		parser:  event.Parser{MaxDepth: opts.Codec.MaxDepth, DropUnknownFields: opts.Codec.DropUnknownFields, Protocol: opts.Codec.Profile.ProtocolVersion()},
		limits:  &runLimits{maxRuns: opts.MaxRuns, maxBytes: opts.MaxRunBytes},
		readers: &readerLimit{max: opts.MaxReaders},
		owners:  owners,
	}, nil
}

type handler struct {
	cors    *cors  // nil: no CORS
	caps    []byte // the capabilities' JSON
	opts    HandlerOptions
	st      stream // opts' stream settings
	fn      RunFunc
	parser  event.Parser
	limits  *runLimits
	readers *readerLimit  // resumptions
	owners  runlog.Owners // opts.Log, when runs are bound to principals (opts.Principal)
}

// parse parses a request body as a RunAgentInput; a large one waits for a
// CPU (see cpuTokens).
func (h *handler) parse(r *http.Request, body []byte) (*event.RunAgentInput, error) {
	defer heavy(len(body))()
	return h.parser.ParseRunAgentInput(body)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cors.serve(w, r, "GET, HEAD, POST") {
		return
	}
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet, http.MethodHead:
		serveCapabilities(w, r, h.caps)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "405 method not allowed: start an AG-UI run with POST, read the agent's capabilities with GET", http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); !isJSON(ct) {
		http.Error(w, "415 unsupported media type: the body must be a RunAgentInput as application/json, not "+strconv.Quote(ct), http.StatusUnsupportedMediaType)
		return
	}
	mediaType, ok := negotiate(r.Header.Values("Accept"), h.opts.WildcardSSE)
	if !ok {
		notAcceptable(w)
		return
	}
	// A request that would start a run is refused at once when MaxRuns runs
	// are in progress, before its body is read; its place among them is
	// taken once its body has arrived (admit), so that a body that has not
	// arrived holds none. One resuming a run starts none.
	starts := h.opts.Log == nil || len(r.Header.Values(HeaderLastEventID)) == 0
	if starts && h.limits.full() {
		busy(w, fmt.Sprintf("the server holds %d runs (HandlerOptions.MaxRuns)", h.opts.MaxRuns))
		return
	}
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		tooLarge(w, limit)
		return
	}
	// The body's bytes are counted against MaxRunBytes as they arrive, with
	// those of the runs in progress, and no token is held while they do.
	tk := h.limits.account()
	defer func() { tk.release() }() // nil once a resumable run keeps it
	body, err := readBody(w, r, limit, tk)
	if err != nil {
		switch _, ok := errors.AsType[*http.MaxBytesError](err); {
		case ok:
			tooLarge(w, limit)
		case errors.Is(err, errRunBytes):
			_, held := h.limits.usage()
			busy(w, fmt.Sprintf("the runs in progress and the bodies being read hold %d bytes, and this body would pass %d (HandlerOptions.MaxRunBytes)", held, h.opts.MaxRunBytes))
		default:
			http.Error(w, "400 bad request: reading the body: "+err.Error(), http.StatusBadRequest)
		}
		return
	}
	size := int64(len(body))
	// A large input waits for its turn (see startTokens) now that it has
	// arrived, and holds it while it is parsed and checked.
	var gate *startGate
	if starts {
		if gate, err = enterStart(r.Context(), size); err != nil {
			return // the client went away while waiting
		}
	}
	defer func() { gate.done() }()
	in, err := h.parse(r, body)
	body = nil // the input holds a copy
	if err != nil {
		if r.Context().Err() == nil {
			http.Error(w, "400 bad request: the body is not a valid RunAgentInput: "+err.Error(), http.StatusBadRequest)
		}
		return
	}
	if !starts {
		tk.release() // a resumption holds nothing of its body
	}

	if h.opts.Log != nil {
		tk = h.serveResumable(w, r, in, mediaType, tk, size, gate)
		return
	}
	if !h.admit(w, r, in, tk, size) {
		return
	}
	s, err := newStream(w, r, mediaType, &h.st, h.opts.Heartbeat)
	if err != nil {
		if errors.Is(err, ErrStreamingUnsupported) || r.Context().Err() == nil {
			http.Error(w, "500 internal server error: cannot stream events", http.StatusInternalServerError)
		}
		h.log(r, slog.LevelError, "agwire: cannot start the event stream", err)
		return
	}
	s.first = gate.running()
	runErr := h.fn(s.Context(), r, in, s)
	h.finishRun(r, s, runErr, h.brokenLevel(r))
	if err := s.Close(); err != nil && runErr == nil {
		h.log(r, h.brokenLevel(r), "agwire: event stream broken", err)
	}
	report(r, s)
}

// admit decides whether a request may start the run in asks for, and
// answers it when it may not: Authorize (403), an input RUN_STARTED cannot
// carry (422), the handler's bytes of runs in progress (503).
func (h *handler) admit(w http.ResponseWriter, r *http.Request, in *event.RunAgentInput, tk *runTicket, size int64) bool {
	if err := authorize(h.opts.Authorize, r, in.RunID, AccessStart); err != nil {
		h.log(r, slog.LevelDebug, "agwire: run refused", err)
		forbidden(w, in.RunID)
		return false
	}
	release := heavy(int(size))
	err := servableInput(h.opts.Codec, in, eventLimit(h.opts.Log))
	release()
	if err != nil {
		http.Error(w, "422 unprocessable content: "+err.Error(), http.StatusUnprocessableEntity)
		return false
	}
	switch tk.admit(size) {
	case "MaxRuns":
		busy(w, fmt.Sprintf("the server holds %d runs (HandlerOptions.MaxRuns)", h.opts.MaxRuns))
		return false
	case "MaxRunBytes":
		_, held := h.limits.usage()
		busy(w, fmt.Sprintf("the runs in progress hold %d bytes of input, and this one's %d would pass %d (HandlerOptions.MaxRunBytes)", held, size, h.opts.MaxRunBytes))
		return false
	}
	return true
}

// finishRun is what becomes of the error of a run function, on every path:
// a RUN_ERROR event carrying its text if the run has not ended yet, else a
// report to ErrorLog. A RUN_ERROR that cannot be delivered is reported at
// level broken.
func (h *handler) finishRun(r *http.Request, w *runWriter, runErr error, broken slog.Level) {
	if runErr == nil {
		return
	}
	if w.ended() {
		h.log(r, slog.LevelError, "agwire: run failed after it ended", runErr)
		return
	}
	if err := w.WriteEvent(&event.RunError{Message: runErr.Error()}); err != nil {
		h.log(r, broken, "agwire: run failed; RUN_ERROR not delivered", runErr, slog.Any("writeError", err))
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

// errRunBytes: a request body would take the handler past MaxRunBytes.
var errRunBytes = errors.New("transport: request bodies past HandlerOptions.MaxRunBytes")

// bodyFirst is the first buffer of a body larger than it, announced or
// not: a connection whose body has not arrived holds this much of
// MaxRunBytes at most (four thousand of them 16 MiB, not their announced
// sizes), and a large body that arrives at once costs a few more copies
// than one allocation of its size would (its buffer doubles: the copies
// add up to its size).
const bodyFirst = 4 << 10

// readBody reads a request's body of at most limit bytes. Its buffer grows
// as the body arrives — doubling, up to the Content-Length when there is
// one — and each growth is added to tk (against MaxRunBytes) before it is
// made: a body that has not arrived holds neither memory nor budget, so a
// client sending its body slowly costs only what it sent (at most twice
// that, plus bodyFirst), and whatever the sizes announced the handler
// holds at most MaxRunBytes of bodies. It fails with errRunBytes past that
// bound.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, tk *runTicket) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	announced := r.ContentLength
	if announced > limit {
		announced = -1
	}
	var b []byte
	for {
		if len(b) == cap(b) {
			// One spare byte beyond the announced size sees a body longer
			// than announced, and the end of one that is not.
			next := int64(max(2*cap(b), bodyFirst))
			if announced >= 0 {
				next = min(next, announced+1)
			}
			next = min(next, limit+1)
			if next <= int64(cap(b)) { // net/http reads no more than announced
				return nil, fmt.Errorf("the body is longer than the %d bytes of its Content-Length", announced)
			}
			// Near the bound, as much as it leaves, so that a body that fits
			// is read, but no less than a quarter of the buffer, so that
			// the copies stay linear in the body.
			want := next - int64(cap(b))
			granted := tk.grow(want, min(want, max(int64(cap(b))/4, 1)))
			if granted == 0 {
				return nil, errRunBytes
			}
			nb := make([]byte, len(b), int64(cap(b))+granted)
			copy(nb, b)
			b = nb
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if announced > 0 && int64(len(b)) < announced {
		return nil, fmt.Errorf("the body ended after %d of the %d bytes of its Content-Length: %w", len(b), announced, io.ErrUnexpectedEOF)
	}
	return b, nil
}

func tooLarge(w http.ResponseWriter, limit int64) {
	http.Error(w, "413 content too large: the body exceeds the limit of "+strconv.FormatInt(limit, 10)+" bytes (HandlerOptions.MaxBodyBytes)", http.StatusRequestEntityTooLarge)
}

// isJSON reports whether a Content-Type is application/json or a +json type.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}
