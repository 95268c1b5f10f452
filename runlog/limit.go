package runlog

// EventLimiter is implemented by Logs that bound the size of one event
// (both logs of this module): what Append refuses with ErrTooLarge. A
// server checks an event it must log against it before it commits to a
// run, for instance a run's input echoed in RUN_STARTED, and refuses the
// request with a client error instead of starting a run whose first
// Append fails.
type EventLimiter interface {
	// MaxEventBytes is the largest event, in wire bytes, that Append
	// accepts.
	MaxEventBytes() int
}

// MaxEventBytes implements EventLimiter: MemoryOptions.MaxEventBytes.
func (m *Memory) MaxEventBytes() int { return m.opts.MaxEventBytes }

var _ EventLimiter = (*Memory)(nil)
