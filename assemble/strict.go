package assemble

import (
	"errors"
	"fmt"

	"github.com/agwire/agwire/event"
)

// The draft specification's fatal rules (Options.Strict). No released
// version of AG-UI states them yet, and @ag-ui/client 1.0.0 enforces none
// of them, so they are asked for, not assumed; each refused event gives a
// *SequenceError carrying one of these errors.
var (
	// ErrStrictRunID: a RUN_FINISHED naming another runId than the
	// RUN_STARTED it closes.
	ErrStrictRunID = errors.New("RUN_STARTED and RUN_FINISHED must agree on their runId")
	// ErrStrictFinishThread: a RUN_FINISHED naming another threadId than
	// the run it closes.
	ErrStrictFinishThread = errors.New("RUN_STARTED and RUN_FINISHED must carry the input's threadId")
	// ErrStrictThread: a RUN_STARTED on another thread than the stream's
	// (Options.ThreadID, or else the first run's).
	ErrStrictThread = errors.New("every RUN_STARTED of a stream carries the input's threadId")
	// ErrStrictDuplicateInterrupt: an interrupt outcome with two interrupts
	// of one id (a resume entry answers an interrupt by its id).
	ErrStrictDuplicateInterrupt = errors.New("interrupt ids must be unique within an outcome")
	// ErrStrictTruncated: the stream ended while its run was running (End).
	ErrStrictTruncated = errors.New("the stream ended without a terminal event (RUN_FINISHED or RUN_ERROR): the run has no outcome")
)

// strictCheck applies the draft's fatal rules to one event.
func (c *Conversation) strictCheck(ev event.Event) error {
	switch e := ev.(type) {
	case *event.RunStarted:
		thread := c.opts.ThreadID
		if thread == "" && len(c.runs) > 0 {
			thread = c.runs[0].ThreadID
		}
		if thread != "" && e.ThreadID != thread {
			return fmt.Errorf("%w: RUN_STARTED names thread %q, the stream's is %q", ErrStrictThread, e.ThreadID, thread)
		}
	case *event.RunFinished:
		if r := c.run(); r != nil && r.Status == RunRunning {
			if e.RunID != r.RunID {
				return fmt.Errorf("%w: RUN_FINISHED names run %q, RUN_STARTED %q", ErrStrictRunID, e.RunID, r.RunID)
			}
			if e.ThreadID != r.ThreadID {
				return fmt.Errorf("%w: RUN_FINISHED names thread %q, RUN_STARTED %q", ErrStrictFinishThread, e.ThreadID, r.ThreadID)
			}
		}
		if e.Outcome != nil {
			seen := make(map[string]bool, len(e.Outcome.Interrupts))
			for i, in := range e.Outcome.Interrupts {
				if seen[in.ID] {
					// The wording the draft's fixture looks for.
					return fmt.Errorf("%w: two interrupts carrying the id '%s' (outcome.interrupts[%d])", ErrStrictDuplicateInterrupt, in.ID, i)
				}
				seen[in.ID] = true
			}
		}
	}
	return nil
}

// End reports, under Options.Strict, a stream that ended while its last run
// was still running: a *SequenceError wrapping ErrStrictTruncated, indexed
// as the event that never came. Without Strict it returns nil (the
// TypeScript client reports such a run as completed). Call it when the
// stream has ended; FromSeq does.
func (c *Conversation) End() error {
	if !c.opts.Strict {
		return nil
	}
	if r := c.run(); r != nil && r.Status == RunRunning {
		return &SequenceError{Index: c.index, Type: "", Err: fmt.Errorf("%w: run %q", ErrStrictTruncated, r.RunID)}
	}
	return nil
}
