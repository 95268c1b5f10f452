package fuzz

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/codec/protoconv"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

// facts are what the protobuf runtime's reading of a frame shows, gathered
// by walking the generated message: the conditions under which agwire
// documents that it refuses a frame the runtime accepts.
type facts struct {
	noArm         bool // no event arm set
	twoArms       bool // the envelope names two different arms (runtime: the last wins)
	noBase        bool // the arm has no base_event
	typeMismatch  bool // base_event.type is not the arm's type
	nonFinite     bool // a NaN or ±Inf number Value
	noKind        bool // a Value with no kind (or a Struct entry without a value)
	wrongWireType bool // a known field with the wrong wire type (the runtime keeps it as an unknown field)
	unknownEnum   bool // an enum number with no name (event type, patch op)
	emptyOneof    bool // a content part or source with no arm, or a media part with no source
	badMessage    bool // a message whose role is unknown, or whose content carriers (or activity type) contradict it
	badResult     bool // a tool result with both string content and parts
	badOutcome    bool // outcome lists the outcome type does not carry
	badSet        bool // a restricted string outside its set
	unsafeInt     bool // an int64 field beyond ±(2^53-1)
	depth         int  // deepest Value nesting
}

var knownRoles = []string{"developer", "system", "assistant", "user", "tool", "activity", "reasoning"}

// textRoles are the roles a streamed text message may take.
var textRoles = []string{"developer", "system", "assistant", "user"}

func gatherFacts(m *aguipb.Event, data []byte) facts {
	var f facts
	// Arms, from the top-level fields of the bytes.
	arms := map[protowire.Number]bool{}
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		if num >= 1 && num <= 31 {
			arms[num] = true
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			break
		}
		b = b[n+m:]
	}
	f.twoArms = len(arms) > 1
	arm := m.ProtoReflect().WhichOneof(m.ProtoReflect().Descriptor().Oneofs().ByName("event"))
	if arm == nil {
		f.noArm = true
	} else {
		ev := m.ProtoReflect().Get(arm).Message()
		base := ev.Get(ev.Descriptor().Fields().ByName("base_event"))
		if !ev.Has(ev.Descriptor().Fields().ByName("base_event")) {
			f.noBase = true
		} else if typ := base.Message().Get(base.Message().Descriptor().Fields().ByName("type")).Enum(); typ != armEnum(arm) {
			f.typeMismatch = true
		}
	}
	walkFacts(m.ProtoReflect(), &f, 0)
	return f
}

// armEnum is the EventType of an Event arm: the enum whose name is the
// arm's name in upper case.
func armEnum(arm protoreflect.FieldDescriptor) protoreflect.EnumNumber {
	ed := (aguipb.EventType)(0).Descriptor()
	v := ed.Values().ByName(protoreflect.Name(strings.ToUpper(string(arm.Name()))))
	if v == nil {
		return -1
	}
	return v.Number()
}

func walkFacts(m protoreflect.Message, f *facts, depth int) {
	for b := []byte(m.GetUnknown()); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		if m.Descriptor().Fields().ByNumber(num) != nil {
			f.wrongWireType = true
		}
		k := protowire.ConsumeFieldValue(num, typ, b[n:])
		if k < 0 {
			break
		}
		b = b[n+k:]
	}
	switch msg := m.Interface().(type) {
	case *structpb.Value:
		f.depth = max(f.depth, depth)
		switch k := msg.GetKind().(type) {
		case nil:
			f.noKind = true
		case *structpb.Value_NumberValue:
			if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
				f.nonFinite = true
			}
		}
		depth++
	case *aguipb.InputContent:
		if msg.GetPart() == nil {
			f.emptyOneof = true
		}
		type sourced interface {
			GetSource() *aguipb.InputContentSource
		}
		for _, p := range []sourced{msg.GetImage(), msg.GetAudio(), msg.GetVideo(), msg.GetDocument()} {
			if !reflect.ValueOf(p).IsNil() && p.GetSource() == nil {
				f.emptyOneof = true // a media part without a source
			}
		}
	case *aguipb.InputContentSource:
		if msg.GetSource() == nil {
			f.emptyOneof = true
		}
	case *aguipb.Message:
		role := msg.GetRole()
		parts, act := len(msg.GetContentParts()) > 0, msg.GetActivityContent() != nil
		switch {
		case !slices.Contains(knownRoles, role),
			msg.Content != nil && (parts || act),
			parts && role != "user" && role != "tool",
			act && role != "activity",
			role == "activity" && msg.Content != nil,
			role != "activity" && msg.ActivityType != nil:
			f.badMessage = true
		}
	case *aguipb.ToolCallResultEvent:
		if msg.Content != nil && len(msg.GetContentParts()) > 0 {
			f.badResult = true
		}
		if msg.Role != nil && msg.GetRole() != "tool" {
			f.badSet = true
		}
	case *aguipb.TextMessageStartEvent:
		if msg.Role != nil && !slices.Contains(textRoles, msg.GetRole()) {
			f.badSet = true
		}
	case *aguipb.TextMessageChunkEvent:
		if msg.Role != nil && !slices.Contains(textRoles, msg.GetRole()) {
			f.badSet = true
		}
	case *aguipb.ReasoningMessageStartEvent:
		if msg.GetRole() != "reasoning" {
			f.badSet = true
		}
	case *aguipb.ReasoningEncryptedValueEvent:
		if s := msg.GetSubtype(); s != "tool-call" && s != "message" {
			f.badSet = true
		}
	case *aguipb.ToolCall:
		if msg.GetType() != "function" {
			f.badSet = true
		}
	case *aguipb.ResumeEntry:
		if s := msg.GetStatus(); s != "resolved" && s != "cancelled" {
			f.badSet = true
		}
	case *aguipb.RunFinishedEvent:
		o, ints, pend := msg.GetOutcome(), len(msg.GetInterrupts()) > 0, len(msg.GetPendingToolCallIds()) > 0
		if ints && o != "interrupt" || pend && o != "success" {
			f.badOutcome = true
		}
		if o != "" && o != "success" && o != "interrupt" && o != "cancelled" {
			f.badSet = true
		}
	case *aguipb.SubagentFinishedEvent:
		if len(msg.GetInterruptIds()) > 0 && msg.GetOutcome() != "suspended" {
			f.badOutcome = true
		}
		if o := msg.GetOutcome(); o != "" && o != "success" && o != "suspended" {
			f.badSet = true
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() == protoreflect.Int64Kind && !fd.IsList() && (v.Int() > 1<<53-1 || v.Int() < -(1<<53-1)) {
			f.unsafeInt = true
		}
		if fd.Enum() != nil && !fd.IsList() && fd.Enum().Values().ByNumber(v.Enum()) == nil {
			f.unknownEnum = true
		}
		switch {
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapValue().Message() != nil {
					walkFacts(mv.Message(), f, depth)
				}
				return true
			})
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				walkFacts(v.List().Get(i).Message(), f, depth)
			}
		case fd.Message() != nil:
			walkFacts(v.Message(), f, depth)
		}
		return true
	})
}

// documentedRefusal reports whether agwire's refusal err of a frame the
// protobuf runtime accepts is one agwire documents (codec's package doc,
// "Decoding"; mapping-1.0.md, "Envelope hardening on decode"), judged from
// what the runtime read, not from agwire's message. The list:
//
//   - ErrNonFinite: a NaN or ±Inf number, which JSON cannot spell.
//   - ErrUnknownEvent: no AG-UI 1.0 arm, only fields of a later protocol.
//   - ErrTooDeep: Values nested beyond Codec.MaxDepth (256).
//   - ErrUnsafeInteger: an int64 field (timestamp, token counts) beyond
//     ±(2^53-1), which JavaScript peers cannot decode.
//   - ErrBudget: a frame that would decode to more than the memory budget
//     (32 bytes per frame byte + 1 MiB by default), such as a million
//     empty messages.
//   - ErrMalformed, for: no arm or two different arms (the runtime keeps
//     the last); an arm without base_event, or whose base_event.type is not
//     the arm's; a Value with no kind or a Struct entry without a value
//     (the runtime reads an empty Value; JSON has no spelling for it); an
//     enum number with no name (event type, patch op); a content part or
//     source with no arm, a media part (image, audio, video, document)
//     without a source, which its JSON form requires; a part or source
//     with two arms (the runtime keeps the last, which
//     the facts cannot see, hence the message check); a message whose role
//     is unknown or whose carriers contradict it; a tool result with both
//     kinds of content; outcome lists the outcome does not carry; a string
//     outside the set @ag-ui/core 1.0's schema allows (text-message and
//     tool-result roles, the reasoning role, the encrypted value's
//     subtype, a tool call's type, a resume status, outcome types); a known
//     field with the wrong wire type (the runtime keeps it as an unknown
//     field).
func documentedRefusal(err error, f facts) bool {
	switch {
	case errors.Is(err, codec.ErrNonFinite):
		return f.nonFinite
	case errors.Is(err, codec.ErrUnknownEvent):
		return f.noArm
	case errors.Is(err, event.ErrTooDeep):
		return f.depth > codec.DefaultMaxDepth-8
	case errors.Is(err, codec.ErrBudget):
		return true
	case errors.Is(err, codec.ErrUnsafeInteger):
		return f.unsafeInt
	case errors.Is(err, codec.ErrMalformed):
		return f.noArm || f.twoArms || f.noBase || f.typeMismatch || f.noKind || f.unknownEnum || f.emptyOneof ||
			f.badMessage || f.badResult || f.badOutcome || f.badSet || f.wrongWireType ||
			strings.Contains(err.Error(), "carries more than one arm")
	}
	return false
}

// clearUnknown drops the unknown fields the runtime kept, everywhere
// (agwire skips them), gives an activity message without content the
// empty object agwire's encoder writes for it, and writes every null_value
// as NULL_VALUE (0): any number of that one-value enum means JSON null,
// which is how agwire reads it.
func clearUnknown(m protoreflect.Message) {
	m.SetUnknown(nil)
	if v, ok := m.Interface().(*structpb.Value); ok {
		if _, isNull := v.GetKind().(*structpb.Value_NullValue); isNull {
			v.Kind = &structpb.Value_NullValue{}
		}
	}
	if msg, ok := m.Interface().(*aguipb.Message); ok {
		// What agwire's decoder restores of a message (the required values
		// proto3 leaves out), and its encoder then writes.
		empty := ""
		switch msg.GetRole() {
		case "activity":
			if msg.ActivityContent == nil && msg.Content == nil && len(msg.ContentParts) == 0 {
				msg.ActivityContent = &structpb.Struct{}
			}
			if msg.ActivityType == nil {
				msg.ActivityType = &empty
			}
		case "developer", "system", "reasoning":
			if msg.Content == nil && len(msg.ContentParts) == 0 && msg.ActivityContent == nil {
				msg.Content = &empty
			}
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					clearUnknown(mv.Message())
					return true
				})
			}
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				clearUnknown(v.List().Get(i).Message())
			}
		case fd.Message() != nil:
			clearUnknown(v.Message())
		}
		return true
	})
}

// FuzzDifferential: agwire's decoder against the protobuf runtime
// (proto.Unmarshal into aguipb.Event) on arbitrary bytes.
//
// Acceptance: agwire never accepts what the runtime refuses; when it
// refuses what the runtime accepts, the reason is one of the documented
// refusals (documentedRefusal), checked against what the runtime read.
//
// The event: when both accept, (a) agwire's event, re-encoded, reads in
// the runtime as the very message the runtime read from the original
// bytes (proto.Equal, after dropping the unknown fields agwire skips):
// repeated singular fields, merged messages at any depth and repeated map
// keys included; (b) it equals, as JSON values, the event mapped from the
// runtime's message (protoconv.FromProto, which decodes the runtime's own
// canonical encoding); (c) no object in agwire's JSON repeats a key.
func FuzzDifferential(f *testing.F) {
	// A million empty messages costs protobuf-go a minute under the race
	// detector, and agwire refuses it (ErrBudget) without looking further;
	// a hundred thousand make the same point here (FuzzDecode has the
	// million).
	addWireSeeds(f, "a million empty messages")
	if !fuzzing() {
		f.Add(emptyMessages(100_000))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m aguipb.Event
		perr := proto.Unmarshal(data, &m)
		ev, err := codec.Unmarshal(data)
		switch {
		case perr != nil && err == nil:
			t.Fatalf("agwire accepts what protobuf-go refuses (%v): %x", perr, data)
		case perr != nil:
			return
		case err != nil:
			if !documentedRefusal(err, gatherFacts(&m, data)) {
				t.Fatalf("agwire refuses, protobuf-go accepts, and the reason is not a documented refusal: %v\nframe %x\nprotobuf-go %v",
					err, data, &m)
			}
			return
		}

		// (a) The message level.
		w, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatalf("a decoded event does not re-encode: %v", err)
		}
		var m2 aguipb.Event
		if err := proto.Unmarshal(w, &m2); err != nil {
			t.Fatalf("protobuf-go cannot read agwire's re-encoding: %v", err)
		}
		clearUnknown(m.ProtoReflect())
		if !proto.Equal(&m, &m2) {
			t.Fatalf("agwire decoded a different event than protobuf-go\nframe %x\nprotobuf-go %v\nagwire      %v", data, &m, &m2)
		}

		// (b) The event level, through the published mapping.
		ev2, err := protoconv.FromProto(codec.Codec{}, &m)
		if err != nil {
			t.Fatalf("protoconv.FromProto refuses the runtime's message: %v", err)
		}
		j1, j2 := mustMarshal(t, ev), mustMarshal(t, ev2)
		var v1, v2 any
		if json.Unmarshal(j1, &v1) != nil || json.Unmarshal(j2, &v2) != nil || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("the decoded events differ\nagwire   %s\nmapped   %s", j1, j2)
		}

		// (c) No repeated keys in the JSON.
		if d := repeatedKey(mustTree(t, j1)); d != "" {
			t.Fatalf("agwire's JSON repeats the key %q: %s", d, j1)
		}
	})
}

// repeatedKey returns a key that occurs twice in one object, or "".
func repeatedKey(n *jnode) string {
	switch n.kind {
	case 'o':
		seen := map[string]bool{}
		for _, k := range n.keys {
			if seen[k] {
				return k
			}
			seen[k] = true
		}
	}
	for _, e := range n.elems {
		if d := repeatedKey(e); d != "" {
			return d
		}
	}
	return ""
}
