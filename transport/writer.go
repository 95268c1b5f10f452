package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
)

// endsRun reports whether an event of type t ends its run: RUN_FINISHED or
// RUN_ERROR. It is the one statement of that rule, for the writers, the
// handler and the reader.
func endsRun(t event.Type) bool { return t == event.TypeRunFinished || t == event.TypeRunError }

// PeerMaxSSEBuffer is how much unparsed text the SSE parser of the stock
// TypeScript client (@ag-ui/client 1.0.0) holds: it fails the stream once
// the text it has received after the last blank line exceeds 10 MiB
// (10,485,760 UTF-16 code units, checked after each chunk read). An event
// block is held whole until its blank line arrives, so a writer keeps every
// block, all but its last line feed, within this many bytes (UTF-8 bytes
// are never fewer than UTF-16 code units).
const PeerMaxSSEBuffer = 10 << 20

// sizeLimit is the one size check of every event writer, applied to the
// bytes a carrier sends for the event: the frame on the binary stream, the
// event block on SSE. A run log checks both, since either carrier may serve
// what it holds.
type sizeLimit struct {
	max    int    // the MaxEventSize option when set; 0: the stock client's limits
	option string // the option that sets it, named in the errors
}

func newSizeLimit(maxEventSize int, option string) sizeLimit {
	return sizeLimit{max: max(maxEventSize, 0), option: option}
}

// frame checks a binary frame of a payload of n bytes.
func (l sizeLimit) frame(n int) error {
	if l.max > 0 {
		if n > l.max {
			return fmt.Errorf("%w: a frame payload of %d bytes exceeds the limit of %d (%s)", ErrEventTooLarge, n, l.max, l.option)
		}
		return nil
	}
	if n > framing.DefaultMaxWriteFrameSize {
		return fmt.Errorf("%w: a frame of %d bytes (4-byte prefix and payload) exceeds %d, the most @ag-ui/client 1.0.0 reads; raise the limit with %s",
			ErrEventTooLarge, n+4, framing.PeerMaxFrame, l.option)
	}
	return nil
}

// The codec renders at most this many bytes of JSON per byte of an
// event's wire form, plus jsonSlack. The densest forms found render 6 (a
// string of control characters, each \u00XX; a JSON Patch of empty
// operations: TestJSONExpansion holds them to 16); 64 leaves a wide margin.
const (
	jsonPerWireByte = 64
	jsonSlack       = 4096
)

// sseMayExceed reports whether the SSE block of an event of n wire bytes
// might exceed the limit, so that a run log must render its JSON to know:
// below the bound it cannot, and the rendering is saved.
func (l sizeLimit) sseMayExceed(n int) bool {
	limit := PeerMaxSSEBuffer
	if l.max > 0 {
		limit = l.max
	}
	return n > (limit-jsonSlack)/jsonPerWireByte
}

// sse checks an SSE event block whose data (the JSON) is data bytes long,
// and whose lines, up to the blank line that ends it, are held bytes.
func (l sizeLimit) sse(data, held int) error {
	if l.max > 0 {
		if data > l.max {
			return fmt.Errorf("%w: %d bytes of JSON exceed the limit of %d (%s)", ErrEventTooLarge, data, l.max, l.option)
		}
		return nil
	}
	if held > PeerMaxSSEBuffer {
		return fmt.Errorf("%w: an SSE event of %d bytes before its blank line exceeds %d, the most the SSE parser of @ag-ui/client 1.0.0 holds; raise the limit with %s",
			ErrEventTooLarge, held, PeerMaxSSEBuffer, l.option)
	}
	return nil
}

// An outlet is where a runWriter's events go: the HTTP response (response)
// or a run log (logOutlet).
type outlet interface {
	// put delivers ev; text, when not nil, is the AG-UI JSON it was parsed
	// from. It returns nil, a *refusal when ev cannot be carried (nothing
	// was delivered), or the error that breaks the outlet.
	put(ev event.Event, text []byte) error
	// end finishes delivery, after the last event.
	end() error
}

// runWriter is the EventWriter of every path — a response, a run log, a
// detached run — and the response writer of a resumable stream: one counter,
// one terminal rule, one sticky error, one refusal rule. What differs is
// its outlet.
type runWriter struct {
	mu        sync.Mutex
	ctx       context.Context
	cancel    context.CancelCauseFunc
	mediaType string
	parser    event.Parser
	out       outlet
	verb      string // "writing" or "logging", for the errors
	first     func() // called once the first event is delivered; nil: none
	// declare is the protocol version a RUN_STARTED without one is given:
	// a producer writing a later version than 1.0 (the codec's profile,
	// codec.V11) says so, as that version asks; "" for 1.0.
	declare string

	n        int64 // events delivered
	terminal bool  // a RUN_FINISHED or RUN_ERROR was delivered
	err      error // sticky error of the outlet
	closed   bool

	// Heartbeats (a response only): beat fires every after the last
	// thing sent, an event or a keep-alive, at last.
	beat  *time.Timer
	every time.Duration
	last  time.Time
}

func newRunWriter(parent context.Context, mediaType string, p event.Parser, out outlet, verb string) *runWriter {
	w := &runWriter{mediaType: mediaType, parser: p, out: out, verb: verb}
	if p.Protocol != "" && p.Protocol != event.Protocol10 {
		w.declare = p.Protocol
	}
	w.ctx, w.cancel = context.WithCancelCause(parent)
	return w
}

func (w *runWriter) ContentType() string      { return w.mediaType }
func (w *runWriter) Context() context.Context { return w.ctx }

func (w *runWriter) WriteEvent(ev event.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	if ev == nil {
		return w.refuse(errors.New("nil event"))
	}
	if d, ok := w.declared(ev); ok {
		ev = d
	}
	return w.deliver(ev.Type(), func() error { return w.out.put(ev, nil) })
}

func (w *runWriter) WriteJSON(jsonEvent []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	ev, err := w.parser.Parse(jsonEvent)
	if err != nil {
		return w.refuse(err)
	}
	if d, ok := w.declared(ev); ok {
		ev, jsonEvent = d, nil // the text no longer says what is sent
	}
	return w.deliver(ev.Type(), func() error { return w.out.put(ev, jsonEvent) })
}

// declared returns a copy of a RUN_STARTED that names no protocol version
// with the writer's (declare), and true; otherwise false. The caller's
// event is not changed.
func (w *runWriter) declared(ev event.Event) (event.Event, bool) {
	rs, ok := ev.(*event.RunStarted)
	if !ok || w.declare == "" || rs.ProtocolVersion != nil {
		return nil, false
	}
	c := *rs
	c.ProtocolVersion = &w.declare
	return &c, true
}

// writeWire sends an event read from a run log, with its cursor text; only
// for a response.
func (w *runWriter) writeWire(wire []byte, id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.deliver("", func() error { return w.out.(*response).putWire(wire, id) })
}

// keepAlive makes a response's writer send the carrier's keep-alive after
// each silence of d: no event delivered, no keep-alive sent. A keep-alive
// that cannot be written breaks the stream as an event would, so a run
// learns that its client went away while it had nothing to say.
func (w *runWriter) keepAlive(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.every, w.last = d, time.Now()
	w.beat = time.AfterFunc(d, w.heartbeat)
}

// heartbeat sends the carrier's keep-alive if nothing was sent for the
// interval, and sets the timer for the end of the next one (the timer's
// function).
func (w *runWriter) heartbeat() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.usable() != nil {
		return
	}
	if quiet := time.Since(w.last); quiet < w.every {
		w.beat.Reset(w.every - quiet) // an event went out meanwhile
		return
	}
	if err := w.out.(*response).beat(); err != nil {
		w.fail(err)
		return
	}
	w.last = time.Now()
	w.beat.Reset(w.every)
}

func (w *runWriter) deliver(t event.Type, put func() error) error {
	if err := put(); err != nil {
		if r, ok := err.(*refusal); ok {
			return w.refuse(r.err)
		}
		return w.fail(err)
	}
	w.n++
	if w.n == 1 && w.first != nil {
		w.first()
	}
	if endsRun(t) {
		w.terminal = true
	}
	if w.beat != nil {
		w.last = time.Now()
	}
	return nil
}

func (w *runWriter) usable() error {
	if w.closed {
		return ErrClosed
	}
	return w.err
}

// refuse reports an event that was not delivered; the stream goes on.
func (w *runWriter) refuse(err error) error { return &EventError{Index: w.n, Err: err} }

// fail records an error of the outlet: sticky, and it cancels Context.
func (w *runWriter) fail(err error) error {
	w.err = fmt.Errorf("transport: %s event %d: %w", w.verb, w.n, err)
	w.cancel(w.err)
	return w.err
}

// ended reports whether a RUN_FINISHED or RUN_ERROR was delivered.
func (w *runWriter) ended() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.terminal
}

// delivered returns the number of events delivered.
func (w *runWriter) delivered() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

func (w *runWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.beat != nil {
		w.beat.Stop()
	}
	defer w.cancel(ErrClosed)
	if w.err != nil {
		return w.err // a broken compressor is not pooled again
	}
	if err := w.out.end(); err != nil {
		return w.fail(err)
	}
	return nil
}

// logOutlet appends each event's wire bytes to a run log. It checks the
// event against the size limit on both carriers, since a response of
// either may serve it: the frame, and the SSE block with its cursor.
type logOutlet struct {
	ctx     context.Context // the writer's; appends are not cancelled with it
	w       runlog.Writer
	c       codec.Codec
	lim     sizeLimit
	idLen   int // len("id: RUN/") of this run's SSE blocks
	seq     uint64
	buf     []byte
	jsonBuf []byte
}

func newLogOutlet(w runlog.Writer, run string, c codec.Codec, lim sizeLimit) *logOutlet {
	return &logOutlet{w: w, c: c, lim: lim, idLen: len("id: ") + len(runlog.Cursor{Run: run, Inc: runlog.IncarnationOf(w)}.String()) - 1}
}

// Appends whose acknowledgement a shared log lost (runlog.ErrUnacknowledged)
// are tried again this many times, the waits between them doubling from
// appendRetryWait.
const (
	appendRetries   = 5
	appendRetryWait = 50 * time.Millisecond
)

// keepBuf is the largest buffer an encoder keeps between events: one that
// grew for a large event (a RUN_STARTED carrying a big input) is let go
// rather than held for the rest of the run.
const keepBuf = 64 << 10

// reuse returns b emptied for the next event, or nil when it grew past
// keepBuf.
func reuse(b []byte) []byte {
	if cap(b) > keepBuf {
		return nil
	}
	return b[:0]
}

func (l *logOutlet) put(ev event.Event, _ []byte) error {
	b, err := l.encode(ev)
	if err != nil {
		return err
	}
	ctx := context.WithoutCancel(l.ctx)
	seq, err := l.w.Append(ctx, b)
	for wait, try := appendRetryWait, 0; errors.Is(err, runlog.ErrUnacknowledged) && try < appendRetries; wait, try = wait*2, try+1 {
		// The log could not confirm the append: it appends the same event
		// again exactly once (see runlog.ErrUnacknowledged).
		time.Sleep(wait)
		seq, err = l.w.Append(ctx, b)
	}
	if err != nil {
		if errors.Is(err, runlog.ErrTooLarge) {
			return refuse(err)
		}
		// The run cannot go on in the log: abort it there, so that its
		// readers end (runlog.ErrRunAborted) rather than wait for events
		// that will never come.
		_ = runlog.Abort(ctx, l.w, err)
		return err
	}
	l.seq = seq
	return nil
}

// encode encodes ev and checks it against the limits of both carriers,
// holding a CPU token (see cpuTokens): a large event's encoding and
// rendering allocate several times its size.
func (l *logOutlet) encode(ev event.Event) ([]byte, error) {
	cpuTokens <- struct{}{}
	defer func() { <-cpuTokens }()
	b, err := l.c.Append(l.buf[:0], ev)
	l.buf = reuse(b)
	if err != nil {
		return nil, refuse(err)
	}
	if err := l.lim.frame(len(b)); err != nil {
		return nil, refuse(err)
	}
	if l.lim.sseMayExceed(len(b) + l.idLen + 32) {
		j, err := l.c.AppendJSONFromWire(l.jsonBuf[:0], b)
		l.jsonBuf = reuse(j)
		if err != nil {
			return nil, refuse(err)
		}
		held := l.idLen + digits(l.seq+1) + 1 + len(sseDataPrefix) + len(j) + 1
		if err := l.lim.sse(len(j), held); err != nil {
			return nil, refuse(err)
		}
	}
	return b, nil
}

func (l *logOutlet) end() error { return nil } // the handler ends the run in the log

// digits returns the number of decimal digits of n.
func digits(n uint64) int {
	var a [20]byte
	return len(strconv.AppendUint(a[:0], n, 10))
}

// response is the outlet of an HTTP response: the carrier's encoder, the
// compressor, the write deadline and the flush after each event.
type response struct {
	rc      rc
	timeout time.Duration
	comp    compressor // nil for identity
	enc     encoder    // writes to the response, or to comp
}

// rc is what a response needs of http.ResponseController.
type rc interface {
	Flush() error
	SetWriteDeadline(time.Time) error
}

func (r *response) put(ev event.Event, text []byte) error {
	if err := r.setDeadline(); err != nil {
		return err
	}
	var err error
	if text != nil {
		err = r.enc.writeJSON(ev, text)
	} else {
		err = r.enc.writeEvent(ev)
	}
	if err != nil {
		return err
	}
	return r.flush()
}

func (r *response) putWire(wire []byte, id string) error {
	if err := r.setDeadline(); err != nil {
		return err
	}
	if err := r.enc.writeWire(wire, id); err != nil {
		return err
	}
	return r.flush()
}

func (r *response) beat() error {
	if err := r.setDeadline(); err != nil {
		return err
	}
	wrote, err := r.enc.heartbeat()
	if err != nil || !wrote {
		return err
	}
	return r.flush()
}

// flush pushes what was written through the compressor and the response.
func (r *response) flush() error {
	if r.comp != nil {
		if err := r.comp.Flush(); err != nil {
			return err
		}
	}
	return r.rc.Flush()
}

func (r *response) setDeadline() error {
	if r.timeout <= 0 {
		return nil
	}
	return r.rc.SetWriteDeadline(time.Now().Add(r.timeout))
}

func (r *response) end() error {
	if r.comp != nil {
		err := r.setDeadline()
		if err == nil {
			err = r.comp.Close()
		}
		if err == nil {
			err = r.rc.Flush()
		}
		if err != nil {
			r.comp = nil
			return err
		}
		putCompressor(r.comp)
		r.comp = nil
		r.enc.reset(io.Discard)
	}
	if r.timeout > 0 {
		// Net/http does not reset a deadline it did not set: clear ours so
		// that a kept-alive connection's next response does not inherit it.
		_ = r.rc.SetWriteDeadline(time.Time{})
	}
	return nil
}

// ResponseStats is what a handler of this package tells about one
// response, for a request log: see WithResponseStats.
type ResponseStats struct {
	// Events is the number of events the response delivered: written and
	// flushed to the client, whether the run function wrote them to it or
	// they were served from a run log (a resumed or followed run).
	Events int64
}

type statsKey struct{}

// WithResponseStats returns a context carrying s: a request with it,
// served by a handler of NewHandler or NewFollowHandler, has s filled in
// when ServeHTTP returns. Middleware that logs requests uses it:
//
//	var st transport.ResponseStats
//	h.ServeHTTP(w, r.WithContext(transport.WithResponseStats(r.Context(), &st)))
//	log.Printf("%s %s: %d events", r.Method, r.URL.Path, st.Events)
func WithResponseStats(ctx context.Context, s *ResponseStats) context.Context {
	return context.WithValue(ctx, statsKey{}, s)
}

// report fills in the request's ResponseStats, if it has one, from the
// response writer w.
func report(r *http.Request, w *runWriter) {
	if s, ok := r.Context().Value(statsKey{}).(*ResponseStats); ok {
		s.Events = w.delivered()
	}
}
