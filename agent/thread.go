package agent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/event"
)

// ProtocolVersion is the protocolVersion PrepareInput sends by default, as
// @ag-ui/client 1.0.0 sends it.
const ProtocolVersion = "1.0"

// ProtocolVersion11 is the protocolVersion of a thread that speaks AG-UI 1.1
// (Options.ProtocolVersion).
const ProtocolVersion11 = "1.1"

// Options configure a Thread. The zero value is ready to use.
type Options struct {
	// ThreadID is the thread's id; empty means a random UUID.
	ThreadID string
	// Messages and State are the thread's conversation before its first
	// run (State nil means {}).
	Messages []event.Message
	State    event.RawValue
	// Middleware transforms each run's events. As in the client's use(),
	// Middleware[0] is the outermost: an event goes through the last one
	// first and through Middleware[0] last, and what it returns is applied.
	Middleware []Middleware
	// Assemble configures the conversation each run is applied to (its
	// budgets); its Messages and State are the thread's, and Check is
	// always on.
	Assemble assemble.Options
	// Now is the clock interrupts expire by; nil means time.Now.
	Now func() time.Time
	// Warn receives the run's warnings as they happen: a RUN_STARTED
	// declaring a protocol version newer than the thread's, or one this
	// client cannot read; an ACTIVITY_DELTA for no activity message (skipped). (Events that cannot be applied are reported in
	// Result.Warnings; what a consuming parse removes is reported by the
	// parser, see event.Parser.Consume and transport.ClientOptions.Consume.)
	// Nil discards them.
	Warn func(event.Warning)
	// ProtocolVersion is the version the thread speaks, sends in its
	// input and compares a producer's with: ProtocolVersion (the default,
	// when empty) or ProtocolVersion11.
	ProtocolVersion string
	// Strict turns on the draft specification's fatal rules, which no
	// released version states yet (assemble.Options.Strict): a RUN_FINISHED
	// naming another run or thread, a RUN_STARTED naming another thread
	// than the input's, two interrupts of one id in an outcome. (A stream
	// that ends while its run is running fails the run either way:
	// ErrRunTruncated.)
	Strict bool
}

// Thread is a conversation with an agent, run after run. It is not safe for
// concurrent use.
type Thread struct {
	id      string
	runner  Runner
	opts    Options
	msgs    []event.Message
	state   event.RawValue
	pending []event.Interrupt
}

// New returns a thread that runs its runs with r.
func New(r Runner, opts Options) *Thread {
	t := &Thread{id: opts.ThreadID, runner: r, opts: opts, state: opts.State}
	if t.id == "" {
		t.id = newUUID()
	}
	t.msgs = append([]event.Message(nil), opts.Messages...)
	if t.state == nil {
		t.state = event.RawValue("{}")
	}
	return t
}

// ID returns the thread id.
func (t *Thread) ID() string { return t.id }

// Messages returns the thread's messages.
func (t *Thread) Messages() []event.Message { return append([]event.Message(nil), t.msgs...) }

// State returns the thread's state as JSON text.
func (t *Thread) State() event.RawValue { return append(event.RawValue(nil), t.state...) }

// AddMessages appends messages to the thread (a user's turn).
func (t *Thread) AddMessages(msgs ...event.Message) { t.msgs = append(t.msgs, msgs...) }

// SetState replaces the thread's state.
func (t *Thread) SetState(state event.RawValue) { t.state = append(event.RawValue(nil), state...) }

// PendingInterrupts returns the interrupts the last finished run left
// pending: the next run must address each of them in its resume entries.
func (t *Thread) PendingInterrupts() []event.Interrupt {
	return append([]event.Interrupt(nil), t.pending...)
}

// RunParams are what a run sends besides the thread's conversation.
type RunParams struct {
	// RunID is the run's id; empty means a random UUID.
	RunID          string
	Tools          []event.Tool
	Context        []event.Context
	ForwardedProps event.RawValue // nil means {}
	// Resume answers the pending interrupts (see PendingInterrupts); nil
	// sends none.
	Resume []event.ResumeEntry
}

// PrepareInput returns the RunAgentInput a run with p sends: the thread's
// id, the run id, its messages without the activity messages, its state,
// and p's tools, context (both [] when absent), forwarded properties ({}
// when absent) and resume entries, as @ag-ui/client prepares it.
func (t *Thread) PrepareInput(p RunParams) *event.RunAgentInput {
	in := &event.RunAgentInput{ThreadID: t.id, RunID: p.RunID, State: t.State(),
		Messages: []event.Message{}, Tools: p.Tools, Context: p.Context,
		ForwardedProps: p.ForwardedProps, Resume: p.Resume, ProtocolVersion: strPtr(t.protocol())}
	if in.RunID == "" {
		in.RunID = newUUID()
	}
	for _, m := range t.msgs {
		if m.Role != event.RoleActivity {
			in.Messages = append(in.Messages, m)
		}
	}
	if in.Tools == nil {
		in.Tools = []event.Tool{}
	}
	if in.Context == nil {
		in.Context = []event.Context{}
	}
	if in.ForwardedProps == nil {
		in.ForwardedProps = event.RawValue("{}")
	}
	return in
}

// Errors of a run refused before it starts, in a *ResumeError.
var (
	// ErrInterruptsNotAddressed: interrupts are pending and the run's
	// resume entries do not name every one of them.
	ErrInterruptsNotAddressed = errors.New("pending interrupts not addressed by resume")
	// ErrInterruptExpired: a pending interrupt's expiresAt has passed and
	// the run answers it other than by cancelling it.
	ErrInterruptExpired = errors.New("interrupt expired and can no longer be answered; cancel it to continue the thread")
	// ErrRunTruncated: the stream ended while its run was still running
	// (a RUN_STARTED with no RUN_FINISHED or RUN_ERROR after it). What it
	// carried is applied and kept; the run has no outcome. It is
	// assemble.ErrStrictTruncated, which assemble reports only under
	// Options.Strict: for the thread, the 1.0 Truncation rule makes it
	// fatal always.
	ErrRunTruncated = assemble.ErrStrictTruncated
	// ErrResumeStatus: a resume entry's status is neither
	// event.ResumeResolved nor event.ResumeCancelled.
	ErrResumeStatus = errors.New(`resume entry status must be "resolved" or "cancelled"`)
	// ErrProtocolVersion: Options.ProtocolVersion names a version the
	// thread does not speak (ProtocolVersion or ProtocolVersion11).
	ErrProtocolVersion = errors.New("not a protocol version this thread speaks")
)

// ResumeError is a run refused because of its resume entries: Entry and
// Status name an entry whose status is neither event.ResumeResolved nor
// event.ResumeCancelled (ErrResumeStatus); Missing lists the pending
// interrupts they do not address (ErrInterruptsNotAddressed); or Expired
// names the expired interrupt they answer other than by cancelling it
// (ErrInterruptExpired).
type ResumeError struct {
	// Entry is the index of the entry with a wrong status (ErrResumeStatus).
	Entry     int
	Status    string
	Missing   []string
	Expired   string
	ExpiresAt string
	Err       error
}

func (e *ResumeError) Error() string {
	switch {
	case errors.Is(e.Err, ErrResumeStatus):
		return fmt.Sprintf("agent: resume[%d] has status %q: %v", e.Entry, e.Status, e.Err)
	case e.Expired != "":
		return fmt.Sprintf("agent: interrupt %s expired at %s: %v", e.Expired, e.ExpiresAt, e.Err)
	}
	return fmt.Sprintf("agent: %d %v: %s; add a resume entry for each (RunParams.Resume: its interruptId, status %q with a payload, or %q)",
		len(e.Missing), e.Err, strings.Join(e.Missing, ", "), event.ResumeResolved, event.ResumeCancelled)
}

func (e *ResumeError) Unwrap() error { return e.Err }

// CheckResume reports whether a run with these resume entries may start:
// a *ResumeError wrapping ErrResumeStatus for an entry whose status is
// not one of the two (checked first, so a run is refused before anything is
// sent); nil when no interrupt is pending, or when every pending one is addressed
// and no expired one is answered other than by cancelling it; a
// *ResumeError otherwise. Run calls it first.
func (t *Thread) CheckResume(resume []event.ResumeEntry) error {
	for i, r := range resume {
		if r.Status != event.ResumeResolved && r.Status != event.ResumeCancelled {
			return &ResumeError{Entry: i, Status: r.Status, Err: ErrResumeStatus}
		}
	}
	if len(t.pending) == 0 {
		return nil
	}
	answered := map[string]*event.ResumeEntry{}
	for i := range resume {
		if _, ok := answered[resume[i].InterruptID]; !ok {
			answered[resume[i].InterruptID] = &resume[i]
		}
	}
	var missing []string
	for _, in := range t.pending {
		if answered[in.ID] == nil {
			missing = append(missing, in.ID)
		}
	}
	if len(missing) > 0 {
		return &ResumeError{Missing: missing, Err: ErrInterruptsNotAddressed}
	}
	now := time.Now
	if t.opts.Now != nil {
		now = t.opts.Now
	}
	for _, in := range t.pending {
		if expired(in, now()) && answered[in.ID].Status != event.ResumeCancelled {
			return &ResumeError{Expired: in.ID, ExpiresAt: *in.ExpiresAt, Err: ErrInterruptExpired}
		}
	}
	return nil
}

// expired reports whether the interrupt's expiresAt is at or before now,
// as @ag-ui/client decides it (new Date(expiresAt) <= now; see parseDate):
// an expiresAt that is not a date never expires, as NaN <= now is false.
func expired(in event.Interrupt, now time.Time) bool {
	if in.ExpiresAt == nil {
		return false
	}
	at, ok := parseDate(*in.ExpiresAt, time.Local)
	return ok && at <= now.UnixMilli()
}

// Result is what a run did.
type Result struct {
	// Input is what was sent.
	Input *event.RunAgentInput
	// Run is the run as its events described it (status, outcome, result,
	// steps); the zero Run when the stream carried no RUN_STARTED.
	Run assemble.Run
	// NewMessages are the messages the run added to the thread.
	NewMessages []event.Message
	// Interrupts are the interrupts now pending.
	Interrupts []event.Interrupt
	// Events counts the events applied (after middleware).
	Events int
	// Warnings are the events that could not be applied (a failed JSON
	// Patch, a budget exceeded): skipped, as the client warns and skips.
	Warnings []error
}

// Run runs the agent once: it checks p.Resume against the pending
// interrupts (CheckResume; nothing is sent when it fails), prepares the
// input, runs it, and applies every event the run streams through the
// middleware to the thread's conversation. A sequence error or a failing
// stream ends the run with an error; what was applied before stays in the
// thread, as do the pending interrupts of the last RUN_FINISHED. A stream
// that ends while its run is still running returns the Result with an
// error wrapping ErrRunTruncated: a truncated run has no outcome and is not
// reported as a success (AG-UI 1.0's Truncation rule; @ag-ui/client 1.0.0
// resolves such a run as if it had completed).
func (t *Thread) Run(ctx context.Context, p RunParams) (*Result, error) {
	if v := t.protocol(); v != ProtocolVersion && v != ProtocolVersion11 {
		return nil, fmt.Errorf("agent: Options.ProtocolVersion %q: %w (%q or %q)", v, ErrProtocolVersion, ProtocolVersion, ProtocolVersion11)
	}
	if err := t.CheckResume(p.Resume); err != nil {
		return nil, err
	}
	in := t.PrepareInput(p)
	res := &Result{Input: in}
	aopts := t.opts.Assemble
	aopts.Messages, aopts.State, aopts.Check = t.msgs, t.state, true
	aopts.Strict = t.opts.Strict
	if aopts.Strict && aopts.ThreadID == "" {
		aopts.ThreadID = t.id // every run carries the input's threadId
	}
	conv, err := assemble.New(aopts)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	before := map[string]bool{}
	for _, m := range t.msgs {
		before[m.ID] = true
	}
	defer func() {
		t.msgs, t.state = conv.Messages(), conv.State()
		for _, m := range t.msgs {
			if !before[m.ID] {
				res.NewMessages = append(res.NewMessages, m)
			}
		}
		if runs := conv.Runs(); len(runs) > 0 {
			res.Run = runs[len(runs)-1]
		}
		res.Interrupts = t.PendingInterrupts()
	}()
	stream, err := t.runner.Run(ctx, in)
	if err != nil {
		return res, fmt.Errorf("agent: starting the run: %w", err)
	}
	defer stream.Close()
	var expand assemble.Expander
	steps := make([]func(event.Event) []event.Event, len(t.opts.Middleware))
	for i, m := range t.opts.Middleware {
		steps[i] = m.NewRun(in)
	}
	apply := func(ev event.Event) error {
		res.Events++
		ignored := conv.Stats().Ignored
		if err := conv.Apply(ev); err != nil {
			var ae *assemble.ApplyError
			if errors.As(err, &ae) {
				res.Warnings = append(res.Warnings, err)
				return nil
			}
			return fmt.Errorf("agent: %w", err)
		}
		if d, ok := ev.(*event.ActivityDelta); ok && conv.Stats().Ignored > ignored && t.opts.Warn != nil {
			// Skipped as the client skips it; said, as the specification
			// asks a consumer (SHOULD), since it is a producer's ordering
			// bug that would otherwise look like a delta never sent.
			t.opts.Warn(event.Warning{Type: event.TypeActivityDelta, Path: "/messageId",
				Reason: fmt.Sprintf("no activity message %q to apply the delta to: skipped", d.MessageID)})
		}
		if rs, ok := ev.(*event.RunStarted); ok && rs.ProtocolVersion != nil && t.opts.Warn != nil {
			if w, ok := versionWarning(*rs.ProtocolVersion, t.protocol()); ok {
				t.opts.Warn(w)
			}
		}
		if f, ok := ev.(*event.RunFinished); ok {
			t.pending = nil
			if f.Outcome != nil && f.Outcome.Type == event.OutcomeInterrupt {
				t.pending = append([]event.Interrupt(nil), f.Outcome.Interrupts...)
			}
		}
		return nil
	}
	for ev, err := range stream.Events() {
		if err != nil {
			return res, fmt.Errorf("agent: reading the run's events: %w", err)
		}
		evs := []event.Event{ev}
		if len(steps) > 0 {
			if evs, err = expand.Expand(ev); err != nil {
				return res, fmt.Errorf("agent: event %d: %w", res.Events, err)
			}
			for i := len(steps) - 1; i >= 0; i-- {
				step := steps[i]
				var next []event.Event
				for _, x := range evs {
					next = append(next, step(x)...)
				}
				evs = next
			}
		}
		for _, x := range evs {
			if err := apply(x); err != nil {
				return res, err
			}
		}
	}
	// The Truncation rule: a run the stream started and never ended has no
	// outcome, and must not be reported as having succeeded.
	if runs := conv.Runs(); len(runs) > 0 && runs[len(runs)-1].Status == assemble.RunRunning {
		last := runs[len(runs)-1]
		return res, fmt.Errorf("agent: run %s: %w", last.RunID, ErrRunTruncated)
	}
	return res, nil
}

func strPtr(s string) *string { return &s }

// protocol is the version the thread speaks.
func (t *Thread) protocol() string {
	if t.opts.ProtocolVersion == "" {
		return ProtocolVersion
	}
	return t.opts.ProtocolVersion
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// versionWarning says what a client speaking own makes of a producer
// declaring v: nothing for the same or an older version, a warning for a
// newer one or one it cannot read.
func versionWarning(v, own string) (event.Warning, bool) {
	w := event.Warning{Type: event.TypeRunStarted, Path: "/protocolVersion"}
	cmp, ok := compareVersions(v, own)
	switch {
	case !ok:
		w.Reason = fmt.Sprintf("the producer declared protocol version %q, which this client cannot interpret", v)
	case cmp > 0:
		w.Reason = fmt.Sprintf("the producer speaks protocol %s, newer than the %s this client speaks: what this client does not recognise is removed with a warning", v, own)
	default:
		return w, false
	}
	return w, true
}

// compareVersions compares two protocol versions of the form MAJOR.MINOR
// (digits only), as @ag-ui/client reads a producer's: anything else is not
// a version it can interpret.
func compareVersions(a, b string) (int, bool) {
	pa, oka := versionParts(a)
	pb, okb := versionParts(b)
	if !oka || !okb {
		return 0, false
	}
	for i := range pa {
		if c := compareDigits(pa[i], pb[i]); c != 0 {
			return c, true
		}
	}
	return 0, true
}

func versionParts(v string) ([2]string, bool) {
	major, minor, ok := strings.Cut(v, ".")
	if !ok || !allDigits(major) || !allDigits(minor) {
		return [2]string{}, false
	}
	return [2]string{major, minor}, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// compareDigits compares two decimal numbers of any length.
func compareDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
