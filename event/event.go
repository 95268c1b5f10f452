package event

import "reflect"

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

// allTypes lists the 31 types in the order of the protobuf EventType enum
// (whose value is the index here).
var allTypes = [...]Type{
	TypeTextMessageStart, TypeTextMessageContent, TypeTextMessageEnd,
	TypeToolCallStart, TypeToolCallArgs, TypeToolCallEnd,
	TypeStateSnapshot, TypeStateDelta, TypeMessagesSnapshot,
	TypeRaw, TypeCustom,
	TypeRunStarted, TypeRunFinished, TypeRunError,
	TypeStepStarted, TypeStepFinished,
	TypeSubagentStarted, TypeSubagentFinished, TypeSubagentError,
	TypeTextMessageChunk, TypeToolCallChunk, TypeToolCallResult,
	TypeActivitySnapshot, TypeActivityDelta,
	TypeReasoningStart, TypeReasoningMessageStart, TypeReasoningMessageContent,
	TypeReasoningMessageEnd, TypeReasoningMessageChunk, TypeReasoningEnd,
	TypeReasoningEncryptedValue,
}

// goTypes maps each type name to the Go type of its events (the pointer
// type New returns), for telling this package's events from look-alikes.
var goTypes = func() map[Type]reflect.Type {
	m := map[Type]reflect.Type{}
	for _, t := range append(allTypes[:], TypeThinkingStart, TypeThinkingEnd, TypeThinkingTextMessageStart, TypeThinkingTextMessageContent, TypeThinkingTextMessageEnd) {
		m[t] = reflect.TypeOf(New(t))
	}
	return m
}()

// Types returns the 31 AG-UI 1.0 event types, in protobuf EventType order.
func Types() []Type { return append([]Type(nil), allTypes[:]...) }

// IsThinking reports whether t is one of the pre-1.0 THINKING_* types.
func (t Type) IsThinking() bool {
	switch t {
	case TypeThinkingStart, TypeThinkingEnd, TypeThinkingTextMessageStart,
		TypeThinkingTextMessageContent, TypeThinkingTextMessageEnd:
		return true
	}
	return false
}

// Known reports whether t is one of the 31 event types of AG-UI 1.0.
func (t Type) Known() bool {
	for _, k := range allTypes {
		if t == k {
			return true
		}
	}
	return false
}

// Event is any AG-UI event. The concrete types are the pointer types of this
// package (*TextMessageContent, *RunStarted, ...), plus *Thinking for the
// pre-1.0 THINKING_* events.
type Event interface {
	// Type returns the event's type name.
	Type() Type
	// BaseEvent returns the fields every event carries.
	BaseEvent() *Base
}

// New returns a new zero event of type t, or nil for a type this package
// does not know.
func New(t Type) Event {
	switch t {
	case TypeTextMessageStart:
		return new(TextMessageStart)
	case TypeTextMessageContent:
		return new(TextMessageContent)
	case TypeTextMessageEnd:
		return new(TextMessageEnd)
	case TypeToolCallStart:
		return new(ToolCallStart)
	case TypeToolCallArgs:
		return new(ToolCallArgs)
	case TypeToolCallEnd:
		return new(ToolCallEnd)
	case TypeStateSnapshot:
		return new(StateSnapshot)
	case TypeStateDelta:
		return new(StateDelta)
	case TypeMessagesSnapshot:
		return new(MessagesSnapshot)
	case TypeRaw:
		return new(Raw)
	case TypeCustom:
		return new(Custom)
	case TypeRunStarted:
		return new(RunStarted)
	case TypeRunFinished:
		return new(RunFinished)
	case TypeRunError:
		return new(RunError)
	case TypeStepStarted:
		return new(StepStarted)
	case TypeStepFinished:
		return new(StepFinished)
	case TypeSubagentStarted:
		return new(SubagentStarted)
	case TypeSubagentFinished:
		return new(SubagentFinished)
	case TypeSubagentError:
		return new(SubagentError)
	case TypeTextMessageChunk:
		return new(TextMessageChunk)
	case TypeToolCallChunk:
		return new(ToolCallChunk)
	case TypeToolCallResult:
		return new(ToolCallResult)
	case TypeActivitySnapshot:
		return new(ActivitySnapshot)
	case TypeActivityDelta:
		return new(ActivityDelta)
	case TypeReasoningStart:
		return new(ReasoningStart)
	case TypeReasoningMessageStart:
		return new(ReasoningMessageStart)
	case TypeReasoningMessageContent:
		return new(ReasoningMessageContent)
	case TypeReasoningMessageEnd:
		return new(ReasoningMessageEnd)
	case TypeReasoningMessageChunk:
		return new(ReasoningMessageChunk)
	case TypeReasoningEnd:
		return new(ReasoningEnd)
	case TypeReasoningEncryptedValue:
		return new(ReasoningEncryptedValue)
	case TypeThinkingStart, TypeThinkingEnd, TypeThinkingTextMessageStart,
		TypeThinkingTextMessageContent, TypeThinkingTextMessageEnd:
		return &Thinking{Kind: t}
	}
	return nil
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
