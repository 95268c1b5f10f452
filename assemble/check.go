package assemble

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agwire/agwire/event"
)

// Sequence checking (Options.Check): the lifecycle rules the TypeScript
// client's verifier enforces, where it fails the run. Each refused event
// gives a *SequenceError carrying one of these errors.
var (
	// ErrSeqFirstEvent: the first event is neither RUN_STARTED nor RUN_ERROR.
	ErrSeqFirstEvent = errors.New("the first event must be RUN_STARTED")
	// ErrSeqRunActive: RUN_STARTED while a run is still active.
	ErrSeqRunActive = errors.New("RUN_STARTED while a run is still active")
	// ErrSeqAfterFinish: an event other than RUN_STARTED or RUN_ERROR after RUN_FINISHED.
	ErrSeqAfterFinish = errors.New("event after RUN_FINISHED")
	// ErrSeqAfterError: an event other than RUN_STARTED after RUN_ERROR.
	ErrSeqAfterError = errors.New("event after RUN_ERROR")
	// ErrSeqAlreadyActive: a start for a message, tool call, reasoning
	// span or message, step or subagent that is already in progress.
	ErrSeqAlreadyActive = errors.New("already in progress")
	// ErrSeqNotActive: content, an end or a finish for something that was
	// never started (or is already closed).
	ErrSeqNotActive = errors.New("not in progress")
	// ErrSeqOpenAtFinish: RUN_FINISHED while messages, tool calls,
	// reasoning, steps or subagents are still open.
	ErrSeqOpenAtFinish = errors.New("RUN_FINISHED while work is still open")
	// ErrSeqSubagentReused: SUBAGENT_STARTED for an id that already finished in this run.
	ErrSeqSubagentReused = errors.New("subagent id reused within the run")
)

type checker struct {
	first, started, finished, errored bool

	messages, toolCalls, spans, reasoning map[string]bool
	steps                                 map[laneKey]map[string]bool
	subagents, closedSubagents            map[string]bool
}

func newChecker() *checker {
	c := &checker{}
	c.reset()
	c.started = false
	return c
}

func (c *checker) reset() {
	c.messages, c.toolCalls, c.spans, c.reasoning = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	c.steps = map[laneKey]map[string]bool{}
	c.subagents, c.closedSubagents = map[string]bool{}, map[string]bool{}
	c.finished, c.errored, c.started = false, false, true
}

func open(set map[string]bool, id, what string) error {
	if set[id] {
		return fmt.Errorf("%w: %s %q", ErrSeqAlreadyActive, what, id)
	}
	set[id] = true
	return nil
}

func active(set map[string]bool, id, what string, end bool) error {
	if !set[id] {
		return fmt.Errorf("%w: %s %q", ErrSeqNotActive, what, id)
	}
	if end {
		delete(set, id)
	}
	return nil
}

func names(set map[string]bool) string {
	var s []string
	for k := range set {
		s = append(s, fmt.Sprintf("%q", k))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

func (c *checker) check(ev event.Event) error {
	t := ev.Type()
	if c.errored && t != event.TypeRunStarted {
		return ErrSeqAfterError
	}
	if c.finished && t != event.TypeRunError && t != event.TypeRunStarted {
		return ErrSeqAfterFinish
	}
	if !c.first {
		c.first = true
		if t != event.TypeRunStarted && t != event.TypeRunError {
			return ErrSeqFirstEvent
		}
	} else if t == event.TypeRunStarted {
		if c.started && !c.finished && !c.errored {
			return ErrSeqRunActive
		}
		if c.finished || c.errored {
			c.reset()
		}
	}
	switch e := ev.(type) {
	case *event.TextMessageStart:
		return open(c.messages, e.MessageID, "text message")
	case *event.TextMessageContent:
		return active(c.messages, e.MessageID, "text message", false)
	case *event.TextMessageEnd:
		return active(c.messages, e.MessageID, "text message", true)
	case *event.ToolCallStart:
		return open(c.toolCalls, e.ToolCallID, "tool call")
	case *event.ToolCallArgs:
		return active(c.toolCalls, e.ToolCallID, "tool call", false)
	case *event.ToolCallEnd:
		return active(c.toolCalls, e.ToolCallID, "tool call", true)
	case *event.ReasoningStart:
		return open(c.spans, e.MessageID, "reasoning span")
	case *event.ReasoningEnd:
		return active(c.spans, e.MessageID, "reasoning span", true)
	case *event.ReasoningMessageStart:
		return open(c.reasoning, e.MessageID, "reasoning message")
	case *event.ReasoningMessageContent:
		return active(c.reasoning, e.MessageID, "reasoning message", false)
	case *event.ReasoningMessageEnd:
		return active(c.reasoning, e.MessageID, "reasoning message", true)
	case *event.StepStarted:
		k := keyOf(e.SubagentRunID)
		if c.steps[k] == nil {
			c.steps[k] = map[string]bool{}
		}
		return open(c.steps[k], e.StepName, "step")
	case *event.StepFinished:
		k := keyOf(e.SubagentRunID)
		if c.steps[k] == nil {
			c.steps[k] = map[string]bool{}
		}
		return active(c.steps[k], e.StepName, "step", true)
	case *event.SubagentStarted:
		if c.subagents[e.SubagentRunID] {
			return fmt.Errorf("%w: subagent %q", ErrSeqAlreadyActive, e.SubagentRunID)
		}
		if c.closedSubagents[e.SubagentRunID] {
			return fmt.Errorf("%w: %q", ErrSeqSubagentReused, e.SubagentRunID)
		}
		if p := e.ParentSubagentRunID; p != nil && !c.subagents[*p] && !c.closedSubagents[*p] {
			return fmt.Errorf("%w: parent subagent %q", ErrSeqNotActive, *p)
		}
		c.subagents[e.SubagentRunID] = true
	case *event.SubagentFinished:
		return c.endSubagent(e.SubagentRunID)
	case *event.SubagentError:
		return c.endSubagent(e.SubagentRunID)
	case *event.RunFinished:
		var open []string
		for k, steps := range c.steps {
			if len(steps) > 0 {
				open = append(open, fmt.Sprintf("steps %s (%s)", names(steps), k))
			}
		}
		sort.Strings(open)
		for _, x := range []struct {
			what string
			set  map[string]bool
		}{{"text messages", c.messages}, {"reasoning messages", c.reasoning}, {"reasoning spans", c.spans}, {"tool calls", c.toolCalls}, {"subagents", c.subagents}} {
			if len(x.set) > 0 {
				open = append(open, x.what+" "+names(x.set))
			}
		}
		if len(open) > 0 {
			return fmt.Errorf("%w: %s", ErrSeqOpenAtFinish, strings.Join(open, "; "))
		}
		c.finished = true
	case *event.RunError:
		c.errored = true
	case *event.RunStarted:
		c.started = true
	}
	return nil
}

func (c *checker) endSubagent(id string) error {
	if !c.subagents[id] {
		return fmt.Errorf("%w: subagent %q", ErrSeqNotActive, id)
	}
	delete(c.subagents, id)
	c.closedSubagents[id] = true
	return nil
}
