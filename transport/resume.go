package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// Resumable runs: the headers and defaults.
const (
	// HeaderLastEventID carries a client's cursor when it resumes a run,
	// on both carriers (the SSE reconnection header).
	HeaderLastEventID = "Last-Event-ID"
	// HeaderCursor, on a resumable response, is the cursor the stream
	// starts after: the cursor of event k is the run's id and this
	// cursor's sequence plus k. On SSE each event also carries its cursor
	// as its id.
	HeaderCursor = "Agwire-Cursor"
	// HeaderEnd is the trailer a resumable response carries when it ended
	// because the run did: a client does not resume it, even if the run
	// had no RUN_FINISHED or RUN_ERROR.
	HeaderEnd = "Agwire-End"
	// DefaultHeartbeat is HandlerOptions.Heartbeat's default.
	DefaultHeartbeat = 15 * time.Second
)

// logStatus maps an error of the log's Read to a status and the text the
// response names it with.
func logStatus(err error) int {
	switch {
	case errors.Is(err, runlog.ErrBadCursor):
		return http.StatusBadRequest
	case errors.Is(err, runlog.ErrUnknownRun):
		return http.StatusNotFound
	case errors.Is(err, runlog.ErrEvicted):
		return http.StatusGone
	}
	return http.StatusServiceUnavailable
}

// parseLastEventID reads the Last-Event-ID header of a request for run
// (run "" for the follower route, which takes the cursor's).
func parseLastEventID(r *http.Request, run string) (runlog.Cursor, bool, error) {
	vs := r.Header.Values(HeaderLastEventID)
	if len(vs) == 0 {
		return runlog.Cursor{}, false, nil
	}
	if len(vs) > 1 {
		return runlog.Cursor{}, true, fmt.Errorf("%d %s headers; send one", len(vs), HeaderLastEventID)
	}
	c, err := runlog.ParseCursor(strings.TrimSpace(vs[0]))
	if err != nil {
		return runlog.Cursor{}, true, fmt.Errorf("%s: %w", HeaderLastEventID, err)
	}
	if run != "" && c.Run != run {
		return runlog.Cursor{}, true, fmt.Errorf("%s is a cursor of run %q, not of this request's run %q", HeaderLastEventID, c.Run, run)
	}
	return c, true, nil
}

// serveResumable serves a run request with a Log: a request with
// Last-Event-ID resumes the run from the log; any other starts the run,
// writing to the log, and follows it. tk is the run's place among the
// handler's runs when the request starts one (size its body's bytes, gate
// its start token, given back once the run's first event is logged); it
// returns tk if the caller still owns it, nil if the run keeps it until it
// ends.
func (h *handler) serveResumable(w http.ResponseWriter, r *http.Request, in *event.RunAgentInput, mediaType string, tk *runTicket, size int64, gate *startGate) *runTicket {
	// The id is kept by the log and the run's bookkeeping: a copy, not a
	// piece of the request's body, which would stay in memory with it.
	run := strings.Clone(in.RunID)
	if err := runlog.CheckRunID(run); err != nil {
		http.Error(w, "400 bad request: runId: "+err.Error(), http.StatusBadRequest)
		return tk
	}
	from, resume, err := parseLastEventID(r, run)
	if err != nil {
		http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
		return tk
	}
	log := h.opts.Log
	if resume {
		if err := authorize(h.opts.Authorize, r, run, AccessResume); err != nil {
			h.log(r, slog.LevelDebug, "agwire: resume refused", err)
			unknownRun(w, run)
			return tk
		}
		if err := checkOwner(h.owners, h.opts.Principal, r, run, AccessResume); err != nil {
			ownerRefused(w, run, err, func(err error) { h.log(r, slog.LevelDebug, "agwire: resume refused", err) })
			return tk
		}
		if !h.readers.take() {
			busy(w, fmt.Sprintf("the server serves %d resumptions (HandlerOptions.MaxReaders)", h.opts.MaxReaders))
			return tk
		}
		defer h.readers.release()
		rd, err := log.Read(r.Context(), from)
		if err != nil {
			readFailed(w, run, err)
			return tk
		}
		in = nil // the request's input is not needed to read the log
		defer attachPresence(keyOf(log, h, run), log, run, h.opts.ReconnectGrace)()
		serveLog(w, r, mediaType, &h.st, h.opts.Heartbeat, rd, from, h.logger())
		return tk
	}
	// A request without a principal is refused before anything else.
	var owner string
	if h.owners != nil {
		if owner, err = principalOf(h.opts.Principal, r, run, AccessStart); err != nil {
			h.log(r, slog.LevelDebug, "agwire: run refused", err)
			forbidden(w, run)
			return tk
		}
	}
	if !h.admit(w, r, in, tk, size) {
		return tk
	}
	// The owner is recorded by the log's Start, and only if it succeeds:
	// a refused start (a taken id, or any failure) claims nothing.
	var lw runlog.Writer
	if h.owners != nil {
		lw, err = h.owners.StartOwned(r.Context(), run, owner)
	} else {
		lw, err = log.Start(r.Context(), run)
	}
	if err != nil {
		code := http.StatusServiceUnavailable
		switch {
		case errors.Is(err, runlog.ErrRunExists):
			code = http.StatusConflict
		case errors.Is(err, runlog.ErrStoreFull):
			w.Header().Set("Retry-After", busyRetryAfter)
		}
		http.Error(w, fmt.Sprintf("%d %s: %v (resume a run with %s)", code, strings.ToLower(http.StatusText(code)), err, HeaderLastEventID), code)
		return tk
	}
	from = runlog.Cursor{Run: run, Inc: runlog.IncarnationOf(lw)}
	rd, err := log.Read(r.Context(), from)
	if err != nil {
		lw.End(context.WithoutCancel(r.Context()))
		http.Error(w, "503 service unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return tk
	}
	var ctx context.Context
	var cancel context.CancelFunc
	req := r
	grace := h.opts.ReconnectGrace
	var p *presence
	key := keyOf(log, h, run)
	switch {
	case h.opts.Detach:
		parent := h.opts.RunContext
		if parent == nil {
			parent = context.Background()
		}
		if h.opts.RunDeadline > 0 {
			ctx, cancel = context.WithTimeout(parent, h.opts.RunDeadline)
		} else {
			ctx, cancel = context.WithCancel(parent)
		}
		req = r.Clone(ctx)
	case grace > 0:
		// The run outlives its client by the grace: it has a context of its
		// own, ended when no client has been connected for the grace (or
		// when the server's RunContext ends).
		parent := h.opts.RunContext
		if parent == nil {
			parent = context.WithoutCancel(r.Context())
		}
		var cancelCause context.CancelCauseFunc
		ctx, cancelCause = context.WithCancelCause(parent)
		cancel = func() { cancelCause(context.Canceled) }
		p = startPresence(key, grace, cancelCause, log, run)
		req = r.Clone(ctx)
	default:
		// No grace: the run ends when the client that started it goes,
		// with a cause that says so (ErrNoClient, and context.Canceled
		// for code that tests for a cancellation), not a bare "context
		// canceled". Another end of the request (the server shutting
		// down) passes its own cause on.
		var cancelCause context.CancelCauseFunc
		ctx, cancelCause = context.WithCancelCause(context.WithoutCancel(r.Context()))
		stop := context.AfterFunc(r.Context(), func() { cancelCause(clientGone(r.Context())) })
		cancel = func() {
			stop()
			cancelCause(errNoGrace)
		}
	}
	out := newLogOutlet(lw, run, h.opts.Codec, newSizeLimit(h.opts.MaxEventSize, "HandlerOptions.MaxEventSize"))
	ew := newRunWriter(ctx, mediaType, h.parser, out, "logging")
	ew.first = gate.running()
	out.ctx = ew.ctx
	done := make(chan struct{})
	go func(in *event.RunAgentInput) {
		defer close(done)
		defer tk.release()
		defer gate.done()
		defer cancel()
		if p != nil {
			defer endPresence(key, p)
		}
		h.runLogged(req, in, ew, lw)
	}(in)
	in = nil // the run holds its input; this response does not
	serveLog(w, r, mediaType, &h.st, h.opts.Heartbeat, rd, from, h.logger())
	if p != nil {
		p.detach()
		return nil
	}
	if !h.opts.Detach {
		cancel()
		<-done
	}
	return nil
}

// ownerRefused answers a resume or a follow that checkOwner refused: a
// refusal as a run the log does not hold, after logging it; a log that
// could not say 503.
func ownerRefused(w http.ResponseWriter, run string, err error, logRefusal func(error)) {
	if errors.Is(err, ErrDenied) {
		logRefusal(err)
		unknownRun(w, run)
		return
	}
	http.Error(w, "503 service unavailable: "+err.Error(), http.StatusServiceUnavailable)
}

// eventLimit is the largest event log accepts, when it says
// (runlog.EventLimiter), else 0: a run whose RUN_STARTED is larger is
// refused before it starts (servableInput).
func eventLimit(log runlog.Log) int {
	if l, ok := log.(runlog.EventLimiter); ok {
		return l.MaxEventBytes()
	}
	return 0
}

// readFailed answers a request whose log Read failed: 404 (with the body
// of unknownRun), 400, 410 or 503, naming the problem.
func readFailed(w http.ResponseWriter, run string, err error) {
	code := logStatus(err)
	if code == http.StatusNotFound {
		unknownRun(w, run)
		return
	}
	http.Error(w, fmt.Sprintf("%d %s: %v", code, strings.ToLower(http.StatusText(code)), err), code)
}

// runLogged runs fn writing to the log, and ends the run in the log.
func (h *handler) runLogged(r *http.Request, in *event.RunAgentInput, ew *runWriter, lw runlog.Writer) {
	runErr := h.fn(ew.Context(), r, in, ew)
	h.finishRun(r, ew, runErr, slog.LevelError)
	ew.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch err := lw.End(ctx); {
	case err == nil:
	case errors.Is(err, runlog.ErrRunAborted):
		h.log(r, slog.LevelWarn, "agwire: the run was aborted in the log; its readers end with RUN_ERROR", err)
	default:
		h.log(r, slog.LevelError, "agwire: the run's end was not logged; its readers wait until their contexts end", err)
	}
}

func (h *handler) logger() *slog.Logger {
	if h.opts.ErrorLog != nil {
		return h.opts.ErrorLog
	}
	return slog.Default()
}

// serveLog streams a run from a log reader to the client, each event with
// its cursor, and a heartbeat after each silence of hb (see newStream).
func serveLog(w http.ResponseWriter, r *http.Request, mediaType string, opts *stream, hb time.Duration, rd runlog.Reader, from runlog.Cursor, log *slog.Logger) {
	defer rd.Close()
	w.Header().Set(HeaderCursor, from.String())
	w.Header().Set("Trailer", HeaderEnd)
	s, err := newStream(w, r, mediaType, opts, hb)
	if err != nil {
		if errors.Is(err, ErrStreamingUnsupported) || r.Context().Err() == nil {
			http.Error(w, "500 internal server error: cannot stream events", http.StatusInternalServerError)
		}
		log.Error("agwire: cannot start the event stream", "error", err, "path", r.URL.Path)
		return
	}
	defer report(r, s)
	defer s.Close()
	ctx := s.Context()
	for {
		e, err := rd.Next(ctx)
		switch {
		case err == nil:
			if err := s.writeWire(e.Wire, e.Cursor(from.Run).String()); err != nil {
				var ee *EventError
				if errors.As(err, &ee) { // cannot be rendered on this carrier: the stream cannot skip it
					log.Error("agwire: a logged event cannot be sent", "error", err, "run", from.Run, "seq", e.Seq)
				}
				return
			}
		case err == io.EOF:
			if s.Close() == nil {
				w.Header().Set(HeaderEnd, "run ended")
			}
			return
		case errors.Is(err, runlog.ErrRunAborted) && ctx.Err() == nil:
			// The run will not go on (its writer aborted it: the log refused
			// its events, or a shared log stopped hearing from it): the
			// client gets a RUN_ERROR saying so, and the end trailer, so that
			// it neither waits nor resumes for ever.
			log.Warn("agwire: the run was aborted; its readers end with RUN_ERROR", "error", err, "run", from.Run)
			if s.WriteEvent(&event.RunError{Message: abortedMessage(err), Code: event.Ptr(RunErrorCodeAborted)}) == nil && s.Close() == nil {
				w.Header().Set(HeaderEnd, "run aborted")
			}
			return
		default:
			// The client went away, or the log failed the reader (ErrEvicted
			// when it fell behind retention): end the response; a client
			// resuming from its cursor learns which.
			if ctx.Err() == nil {
				log.Warn("agwire: reading the run log", "error", err, "run", from.Run)
			}
			return
		}
	}
}

// RunErrorCodeAborted is the code of the RUN_ERROR event a resumable
// response ends with when the run was aborted (runlog.ErrRunAborted): its
// log refused its events (runlog.ErrStoreFull), or a shared log stopped
// hearing from the process running it. The server writes this event; it is
// not in the log, and carries no cursor.
const RunErrorCodeAborted = "AGWIRE_RUN_ABORTED"

// abortedMessage is the RUN_ERROR message of an aborted run.
func abortedMessage(err error) string {
	return "the run was aborted and will not go on: " + err.Error()
}

// FollowOptions configures NewFollowHandler: the stream settings, each as
// the HandlerOptions field of the same name describes it, the keep-alive,
// CORS, the error log, Authorize and the bound on followers. The zero value streams uncompressed events
// encoded with the strict default codec, with a keep-alive every
// DefaultHeartbeat.
type FollowOptions struct {
	// Codec encodes events on the binary transport.
	Codec codec.Codec
	// Compression lists the content codings the stream may use, in order
	// of preference (see Compression). Nil never compresses.
	Compression Compression
	// WriteTimeout bounds the time to write and flush one event; 0 means no
	// deadline (see HandlerOptions.WriteTimeout).
	WriteTimeout time.Duration
	// MaxEventSize is the largest event written, in bytes; 0 keeps to the
	// stock TypeScript client's limits (see HandlerOptions.MaxEventSize).
	MaxEventSize int
	// WildcardSSE keeps SSE for a client that admits the binary stream
	// only by a wildcard (see HandlerOptions.WildcardSSE).
	WildcardSSE bool
	// Heartbeat is the silence after which a stream gets a keep-alive (an
	// SSE comment; a zero-length frame on a binary stream whose request
	// asked for them with HeaderKeepalive); 0 means DefaultHeartbeat,
	// negative none (see HandlerOptions.Heartbeat).
	Heartbeat time.Duration
	// CORS, when set, lets web pages of the origins it allows follow runs
	// from the browser (see HandlerOptions.CORS and CORSOptions).
	CORS *CORSOptions
	// ErrorLog receives what cannot be told to the client (a log that
	// failed a reader, an event that cannot be sent). Nil means
	// slog.Default().
	ErrorLog *slog.Logger
	// Authorize, when set, decides who may follow which run, as
	// HandlerOptions.Authorize does (called with AccessFollow): a refused
	// follower gets exactly the 404 of a run the log does not hold. Give
	// it the handler's own function.
	Authorize func(r *http.Request, run string, access Access) error
	// Principal, when set, names who sends a request, as
	// HandlerOptions.Principal does: a follower whose principal is not the
	// run's owner (the one recorded when the run started), or who has
	// none, gets exactly the 404 of a run the log does not hold. Give it
	// the handler's own function. Only with a log that implements
	// runlog.Owners.
	Principal func(r *http.Request) (string, error)
	// ReconnectGrace is the reconnect grace of the handlers whose runs
	// this route follows (HandlerOptions.ReconnectGrace): with a Log
	// shared by several processes (one that implements runlog.Presence), a
	// follower records its presence in the log every ReconnectGrace/3,
	// so that the process running the run, wherever it is, counts it as a
	// client. 0 means DefaultReconnectGrace; negative records nothing.
	ReconnectGrace time.Duration
	// MaxReaders bounds the followers the route serves at once; one more
	// is answered 503 Service Unavailable with Retry-After once Authorize
	// and Principal have allowed it. A follower's memory is bounded
	// whether or not its client reads (see HandlerOptions.MaxReaders). 0
	// means DefaultMaxReaders (1024); negative, no bound.
	MaxReaders int
}

// NewFollowHandler returns the follower route of a run log: a GET streams
// one run, as SSE or binary by Accept like a run request, from the start
// or from the cursor in Last-Event-ID, then follows it live until it ends.
// Any number of clients may follow a run, up to MaxReaders on the route at
// once (503 with Retry-After past it); late joiners replay it.
//
// The run id is the path value "run" of the route's pattern, or, when the
// route has none, the query parameter "run":
//
//	mux.Handle("GET /agent/runs/{run}", follow)
//
// A Last-Event-ID of another run or that is not a cursor is answered 400,
// a run the log does not hold 404, a cursor whose next event retention
// dropped 410 Gone, each with the reason as text. The response is as a
// resumable run request's: Agwire-Cursor, and on SSE each event's cursor as
// its id.
func NewFollowHandler(log runlog.Log, opts FollowOptions) (http.Handler, error) {
	if log == nil {
		return nil, errors.New("transport: NewFollowHandler: nil Log")
	}
	st := opts.stream()
	if err := st.validate(); err != nil {
		return nil, err
	}
	cors, err := newCORS("FollowOptions", opts.CORS)
	if err != nil {
		return nil, err
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.ErrorLog == nil {
		opts.ErrorLog = slog.Default()
	}
	owners, err := ownersOf("FollowOptions", log, opts.Principal)
	if err != nil {
		return nil, err
	}
	grace := opts.ReconnectGrace
	if grace == 0 {
		grace = DefaultReconnectGrace
	}
	if opts.MaxReaders == 0 {
		opts.MaxReaders = DefaultMaxReaders
	}
	return &followHandler{log: log, opts: opts, st: st, cors: cors, grace: grace, owners: owners, readers: &readerLimit{max: opts.MaxReaders}}, nil
}

type followHandler struct {
	log     runlog.Log
	owners  runlog.Owners // log, when runs are bound to principals (opts.Principal)
	opts    FollowOptions
	st      stream        // opts' stream settings
	cors    *cors         // nil: no CORS
	grace   time.Duration // of the runs followed: a follower touches their presence every grace/3
	readers *readerLimit
}

func (f *followHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.cors.serve(w, r, http.MethodGet) {
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "405 method not allowed: follow a run with GET", http.StatusMethodNotAllowed)
		return
	}
	mediaType, ok := negotiate(r.Header.Values("Accept"), f.opts.WildcardSSE)
	if !ok {
		notAcceptable(w)
		return
	}
	run := r.PathValue("run")
	if run == "" {
		run = r.URL.Query().Get("run")
	}
	if err := runlog.CheckRunID(run); err != nil {
		http.Error(w, "400 bad request: run id: "+err.Error(), http.StatusBadRequest)
		return
	}
	from, _, err := parseLastEventID(r, run)
	if err != nil {
		http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	from.Run = run
	if err := authorize(f.opts.Authorize, r, run, AccessFollow); err != nil {
		f.opts.ErrorLog.Debug("agwire: follow refused", "error", err, "path", r.URL.Path, "remote", r.RemoteAddr)
		unknownRun(w, run)
		return
	}
	if err := checkOwner(f.owners, f.opts.Principal, r, run, AccessFollow); err != nil {
		ownerRefused(w, run, err, func(err error) {
			f.opts.ErrorLog.Debug("agwire: follow refused", "error", err, "path", r.URL.Path, "remote", r.RemoteAddr)
		})
		return
	}
	if !f.readers.take() {
		busy(w, fmt.Sprintf("the server serves %d followers (FollowOptions.MaxReaders)", f.opts.MaxReaders))
		return
	}
	defer f.readers.release()
	rd, err := f.log.Read(r.Context(), from)
	if err != nil {
		readFailed(w, run, err)
		return
	}
	defer attachPresence(keyOf(f.log, f, run), f.log, run, f.grace)()
	serveLog(w, r, mediaType, &f.st, f.opts.Heartbeat, rd, from, f.opts.ErrorLog)
}
