// Package runlog keeps the events of AG-UI runs so that a run can outlive
// the connection that started it: a client whose stream was cut resumes
// from its cursor, and any number of followers replay a run from any
// position and then follow it live until it ends.
//
// A Log holds runs. Each run is a sequence of events, stored as the
// protobuf wire bytes package codec writes (one frame's payload, without
// the length prefix): compact, and either carrier, SSE or binary, is
// rendered from them on the way out. Events are numbered from 1 in the
// order they were appended; a Cursor names a run and the number of the
// last event its holder has received (0: none yet), so reading from a
// cursor yields the events after it, exactly once and in order.
//
// A run is written by the one Writer that Start returned. Writer.End
// appends the end-of-run marker: readers that reach it get io.EOF, and the
// run accepts no more events.
//
// Retention is by age and by size, over the log as a whole: the log is a
// queue of events in append order, and the oldest are dropped first when
// they are older than the age limit or when the log holds more bytes than
// the size limit. A run is forgotten once its end marker is dropped. A
// reader whose next event was dropped gets ErrEvicted; it never skips.
//
// Memory (NewMemory) is the default: in process, zero setup. The nested
// module github.com/agwire/agwire/runlog/natslog keeps runs in a NATS
// JetStream stream, shared by any number of server replicas.
//
// A run id names one run for the log's lifetime (a second Start is
// ErrRunExists, however long ago the first run was dropped), and each run
// has an incarnation token that its entries' cursors carry, so a cursor
// never reads another run (see Incarnated). A run that will not go on
// without its end marker — aborted by its Writer (Abort), or, in a shared
// log, whose writer stopped — ends its readers with ErrRunAborted. Logs
// that implement Presence share readers' presence between processes; Logs
// that implement Owners keep, with each run, the principal that started it.
//
// Errors are typed: test them with errors.Is against ErrUnknownRun,
// ErrEvicted, ErrRunEnded, ErrRunExists, ErrBadCursor, ErrConflict,
// ErrTooLarge, ErrClosed, ErrUnacknowledged, ErrStoreFull, ErrRunAborted
// and ErrBadOwner.
package runlog

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on what a Log accepts. They bound the memory a hostile run id or
// cursor text can cost.
const (
	// MaxRunIDLen is the longest run id, in bytes, that a Log accepts.
	MaxRunIDLen = 256
	// MaxIncLen is the longest incarnation token a cursor carries.
	MaxIncLen = 32
	// MaxCursorLen is the longest cursor text ParseCursor reads: a run id
	// of MaxRunIDLen bytes, each escaped as %XX, a slash, an incarnation
	// token of MaxIncLen bytes, a slash and 20 digits.
	MaxCursorLen = 3*MaxRunIDLen + 1 + MaxIncLen + 1 + 20
	// MaxOwnerLen is the longest owner, in bytes, that Owners.StartOwned
	// records with a run: room for a name or a hash of a credential. It
	// bounds what a hostile principal adds to each run a log keeps (in
	// natslog's ids bucket, for good).
	MaxOwnerLen = 256
	// DefaultMaxEventBytes is the largest event accepted when a log's
	// option says 0: 16 MiB, the largest frame framing reads by default.
	DefaultMaxEventBytes = 16 << 20
)

// The errors of this package and of every Log. They arrive wrapped, with
// the run and the positions involved; test them with errors.Is.
var (
	// ErrUnknownRun: the log holds nothing of this run: it was never
	// started here, or retention dropped all of it long enough ago that
	// the log no longer remembers it.
	ErrUnknownRun = errors.New("runlog: unknown run")
	// ErrEvicted: the run is or was held, but the event after the cursor
	// has been dropped by retention (age or size), so the events from the
	// cursor on cannot all be delivered. A reader gets it also when it
	// falls so far behind a live run that its next event is dropped.
	ErrEvicted = errors.New("runlog: cursor beyond retention")
	// ErrRunEnded: appending to, or ending, a run that has ended.
	ErrRunEnded = errors.New("runlog: run ended")
	// ErrRunExists: Start of a run the log holds or remembers.
	ErrRunExists = errors.New("runlog: run exists")
	// ErrBadCursor: cursor text that is not a cursor, a run id that is
	// empty, too long or not UTF-8, or a cursor past the run's last event.
	ErrBadCursor = errors.New("runlog: bad cursor")
	// ErrConflict: another writer appended to the run (a shared log only,
	// when two processes write one run).
	ErrConflict = errors.New("runlog: conflicting writer")
	// ErrTooLarge: an event larger than the log's limit.
	ErrTooLarge = errors.New("runlog: event too large")
	// ErrClosed: the log or the reader has been closed.
	ErrClosed = errors.New("runlog: closed")
	// ErrUnacknowledged: a shared log did not confirm an append or an
	// end (a timeout, a broken connection) and could not tell whether it
	// landed. The run is not broken: call Append again with the same
	// event (or End again) and it is appended exactly once.
	ErrUnacknowledged = errors.New("runlog: append not acknowledged")
	// ErrStoreFull: the log's storage refused an event or a marker for
	// lack of space (a JetStream stream at its MaxBytes with DiscardNew,
	// or a server out of storage). The Writer then aborts the run, if it
	// can, so that its readers end.
	ErrStoreFull = errors.New("runlog: log full")
	// ErrRunAborted: Reader.Next reached the end of what a run holds and
	// the run will not go on: its Writer aborted it (Abort, or a full
	// store), or stopped without ending it (a shared log notices that the
	// writer's heartbeat stopped). The events before it were delivered;
	// the run has no end marker. The error names the cause when known.
	ErrRunAborted = errors.New("runlog: run aborted")
	// ErrBadOwner: an owner that Owners.StartOwned does not record: empty,
	// longer than MaxOwnerLen, not UTF-8, or holding a control character.
	ErrBadOwner = errors.New("runlog: bad owner")
)

// Log holds runs. Implementations are safe for concurrent use.
type Log interface {
	// Start begins run and returns its only Writer. A run the log holds
	// or still remembers gives ErrRunExists: two requests for one run id
	// start it once.
	Start(ctx context.Context, run string) (Writer, error)
	// Read returns a Reader of the events of from.Run after from.Seq.
	// It fails with ErrUnknownRun, with ErrEvicted if event from.Seq+1 has
	// been dropped, or with ErrBadCursor if from.Seq is past the run's
	// last event.
	Read(ctx context.Context, from Cursor) (Reader, error)
}

// Writer appends the events of one run. It is not safe for concurrent
// use: a run's events have one order.
type Writer interface {
	// Append adds one event, the codec's wire bytes of it, and returns
	// its sequence number: 1 for the run's first event. The log keeps a
	// copy of wire. After an error nothing has been appended, except
	// that a shared log may report a network failure after the event
	// landed (see the implementation).
	Append(ctx context.Context, wire []byte) (seq uint64, err error)
	// End appends the end-of-run marker. Readers reaching it get io.EOF;
	// Append and End fail with ErrRunEnded afterwards.
	End(ctx context.Context) error
	// Run returns the run id.
	Run() string
}

// Reader reads one run's events in order, from a cursor on. It is not safe
// for concurrent use; use one Reader per follower.
type Reader interface {
	// Next returns the next event. It blocks until one is appended, the
	// run ends (io.EOF, unwrapped, after the last event), ctx is done
	// (ctx.Err()), or retention drops the next event before it is read
	// (ErrEvicted). The returned Entry's Wire must not be modified; it
	// stays valid after later calls.
	Next(ctx context.Context) (Entry, error)
	// Close releases the Reader. Next then returns ErrClosed.
	Close() error
}

// Entry is one event read from a log.
type Entry struct {
	// Seq is the event's sequence number in its run, from 1.
	Seq uint64
	// Wire is the event as the codec's wire bytes: one frame's payload.
	Wire []byte
	// Inc is the incarnation of the run the event belongs to ("" from a
	// Log that does not say).
	Inc string
}

// Cursor returns the cursor of run just after e, bound to e's
// incarnation: reading from it yields the events after e, and never
// another run's that reuses the id.
func (e Entry) Cursor(run string) Cursor { return Cursor{Run: run, Seq: e.Seq, Inc: e.Inc} }

// Incarnations. A run id names one run for the lifetime of a log: both
// logs of this module refuse to start an id again (ErrRunExists), even
// long after retention dropped the run. An incarnation token goes further:
// drawn at random by each Start, it tells apart two runs of one id in
// different logs, or in one log before and after its process restarted
// (an in-memory log forgets everything), so a cursor carrying it never
// reads another run's events: Log.Read of a cursor whose Inc is not the
// held run's fails with ErrEvicted (its run is gone). A cursor without
// Inc, such as the text of an older version, reads whatever run holds
// the id.

// Incarnated is implemented by the Writers of this module's logs.
type Incarnated interface {
	// Incarnation returns the token of the run being written.
	Incarnation() string
}

// IncarnationOf returns w's incarnation token, or "" if w does not say.
func IncarnationOf(w Writer) string {
	if i, ok := w.(Incarnated); ok {
		return i.Incarnation()
	}
	return ""
}

// NewIncarnation returns a fresh incarnation token: 96 random bits in
// base64url, 16 characters that CheckInc accepts.
func NewIncarnation() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Aborter is implemented by Writers that can end a run without its end
// marker, so that its readers stop waiting: both logs of this module.
type Aborter interface {
	// Abort ends the run as aborted: readers that reach the end of its
	// events get an error wrapping ErrRunAborted and naming cause; Append
	// and End fail afterwards. It needs no room in a full store.
	Abort(ctx context.Context, cause error) error
}

// Abort aborts the run w writes with cause, when w is an Aborter, and
// otherwise ends it (End): either way its readers stop waiting.
func Abort(ctx context.Context, w Writer, cause error) error {
	if a, ok := w.(Aborter); ok {
		return a.Abort(ctx, cause)
	}
	return w.End(ctx)
}

// Presence is implemented by Logs that record readers' presence per run,
// shared by every process using the log: a reader connected to one
// replica keeps alive a run that another replica runs. Both logs of this
// module implement it (Memory within its process).
type Presence interface {
	// Touch records that a reader of run is connected now.
	Touch(ctx context.Context, run string) error
	// LastSeen returns when run was last touched, by any process of the
	// log: the zero time (and no error) if never, or too long ago for
	// the log to remember.
	LastSeen(ctx context.Context, run string) (time.Time, error)
}

// Owners is implemented by Logs that keep, with each run, the principal
// that started it (its owner), for as long as the log holds the run, so
// that a server can serve a run to its owner only (transport's
// HandlerOptions.Principal). Both logs of this module implement it: the
// in-memory log keeps the owner with the run and forgets it with the run;
// the JetStream log keeps it in the run's record in the ids bucket, where
// every replica finds it.
//
// An owner is recorded only by a Start that succeeds: a refused one
// (ErrRunExists, a bad id, a failure of the log) records nothing, so it
// never takes a run from its owner.
type Owners interface {
	// StartOwned is Start, recording owner with the run. An owner that
	// CheckOwner refuses is ErrBadOwner, and nothing is started. The log
	// stores owner as it is: give a name or a hash of a credential, never
	// a secret.
	StartOwned(ctx context.Context, run, owner string) (Writer, error)
	// Owner returns the owner of run: "" (and no error) for a run started
	// by Start, or one whose owner the log cannot tell (a run it holds
	// but did not record an owner for). A run the log does not hold gives
	// ErrUnknownRun; one retention dropped, ErrUnknownRun or ErrEvicted (a
	// log may forget the owner with the run).
	Owner(ctx context.Context, run string) (string, error)
}

// CheckOwner reports whether a Log that implements Owners records owner:
// it must be non-empty, valid UTF-8, at most MaxOwnerLen bytes and free
// of control characters (so that a log may store it in a line of text).
// The error wraps ErrBadOwner.
func CheckOwner(owner string) error {
	switch {
	case owner == "":
		return fmt.Errorf("%w: empty owner", ErrBadOwner)
	case len(owner) > MaxOwnerLen:
		return fmt.Errorf("%w: owner of %d bytes, longer than %d", ErrBadOwner, len(owner), MaxOwnerLen)
	case !utf8.ValidString(owner):
		return fmt.Errorf("%w: owner is not valid UTF-8", ErrBadOwner)
	}
	for _, r := range owner {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: owner holds the control character %U", ErrBadOwner, r)
		}
	}
	return nil
}
