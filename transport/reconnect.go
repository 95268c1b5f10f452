package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
)

// Reconnection defaults.
const (
	DefaultReconnectAttempts = 5
	DefaultMinBackoff        = 100 * time.Millisecond
	DefaultMaxBackoff        = 5 * time.Second
	DefaultMaxReconnects     = 50
)

// ErrReconnectLimit: a reader resumed its run ReconnectOptions.MaxReconnects
// times, and the stream was cut again. The cap holds even when every
// connection delivered events, so a server that sends one event per
// connection and resets cannot keep a client reconnecting for ever.
var ErrReconnectLimit = errors.New("transport: the run's reconnections are spent")

// ErrRunGone: a reader could not resume a run because the server no longer
// holds it (404) or no longer holds the events after the reader's cursor
// (410). The error also wraps runlog.ErrUnknownRun or runlog.ErrEvicted,
// and the *StatusError with the server's reason.
var ErrRunGone = errors.New("transport: the run is no longer held")

// ErrReconnectFailed: a reader gave up resuming a cut stream after
// ReconnectOptions.MaxAttempts failed attempts in a row, or the server
// refused the cursor (400). It wraps the last attempt's error and the cut's.
var ErrReconnectFailed = errors.New("transport: resuming the run failed")

// ReconnectOptions configures how a reader resumes a cut stream
// (ClientOptions.Reconnect).
//
// A stream of a resumable run (one whose response carries HeaderCursor)
// that is cut before the run's RUN_FINISHED or RUN_ERROR — a network error,
// framing.ErrTruncated, a clean end without the run's end — is requested again
// with the cursor of the last event read in Last-Event-ID; the reader goes
// on with the events after it, so the caller's iteration sees every event
// once, in order, as if nothing had happened. Before every attempt, the
// first after a cut too, it waits a backoff that doubles from MinBackoff
// to MaxBackoff, of which a random part up to half is taken off (jitter,
// so that clients cut together do not come back together). An attempt
// that delivers an event resets the count of failures in a row, but not
// the count of reconnections, capped by MaxReconnects.
//
// A cut before the reader knows the run's cursor — inside the response's
// header, or of a request that got no response at all — is resumed too,
// from the run's start: Run asks for the run of its input's RunID with
// Last-Event-ID "RUN/0" (a cursor without the incarnation, which reads the
// run that holds the id now), Follow with the cursor it was given. When
// the server answers such a resumption of Run 404 (it holds no such run:
// the request was cut before it started one), the run request is sent
// again as it was; a 409 to it (the first request, arriving late, started
// the run meanwhile) is resumed on the next attempt. A server that keeps
// no runs ignores Last-Event-ID and starts the run again, and the reader
// reads that run from its start. A request that never left (no connection
// could be made) is not resumed: Run and Follow return its error.
//
// A stream that brings only keep-alives is not a cut: it ends with
// ErrQuiet after ClientOptions.MaxQuiet, and is not resumed.
type ReconnectOptions struct {
	// MaxAttempts is how many attempts in a row may fail before the reader
	// gives up with ErrReconnectFailed. 0 means DefaultReconnectAttempts.
	MaxAttempts int
	// MinBackoff and MaxBackoff bound the wait before an attempt. 0 means
	// DefaultMinBackoff and DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxReconnects caps the reconnections of one reader (one run),
	// successful or not: past it the reader ends with ErrReconnectLimit.
	// 0 means DefaultMaxReconnects; negative, no cap.
	MaxReconnects int
}

type reconnector struct {
	ctx     context.Context
	client  Doer
	req     *http.Request // the first request; its body is in body
	body    []byte
	opts    ReconnectOptions
	failed  int   // attempts failed in a row
	tries   int   // attempts in all
	lastSeq int64 // cursor at the last attempt, -1 before the first
	// early: no response of the run has been read yet (its first request
	// was cut before its header), so the reader's cursor is the run's
	// start, without its incarnation. restart: the request starts a run,
	// which is sent again when the server does not hold the run.
	early, restart bool
}

func newReconnector(ctx context.Context, client Doer, req *http.Request, body []byte, o *ReconnectOptions) *reconnector {
	opts := *o
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultReconnectAttempts
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	opts.MaxBackoff = max(opts.MaxBackoff, opts.MinBackoff)
	if opts.MaxReconnects == 0 {
		opts.MaxReconnects = DefaultMaxReconnects
	}
	return &reconnector{ctx: ctx, client: client, req: req, body: body, opts: opts, lastSeq: -1}
}

func isBadEvent(err error) bool {
	var b *badEvent
	return errors.As(err, &b)
}

// reconnectable reports whether a stream-ending error is a cut that a new
// request may mend: not a limit the events themselves broke.
func reconnectable(err error) bool {
	return !errors.Is(err, ErrEventTooLarge) && !errors.Is(err, framing.ErrTooManyErrors) &&
		!errors.Is(err, ErrUnsupportedMediaType) && !errors.Is(err, ErrUnsupportedEncoding) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// reconnect replaces r's response by a new one from r.cursor, after the
// cut cut. It returns nil when r reads the new response, or the error that
// ends the stream.
func (r *EventReader) reconnect(cut error) error {
	re := r.re
	if r.resp != nil {
		r.resp.Body.Close()
	}
	if int64(r.cursor.Seq) != re.lastSeq {
		re.failed = 0 // the last attempt delivered events
	}
	re.lastSeq = int64(r.cursor.Seq)
	for {
		if re.failed >= re.opts.MaxAttempts {
			return fmt.Errorf("%w: %d attempts from cursor %s (the stream was cut: %w)", ErrReconnectFailed, re.failed, r.cursor, cut)
		}
		if re.opts.MaxReconnects >= 0 && re.tries >= re.opts.MaxReconnects {
			return fmt.Errorf("%w: %d reconnections (ReconnectOptions.MaxReconnects), cut again at cursor %s: %v", ErrReconnectLimit, re.tries, r.cursor, cut)
		}
		if err := re.wait(); err != nil {
			return err
		}
		re.failed++
		re.tries++
		resp, err := re.do(r.cursor.String())
		restarted := false
		if err == nil && re.early && re.restart && resp.StatusCode == http.StatusNotFound {
			// The server holds no such run: the first request was cut
			// before it started one. It is sent again, as it was.
			resp.Body.Close()
			resp, err = re.do("")
			restarted = true
		}
		if err != nil {
			if re.ctx.Err() != nil {
				return re.ctx.Err()
			}
			cut = err
			continue
		}
		want := r.cursor
		err = r.attach(resp)
		var se *StatusError
		switch {
		case restarted && errors.As(err, &se) && se.StatusCode == http.StatusConflict:
			// The run exists after all: the first request, arriving late,
			// started it. The next attempt resumes it.
			cut = err
			continue
		case restarted && err != nil:
			return err // the server's answer to the run's start, as Run gives it
		case restarted:
			re.early = false
			return nil
		case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
			return fmt.Errorf("%w: %w: %w", ErrRunGone, runlog.ErrUnknownRun, se)
		case errors.As(err, &se) && se.StatusCode == http.StatusGone:
			return fmt.Errorf("%w: %w: %w", ErrRunGone, runlog.ErrEvicted, se)
		case errors.As(err, &se) && se.StatusCode == http.StatusBadRequest:
			return fmt.Errorf("%w: %w", ErrReconnectFailed, se)
		case err != nil:
			cut = err
			continue
		}
		if re.early && re.restart && !r.resumable {
			// A server that keeps no runs ignores Last-Event-ID: it has
			// started the run again, and this is its stream from the start.
			re.early = false
			return nil
		}
		// The server answers at the cursor asked for; a resumption from a
		// run's start, asked without the incarnation, may be answered with
		// it.
		if got := r.cursor; !r.resumable || got.Run != want.Run || got.Seq != want.Seq || want.Inc != "" && got.Inc != want.Inc {
			r.resp.Body.Close()
			return fmt.Errorf("%w: the server resumed at %s %q, not at cursor %s", ErrReconnectFailed, HeaderCursor, r.resp.Header.Get(HeaderCursor), want)
		}
		re.early = false
		return nil
	}
}

// do sends the reader's request again, with lastEventID in Last-Event-ID
// ("": without it).
func (re *reconnector) do(lastEventID string) (*http.Response, error) {
	req := re.req.Clone(re.ctx)
	if re.body != nil {
		req.Body = io.NopCloser(bytes.NewReader(re.body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(re.body)), nil }
	}
	if lastEventID != "" {
		req.Header.Set(HeaderLastEventID, lastEventID)
	} else {
		req.Header.Del(HeaderLastEventID)
	}
	return re.client.Do(req)
}

// wait sleeps the backoff of the next attempt: MinBackoff before the first
// attempt after a cut, doubling with each failure up to MaxBackoff, each
// with up to half of it taken off at random.
func (re *reconnector) wait() error {
	d := re.opts.MinBackoff << min(re.failed, 30)
	if d > re.opts.MaxBackoff || d <= 0 {
		d = re.opts.MaxBackoff
	}
	d -= time.Duration(rand.Int64N(int64(d)/2 + 1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-re.ctx.Done():
		return re.ctx.Err()
	}
}
