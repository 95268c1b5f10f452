package event

// The struct tags below drive both the JSON form (package event) and the
// protobuf wire form (package codec):
// `agui:"<json name>,<field number>[,option...]"`, or `agui:"<json name>,flat"`.
//
// How a Go field type maps:
//
//	string       required in JSON (always written); proto3 string, omitted when ""
//	*string      optional (JSON null reads as absent); proto3 optional string
//	*bool        optional bool
//	*int64       optional int64 (must be a JSON integer)
//	RawValue     google.protobuf.Value, any JSON; with ",opt" a JSON null reads as absent
//	Object       google.protobuf.Struct, a JSON object; null is refused
//	[]T          repeated; with ",opt" optional in JSON and omitted when empty,
//	             otherwise required and always written
//	T, *T        nested message (a pointer is optional)
//	[]string     repeated string
//
// Options (internal/schema reads them; event/rules.go holds the rules each
// type adds, applied by every path):
//
//	opt             optional in JSON (see above)
//	req             a repeated field or object JSON must carry; an object
//	                the wire leaves out decodes as {}
//	enum=NAME       a string that is a protobuf enum on the wire (patchop)
//	in=NAME         a string restricted to a set of values (role)
//	flat            an optional message whose fields the wire carries
//	                inline in the parent, at their own numbers (outcomes)
//	always=F=V      an optional list JSON carries even when empty, when the
//	                sibling string field F holds V
//	nilabsent       a list JSON leaves out when nil and writes when empty
//	since=1.1       a field a later protocol version added: a 1.0 reader or
//	                writer treats it as undeclared (see Later)

// Base holds the fields every event carries.
type Base struct {
	// Timestamp is the producer's time for the event, usually milliseconds
	// since the Unix epoch. Nil when the event has none.
	Timestamp *int64 `agui:"timestamp,2"`
	// RawEvent is the provider's original event, as JSON, if the producer kept it.
	RawEvent RawValue `agui:"rawEvent,3,opt"`
	// Metadata is the event's metadata object: nil when absent, "{}" when empty.
	Metadata Object `agui:"metadata,4"`
}

// BaseEvent returns the fields common to every event.
func (b *Base) BaseEvent() *Base { return b }

// TextMessageStart opens a streamed text message.
type TextMessageStart struct {
	Base
	MessageID     string  `agui:"messageId,2"`
	Role          *string `agui:"role,3,in=textrole"`
	Name          *string `agui:"name,4"`
	SubagentRunID *string `agui:"subagentRunId,5"`
}

// TextMessageContent appends a fragment to a streamed text message.
type TextMessageContent struct {
	Base
	MessageID     string  `agui:"messageId,2"`
	Delta         string  `agui:"delta,3"`
	SubagentRunID *string `agui:"subagentRunId,4"`
}

// TextMessageEnd closes a streamed text message.
type TextMessageEnd struct {
	Base
	MessageID     string  `agui:"messageId,2"`
	SubagentRunID *string `agui:"subagentRunId,3"`
}

// TextMessageChunk is a self-describing fragment that a client expands into
// start, content and end events.
type TextMessageChunk struct {
	Base
	MessageID     *string `agui:"messageId,2"`
	Role          *string `agui:"role,3,in=textrole"`
	Delta         *string `agui:"delta,4"`
	Name          *string `agui:"name,5"`
	SubagentRunID *string `agui:"subagentRunId,6"`
}

// ToolCallStart opens a tool call.
type ToolCallStart struct {
	Base
	ToolCallID      string  `agui:"toolCallId,2"`
	ToolCallName    string  `agui:"toolCallName,3"`
	ParentMessageID *string `agui:"parentMessageId,4"`
	SubagentRunID   *string `agui:"subagentRunId,5"`
}

// ToolCallArgs appends a fragment of a tool call's JSON arguments.
type ToolCallArgs struct {
	Base
	ToolCallID    string  `agui:"toolCallId,2"`
	Delta         string  `agui:"delta,3"`
	SubagentRunID *string `agui:"subagentRunId,4"`
}

// ToolCallEnd closes a tool call.
type ToolCallEnd struct {
	Base
	ToolCallID    string  `agui:"toolCallId,2"`
	SubagentRunID *string `agui:"subagentRunId,3"`
}

// ToolCallChunk is a self-describing tool call fragment.
type ToolCallChunk struct {
	Base
	ToolCallID      *string `agui:"toolCallId,2"`
	ToolCallName    *string `agui:"toolCallName,3"`
	ParentMessageID *string `agui:"parentMessageId,4"`
	Delta           *string `agui:"delta,5"`
	SubagentRunID   *string `agui:"subagentRunId,6"`
}

// ToolCallResult carries what a tool returned; it creates a tool message.
// Its JSON "content" is either a string (Content) or an array of content
// parts (Parts); exactly one is set.
type ToolCallResult struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
	ToolCallID    string  `agui:"toolCallId,4"`
	// Content is the result as a string.
	Content *string `agui:"content,5"`
	Role    *string `agui:"role,6,in=toolrole"`
	// Parts is the result as content parts; non-nil (possibly empty) when the
	// JSON content is an array.
	Parts []ContentPart `agui:"content,7"`
}

// StateSnapshot replaces the agent state.
type StateSnapshot struct {
	Base
	Snapshot      RawValue `agui:"snapshot,2"`
	SubagentRunID *string  `agui:"subagentRunId,3"`
}

// StateDelta changes the agent state with a JSON Patch.
type StateDelta struct {
	Base
	Delta         []PatchOp `agui:"delta,2,req"`
	SubagentRunID *string   `agui:"subagentRunId,3"`
}

// MessagesSnapshot carries the complete list of messages.
type MessagesSnapshot struct {
	Base
	Messages []Message `agui:"messages,2,req"`
}

// ActivitySnapshot reports structured progress shown as an activity message.
type ActivitySnapshot struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
	ActivityType  string  `agui:"activityType,4"`
	Content       Object  `agui:"content,5,req"`
	Replace       *bool   `agui:"replace,6"`
}

// ActivityDelta changes an activity message's content with a JSON Patch.
type ActivityDelta struct {
	Base
	SubagentRunID *string   `agui:"subagentRunId,2"`
	MessageID     string    `agui:"messageId,3"`
	ActivityType  string    `agui:"activityType,4"`
	Patch         []PatchOp `agui:"patch,5,req"`
}

// Raw passes a provider-native event through untranslated.
type Raw struct {
	Base
	Event         RawValue `agui:"event,2"`
	Source        *string  `agui:"source,3"`
	SubagentRunID *string  `agui:"subagentRunId,4"`
}

// Custom is an application-defined event.
type Custom struct {
	Base
	Name          string   `agui:"name,2"`
	Value         RawValue `agui:"value,3"`
	SubagentRunID *string  `agui:"subagentRunId,4"`
}

// RunStarted opens a run.
type RunStarted struct {
	Base
	ThreadID        string         `agui:"threadId,2"`
	RunID           string         `agui:"runId,3"`
	ParentRunID     *string        `agui:"parentRunId,4"`
	Input           *RunAgentInput `agui:"input,5"`
	ProtocolVersion *string        `agui:"protocolVersion,6"`
}

// RunFinished closes a run.
type RunFinished struct {
	Base
	ThreadID string   `agui:"threadId,2"`
	RunID    string   `agui:"runId,3"`
	Result   RawValue `agui:"result,4,opt"`
	// Outcome is how the run ended; nil when the producer did not say.
	// On the wire it is flattened into fields 5, 6 and 8.
	Outcome *RunOutcome `agui:"outcome,flat"`
	Usage   []Usage     `agui:"usage,7,opt"`
}

// RunOutcome is RUN_FINISHED's outcome: {"type":"success"}, "interrupt" or
// "cancelled"; AG-UI 1.0 knows no other, and neither path accepts one.
type RunOutcome struct {
	Type string `agui:"type,5"`
	// Interrupts lists what the run needs before it can go on (interrupt outcome).
	Interrupts []Interrupt `agui:"interrupts,6,opt,always=Type=interrupt"`
	// PendingToolCallIDs names frontend tool calls left for the application
	// to answer (success outcome).
	PendingToolCallIDs []string `agui:"pendingToolCallIds,8,opt"`
}

// Outcome types of RUN_FINISHED and SUBAGENT_FINISHED.
const (
	OutcomeSuccess   = "success"
	OutcomeInterrupt = "interrupt"
	OutcomeCancelled = "cancelled"
	OutcomeSuspended = "suspended"
)

// RunError reports that a run failed.
type RunError struct {
	Base
	Code    *string `agui:"code,2"`
	Message string  `agui:"message,3"`
	Usage   []Usage `agui:"usage,4,opt"`
}

// StepStarted opens a step of a run.
type StepStarted struct {
	Base
	StepName      string  `agui:"stepName,2"`
	SubagentRunID *string `agui:"subagentRunId,3"`
}

// StepFinished closes a step of a run.
type StepFinished struct {
	Base
	StepName      string  `agui:"stepName,2"`
	SubagentRunID *string `agui:"subagentRunId,3"`
}

// ReasoningStart opens a span of reasoning.
type ReasoningStart struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
}

// ReasoningMessageStart opens a streamed reasoning message.
type ReasoningMessageStart struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
	Role          string  `agui:"role,4,in=reasoningrole"`
}

// ReasoningMessageContent appends to a streamed reasoning message.
type ReasoningMessageContent struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
	Delta         string  `agui:"delta,4"`
}

// ReasoningMessageEnd closes a streamed reasoning message.
type ReasoningMessageEnd struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
}

// ReasoningMessageChunk is a self-describing reasoning fragment.
type ReasoningMessageChunk struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     *string `agui:"messageId,3"`
	Delta         *string `agui:"delta,4"`
}

// ReasoningEnd closes a span of reasoning.
type ReasoningEnd struct {
	Base
	SubagentRunID *string `agui:"subagentRunId,2"`
	MessageID     string  `agui:"messageId,3"`
}

// ReasoningEncryptedValue attaches an encrypted reasoning value to a tool
// call or message.
type ReasoningEncryptedValue struct {
	Base
	SubagentRunID  *string `agui:"subagentRunId,2"`
	Subtype        string  `agui:"subtype,3,in=encryptedsubtype"`
	EntityID       string  `agui:"entityId,4"`
	EncryptedValue string  `agui:"encryptedValue,5"`
	// EncryptedValueType is what kind of artefact EncryptedValue is (AG-UI
	// 1.1): a consumer stores it with the value, and an event without one
	// removes the stored type.
	EncryptedValueType *string `agui:"encryptedValueType,6,since=1.1"`
}

// SubagentStarted opens a subagent invocation.
type SubagentStarted struct {
	Base
	SubagentRunID       string  `agui:"subagentRunId,2"`
	Name                string  `agui:"name,3"`
	Description         *string `agui:"description,4"`
	ParentSubagentRunID *string `agui:"parentSubagentRunId,5"`
	ParentToolCallID    *string `agui:"parentToolCallId,6"`
	ParentMessageID     *string `agui:"parentMessageId,7"`
}

// SubagentFinished closes a subagent invocation.
type SubagentFinished struct {
	Base
	SubagentRunID string   `agui:"subagentRunId,2"`
	Result        RawValue `agui:"result,3,opt"`
	// Outcome is nil when the producer did not say; on the wire it is
	// flattened into fields 4 and 5.
	Outcome *SubagentOutcome `agui:"outcome,flat"`
}

// SubagentOutcome is SUBAGENT_FINISHED's outcome: "success" or "suspended".
type SubagentOutcome struct {
	Type         string   `agui:"type,4"`
	InterruptIDs []string `agui:"interruptIds,5,opt"`
}

// SubagentError reports that a subagent invocation failed.
type SubagentError struct {
	Base
	SubagentRunID string  `agui:"subagentRunId,2"`
	Message       string  `agui:"message,3"`
	Code          *string `agui:"code,4"`
}

// Thinking is one of the pre-1.0 THINKING_* events (THINKING_START,
// THINKING_END, THINKING_TEXT_MESSAGE_START, _CONTENT, _END). They were
// removed from the 1.0 event set and never had a protobuf form: the JSON is
// kept verbatim so an SSE stream can still forward it, and the codec refuses
// it with ErrNoWireForm.
type Thinking struct {
	Base
	Kind Type
	// JSON is the event's original JSON object text.
	JSON []byte
}

// Message is one message of a conversation, any of the seven roles. Which
// content field is used depends on the role: Content for a string,
// Parts for content parts (user and tool), ActivityContent for an activity
// message's object.
type Message struct {
	ID   string `agui:"id,1"`
	Role string `agui:"role,2,in=role"`
	// Content is string content.
	Content *string `agui:"content,3"`
	Name    *string `agui:"name,4"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls  []ToolCall `agui:"toolCalls,5,opt"`
	ToolCallID *string    `agui:"toolCallId,6"`
	Error      *string    `agui:"error,7"`
	// Parts is content as parts (user and tool roles); non-nil, possibly
	// empty, when the JSON content is an array.
	Parts          []ContentPart `agui:"content,8"`
	Metadata       Object        `agui:"metadata,9"`
	SubagentRunID  *string       `agui:"subagentRunId,10"`
	EncryptedValue *string       `agui:"encryptedValue,11"`
	ActivityType   *string       `agui:"activityType,12"`
	// ActivityContent is an activity message's content object.
	ActivityContent Object `agui:"content,13"`
	// EncryptedValueType is what kind of artefact EncryptedValue is (AG-UI
	// 1.1); never set without EncryptedValue.
	EncryptedValueType *string `agui:"encryptedValueType,14,since=1.1"`
}

// The seven message roles of AG-UI 1.0.
const (
	RoleDeveloper = "developer"
	RoleSystem    = "system"
	RoleAssistant = "assistant"
	RoleUser      = "user"
	RoleTool      = "tool"
	RoleActivity  = "activity"
	RoleReasoning = "reasoning"
)

// ToolCall is a call an assistant message made.
type ToolCall struct {
	ID             string       `agui:"id,1"`
	Type           string       `agui:"type,2,in=toolcalltype"`
	Function       FunctionCall `agui:"function,3"`
	Metadata       Object       `agui:"metadata,4"`
	EncryptedValue *string      `agui:"encryptedValue,5"`
	// EncryptedValueType is what kind of artefact EncryptedValue is (AG-UI
	// 1.1); never set without EncryptedValue.
	EncryptedValueType *string `agui:"encryptedValueType,6,since=1.1"`
}

// FunctionCall is the name and JSON arguments of a tool call.
type FunctionCall struct {
	Name      string `agui:"name,1"`
	Arguments string `agui:"arguments,2"`
}

// ContentPart is one part of a message body. Type is "text", "image",
// "audio", "video" or "document"; Text is used by text parts, Source by the
// media parts. Metadata is any JSON value.
//
// The retired "binary" part is accepted in JSON and becomes a document part
// with marker metadata {"legacyBinary":true,...}, as the other peers send it.
type ContentPart struct {
	Type     string
	ID       *string
	Text     string
	Source   *Source
	Metadata RawValue
}

// Content part types.
const (
	PartText     = "text"
	PartImage    = "image"
	PartAudio    = "audio"
	PartVideo    = "video"
	PartDocument = "document"
)

// Source says where a media part's bytes are: Type "data" (inline, Value is
// the data and MimeType required), "url" or "file" (a provider's handle).
type Source struct {
	Type     string
	Value    string
	MimeType *string
	Provider *string
}

// Source types.
const (
	SourceData = "data"
	SourceURL  = "url"
	SourceFile = "file"
)

// PatchOp is one RFC 6902 JSON Patch operation. Op is "add", "remove",
// "replace", "move", "copy" or "test"; every path refuses anything else
// (including the wire's numbers for them, and numbers with no name).
type PatchOp struct {
	Op    string   `agui:"op,1,enum=patchop"`
	Path  string   `agui:"path,2"`
	From  *string  `agui:"from,3"`
	Value RawValue `agui:"value,4"`
}

// Tool is a tool the agent may call.
type Tool struct {
	Name        string   `agui:"name,1"`
	Description string   `agui:"description,2"`
	Parameters  RawValue `agui:"parameters,3,opt"`
	Metadata    Object   `agui:"metadata,4"`
}

// Context is a named piece of ambient information for a run.
type Context struct {
	Description string `agui:"description,1"`
	Value       string `agui:"value,2"`
}

// ResumeEntry answers one interrupt on the run that continues from it.
type ResumeEntry struct {
	InterruptID string   `agui:"interruptId,1"`
	Status      string   `agui:"status,2,in=resumestatus"` // ResumeResolved or ResumeCancelled
	Payload     RawValue `agui:"payload,3,opt"`
	Metadata    Object   `agui:"metadata,4"`
}

// RunAgentInput is the request body that starts a run, echoed back in
// RUN_STARTED.input.
type RunAgentInput struct {
	ThreadID        string        `agui:"threadId,1"`
	RunID           string        `agui:"runId,2"`
	ParentRunID     *string       `agui:"parentRunId,3"`
	State           RawValue      `agui:"state,4,opt"`
	Messages        []Message     `agui:"messages,5,req"`
	Tools           []Tool        `agui:"tools,6"`
	Context         []Context     `agui:"context,7"`
	ForwardedProps  RawValue      `agui:"forwardedProps,8,opt"`
	Resume          []ResumeEntry `agui:"resume,9,nilabsent"`
	ProtocolVersion *string       `agui:"protocolVersion,10"`
}

// Interrupt is something a run needs from outside before it can continue.
type Interrupt struct {
	ID             string   `agui:"id,1"`
	Reason         string   `agui:"reason,2"`
	Message        *string  `agui:"message,3"`
	ToolCallID     *string  `agui:"toolCallId,4"`
	ResponseSchema RawValue `agui:"responseSchema,5,opt"`
	ExpiresAt      *string  `agui:"expiresAt,6"`
	Metadata       RawValue `agui:"metadata,7,opt"`
	SubagentRunID  *string  `agui:"subagentRunId,8"`
}

// Usage reports token usage. Each count is optional: a reported 0 differs
// from a count that was not reported.
type Usage struct {
	Provider              *string `agui:"provider,1"`
	Model                 *string `agui:"model,2"`
	InputTokens           *int64  `agui:"inputTokens,3"`
	OutputTokens          *int64  `agui:"outputTokens,4"`
	TotalTokens           *int64  `agui:"totalTokens,5"`
	ReasoningTokens       *int64  `agui:"reasoningTokens,6"`
	CachedInputTokens     *int64  `agui:"cachedInputTokens,7"`
	CacheWriteInputTokens *int64  `agui:"cacheWriteInputTokens,8"`
}

// The statuses of a resume entry (ResumeEntry.Status).
const (
	// ResumeResolved answers the interrupt, usually with a Payload.
	ResumeResolved = "resolved"
	// ResumeCancelled declines it; the only answer an expired interrupt
	// takes.
	ResumeCancelled = "cancelled"
)
