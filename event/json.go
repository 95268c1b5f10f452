package event

// encoding/json support: every event type marshals to, and unmarshals from,
// its AG-UI JSON form, so events can sit inside other JSON documents.
// Unmarshalling into a concrete type requires a matching "type" field; use
// Parse when the type is not known in advance.

import ()

// unmarshalInto parses data into the event ev points to, which must be of
// the type the JSON names.
func unmarshalInto(ev Event, data []byte) error {
	_, err := Parser{}.parse(append([]byte(nil), data...), ev)
	return err
}

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *Thinking) MarshalJSON() ([]byte, error) { return Marshal(e) }

// MarshalJSON returns the JSON form of the request body.
func (in *RunAgentInput) MarshalJSON() ([]byte, error) { return MarshalRunAgentInput(in) }

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
func (e *TextMessageStart) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageStart's.
func (e *TextMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *TextMessageContent) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageContent's.
func (e *TextMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *TextMessageEnd) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageEnd's.
func (e *TextMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *TextMessageChunk) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be TextMessageChunk's.
func (e *TextMessageChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ToolCallStart) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallStart's.
func (e *ToolCallStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ToolCallArgs) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallArgs's.
func (e *ToolCallArgs) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ToolCallEnd) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallEnd's.
func (e *ToolCallEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ToolCallChunk) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallChunk's.
func (e *ToolCallChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ToolCallResult) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ToolCallResult's.
func (e *ToolCallResult) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *StateSnapshot) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StateSnapshot's.
func (e *StateSnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *StateDelta) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StateDelta's.
func (e *StateDelta) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *MessagesSnapshot) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be MessagesSnapshot's.
func (e *MessagesSnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ActivitySnapshot) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ActivitySnapshot's.
func (e *ActivitySnapshot) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ActivityDelta) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ActivityDelta's.
func (e *ActivityDelta) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *Raw) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be Raw's.
func (e *Raw) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *Custom) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be Custom's.
func (e *Custom) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *RunStarted) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be RunStarted's.
func (e *RunStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *RunFinished) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be RunFinished's.
func (e *RunFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *RunError) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be RunError's.
func (e *RunError) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *StepStarted) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StepStarted's.
func (e *StepStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *StepFinished) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be StepFinished's.
func (e *StepFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningStart) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningStart's.
func (e *ReasoningStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningMessageStart) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageStart's.
func (e *ReasoningMessageStart) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningMessageContent) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageContent's.
func (e *ReasoningMessageContent) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningMessageEnd) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageEnd's.
func (e *ReasoningMessageEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningMessageChunk) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningMessageChunk's.
func (e *ReasoningMessageChunk) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningEnd) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningEnd's.
func (e *ReasoningEnd) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *ReasoningEncryptedValue) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be ReasoningEncryptedValue's.
func (e *ReasoningEncryptedValue) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *SubagentStarted) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be SubagentStarted's.
func (e *SubagentStarted) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *SubagentFinished) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be SubagentFinished's.
func (e *SubagentFinished) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }

// MarshalJSON returns the AG-UI JSON form of the event.
func (e *SubagentError) MarshalJSON() ([]byte, error) { return Marshal(e) }

// UnmarshalJSON parses the AG-UI JSON form; "type" must be SubagentError's.
func (e *SubagentError) UnmarshalJSON(data []byte) error { return unmarshalInto(e, data) }
