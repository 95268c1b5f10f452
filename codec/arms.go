package codec

import "github.com/agwire/agwire/event"

// arms lists the event type carried by each arm of the Event envelope's
// oneof; the index is the field number. This numbering differs from the
// EventType enum's (see enumValue).
var arms = [...]event.Type{
	1:  event.TypeTextMessageStart,
	2:  event.TypeTextMessageContent,
	3:  event.TypeTextMessageEnd,
	4:  event.TypeToolCallStart,
	5:  event.TypeToolCallArgs,
	6:  event.TypeToolCallEnd,
	7:  event.TypeStateSnapshot,
	8:  event.TypeStateDelta,
	9:  event.TypeMessagesSnapshot,
	10: event.TypeRaw,
	11: event.TypeCustom,
	12: event.TypeRunStarted,
	13: event.TypeRunFinished,
	14: event.TypeRunError,
	15: event.TypeStepStarted,
	16: event.TypeStepFinished,
	17: event.TypeTextMessageChunk,
	18: event.TypeToolCallChunk,
	19: event.TypeSubagentStarted,
	20: event.TypeSubagentFinished,
	21: event.TypeSubagentError,
	22: event.TypeToolCallResult,
	23: event.TypeActivitySnapshot,
	24: event.TypeActivityDelta,
	25: event.TypeReasoningStart,
	26: event.TypeReasoningMessageStart,
	27: event.TypeReasoningMessageContent,
	28: event.TypeReasoningMessageEnd,
	29: event.TypeReasoningMessageChunk,
	30: event.TypeReasoningEnd,
	31: event.TypeReasoningEncryptedValue,
}

// maxArm is the highest envelope field number of AG-UI 1.0; preV1MaxArm the
// highest a pre-1.0 peer knows (arms 1..18).
const (
	maxArm      = 31
	preV1MaxArm = 18
)

type typeInfo struct {
	arm  int32 // envelope field number
	enum int32 // EventType enum value
}

var typeInfos = func() map[event.Type]typeInfo {
	m := make(map[event.Type]typeInfo, maxArm)
	for arm := int32(1); arm <= maxArm; arm++ {
		m[arms[arm]] = typeInfo{arm: arm}
	}
	for i, t := range event.Types() {
		ti := m[t]
		ti.enum = int32(i)
		m[t] = ti
	}
	return m
}()

// Arm returns the Event envelope field number that carries events of type t,
// and false for a type with no protobuf form.
func Arm(t event.Type) (int32, bool) {
	ti, ok := typeInfos[t]
	return ti.arm, ok
}

// Supports reports whether the profile's wire can carry events of type t.
func (p Profile) Supports(t event.Type) bool {
	ti, ok := typeInfos[t]
	if !ok {
		return false
	}
	if p == PreV1 {
		return ti.arm <= preV1MaxArm
	}
	return true
}

// patchOps names the JsonPatchOperationType enum values.
var patchOps = [...]string{"add", "remove", "replace", "move", "copy", "test"}
