// Package webagent is a deterministic AG-UI agent for the tests of the
// JavaScript companion (clients/js) and of the browser lane
// (interop/browser): one handler, resumable, whose run is shaped by the
// request's forwardedProps so that a test asks for exactly the run it needs.
//
// forwardedProps.agwireTest (all optional):
//
//	events      total events of the run (default 12, at least 12)
//	pauseAfter  pause after this many events (0: never)
//	pauseMs     how long to pause, in milliseconds
//	delayMs     wait this long between two events (default 0)
//	custom      1: the events between the message's start and end are
//	            CUSTOM events instead of text deltas (the message stays
//	            empty), for runs whose client-side assembly must not grow
//
// The run is RUN_STARTED, STATE_SNAPSHOT, one assistant text message whose
// content is split over the events left, a tool call with its result, a
// STATE_DELTA and RUN_FINISHED with a result: the same for every carrier,
// so its assembled conversation can be compared across them.
package webagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// ErrParams is the error of forwardedProps.agwireTest that the agent cannot
// run (the handler turns it into RUN_ERROR).
var ErrParams = errors.New("webagent: forwardedProps.agwireTest")

// MinEvents is the fewest events a run has.
const MinEvents = 12

// MaxEvents bounds a request's run.
const MaxEvents = 2_000_000

// Params shape one run.
type Params struct {
	Events     int `json:"events"`
	PauseAfter int `json:"pauseAfter"`
	PauseMs    int `json:"pauseMs"`
	DelayMs    int `json:"delayMs"`
	Custom     int `json:"custom"`
}

// ParamsOf reads forwardedProps.agwireTest of a run input.
func ParamsOf(in *event.RunAgentInput) (Params, error) {
	p := Params{}
	if len(in.ForwardedProps) > 0 {
		var fp struct {
			Test *Params `json:"agwireTest"`
		}
		if err := json.Unmarshal(in.ForwardedProps, &fp); err != nil {
			return p, fmt.Errorf("%w: %v", ErrParams, err)
		}
		if fp.Test != nil {
			p = *fp.Test
		}
	}
	if p.Events < MinEvents {
		p.Events = MinEvents
	}
	if p.Events > MaxEvents {
		return p, fmt.Errorf("%w: events: at most %d", ErrParams, MaxEvents)
	}
	if p.PauseMs < 0 || p.DelayMs < 0 || p.PauseAfter < 0 {
		return p, fmt.Errorf("%w: pauseAfter, pauseMs and delayMs must not be negative", ErrParams)
	}
	return p, nil
}

// Run is the agent: it writes the run Params describe.
func Run(ctx context.Context, req *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
	p, err := ParamsOf(in)
	if err != nil {
		return err
	}
	n := 0
	write := func(ev event.Event) error {
		if n > 0 && p.DelayMs > 0 {
			if err := sleep(ctx, time.Duration(p.DelayMs)*time.Millisecond); err != nil {
				return err
			}
		}
		if err := w.WriteEvent(ev); err != nil {
			return err
		}
		n++
		if p.PauseAfter > 0 && n == p.PauseAfter && p.PauseMs > 0 {
			return sleep(ctx, time.Duration(p.PauseMs)*time.Millisecond)
		}
		return nil
	}
	const msg, tool, toolMsg = "assistant-1", "call-1", "tool-1"
	events := []func() event.Event{
		func() event.Event { return &event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID} },
		func() event.Event {
			return &event.StateSnapshot{Snapshot: event.RawValue(`{"city":"Seoul","step":0}`)}
		},
		func() event.Event {
			return &event.TextMessageStart{MessageID: msg, Role: event.Ptr(event.RoleAssistant)}
		},
	}
	for _, f := range events {
		if err := write(f()); err != nil {
			return err
		}
	}
	deltas := p.Events - MinEvents + 1
	for i := range deltas {
		var ev event.Event = &event.TextMessageContent{MessageID: msg, Delta: "w" + strconv.Itoa(i) + " "}
		if p.Custom != 0 {
			ev = &event.Custom{Name: "tick", Value: event.RawValue(strconv.Itoa(i))}
		}
		if err := write(ev); err != nil {
			return err
		}
	}
	tail := []event.Event{
		&event.TextMessageEnd{MessageID: msg},
		&event.ToolCallStart{ToolCallID: tool, ToolCallName: "get_weather", ParentMessageID: event.Ptr(msg)},
		&event.ToolCallArgs{ToolCallID: tool, Delta: `{"city":`},
		&event.ToolCallArgs{ToolCallID: tool, Delta: `"Seoul"}`},
		&event.ToolCallEnd{ToolCallID: tool},
		&event.ToolCallResult{MessageID: toolMsg, ToolCallID: tool, Content: event.Ptr(`{"tempC":21}`)},
		&event.StateDelta{Delta: []event.PatchOp{{Op: "replace", Path: "/step", Value: event.RawValue(strconv.Itoa(p.Events))}}},
		&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Result: event.RawValue(`{"events":` + strconv.Itoa(p.Events) + `}`)},
	}
	for _, ev := range tail {
		if err := write(ev); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Options configure Handler.
type Options struct {
	// Resumable keeps runs in an in-memory log (Last-Event-ID resumes).
	Resumable bool
	// Compression is HandlerOptions.Compression.
	Compression []string
	// Heartbeat is HandlerOptions.Heartbeat.
	Heartbeat time.Duration
	// Configure, if set, edits the handler's options last (for options
	// this package does not name).
	Configure func(*transport.HandlerOptions)
}

// Handler returns the agent's handler and a function releasing its log.
func Handler(o Options) (http.Handler, func(), error) {
	opts := transport.HandlerOptions{Compression: o.Compression, Heartbeat: o.Heartbeat}
	release := func() {}
	if o.Resumable {
		mem := runlog.NewMemory(runlog.MemoryOptions{})
		opts.Log = mem
		release = func() { mem.Close() }
	}
	if o.Configure != nil {
		o.Configure(&opts)
	}
	h, err := transport.NewHandler(Run, opts)
	if err != nil {
		release()
		return nil, nil, err
	}
	return h, release, nil
}
