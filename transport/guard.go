package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// Access is what a request asks of a run, for HandlerOptions.Authorize.
type Access int

const (
	// AccessStart: a run request without Last-Event-ID, which starts the
	// run its RunAgentInput names.
	AccessStart Access = iota + 1
	// AccessResume: a run request with Last-Event-ID, which reads the rest
	// of a run from the log.
	AccessResume
	// AccessFollow: a GET of the follower route (NewFollowHandler).
	AccessFollow
)

func (a Access) String() string {
	switch a {
	case AccessStart:
		return "start"
	case AccessResume:
		return "resume"
	case AccessFollow:
		return "follow"
	}
	return "Access(" + strconv.Itoa(int(a)) + ")"
}

// Errors of the handlers' own refusals.
var (
	// ErrDenied: HandlerOptions.Authorize (or FollowOptions.Authorize)
	// refused a request, or, with HandlerOptions.Principal, the request
	// has no principal or is not the run's owner. A start is answered 403
	// Forbidden; a resume or a follow 404 Not Found with the body a run
	// the log does not hold gets, so that a refusal does not tell that the
	// run exists. The reason, wrapped with this error, goes to ErrorLog at
	// debug level.
	ErrDenied = errors.New("transport: denied by Authorize")
	// ErrUnservable: a RunAgentInput that a RUN_STARTED event cannot carry
	// (its input field is the request itself) without every agwire reader
	// refusing the event for its decoding memory budget (codec.ErrBudget),
	// or, for a resumable run, without the log refusing the event for its
	// size (runlog.ErrTooLarge, past the log's runlog.EventLimiter): the
	// handler answers 422 Unprocessable Content before the run starts,
	// naming the reason and the limit, rather than a stream whose first
	// event cannot be written.
	ErrUnservable = errors.New("transport: the run's input cannot be served in its RUN_STARTED event")
	// ErrBusy: the handler holds MaxRuns runs, or request bodies that add
	// up to MaxRunBytes; a start is answered 503 Service Unavailable with
	// Retry-After. So is a resumption or a follower past MaxReaders.
	ErrBusy = errors.New("transport: too many runs in progress")
)

// Defaults of the limits on runs in progress.
const (
	// DefaultMaxRuns is HandlerOptions.MaxRuns's default: the runs a
	// handler holds at once, those streaming to a client and those left
	// running without one (within ReconnectGrace, or Detach).
	DefaultMaxRuns = 1024
	// DefaultMaxRunBytes is HandlerOptions.MaxRunBytes's default: the
	// request bodies of the runs a handler holds at once, 256 MiB in all.
	DefaultMaxRunBytes = 256 << 20
	// DefaultMaxReaders is the default of HandlerOptions.MaxReaders and
	// FollowOptions.MaxReaders: the responses reading runs from the log
	// that a handler serves at once, besides those of the runs it started.
	DefaultMaxReaders = 1024
	// busyRetryAfter is the Retry-After of a 503 for a full handler, in
	// seconds.
	busyRetryAfter = "5"
)

// unknownRun answers a request for a run the log does not hold, or one
// Authorize refused to resume or follow: the same status and body, so that
// a caller cannot tell the two apart.
func unknownRun(w http.ResponseWriter, run string) {
	http.Error(w, fmt.Sprintf("404 not found: unknown run %q", run), http.StatusNotFound)
}

// forbidden answers a start that Authorize or Principal refused: the
// same status and body whether or not the run exists.
func forbidden(w http.ResponseWriter, run string) {
	http.Error(w, fmt.Sprintf("403 forbidden: not allowed to start run %q", run), http.StatusForbidden)
}

// ownersOf checks a Principal option (of the options struct named) against
// the log: nil without a Principal, else the log, which must keep owners.
func ownersOf(options string, log runlog.Log, principal func(*http.Request) (string, error)) (runlog.Owners, error) {
	if principal == nil {
		return nil, nil
	}
	if log == nil {
		return nil, fmt.Errorf("transport: %s.Principal needs a Log that keeps owners (runlog.Owners): the owner of a run is recorded with it", options)
	}
	o, ok := log.(runlog.Owners)
	if !ok {
		return nil, fmt.Errorf("transport: %s.Principal needs a Log that keeps owners (runlog.Owners); %T does not", options, log)
	}
	return o, nil
}

// principalOf is the request's principal, or an error wrapping ErrDenied
// (and Principal's, or runlog.ErrBadOwner for a principal the log does not
// record).
func principalOf(fn func(*http.Request) (string, error), r *http.Request, run string, a Access) (string, error) {
	who, err := fn(r)
	if err == nil {
		err = runlog.CheckOwner(who)
	}
	if err != nil {
		return "", &textError{text: fmt.Sprintf("%v: %s of run %q: no principal: %v", ErrDenied, a, run, err), errs: []error{ErrDenied, err}}
	}
	return who, nil
}

// checkOwner, with owners set, decides whether the request may resume or
// follow run: nil when its principal is the run's owner; an error wrapping
// ErrDenied, answered as a run the log does not hold, when it has no
// principal or another one, when the run has no recorded owner (a run is
// never assumed to be anyone's), or when the log does not hold the run;
// any other error is the log's failure to say.
func checkOwner(owners runlog.Owners, fn func(*http.Request) (string, error), r *http.Request, run string, a Access) error {
	if owners == nil {
		return nil
	}
	who, err := principalOf(fn, r, run, a)
	if err != nil {
		return err
	}
	owner, err := owners.Owner(r.Context(), run)
	var why string
	switch {
	case errors.Is(err, runlog.ErrUnknownRun), errors.Is(err, runlog.ErrEvicted):
		why = err.Error()
	case err != nil:
		return err
	case owner == "":
		why = "the run has no recorded owner"
	case owner != who:
		why = "the run was started by another principal"
	default:
		return nil
	}
	errs := []error{ErrDenied}
	if err != nil {
		errs = append(errs, err)
	}
	return &textError{text: fmt.Sprintf("%v: %s of run %q: %s", ErrDenied, a, run, why), errs: errs}
}

// authorize asks opts.Authorize, if set, about a request; it returns nil,
// or an error wrapping ErrDenied and Authorize's.
func authorize(fn func(*http.Request, string, Access) error, r *http.Request, run string, a Access) error {
	if fn == nil {
		return nil
	}
	if err := fn(r, run, a); err != nil {
		return &textError{text: fmt.Sprintf("%v: %s of run %q: %v", ErrDenied, a, run, err), errs: []error{ErrDenied, err}}
	}
	return nil
}

// servableInput checks that the RUN_STARTED event carrying in as its
// input can be written and read back with c (see codec.Codec.Servable)
// and, when limit is positive (a run log's runlog.EventLimiter), that its
// wire form is at most limit bytes: nil, or an error wrapping
// ErrUnservable and the codec's error or runlog.ErrTooLarge.
func servableInput(c codec.Codec, in *event.RunAgentInput, limit int) error {
	n, err := c.Servable(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in})
	if errors.Is(err, codec.ErrBudget) {
		return &textError{text: fmt.Sprintf("%v: %v", ErrUnservable, err), errs: []error{ErrUnservable, err}}
	}
	if err == nil && limit > 0 && n > limit {
		return &textError{text: fmt.Sprintf("%v: it is %d bytes on the wire, and the run log accepts events of at most %d bytes (%v)", ErrUnservable, n, limit, runlog.ErrTooLarge),
			errs: []error{ErrUnservable, runlog.ErrTooLarge}}
	}
	return nil
}

// cpuTokens are held, one per CPU, by the work whose memory grows with the
// size of what it handles: parsing a large request body, encoding an event
// into a run log (every event: it is one channel operation for a small
// one), rendering a large event (decoding an event of n wire bytes may allocate
// up to codec.DefaultMemoryBudget×n). It is CPU work, so that running more
// of it at once than there are CPUs gains no speed, only memory: ten
// concurrent runs of 8 MiB inputs each parse, encode and render their
// input in turn rather than all at once. Nothing is written to a client or
// a log while a token is held.
var cpuTokens = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// heavyFrom is the size from which a body to parse or an event to encode
// or render takes a token.
const heavyFrom = 256 << 10

// startTokens admit runs with large inputs a few at a time, one per two
// CPUs (at least one): starting one is mostly CPU work (parsing, the
// checks, encoding and rendering RUN_STARTED), so taking turns costs
// little time. A request whose body is at least heavyFrom bytes takes one
// once its body has arrived, never before: a client that sends its body
// slowly holds only its own connection and the bytes it sent (counted
// against MaxRunBytes as they arrive, see readBody), not a token that
// every large start waits for. The token is held while the body is parsed
// and checked, then until the run's first event (RUN_STARTED, which
// carries the input) is written, its run ends, or startHold passes after
// its run function was called, whichever comes first. The parsed input of
// an 8 MiB body of dense messages takes about five times its size; an
// agent that lets go of it once RUN_STARTED is out (the demo server does)
// holds it for that long only, and ten such runs started at once then hold
// one or two of them at a time rather than ten.
var startTokens = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// startHold is the longest a run function holds its start token before it
// writes its first event.
const startHold = time.Second

// startGate is a request's hold on a start token; done gives it back, once.
type startGate struct {
	mu       sync.Mutex
	released bool
	t        *time.Timer
}

// enterStart takes a start token for a body of n bytes when it is large
// (nil, nothing taken, otherwise), waiting while ctx lasts.
func enterStart(ctx context.Context, n int64) (*startGate, error) {
	if n < heavyFrom {
		return nil, nil
	}
	select {
	case startTokens <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	return &startGate{}, nil
}

// running starts the clock of startHold, when the run function is called,
// and returns done, for the run's first event to call.
func (g *startGate) running() func() {
	if g == nil {
		return g.done
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.released && g.t == nil {
		g.t = time.AfterFunc(startHold, g.done)
	}
	return g.done
}

func (g *startGate) done() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.released {
		return
	}
	g.released = true
	if g.t != nil {
		g.t.Stop()
	}
	<-startTokens
}

// wireRenderCost weighs an event's wire bytes against heavyFrom: rendering
// an event decodes it, and decoding allocates several times the wire's size
// (a RunAgentInput of empty messages: ten times).
const wireRenderCost = 8

// heavy waits for a token when n is at least heavyFrom, and returns the
// function giving it back.
func heavy(n int) func() {
	if n < heavyFrom {
		return func() {}
	}
	cpuTokens <- struct{}{}
	return func() { <-cpuTokens }
}

// runLimits counts the runs of one handler in progress, and the bytes of
// request bodies it holds: those of its runs, and those being read.
type runLimits struct {
	maxRuns  int   // negative: no bound
	maxBytes int64 // negative: no bound

	mu    sync.Mutex
	runs  int
	bytes int64
}

// runTicket is one request's account in its handler's runLimits: the body
// bytes it holds while its body is read, then, once it starts a run, the
// run's place and its body's size. release gives both back, once, whoever
// calls it.
type runTicket struct {
	l     *runLimits
	once  sync.Once
	run   bool // holds a place among the runs
	bytes int64
}

// full reports whether MaxRuns runs are in progress, so that a start can be
// refused before its body is read; the place itself is taken by admit,
// once the body has arrived.
func (l *runLimits) full() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.maxRuns >= 0 && l.runs >= l.maxRuns
}

// account opens a request's account, holding nothing yet.
func (l *runLimits) account() *runTicket { return &runTicket{l: l} }

// grow adds up to n bytes to the account (a request body's buffer growing
// as the body arrives): n, or as many as the handler may hold without
// passing MaxRunBytes if that is at least least, and returns how many (0:
// none were added).
func (t *runTicket) grow(n, least int64) int64 {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxBytes >= 0 {
		if n = min(n, l.maxBytes-l.bytes); n < least || n <= 0 {
			return 0
		}
	}
	l.bytes += n
	t.bytes += n
	return n
}

// admit makes the account a run's: it takes a place among the runs and
// holds size bytes, the run's body, instead of the buffer read into. It
// returns "" or the option whose bound it would pass (nothing changed).
func (t *runTicket) admit(size int64) string {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if !t.run && l.maxRuns >= 0 && l.runs >= l.maxRuns {
		return "MaxRuns"
	}
	if l.maxBytes >= 0 && l.bytes-t.bytes+size > l.maxBytes {
		return "MaxRunBytes"
	}
	if !t.run {
		t.run = true
		l.runs++
	}
	l.bytes += size - t.bytes
	t.bytes = size
	return ""
}

func (t *runTicket) release() {
	if t == nil {
		return
	}
	t.once.Do(func() {
		l := t.l
		l.mu.Lock()
		if t.run {
			l.runs--
		}
		l.bytes -= t.bytes
		l.mu.Unlock()
	})
}

// usage returns the runs in progress and the bytes of their bodies.
func (l *runLimits) usage() (int, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs, l.bytes
}

// readerLimit counts the responses of one handler reading a run from its
// log that did not start it: resumptions, or followers.
type readerLimit struct {
	max int // negative: no bound
	mu  sync.Mutex
	n   int
}

// take counts a reader in; false when max are being served.
func (l *readerLimit) take() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max >= 0 && l.n >= l.max {
		return false
	}
	l.n++
	return true
}

func (l *readerLimit) release() {
	l.mu.Lock()
	l.n--
	l.mu.Unlock()
}

// busy answers 503 with Retry-After for a handler at one of its limits.
func busy(w http.ResponseWriter, why string) {
	w.Header().Set("Retry-After", busyRetryAfter)
	http.Error(w, "503 service unavailable: "+why+"; retry later", http.StatusServiceUnavailable)
}
