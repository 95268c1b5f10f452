package transport

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxQuiet is ClientOptions.MaxQuiet's (and ReaderOptions.MaxQuiet's)
// default: how long a reader waits for an event when only keep-alives, or
// nothing, arrive.
const DefaultMaxQuiet = 10 * time.Minute

// ErrQuiet: a reader waited ClientOptions.MaxQuiet (ReaderOptions.MaxQuiet)
// for an event and none came: the response brought only keep-alives, or
// nothing. The stream ends, and is not resumed even with Reconnect: the
// server is answering, so a new request would wait the same way. The
// reader's Cursor still names the last event read, for a later Follow.
var ErrQuiet = errors.New("transport: no event for too long")

// quietClock ends a stream on which a reader waits MaxQuiet for an event:
// keep-alives keep the bytes coming, so IdleTimeout never ends such a
// stream, and a server that sends nothing else would hold the reader for
// ever.
//
// Only the time the reader spends waiting in Next counts: a caller busy
// with the last event for longer than MaxQuiet has not been kept waiting,
// and the events sent meanwhile are in the buffers. Next marks each entry
// and exit (marks is odd while it waits); rather than reset a timer for
// every event, a timer ticks every tenth of MaxQuiet and starts the quiet
// over whenever the marks moved or the reader is not waiting. So a stream
// ends after between MaxQuiet and MaxQuiet plus a tick of waiting, never
// before: the error's "no event for MaxQuiet" holds.
type quietClock struct {
	d, tick time.Duration
	marks   atomic.Uint64 // Next's entries and exits
	fired   atomic.Bool

	mu      sync.Mutex
	t       *time.Timer
	seen    uint64    // marks at the last tick
	since   time.Time // the waiting started, or the last tick that saw it start
	stopped bool
	body    io.Closer // the response being read
}

// newQuietClock returns the clock for MaxQuiet d (0: the default), or nil
// for none (negative).
func newQuietClock(d time.Duration) *quietClock {
	switch {
	case d < 0:
		return nil
	case d == 0:
		d = DefaultMaxQuiet
	}
	c := &quietClock{d: d, tick: max(d/10, time.Millisecond), since: time.Now()}
	c.t = time.AfterFunc(c.tick, c.check)
	return c
}

func (c *quietClock) check() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	now := time.Now()
	if m := c.marks.Load(); m != c.seen || m%2 == 0 {
		c.seen, c.since = m, now
	} else if now.Sub(c.since) >= c.d {
		// The read waiting on the body returns; Next reports ErrQuiet.
		c.fired.Store(true)
		c.stopped = true
		if c.body != nil {
			c.body.Close()
		}
		return
	}
	c.t.Reset(min(c.tick, c.d-now.Sub(c.since)))
}

// watch makes body the response the clock closes when it fires: at once,
// if it has fired.
func (c *quietClock) watch(body io.Closer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.body = body
	if c.fired.Load() {
		body.Close()
	}
}

// stop stops the clock for good: the stream has ended or was closed.
func (c *quietClock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.t.Stop()
}

// err is the stream's error once the clock fired; keepalives is how many
// arrived since the last event.
func (c *quietClock) err(keepalives int64) error {
	what := "nothing arrived, not even a keep-alive"
	if keepalives > 0 {
		what = fmt.Sprintf("only keep-alives: %d since the last event", keepalives)
	}
	return &textError{fmt.Sprintf("transport: no event for %v (%s); the stream is given up, not resumed (ClientOptions.MaxQuiet)", c.d, what), []error{ErrQuiet}}
}
