package assemble

import (
	"errors"
	"fmt"

	"github.com/agwire/agwire/event"
)

// Chunk expansion. TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and
// REASONING_MESSAGE_CHUNK are expanded into start/content/end events the
// way the TypeScript client expands them: each agent (the parent, or a
// subagent named by subagentRunId) has one lane holding at most one open
// chunked stream. A chunk for a different entity in the same lane closes
// the open stream first; most other events of that lane close it too, and
// RUN_*, RUN_ERROR and MESSAGES_SNAPSHOT close every lane. A close is a
// synthetic end event without metadata.

// Errors of chunk expansion, wrapped in a *SequenceError.
var (
	// ErrChunkNoID: a chunk that opens a stream has no messageId/toolCallId.
	ErrChunkNoID = errors.New("the first chunk of a stream must carry its id")
	// ErrChunkNoName: a TOOL_CALL_CHUNK that opens a tool call has no toolCallName.
	ErrChunkNoName = errors.New("the first TOOL_CALL_CHUNK must carry toolCallName")
	// ErrChunkMismatch: a continuing chunk contradicts the open stream
	// (role, name, toolCallName, parentMessageId or subagentRunId).
	ErrChunkMismatch = errors.New("chunk does not match the open stream")
	// ErrChunkAmbiguous: a chunk with neither id nor subagentRunId while
	// several lanes have a stream of its kind open.
	ErrChunkAmbiguous = errors.New("chunk names no stream and several are open")
)

type laneKey struct {
	set bool
	v   string
}

func keyOf(p *string) laneKey {
	if p == nil {
		return laneKey{}
	}
	return laneKey{true, *p}
}

func (k laneKey) ptr() *string {
	if !k.set {
		return nil
	}
	return strPtr(k.v)
}

func (k laneKey) String() string {
	if !k.set {
		return "the parent agent"
	}
	return fmt.Sprintf("subagent %q", k.v)
}

type laneKind uint8

const (
	laneText laneKind = iota + 1
	laneTool
	laneReasoning
)

type pending struct {
	kind     laneKind
	id       string
	role     string  // text
	name     *string // text name
	toolName string
	parent   *string // tool parentMessageId
	subagent *string
}

type lanes struct {
	open  map[laneKey]*pending
	order []laneKey // insertion order, for closing all
}

func (l *lanes) close(k laneKey) []event.Event {
	p := l.open[k]
	if p == nil {
		return nil
	}
	delete(l.open, k)
	for i, x := range l.order {
		if x == k {
			l.order = append(l.order[:i], l.order[i+1:]...)
			break
		}
	}
	switch p.kind {
	case laneText:
		return []event.Event{&event.TextMessageEnd{MessageID: p.id, SubagentRunID: p.subagent}}
	case laneTool:
		return []event.Event{&event.ToolCallEnd{ToolCallID: p.id, SubagentRunID: p.subagent}}
	}
	return []event.Event{&event.ReasoningMessageEnd{MessageID: p.id, SubagentRunID: p.subagent}}
}

func (l *lanes) closeAll() []event.Event {
	var out []event.Event
	for len(l.order) > 0 {
		out = append(out, l.close(l.order[0])...)
	}
	return out
}

func (l *lanes) set(k laneKey, p *pending) {
	if l.open == nil {
		l.open = map[laneKey]*pending{}
	}
	if _, ok := l.open[k]; !ok {
		l.order = append(l.order, k)
	}
	l.open[k] = p
}

// resolve picks the lane a chunk belongs to.
func (l *lanes) resolve(kind laneKind, id, tag *string) (laneKey, error) {
	if id != nil {
		for _, k := range l.order {
			p := l.open[k]
			if p.kind == kind && p.id == *id {
				if tag != nil && keyOf(tag) != k {
					return k, fmt.Errorf("%w: subagentRunId %q, but %q is open under %s", ErrChunkMismatch, *tag, *id, k)
				}
				return k, nil
			}
		}
		return keyOf(tag), nil
	}
	if tag != nil {
		return keyOf(tag), nil
	}
	if p := l.open[laneKey{}]; p != nil && p.kind == kind {
		return laneKey{}, nil
	}
	var found []laneKey
	for _, k := range l.order {
		if l.open[k].kind == kind {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return laneKey{}, nil
	case 1:
		return found[0], nil
	}
	return laneKey{}, fmt.Errorf("%w (%d lanes)", ErrChunkAmbiguous, len(found))
}

func agree(field string, incoming, established *string) error {
	if incoming == nil || (established != nil && *incoming == *established) {
		return nil
	}
	was := "absent"
	if established != nil {
		was = fmt.Sprintf("%q", *established)
	}
	return fmt.Errorf("%w: %s %q, the open stream's is %s", ErrChunkMismatch, field, *incoming, was)
}

// subagentOf returns an event's subagentRunId, the lane it belongs to.
func subagentOf(ev event.Event) *string {
	switch e := ev.(type) {
	case *event.TextMessageStart:
		return e.SubagentRunID
	case *event.TextMessageContent:
		return e.SubagentRunID
	case *event.TextMessageEnd:
		return e.SubagentRunID
	case *event.ToolCallStart:
		return e.SubagentRunID
	case *event.ToolCallArgs:
		return e.SubagentRunID
	case *event.ToolCallEnd:
		return e.SubagentRunID
	case *event.ToolCallResult:
		return e.SubagentRunID
	case *event.StateSnapshot:
		return e.SubagentRunID
	case *event.StateDelta:
		return e.SubagentRunID
	case *event.Custom:
		return e.SubagentRunID
	case *event.StepStarted:
		return e.SubagentRunID
	case *event.StepFinished:
		return e.SubagentRunID
	case *event.ReasoningStart:
		return e.SubagentRunID
	case *event.ReasoningMessageStart:
		return e.SubagentRunID
	case *event.ReasoningMessageContent:
		return e.SubagentRunID
	case *event.ReasoningMessageEnd:
		return e.SubagentRunID
	case *event.ReasoningEnd:
		return e.SubagentRunID
	case *event.SubagentFinished:
		return &e.SubagentRunID
	case *event.SubagentError:
		return &e.SubagentRunID
	}
	return nil
}

// expand returns the events ev stands for: itself, after the closes it
// causes, or the expansion of a chunk.
func (l *lanes) expand(ev event.Event) ([]event.Event, error) {
	switch e := ev.(type) {
	case *event.TextMessageChunk:
		return l.textChunk(e)
	case *event.ToolCallChunk:
		return l.toolChunk(e)
	case *event.ReasoningMessageChunk:
		return l.reasoningChunk(e)
	case *event.RunStarted, *event.RunFinished, *event.RunError, *event.MessagesSnapshot:
		if len(l.order) == 0 {
			return []event.Event{ev}, nil
		}
		return append(l.closeAll(), ev), nil
	case *event.Raw, *event.ActivitySnapshot, *event.ActivityDelta, *event.ReasoningEncryptedValue, *event.SubagentStarted:
		return []event.Event{ev}, nil
	}
	if len(l.order) == 0 {
		return []event.Event{ev}, nil
	}
	return append(l.close(keyOf(subagentOf(ev))), ev), nil
}

func withMeta(b event.Base, md event.Object) event.Base {
	b.Metadata = md
	return b
}

func (l *lanes) textChunk(c *event.TextMessageChunk) ([]event.Event, error) {
	lane, err := l.resolve(laneText, c.MessageID, c.SubagentRunID)
	if err != nil {
		return nil, err
	}
	var out []event.Event
	p := l.open[lane]
	if p != nil && p.kind == laneText && (c.MessageID == nil || *c.MessageID == p.id) {
		if err := agree("role", c.Role, &p.role); err != nil {
			return nil, err
		}
		if err := agree("name", c.Name, p.name); err != nil {
			return nil, err
		}
	} else {
		out = append(out, l.close(lane)...)
		if c.MessageID == nil {
			return nil, fmt.Errorf("%w (TEXT_MESSAGE_CHUNK without messageId)", ErrChunkNoID)
		}
		role := event.RoleAssistant
		if c.Role != nil {
			role = *c.Role
		}
		p = &pending{kind: laneText, id: *c.MessageID, role: role, name: c.Name, subagent: c.SubagentRunID}
		l.set(lane, p)
		out = append(out, &event.TextMessageStart{Base: withMeta(event.Base{}, c.Metadata), MessageID: p.id,
			Role: strPtr(role), Name: c.Name, SubagentRunID: c.SubagentRunID})
	}
	owner := c.SubagentRunID
	if owner == nil {
		owner = p.subagent
	}
	if c.Delta != nil || c.RawEvent != nil || (len(out) == 0 && c.Metadata != nil) {
		delta := ""
		if c.Delta != nil {
			delta = *c.Delta
		}
		out = append(out, &event.TextMessageContent{Base: event.Base{Metadata: c.Metadata, RawEvent: c.RawEvent},
			MessageID: p.id, Delta: delta, SubagentRunID: owner})
	}
	return out, nil
}

func (l *lanes) toolChunk(c *event.ToolCallChunk) ([]event.Event, error) {
	lane, err := l.resolve(laneTool, c.ToolCallID, c.SubagentRunID)
	if err != nil {
		return nil, err
	}
	var out []event.Event
	p := l.open[lane]
	if p != nil && p.kind == laneTool && (c.ToolCallID == nil || *c.ToolCallID == p.id) {
		if err := agree("toolCallName", c.ToolCallName, &p.toolName); err != nil {
			return nil, err
		}
		if err := agree("parentMessageId", c.ParentMessageID, p.parent); err != nil {
			return nil, err
		}
	} else {
		out = append(out, l.close(lane)...)
		if c.ToolCallID == nil {
			return nil, fmt.Errorf("%w (TOOL_CALL_CHUNK without toolCallId)", ErrChunkNoID)
		}
		if c.ToolCallName == nil {
			return nil, ErrChunkNoName
		}
		p = &pending{kind: laneTool, id: *c.ToolCallID, toolName: *c.ToolCallName, parent: c.ParentMessageID, subagent: c.SubagentRunID}
		l.set(lane, p)
		out = append(out, &event.ToolCallStart{Base: withMeta(event.Base{}, c.Metadata), ToolCallID: p.id,
			ToolCallName: p.toolName, ParentMessageID: c.ParentMessageID, SubagentRunID: c.SubagentRunID})
	}
	owner := c.SubagentRunID
	if owner == nil {
		owner = p.subagent
	}
	if c.Delta != nil || c.RawEvent != nil || (len(out) == 0 && c.Metadata != nil) {
		delta := ""
		if c.Delta != nil {
			delta = *c.Delta
		}
		out = append(out, &event.ToolCallArgs{Base: event.Base{Metadata: c.Metadata, RawEvent: c.RawEvent},
			ToolCallID: p.id, Delta: delta, SubagentRunID: owner})
	}
	return out, nil
}

func (l *lanes) reasoningChunk(c *event.ReasoningMessageChunk) ([]event.Event, error) {
	lane, err := l.resolve(laneReasoning, c.MessageID, c.SubagentRunID)
	if err != nil {
		return nil, err
	}
	var out []event.Event
	p := l.open[lane]
	if !(p != nil && p.kind == laneReasoning && (c.MessageID == nil || *c.MessageID == p.id)) {
		out = append(out, l.close(lane)...)
		if c.MessageID == nil {
			return nil, fmt.Errorf("%w (REASONING_MESSAGE_CHUNK without messageId)", ErrChunkNoID)
		}
		p = &pending{kind: laneReasoning, id: *c.MessageID, subagent: c.SubagentRunID}
		l.set(lane, p)
		out = append(out, &event.ReasoningMessageStart{Base: withMeta(event.Base{}, c.Metadata), MessageID: p.id,
			Role: event.RoleReasoning, SubagentRunID: c.SubagentRunID})
	}
	owner := c.SubagentRunID
	if owner == nil {
		owner = p.subagent
	}
	if c.Delta != nil || c.RawEvent != nil || (len(out) == 0 && c.Metadata != nil) {
		delta := ""
		if c.Delta != nil {
			delta = *c.Delta
		}
		out = append(out, &event.ReasoningMessageContent{Base: event.Base{Metadata: c.Metadata, RawEvent: c.RawEvent},
			MessageID: p.id, Delta: delta, SubagentRunID: owner})
	}
	return out, nil
}
