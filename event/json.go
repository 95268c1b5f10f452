package event

// encoding/json support: every exported type marshals to, and unmarshals
// from, its AG-UI JSON form, by value and by pointer, so events and their
// parts can sit inside other JSON documents. Unmarshalling into a concrete
// event type requires a matching "type" field; use Parse when the type is
// not known in advance.

import (
	"fmt"
	"reflect"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// unmarshalInto parses data into the event ev points to, which must be of
// the type the JSON names.
func unmarshalInto(ev Event, data []byte) error {
	_, err := Parser{}.parse(append([]byte(nil), data...), ev)
	return exported(err)
}

// MarshalJSON returns the event's JSON text.
func (e Thinking) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON reads a pre-1.0 THINKING_* event; any other type is
// refused with ErrInvalidField.
func (e *Thinking) UnmarshalJSON(data []byte) error {
	ev, err := Parse(data)
	if err != nil {
		return err
	}
	th, ok := ev.(*Thinking)
	if !ok {
		return &PathError{Path: "type", Offset: -1, Err: fmt.Errorf("%w: %s is not a THINKING_* event", ErrInvalidField, ev.Type())}
	}
	*e = *th
	return nil
}

// MarshalJSON returns the JSON form of the request body.
func (in RunAgentInput) MarshalJSON() ([]byte, error) { return marshalRunAgentInput(&in) }

// UnmarshalJSON parses a request body with the default Parser.
func (in *RunAgentInput) UnmarshalJSON(data []byte) error {
	v, err := Parser{}.ParseRunAgentInput(data)
	if err != nil {
		return err
	}
	*in = *v
	return nil
}

// MarshalJSON returns the AG-UI JSON form of the event.
func (e TextMessageStart) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageStart's.
func (e *TextMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e TextMessageContent) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageContent's.
func (e *TextMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e TextMessageEnd) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageEnd's.
func (e *TextMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e TextMessageChunk) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageChunk's.
func (e *TextMessageChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ToolCallStart) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallStart's.
func (e *ToolCallStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ToolCallArgs) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallArgs's.
func (e *ToolCallArgs) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ToolCallEnd) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallEnd's.
func (e *ToolCallEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ToolCallChunk) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallChunk's.
func (e *ToolCallChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ToolCallResult) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallResult's.
func (e *ToolCallResult) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e StateSnapshot) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StateSnapshot's.
func (e *StateSnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e StateDelta) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StateDelta's.
func (e *StateDelta) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e MessagesSnapshot) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be MessagesSnapshot's.
func (e *MessagesSnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ActivitySnapshot) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ActivitySnapshot's.
func (e *ActivitySnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ActivityDelta) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ActivityDelta's.
func (e *ActivityDelta) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e Raw) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be Raw's.
func (e *Raw) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e Custom) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be Custom's.
func (e *Custom) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e RunStarted) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be RunStarted's.
func (e *RunStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e RunFinished) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be RunFinished's.
func (e *RunFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e RunError) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be RunError's.
func (e *RunError) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e StepStarted) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StepStarted's.
func (e *StepStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e StepFinished) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StepFinished's.
func (e *StepFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningStart) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningStart's.
func (e *ReasoningStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningMessageStart) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageStart's.
func (e *ReasoningMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningMessageContent) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageContent's.
func (e *ReasoningMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningMessageEnd) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageEnd's.
func (e *ReasoningMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningMessageChunk) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageChunk's.
func (e *ReasoningMessageChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningEnd) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningEnd's.
func (e *ReasoningEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e ReasoningEncryptedValue) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningEncryptedValue's.
func (e *ReasoningEncryptedValue) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e SubagentStarted) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be SubagentStarted's.
func (e *SubagentStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e SubagentFinished) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be SubagentFinished's.
func (e *SubagentFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e SubagentError) MarshalJSON() ([]byte, error) { return Marshal(&e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be SubagentError's.
func (e *SubagentError) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// The parts of events and of RunAgentInput marshal with the same field
// tables, checks included, as inside an event. (RunOutcome and
// SubagentOutcome have no JSON object of their own: their fields are
// flattened into RUN_FINISHED and SUBAGENT_FINISHED.)

// marshalPart writes the JSON form of *v, a type with a field table.
func marshalPart[T any](v *T) ([]byte, error) {
	w := writer{}
	var err error
	switch p := any(v).(type) {
	case *ContentPart:
		err = w.contentPart(p)
	default:
		plan := plans[reflect.TypeFor[T]()]
		if plan == nil {
			return nil, fmt.Errorf("event: no JSON form for %T", v)
		}
		err = w.object(plan, schema.PointerTo(v))
	}
	if err != nil {
		return nil, exported(err)
	}
	return w.b, nil
}

// unmarshalPart reads the JSON form of a T into *v, replacing it.
func unmarshalPart[T any](v *T, data []byte) error {
	r := reader{}
	r.s.AliasStrings = true // the copy below is the values' own
	r.s.Reset(append([]byte(nil), data...))
	var t T
	var err error
	switch p := any(&t).(type) {
	case *ContentPart:
		err = r.contentPart(p)
	case *Source:
		err = r.source(p)
	default:
		plan := plans[reflect.TypeFor[T]()]
		if plan == nil {
			return fmt.Errorf("event: no JSON form for %T", v)
		}
		err = r.object(plan, schema.PointerTo(&t), false)
	}
	if err == nil {
		err = r.s.End()
	}
	if err != nil {
		return exported(err)
	}
	*v = t
	return nil
}

// MarshalJSON returns the AG-UI JSON form of the message.
func (m Message) MarshalJSON() ([]byte, error) { return marshalPart(&m) }

// UnmarshalJSON reads the AG-UI JSON form of a message.
func (m *Message) UnmarshalJSON(data []byte) error { return unmarshalPart(m, data) }

// MarshalJSON returns the AG-UI JSON form of the tool call.
func (c ToolCall) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the AG-UI JSON form of a tool call.
func (c *ToolCall) UnmarshalJSON(data []byte) error { return unmarshalPart(c, data) }

// MarshalJSON returns the AG-UI JSON form of the function call.
func (f FunctionCall) MarshalJSON() ([]byte, error) { return marshalPart(&f) }

// UnmarshalJSON reads the AG-UI JSON form of a function call.
func (f *FunctionCall) UnmarshalJSON(data []byte) error { return unmarshalPart(f, data) }

// MarshalJSON returns the AG-UI JSON form of the content part.
func (cp ContentPart) MarshalJSON() ([]byte, error) { return marshalPart(&cp) }

// UnmarshalJSON reads the AG-UI JSON form of a content part.
func (cp *ContentPart) UnmarshalJSON(data []byte) error { return unmarshalPart(cp, data) }

// UnmarshalJSON reads the AG-UI JSON form of a content part's source.
func (s *Source) UnmarshalJSON(data []byte) error { return unmarshalPart(s, data) }

// MarshalJSON returns the AG-UI JSON form of the patch operation.
func (op PatchOp) MarshalJSON() ([]byte, error) { return marshalPart(&op) }

// UnmarshalJSON reads the AG-UI JSON form of a patch operation.
func (op *PatchOp) UnmarshalJSON(data []byte) error { return unmarshalPart(op, data) }

// MarshalJSON returns the AG-UI JSON form of the tool.
func (t Tool) MarshalJSON() ([]byte, error) { return marshalPart(&t) }

// UnmarshalJSON reads the AG-UI JSON form of a tool.
func (t *Tool) UnmarshalJSON(data []byte) error { return unmarshalPart(t, data) }

// MarshalJSON returns the AG-UI JSON form of the context entry.
func (c Context) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the AG-UI JSON form of a context entry.
func (c *Context) UnmarshalJSON(data []byte) error { return unmarshalPart(c, data) }

// MarshalJSON returns the AG-UI JSON form of the resume entry.
func (r ResumeEntry) MarshalJSON() ([]byte, error) { return marshalPart(&r) }

// UnmarshalJSON reads the AG-UI JSON form of a resume entry.
func (r *ResumeEntry) UnmarshalJSON(data []byte) error { return unmarshalPart(r, data) }

// MarshalJSON returns the AG-UI JSON form of the interrupt.
func (i Interrupt) MarshalJSON() ([]byte, error) { return marshalPart(&i) }

// UnmarshalJSON reads the AG-UI JSON form of an interrupt.
func (i *Interrupt) UnmarshalJSON(data []byte) error { return unmarshalPart(i, data) }

// MarshalJSON returns the AG-UI JSON form of the usage.
func (u Usage) MarshalJSON() ([]byte, error) { return marshalPart(&u) }

// UnmarshalJSON reads the AG-UI JSON form of a usage.
func (u *Usage) UnmarshalJSON(data []byte) error { return unmarshalPart(u, data) }

// MarshalJSON returns the AG-UI JSON form of a content part's source.
func (s Source) MarshalJSON() ([]byte, error) {
	if err := checkSource(&s); err != nil {
		return nil, exported(err)
	}
	if !validStrings(s.Type, s.Value, deref(s.MimeType), deref(s.Provider)) {
		return nil, exported(errInvalidUTF8())
	}
	b := append(make([]byte, 0, 32+len(s.Value)), `{"type":`...)
	b = jsonx.AppendString(b, s.Type)
	b = append(b, `,"value":`...)
	b = jsonx.AppendString(b, s.Value)
	if s.MimeType != nil {
		b = append(b, `,"mimeType":`...)
		b = jsonx.AppendString(b, *s.MimeType)
	}
	if s.Provider != nil {
		b = append(b, `,"provider":`...)
		b = jsonx.AppendString(b, *s.Provider)
	}
	return append(b, '}'), nil
}
