// Package transport carries AG-UI event streams over HTTP, as Server-Sent
// Events (text/event-stream, one "data: <JSON event>\n\n" block per event,
// what every AG-UI client reads) or as the AG-UI 1.0 binary stream
// (application/vnd.ag-ui.event+proto, the length-prefixed protobuf frames of
// package framing), optionally compressed with zstd or gzip.
//
// A server is one function:
//
//	h, err := transport.NewHandler(func(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
//		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
//		// ...
//		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
//	}, transport.HandlerOptions{})
//	...
//	http.Handle("/agent", h)
//
// and a client a loop:
//
//	c, err := transport.NewClient(url, transport.ClientOptions{}) // once
//	...
//	r, err := c.Run(ctx, in)
//	...
//	defer r.Close()
//	for ev, err := range r.Events() { ... } // or ev, err := r.Next()
//
// A handler also answers a GET of its route with the agent's
// capabilities (HandlerOptions.Capabilities, event.AgentCapabilities),
// which Client.Capabilities reads; with ClientOptions.Prefer set to
// PreferAuto a Client asks for the binary stream when they say the server
// speaks it.
//
// NewHandler and Client are built from the lower-level pieces NewEventWriter,
// NewEventReader, Negotiate and SSEReader, which serve other shapes of
// endpoint (a GET that resumes a thread, a proxy that re-encodes). Which
// http.Server timeouts a handler needs is said at NewHandler.
//
// # Negotiation
//
// The client's Accept header picks the transport (see Negotiate) as
// @ag-ui/encoder's EventEncoder and the draft AG-UI spec do: binary
// whenever the header admits application/vnd.ag-ui.event+proto, by name or
// by a wildcard, with q > 0; otherwise SSE, and SSE when there is no
// header. HandlerOptions.WildcardSSE keeps SSE for clients that admit
// binary only by a wildcard. A client that accepts neither gets 406 Not
// Acceptable. Run asks for binary with SSE as the fallback, and reads
// whichever the server sends: the response's Content-Type decides, not
// the request.
//
// # Delivery
//
// Every event is flushed when it is written — through the compressor
// (zstd.Encoder.Flush, gzip.Writer.Flush) and the response
// (http.ResponseController.Flush) — so a client sees each event as soon as
// the agent produces it, whatever the transport and coding. The response
// header goes out when the EventWriter is created, before the first event,
// so a client waiting for the header learns at once that the run has
// started; the price is that the status is 200 by then, and a failure of
// the run is reported in the stream as a RUN_ERROR event (see NewHandler).
//
// # Compression
//
// Compression is off by default: HandlerOptions.Compression (a Compression list, as on the other options) lists the
// codings a server may use (zstd, gzip, in its order of preference) and
// the client's Accept-Encoding picks one, honouring q-values. Off, because
// with a flush per event most events are a few dozen bytes, where block
// overhead eats much of the gain (typically 3x to 6x on SSE, less on
// binary); because a compressed stream that mixes secrets with text an
// attacker can influence leaks through its length (BREACH); and because a
// proxy in front often compresses already. Encoders are pooled across
// streams and set up for small flushed writes (zstd fastest level, one
// goroutine, 256 KiB window; gzip BestSpeed).
//
// # Clients that go away, or stop reading
//
// The EventWriter's Context is the request's: net/http cancels it when the
// client closes the connection, so an agent watching ctx stops promptly.
// Writes after that fail with the connection's error once the server's
// socket notices (at most an event or two later); the first failed write
// also cancels Context. A client that stays connected but stops reading
// blocks the handler in its write once the TCP buffers are full, and only
// that handler: set HandlerOptions.WriteTimeout to turn that into an error.
//
// # Errors
//
// Errors are typed: sentinels tested with errors.Is (ErrNotAcceptable,
// ErrUnsupportedMediaType, ErrEventTooLarge, ...), *StatusError for a
// non-2xx response (its text says the status once), and *EventError for one
// event that failed alone, after which reading or writing goes on
// (framing.Skippable reports true for it and false for every error that
// ends the stream). The same failure gives the same error on both
// transports: a cut stream is framing.ErrTruncated, an undecodable event an
// *EventError (with codec.ErrUnknownEvent for one from a later protocol
// version), whether it came as SSE or as frames. A concept has one sentinel
// across the module, in the package that defines it: this package does not
// repeat framing's or codec's. An options error names the struct the caller
// wrote (HandlerOptions, WriterOptions, FollowOptions, ClientOptions).
//
// # Resumable runs
//
// With HandlerOptions.Log (a runlog.Log: runlog.NewMemory, or the JetStream
// log of the nested module runlog/natslog) a run survives its connection.
// The run function writes to the log, through an EventWriter that encodes
// each event to the codec's wire bytes and appends it; every response, the
// first as any later one, is served from the log. Each event has a cursor,
// the run id, the run's incarnation and its sequence number (runlog.Cursor,
// written as "RUN_ID/INC/SEQ" with the run id %-escaped; a cursor never
// reads another run of the same id): on SSE it is the event's "id:" line; the binary stream has no place for it, so the response's
// Agwire-Cursor header names the cursor it starts after, and a client
// counts frames. Both carriers resume the same way: a request for the same
// run (the same RunAgentInput) with the cursor of the last event received
// in Last-Event-ID gets the events after it, then follows the run live —
// the run function is not called again. Exactly once, in order. A
// response that ends because the run did carries the Agwire-End trailer, so
// a client does not resume a run that ended without RUN_FINISHED.
//
// The answers: a Last-Event-ID that is not a cursor, or is another run's, or
// is past the run's last event, 400; a run the log does not hold, 404; a
// cursor whose next event retention dropped, or of another incarnation of
// the run, 410 Gone; a second request starting a run the log holds (no
// Last-Event-ID), 409. Each names the problem as text.
//
// Who may read a run: without HandlerOptions.Authorize or Principal, anyone
// who knows its id. Authorize is asked first on every start, resume and
// follow (Access); a refused resume or follow gets exactly the 404 of a run
// the log does not hold, a refused start 403, so that a refusal tells
// nothing of which ids exist. Principal binds each run to the principal
// that started it: the log records it with the run when the start
// succeeds, and only then (runlog.Owners, which the Log must implement),
// and keeps it as long as the run; a resume or a follow by another
// principal, or without one, gets that same 404, a start without one 403,
// and a start of an id the log holds the 409 of a taken id whoever owns
// it, so that an id of one's own and someone else's answer alike. A run the log aborted (runlog.ErrRunAborted: a full store, a
// writer a shared log stopped hearing) ends each of its responses with a
// RUN_ERROR of code RunErrorCodeAborted and the Agwire-End trailer.
// MaxRuns and MaxRunBytes bound the runs in progress (503 with
// Retry-After past them); an input whose RUN_STARTED echo readers could not
// decode, or the log could not hold (runlog.EventLimiter), is refused 422
// (ErrUnservable).
//
// What a request can make a handler hold is bounded, whether or not its
// client sends or reads at the pace it should. A body is read first, its
// bytes counted against MaxRunBytes as they arrive (with those of the runs
// in progress); only once it has arrived does its request take a place
// among MaxRuns and, for a large body, a start token (its turn to be
// parsed and checked, one per two CPUs): a client sending its body slowly
// holds its connection and what it sent, not a token every large start
// waits for, nor a run's place. Responses reading runs from the log are
// bounded by MaxReaders (HandlerOptions: resumptions; FollowOptions:
// followers), 503 with Retry-After past it. A reader whose client stops
// reading holds, until WriteTimeout, a small buffer and what it is
// writing: a large event's wire bytes are the log's own, and its SSE
// rendering is shared by every response writing it at the time, made once
// and let go by the last, so N stalled readers of one event hold one
// rendering, not N.
//
// What a cut loses: without Detach a run waits HandlerOptions.ReconnectGrace
// (30 s by default) after its last client left; a client that comes back
// with its cursor within the grace loses nothing — it gets the rest of the
// run exactly once. Resuming clients and followers count as clients, on
// any process sharing a log that implements runlog.Presence. Once
// the grace passes with no client the run's context ends with cause
// ErrNoClient: the run ends with RUN_ERROR, and what it had logged, that
// RUN_ERROR too, can still be read. A negative ReconnectGrace ends the
// run's context when the client that started it goes. With Detach the run
// goes on, writing to the log; its context ends
// only when RunContext is cancelled (do it on server shutdown) or
// RunDeadline passes. A detached run function gets a clone of the request
// whose context is the run's.
//
// Events with no wire form (THINKING_*) cannot be logged: WriteEvent
// refuses them with an *EventError on both carriers. SSE data is rendered
// from the wire bytes, so it is the codec's JSON, not the text given to
// WriteJSON. Since any response, of either carrier, may serve a logged
// event, the size limit is checked on both of its forms when it is
// logged: an event refused by a plain response of either carrier is
// refused by the log, and nothing the log holds stops a response.
//
// NewFollowHandler serves the follower route: any number of clients GET a
// run by id, from the start or from Last-Event-ID, and follow it live.
//
// Heartbeats are described under "Keep-alive" below.
//
// Clients: with ClientOptions.Reconnect, a reader from Client.Run or Client.Follow whose
// stream is cut before the run's end asks again with its cursor, backing
// off (with jitter) before every attempt, and its caller's iteration goes
// on with the next event: none repeated, none missing. It gives up with
// ErrReconnectFailed after ReconnectOptions.MaxAttempts failures in a row,
// with ErrReconnectLimit after MaxReconnects reconnections of the run
// (even if each delivered events), and with ErrRunGone (wrapping
// runlog.ErrUnknownRun or runlog.ErrEvicted) when the server no longer
// holds the run or the events after the cursor. ClientOptions.IdleTimeout
// ends a response silent that long with ErrIdleTimeout, or resumes it.
//
// # Keep-alive
//
// A proxy or load balancer closes a connection that carries nothing for
// its idle timeout (60 s is common), and so would cut a run that thinks
// for a minute. A handler's streams therefore carry a keep-alive after
// each HandlerOptions.Heartbeat without an event (15 s by default), on
// every stream, plain or resumable, from NewHandler and NewFollowHandler:
//
//   - SSE: a comment line, ": keep-alive", which every SSE parser skips.
//   - Binary: AG-UI 1.0 has no frame that is not an event, and the stock
//     @ag-ui/proto reader fails on an empty one. agwire's extension: a
//     client that skips zero-length frames says so with the request header
//     HeaderKeepalive ("Agwire-Keepalive: 1"); only then the response
//     carries "Agwire-Keepalive: 1" and a zero-length frame (00 00 00 00)
//     after each heartbeat interval. A request without the header gets no
//     keep-alive frames. agwire's Client sends the header on every request,
//     and its reader skips zero-length frames from a response that carries
//     it; they reset ClientOptions.IdleTimeout, are not events and do not
//     count in a resume cursor. From a response without it a zero-length
//     frame stays an undecodable event (*EventError).
//
// A keep-alive that cannot be written ends the stream as a failed event
// would, so a run function learns from its context that the client went
// away even while it had nothing to send. NewEventWriter, driven by its
// caller, sends none.
//
// # Design: one seam for the carriers, one writer for the paths
//
// SSE and the binary stream are two carriers behind one internal
// encoder/decoder pair: everything else (negotiation, headers,
// compression, deadlines, flushing, the size limit, the cap on bad events
// in a row, the error types) is shared, so a new carrier is one file.
// Every EventWriter — a plain response, a resumable run writing to its
// log, a detached run — is one writer with one event counter, one rule of
// which events end a run, one sticky error and one size check, in front
// of either the response or the log.
//
// The run function receives an EventWriter interface rather than a
// concrete type, so that an agent can be tested with a fake that collects
// events, and wrapped (to record or filter events) without HTTP. On the
// client side EventReader is a concrete type: nothing is gained by faking
// it, since Next and the iter.Seq2 of Events are the natural seams there;
// the HTTP client is the Doer interface, so a retrying or tracing wrapper
// plugs in.
package transport
