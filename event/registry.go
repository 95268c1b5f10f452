package event

import (
	"fmt"
	"reflect"
)

// The registry is the one list of event types. Everything else that varies
// by event type — New, Types, the JSON reader's and writer's tables, the
// codec's envelope arms, profiles and generated coders — is derived from it
// or checked against it when its package initialises, so a type cannot be
// half-registered: a missing or duplicated entry panics at init, naming the
// type. (The assembler's dispatch is held to it by a test, and refuses at
// run time a type it has no case for.)
//
// Adding an event type takes: its message in proto/ag_ui/events.proto (and
// its arm in the Event envelope), a struct with `agui` tags in types.go, a
// Type constant and Type method, one line below, its rules in rules.go if
// it has any, and a golden case in interop/fixtures/events.jsonl
// (interop/regen-golden.sh has the real peer encode it); then
// `go generate ./codec`. TestRegistryRecipe (package codec) fails when one
// of those steps is missing.
var registry = [...]Info{
	// Name                      Go type                               arm enum pre-1.0
	{TypeTextMessageStart, func() Event { return new(TextMessageStart) }, 1, 0, true},
	{TypeTextMessageContent, func() Event { return new(TextMessageContent) }, 2, 1, true},
	{TypeTextMessageEnd, func() Event { return new(TextMessageEnd) }, 3, 2, true},
	{TypeToolCallStart, func() Event { return new(ToolCallStart) }, 4, 3, true},
	{TypeToolCallArgs, func() Event { return new(ToolCallArgs) }, 5, 4, true},
	{TypeToolCallEnd, func() Event { return new(ToolCallEnd) }, 6, 5, true},
	{TypeStateSnapshot, func() Event { return new(StateSnapshot) }, 7, 6, true},
	{TypeStateDelta, func() Event { return new(StateDelta) }, 8, 7, true},
	{TypeMessagesSnapshot, func() Event { return new(MessagesSnapshot) }, 9, 8, true},
	{TypeRaw, func() Event { return new(Raw) }, 10, 9, true},
	{TypeCustom, func() Event { return new(Custom) }, 11, 10, true},
	{TypeRunStarted, func() Event { return new(RunStarted) }, 12, 11, true},
	{TypeRunFinished, func() Event { return new(RunFinished) }, 13, 12, true},
	{TypeRunError, func() Event { return new(RunError) }, 14, 13, true},
	{TypeStepStarted, func() Event { return new(StepStarted) }, 15, 14, true},
	{TypeStepFinished, func() Event { return new(StepFinished) }, 16, 15, true},
	{TypeSubagentStarted, func() Event { return new(SubagentStarted) }, 19, 16, false},
	{TypeSubagentFinished, func() Event { return new(SubagentFinished) }, 20, 17, false},
	{TypeSubagentError, func() Event { return new(SubagentError) }, 21, 18, false},
	{TypeTextMessageChunk, func() Event { return new(TextMessageChunk) }, 17, 19, true},
	{TypeToolCallChunk, func() Event { return new(ToolCallChunk) }, 18, 20, true},
	{TypeToolCallResult, func() Event { return new(ToolCallResult) }, 22, 21, false},
	{TypeActivitySnapshot, func() Event { return new(ActivitySnapshot) }, 23, 22, false},
	{TypeActivityDelta, func() Event { return new(ActivityDelta) }, 24, 23, false},
	{TypeReasoningStart, func() Event { return new(ReasoningStart) }, 25, 24, false},
	{TypeReasoningMessageStart, func() Event { return new(ReasoningMessageStart) }, 26, 25, false},
	{TypeReasoningMessageContent, func() Event { return new(ReasoningMessageContent) }, 27, 26, false},
	{TypeReasoningMessageEnd, func() Event { return new(ReasoningMessageEnd) }, 28, 27, false},
	{TypeReasoningMessageChunk, func() Event { return new(ReasoningMessageChunk) }, 29, 28, false},
	{TypeReasoningEnd, func() Event { return new(ReasoningEnd) }, 30, 29, false},
	{TypeReasoningEncryptedValue, func() Event { return new(ReasoningEncryptedValue) }, 31, 30, false},
	// The pre-1.0 THINKING_* types: JSON only, kept verbatim in *Thinking;
	// no protobuf form (arm 0, enum -1).
	{TypeThinkingStart, func() Event { return &Thinking{Kind: TypeThinkingStart} }, 0, -1, false},
	{TypeThinkingEnd, func() Event { return &Thinking{Kind: TypeThinkingEnd} }, 0, -1, false},
	{TypeThinkingTextMessageStart, func() Event { return &Thinking{Kind: TypeThinkingTextMessageStart} }, 0, -1, false},
	{TypeThinkingTextMessageContent, func() Event { return &Thinking{Kind: TypeThinkingTextMessageContent} }, 0, -1, false},
	{TypeThinkingTextMessageEnd, func() Event { return &Thinking{Kind: TypeThinkingTextMessageEnd} }, 0, -1, false},
}

// Info describes one registered event type.
type Info struct {
	// Type is the name in the JSON "type" field.
	Type Type
	// New returns a new zero event of the type.
	New func() Event
	// Arm is the field number of the Event envelope's oneof arm that
	// carries the type, 0 for a type with no protobuf form.
	Arm int32
	// Enum is the type's EventType enum value, -1 for a type with no
	// protobuf form. It differs from Arm: the enum and the envelope were
	// numbered in different orders.
	Enum int32
	// PreV1 is true when pre-1.0 peers know the type's arm.
	PreV1 bool
}

// Wire reports whether the type has a protobuf form.
func (i Info) Wire() bool { return i.Arm != 0 }

// registered is the registry by type name; goTypes the Go type (a pointer
// type) of each; wireTypes the types with a protobuf form, in EventType
// enum order.
var (
	registered map[Type]*Info
	goTypes    map[Type]reflect.Type
	wireTypes  []Type
)

func init() { registered, goTypes, wireTypes = indexRegistry(registry[:]) }

// indexRegistry indexes the registry and panics, naming the type, on an
// entry that disagrees with itself or with another.
func indexRegistry(entries []Info) (registered map[Type]*Info, goTypes map[Type]reflect.Type, wireTypes []Type) {
	registered, goTypes = map[Type]*Info{}, map[Type]reflect.Type{}
	byArm := map[int32]Type{}
	byEnum := map[int32]Type{}
	for i := range entries {
		in := &entries[i]
		bad := func(format string, args ...any) {
			panic(fmt.Sprintf("event: registry entry %s: %s", in.Type, fmt.Sprintf(format, args...)))
		}
		if in.Type == "" {
			bad("empty type name (entry %d)", i)
		}
		if _, dup := registered[in.Type]; dup {
			bad("registered twice")
		}
		ev := in.New()
		if ev == nil || ev.Type() != in.Type {
			bad("New makes %T, whose Type() is not %s", ev, in.Type)
		}
		// (Two entries cannot share a Go type: Type() is a method of it.)
		gt := reflect.TypeOf(ev)
		switch {
		case in.Arm == 0 && (in.Enum != -1 || in.PreV1):
			bad("a type with no protobuf form has enum -1 and is not pre-1.0")
		case in.Arm < 0 || (in.Arm > 0 && in.Enum < 0):
			bad("arm %d, enum %d", in.Arm, in.Enum)
		}
		if in.Arm > 0 {
			if prev, dup := byArm[in.Arm]; dup {
				bad("envelope arm %d is also %s", in.Arm, prev)
			}
			if prev, dup := byEnum[in.Enum]; dup {
				bad("EventType enum value %d is also %s", in.Enum, prev)
			}
			byArm[in.Arm], byEnum[in.Enum] = in.Type, in.Type
		}
		registered[in.Type] = in
		goTypes[in.Type] = gt
	}
	// Enum values are dense from 0: Types() is indexed by them.
	wireTypes = make([]Type, len(byEnum))
	for e, t := range byEnum {
		if int(e) >= len(wireTypes) {
			panic(fmt.Sprintf("event: registry entry %s: EventType enum values are not dense (%d of %d)", t, e, len(wireTypes)))
		}
		wireTypes[e] = t
	}
	return registered, goTypes, wireTypes
}

// Registry returns every registered event type: the 31 of AG-UI 1.0 in
// EventType enum order, then the pre-1.0 THINKING_* types.
func Registry() []Info { return append([]Info(nil), registry[:]...) }

// Lookup returns the registry entry of t.
func Lookup(t Type) (Info, bool) {
	in, ok := registered[t]
	if !ok {
		return Info{}, false
	}
	return *in, true
}

// Types returns the 31 AG-UI 1.0 event types, in protobuf EventType order.
func Types() []Type { return append([]Type(nil), wireTypes...) }

// New returns a new zero event of type t, or nil for a type this package
// does not know.
func New(t Type) Event {
	if in, ok := registered[t]; ok {
		return in.New()
	}
	return nil
}

// IsThinking reports whether t is one of the pre-1.0 THINKING_* types.
func (t Type) IsThinking() bool {
	in, ok := registered[t]
	return ok && !in.Wire()
}

// Known reports whether t is one of the 31 event types of AG-UI 1.0.
func (t Type) Known() bool {
	in, ok := registered[t]
	return ok && in.Wire()
}
