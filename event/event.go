package event

// Type is an event type name as it appears in the JSON "type" field, such as
// "TEXT_MESSAGE_CONTENT".
type Type string

// The 31 event types of AG-UI 1.0.
const (
	TypeTextMessageStart        Type = "TEXT_MESSAGE_START"
	TypeTextMessageContent      Type = "TEXT_MESSAGE_CONTENT"
	TypeTextMessageEnd          Type = "TEXT_MESSAGE_END"
	TypeToolCallStart           Type = "TOOL_CALL_START"
	TypeToolCallArgs            Type = "TOOL_CALL_ARGS"
	TypeToolCallEnd             Type = "TOOL_CALL_END"
	TypeStateSnapshot           Type = "STATE_SNAPSHOT"
	TypeStateDelta              Type = "STATE_DELTA"
	TypeMessagesSnapshot        Type = "MESSAGES_SNAPSHOT"
	TypeRaw                     Type = "RAW"
	TypeCustom                  Type = "CUSTOM"
	TypeRunStarted              Type = "RUN_STARTED"
	TypeRunFinished             Type = "RUN_FINISHED"
	TypeRunError                Type = "RUN_ERROR"
	TypeStepStarted             Type = "STEP_STARTED"
	TypeStepFinished            Type = "STEP_FINISHED"
	TypeSubagentStarted         Type = "SUBAGENT_STARTED"
	TypeSubagentFinished        Type = "SUBAGENT_FINISHED"
	TypeSubagentError           Type = "SUBAGENT_ERROR"
	TypeTextMessageChunk        Type = "TEXT_MESSAGE_CHUNK"
	TypeToolCallChunk           Type = "TOOL_CALL_CHUNK"
	TypeToolCallResult          Type = "TOOL_CALL_RESULT"
	TypeActivitySnapshot        Type = "ACTIVITY_SNAPSHOT"
	TypeActivityDelta           Type = "ACTIVITY_DELTA"
	TypeReasoningStart          Type = "REASONING_START"
	TypeReasoningMessageStart   Type = "REASONING_MESSAGE_START"
	TypeReasoningMessageContent Type = "REASONING_MESSAGE_CONTENT"
	TypeReasoningMessageEnd     Type = "REASONING_MESSAGE_END"
	TypeReasoningMessageChunk   Type = "REASONING_MESSAGE_CHUNK"
	TypeReasoningEnd            Type = "REASONING_END"
	TypeReasoningEncryptedValue Type = "REASONING_ENCRYPTED_VALUE"
)

// The pre-1.0 THINKING_* types: JSON only, parsed into *Thinking.
const (
	TypeThinkingStart              Type = "THINKING_START"
	TypeThinkingEnd                Type = "THINKING_END"
	TypeThinkingTextMessageStart   Type = "THINKING_TEXT_MESSAGE_START"
	TypeThinkingTextMessageContent Type = "THINKING_TEXT_MESSAGE_CONTENT"
	TypeThinkingTextMessageEnd     Type = "THINKING_TEXT_MESSAGE_END"
)

// Event is any AG-UI event. The concrete types are the pointer types of this
// package (*TextMessageContent, *RunStarted, ...), plus *Thinking for the
// pre-1.0 THINKING_* events.
type Event interface {
	// Type returns the event's type name.
	Type() Type
	// BaseEvent returns the fields every event carries.
	BaseEvent() *Base
}

func (*TextMessageStart) Type() Type        { return TypeTextMessageStart }
func (*TextMessageContent) Type() Type      { return TypeTextMessageContent }
func (*TextMessageEnd) Type() Type          { return TypeTextMessageEnd }
func (*TextMessageChunk) Type() Type        { return TypeTextMessageChunk }
func (*ToolCallStart) Type() Type           { return TypeToolCallStart }
func (*ToolCallArgs) Type() Type            { return TypeToolCallArgs }
func (*ToolCallEnd) Type() Type             { return TypeToolCallEnd }
func (*ToolCallChunk) Type() Type           { return TypeToolCallChunk }
func (*ToolCallResult) Type() Type          { return TypeToolCallResult }
func (*StateSnapshot) Type() Type           { return TypeStateSnapshot }
func (*StateDelta) Type() Type              { return TypeStateDelta }
func (*MessagesSnapshot) Type() Type        { return TypeMessagesSnapshot }
func (*ActivitySnapshot) Type() Type        { return TypeActivitySnapshot }
func (*ActivityDelta) Type() Type           { return TypeActivityDelta }
func (*Raw) Type() Type                     { return TypeRaw }
func (*Custom) Type() Type                  { return TypeCustom }
func (*RunStarted) Type() Type              { return TypeRunStarted }
func (*RunFinished) Type() Type             { return TypeRunFinished }
func (*RunError) Type() Type                { return TypeRunError }
func (*StepStarted) Type() Type             { return TypeStepStarted }
func (*StepFinished) Type() Type            { return TypeStepFinished }
func (*ReasoningStart) Type() Type          { return TypeReasoningStart }
func (*ReasoningMessageStart) Type() Type   { return TypeReasoningMessageStart }
func (*ReasoningMessageContent) Type() Type { return TypeReasoningMessageContent }
func (*ReasoningMessageEnd) Type() Type     { return TypeReasoningMessageEnd }
func (*ReasoningMessageChunk) Type() Type   { return TypeReasoningMessageChunk }
func (*ReasoningEnd) Type() Type            { return TypeReasoningEnd }
func (*ReasoningEncryptedValue) Type() Type { return TypeReasoningEncryptedValue }
func (*SubagentStarted) Type() Type         { return TypeSubagentStarted }
func (*SubagentFinished) Type() Type        { return TypeSubagentFinished }
func (*SubagentError) Type() Type           { return TypeSubagentError }

// Type returns the THINKING_* type the event was parsed from.
func (e *Thinking) Type() Type { return e.Kind }
