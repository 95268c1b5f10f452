package agent

import (
	"errors"

	"github.com/agwire/agwire/event"
)

// A Middleware transforms the events of a run. NewRun is called when a run
// starts, with its input, and returns the function each of the run's events
// goes through: it returns the events that take the event's place (the
// event itself to keep it, none to drop it). The events it is given have
// their chunks expanded.
type Middleware interface {
	NewRun(in *event.RunAgentInput) func(event.Event) []event.Event
}

// Func is a Middleware of a function that keeps no state between runs.
type Func func(event.Event) []event.Event

// NewRun returns f.
func (f Func) NewRun(*event.RunAgentInput) func(event.Event) []event.Event { return f }

// ErrFilterOptions: FilterToolCalls was given both an allowed and a
// disallowed list, or neither.
var ErrFilterOptions = errors.New("agent: give either allowed or disallowed tool calls, not both or neither")

// FilterOptions name the tool calls FilterToolCalls lets through: only the
// Allowed ones, or all but the Disallowed ones.
type FilterOptions struct {
	Allowed, Disallowed []string
}

// FilterToolCalls returns a Middleware that drops the tool calls whose name
// is not allowed (or is disallowed): their TOOL_CALL_START, TOOL_CALL_ARGS,
// TOOL_CALL_END and their first TOOL_CALL_RESULT, as the TypeScript
// FilterToolCallsMiddleware drops them. RUN_STARTED forgets the calls
// dropped so far.
func FilterToolCalls(opts FilterOptions) (Middleware, error) {
	if (opts.Allowed != nil) == (opts.Disallowed != nil) {
		return nil, ErrFilterOptions
	}
	f := &toolFilter{names: map[string]bool{}, allow: opts.Allowed != nil}
	for _, n := range opts.Allowed {
		f.names[n] = true
	}
	for _, n := range opts.Disallowed {
		f.names[n] = true
	}
	return f, nil
}

type toolFilter struct {
	names map[string]bool
	allow bool
}

func (f *toolFilter) drops(name string) bool {
	if f.allow {
		return !f.names[name]
	}
	return f.names[name]
}

func (f *toolFilter) NewRun(*event.RunAgentInput) func(event.Event) []event.Event {
	dropped := map[string]bool{}
	return func(ev event.Event) []event.Event {
		switch e := ev.(type) {
		case *event.RunStarted:
			clear(dropped)
		case *event.ToolCallStart:
			if f.drops(e.ToolCallName) {
				dropped[e.ToolCallID] = true
				return nil
			}
		case *event.ToolCallArgs:
			if dropped[e.ToolCallID] {
				return nil
			}
		case *event.ToolCallEnd:
			if dropped[e.ToolCallID] {
				return nil
			}
		case *event.ToolCallResult:
			if dropped[e.ToolCallID] {
				delete(dropped, e.ToolCallID)
				return nil
			}
		}
		return []event.Event{ev}
	}
}
