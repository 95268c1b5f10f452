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
	// ErrSeqWrongAgent: an event's subagentRunId names another agent than
	// the one that owns the message, tool call, reasoning message or
	// activity it addresses (the agent whose event opened it).
	ErrSeqWrongAgent = errors.New("subagentRunId does not match the owner")
)

type checker struct {
	first, started, finished, errored bool

	messages, toolCalls, spans, reasoning map[string]bool
	steps                                 map[laneKey]map[string]bool
	subagents, closedSubagents            map[string]bool
	// The agent owning each message, tool call, reasoning message and
	// activity: the one whose event opened it.
	ownMessage, ownTool, ownReasoning, ownActivity map[string]laneKey
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
	c.ownMessage, c.ownTool, c.ownReasoning, c.ownActivity = map[string]laneKey{}, map[string]laneKey{}, map[string]laneKey{}, map[string]laneKey{}
	c.finished, c.errored, c.started = false, false, true
}

// owned checks that tag, when given, names the owner of id in owners.
func owned(owners map[string]laneKey, id, what string, tag *string) error {
	if tag == nil {
		return nil
	}
	if o, ok := owners[id]; ok && o != keyOf(tag) {
		return fmt.Errorf("%w: subagentRunId %q, but %s %q belongs to %s", ErrSeqWrongAgent, *tag, what, id, o)
	}
	return nil
}

// claim records the owner of a newly opened id.
func claim(owners map[string]laneKey, id string, tag *string) {
	if _, ok := owners[id]; !ok {
		owners[id] = keyOf(tag)
	}
}

// seed records the owners of the messages a snapshot (authoritative) or a
// run's input carries.
func (c *checker) seed(msgs []event.Message, authoritative bool) {
	for i := range msgs {
		m := &msgs[i]
		owners := c.ownMessage
		switch m.Role {
		case event.RoleReasoning:
			owners = c.ownReasoning
		case event.RoleActivity:
			owners = c.ownActivity
		}
		if _, ok := owners[m.ID]; authoritative || !ok {
			owners[m.ID] = keyOf(m.SubagentRunID)
		}
		for _, tc := range m.ToolCalls {
			if _, ok := c.ownTool[tc.ID]; authoritative || !ok {
				c.ownTool[tc.ID] = keyOf(m.SubagentRunID)
			}
		}
	}
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
		if c.messages[e.MessageID] {
			return fmt.Errorf("%w: text message %q", ErrSeqAlreadyActive, e.MessageID)
		}
		if err := owned(c.ownMessage, e.MessageID, "message", e.SubagentRunID); err != nil {
			return err
		}
		claim(c.ownMessage, e.MessageID, e.SubagentRunID)
		return open(c.messages, e.MessageID, "text message")
	case *event.TextMessageContent:
		if err := active(c.messages, e.MessageID, "text message", false); err != nil {
			return err
		}
		return owned(c.ownMessage, e.MessageID, "message", e.SubagentRunID)
	case *event.TextMessageEnd:
		if err := active(c.messages, e.MessageID, "text message", false); err != nil {
			return err
		}
		if err := owned(c.ownMessage, e.MessageID, "message", e.SubagentRunID); err != nil {
			return err
		}
		delete(c.messages, e.MessageID)
	case *event.ToolCallStart:
		return c.toolCallStart(e)
	case *event.ToolCallArgs:
		if err := active(c.toolCalls, e.ToolCallID, "tool call", false); err != nil {
			return err
		}
		return owned(c.ownTool, e.ToolCallID, "tool call", e.SubagentRunID)
	case *event.ToolCallEnd:
		if err := active(c.toolCalls, e.ToolCallID, "tool call", false); err != nil {
			return err
		}
		if err := owned(c.ownTool, e.ToolCallID, "tool call", e.SubagentRunID); err != nil {
			return err
		}
		delete(c.toolCalls, e.ToolCallID)
	case *event.ReasoningStart:
		return c.reasoningOpen(c.spans, e.MessageID, "reasoning span", e.SubagentRunID)
	case *event.ReasoningEnd:
		return c.reasoningClose(c.spans, e.MessageID, "reasoning span", e.SubagentRunID, true)
	case *event.ReasoningMessageStart:
		return c.reasoningOpen(c.reasoning, e.MessageID, "reasoning message", e.SubagentRunID)
	case *event.ReasoningMessageContent:
		return c.reasoningClose(c.reasoning, e.MessageID, "reasoning message", e.SubagentRunID, false)
	case *event.ReasoningMessageEnd:
		return c.reasoningClose(c.reasoning, e.MessageID, "reasoning message", e.SubagentRunID, true)
	case *event.ReasoningEncryptedValue:
		switch e.Subtype {
		case "tool-call":
			return owned(c.ownTool, e.EntityID, "tool call", e.SubagentRunID)
		case "message":
			if _, ok := c.ownMessage[e.EntityID]; ok {
				return owned(c.ownMessage, e.EntityID, "message", e.SubagentRunID)
			}
		}
		return owned(c.ownReasoning, e.EntityID, "reasoning message", e.SubagentRunID)
	case *event.ActivitySnapshot:
		if _, ok := c.ownActivity[e.MessageID]; !ok || e.Replace == nil || *e.Replace {
			c.ownActivity[e.MessageID] = keyOf(e.SubagentRunID)
		}
	case *event.ActivityDelta:
		return owned(c.ownActivity, e.MessageID, "activity", e.SubagentRunID)
	case *event.ToolCallResult:
		c.ownMessage[e.MessageID] = keyOf(e.SubagentRunID)
	case *event.MessagesSnapshot:
		c.seed(e.Messages, true)
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
		if e.Input != nil {
			c.seed(e.Input.Messages, false)
		}
	}
	return nil
}

func (c *checker) toolCallStart(e *event.ToolCallStart) error {
	if c.toolCalls[e.ToolCallID] {
		return fmt.Errorf("%w: tool call %q", ErrSeqAlreadyActive, e.ToolCallID)
	}
	var inherited *laneKey
	if p := e.ParentMessageID; p != nil {
		if o, ok := c.ownMessage[*p]; ok {
			if e.SubagentRunID != nil && keyOf(e.SubagentRunID) != o {
				return fmt.Errorf("%w: subagentRunId %q, but the parent message %q belongs to %s", ErrSeqWrongAgent, *e.SubagentRunID, *p, o)
			}
			inherited = &o
		}
	}
	if o, ok := c.ownTool[e.ToolCallID]; ok {
		if err := owned(c.ownTool, e.ToolCallID, "tool call", e.SubagentRunID); err != nil {
			return err
		}
		if e.SubagentRunID == nil && inherited != nil && *inherited != o {
			return fmt.Errorf("%w: tool call %q belongs to %s, its parent message to %s", ErrSeqWrongAgent, e.ToolCallID, o, *inherited)
		}
	} else {
		switch {
		case e.SubagentRunID != nil:
			c.ownTool[e.ToolCallID] = keyOf(e.SubagentRunID)
		case inherited != nil:
			c.ownTool[e.ToolCallID] = *inherited
		default:
			c.ownTool[e.ToolCallID] = laneKey{}
		}
	}
	c.toolCalls[e.ToolCallID] = true
	return nil
}

func (c *checker) reasoningOpen(set map[string]bool, id, what string, tag *string) error {
	if set[id] {
		return fmt.Errorf("%w: %s %q", ErrSeqAlreadyActive, what, id)
	}
	if err := owned(c.ownReasoning, id, "reasoning message", tag); err != nil {
		return err
	}
	claim(c.ownReasoning, id, tag)
	set[id] = true
	return nil
}

func (c *checker) reasoningClose(set map[string]bool, id, what string, tag *string, end bool) error {
	if err := active(set, id, what, false); err != nil {
		return err
	}
	if err := owned(c.ownReasoning, id, "reasoning message", tag); err != nil {
		return err
	}
	if end {
		delete(set, id)
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
