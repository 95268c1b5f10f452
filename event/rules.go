package event

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// This file holds every rule that varies by type and that the struct tags
// cannot state. The rules are attached to the field tables when they are
// built (schema.Rules), and the four paths — JSON parse, JSON marshal, wire
// encode, wire decode — apply them from there, so a value one path accepts
// is accepted by all four.

// patchOpNames are the JsonPatchOperationType enum's names by number.
var patchOpNames = []string{"add", "remove", "replace", "move", "copy", "test"}

// roles are the seven message roles of AG-UI 1.0.
var roles = []string{RoleDeveloper, RoleSystem, RoleAssistant, RoleUser, RoleTool, RoleActivity, RoleReasoning}

// carriers says which content forms a role takes and whether it must have
// one: string content, content parts, an activity content object.
type carriers struct {
	str, parts, activity, required bool
}

var roleCarriers = map[string]carriers{
	RoleDeveloper: {str: true, required: true},
	RoleSystem:    {str: true, required: true},
	RoleAssistant: {str: true},
	RoleUser:      {str: true, parts: true, required: true},
	RoleTool:      {str: true, parts: true, required: true},
	RoleActivity:  {activity: true, required: true},
	RoleReasoning: {str: true, required: true},
}

var partTypes = []string{PartText, PartImage, PartAudio, PartVideo, PartDocument}
var sourceTypes = []string{SourceData, SourceURL, SourceFile}

var tableRules = schema.Rules{
	Enums: map[string][]string{"patchop": patchOpNames},
	// The string fields whose values @ag-ui/core 1.0's schema restricts.
	Sets: map[string][]string{
		"role":             roles,
		"textrole":         {RoleDeveloper, RoleSystem, RoleAssistant, RoleUser},
		"toolrole":         {RoleTool},
		"reasoningrole":    {RoleReasoning},
		"encryptedsubtype": {"tool-call", "message"},
		"toolcalltype":     {"function"},
		"resumestatus":     {"resolved", "cancelled"},
	},
	Hand: []reflect.Type{reflect.TypeFor[ContentPart](), reflect.TypeFor[Source]()},
	Check: map[reflect.Type]func(schema.Pointer) error{
		reflect.TypeFor[Message]():         func(p schema.Pointer) error { return checkMessage(schema.As[Message](p)) },
		reflect.TypeFor[ToolCallResult]():  func(p schema.Pointer) error { return checkToolCallResult(schema.As[ToolCallResult](p)) },
		reflect.TypeFor[RunOutcome]():      func(p schema.Pointer) error { return checkRunOutcome(schema.As[RunOutcome](p)) },
		reflect.TypeFor[SubagentOutcome](): func(p schema.Pointer) error { return checkSubagentOutcome(schema.As[SubagentOutcome](p)) },
		reflect.TypeFor[ContentPart]():     func(p schema.Pointer) error { return checkPart(schema.As[ContentPart](p)) },
		reflect.TypeFor[Source]():          func(p schema.Pointer) error { return checkSource(schema.As[Source](p)) },
		reflect.TypeFor[CapabilityTool]():  func(p schema.Pointer) error { return checkCapabilityTool(schema.As[CapabilityTool](p)) },
		reflect.TypeFor[ExecutionCapabilities](): func(p schema.Pointer) error {
			return checkExecution(schema.As[ExecutionCapabilities](p))
		},
	},
	FromWire: map[reflect.Type]func(schema.Pointer){
		reflect.TypeFor[Message]():          func(p schema.Pointer) { messageFromWire(schema.As[Message](p)) },
		reflect.TypeFor[ToolCallResult]():   func(p schema.Pointer) { toolCallResultFromWire(schema.As[ToolCallResult](p)) },
		reflect.TypeFor[RunFinished]():      func(p schema.Pointer) { runFinishedFromWire(schema.As[RunFinished](p)) },
		reflect.TypeFor[SubagentFinished](): func(p schema.Pointer) { subagentFinishedFromWire(schema.As[SubagentFinished](p)) },
		reflect.TypeFor[Source]():           func(p schema.Pointer) { sourceFromWire(schema.As[Source](p)) },
		reflect.TypeFor[RunAgentInput]():    func(p schema.Pointer) { runAgentInputFromWire(schema.As[RunAgentInput](p)) },
	},
}

func ruleMissing(path string) error {
	return &jsonx.Error{Path: path, Offset: -1, Err: ErrMissingField}
}

func ruleInvalid(path, format string, args ...any) error {
	return &jsonx.Error{Path: path, Offset: -1, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidField}, args...)...)}
}

// checkMessage: the role decides the content carrier (see roleCarriers);
// an activity message also names its activity type, and only it does.
func checkMessage(m *Message) error {
	c, ok := roleCarriers[m.Role]
	if !ok {
		return nil // the role field's own check reports it
	}
	str, parts, act := m.Content != nil, m.Parts != nil, m.ActivityContent != nil
	switch {
	case str && !c.str, parts && !c.parts, act && !c.activity:
		return ruleInvalid("content", "content of a%s %s message must be %s", article(m.Role), m.Role, carrierNames(c))
	case str && parts:
		return ruleInvalid("content", "%s message carries both string content and content parts", m.Role)
	case c.required && !str && !parts && !act:
		return ruleMissing("content")
	}
	if m.Role == RoleActivity {
		if m.ActivityType == nil {
			return ruleMissing("activityType")
		}
	} else if m.ActivityType != nil {
		return ruleInvalid("activityType", "belongs to activity messages only")
	}
	return nil
}

func article(role string) string {
	if role != "" && strings.IndexByte("aeio", role[0]) >= 0 {
		return "n"
	}
	return ""
}

func carrierNames(c carriers) string {
	var out []string
	if c.str {
		out = append(out, "a string")
	}
	if c.parts {
		out = append(out, "an array of content parts")
	}
	if c.activity {
		out = append(out, "an object")
	}
	return strings.Join(out, " or ")
}

// messageFromWire restores the required content proto3 does not write when
// empty: "" for string content, [] for parts, {} for activity content, and
// "" for an activity message's type.
func messageFromWire(m *Message) {
	c, ok := roleCarriers[m.Role]
	if !ok || !c.required || m.Content != nil || m.Parts != nil || m.ActivityContent != nil {
		if m.Role == RoleActivity && m.ActivityType == nil {
			m.ActivityType = new(string)
		}
		return
	}
	switch {
	case c.parts:
		m.Parts = []ContentPart{}
	case c.str:
		m.Content = new(string)
	case c.activity:
		m.ActivityContent = Object("{}")
	}
	if m.Role == RoleActivity && m.ActivityType == nil {
		m.ActivityType = new(string)
	}
}

// checkToolCallResult: content is a string or an array of parts, exactly one.
func checkToolCallResult(r *ToolCallResult) error {
	switch {
	case r.Content != nil && r.Parts != nil:
		return ruleInvalid("content", "both string content and content parts are set")
	case r.Content == nil && r.Parts == nil:
		return ruleMissing("content")
	}
	return nil
}

func toolCallResultFromWire(r *ToolCallResult) {
	if r.Content == nil && r.Parts == nil {
		r.Parts = []ContentPart{} // the wire's empty parts list
	}
}

// checkRunOutcome: each outcome type carries its own list only. An outcome
// type this build does not know keeps whatever lists it has, so it
// survives a relay.
// Outcome types by outcome, as @ag-ui/core 1.0's discriminated unions
// list them.
var (
	runOutcomes      = []string{OutcomeSuccess, OutcomeInterrupt, OutcomeCancelled}
	subagentOutcomes = []string{OutcomeSuccess, OutcomeSuspended}
)

func unknownOutcome(t string, known []string) error {
	return ruleInvalid("type", "unknown outcome type %s (known: %s)", jsonx.Quote(t), strings.Join(known, ", "))
}

func checkRunOutcome(o *RunOutcome) error {
	switch o.Type {
	case "":
		return ruleInvalid("type", "an outcome needs a type")
	case OutcomeSuccess:
		if len(o.Interrupts) > 0 {
			return ruleInvalid("interrupts", "interrupts belong to an interrupt outcome, not a success")
		}
	case OutcomeInterrupt:
		if len(o.PendingToolCallIDs) > 0 {
			return ruleInvalid("pendingToolCallIds", "pendingToolCallIds belong to a success outcome, not an interrupt")
		}
	case OutcomeCancelled:
		if len(o.Interrupts) > 0 || len(o.PendingToolCallIDs) > 0 {
			return ruleInvalid("", "a cancelled outcome carries no interrupts or pendingToolCallIds")
		}
	default:
		return unknownOutcome(o.Type, runOutcomes)
	}
	return nil
}

// runFinishedFromWire: an outcome string left empty on the wire means no
// outcome.
func runFinishedFromWire(e *RunFinished) {
	if o := e.Outcome; o != nil && o.Type == "" && o.Interrupts == nil && o.PendingToolCallIDs == nil {
		e.Outcome = nil
	}
}

func checkSubagentOutcome(o *SubagentOutcome) error {
	switch {
	case o.Type == "":
		return ruleInvalid("type", "an outcome needs a type")
	case o.Type == OutcomeSuccess && len(o.InterruptIDs) > 0:
		return ruleInvalid("interruptIds", "interruptIds belong to a suspended outcome, not a success")
	case o.Type != OutcomeSuccess && o.Type != OutcomeSuspended:
		return unknownOutcome(o.Type, subagentOutcomes)
	}
	return nil
}

func subagentFinishedFromWire(e *SubagentFinished) {
	if o := e.Outcome; o != nil && o.Type == "" && o.InterruptIDs == nil {
		e.Outcome = nil
	}
}

// checkPart: a text part carries text, a media part a source.
func checkPart(cp *ContentPart) error {
	switch cp.Type {
	case PartText:
		if cp.Source != nil {
			return ruleInvalid("", "a text part has no source")
		}
	case PartImage, PartAudio, PartVideo, PartDocument:
		if cp.Text != "" {
			return ruleInvalid("", "a%s %s part carries no text", article(cp.Type), cp.Type)
		}
		if cp.Source == nil {
			return ruleMissing("source")
		}
		return jsonx.WithKey(checkSource(cp.Source), "source")
	default:
		return ruleInvalid("", "unknown content part type %s (known: %s)", jsonx.Quote(cp.Type), strings.Join(partTypes, ", "))
	}
	return nil
}

// checkSource: a data source names its MIME type; only a file source has a
// provider.
func checkSource(s *Source) error {
	switch s.Type {
	case SourceData:
		if s.Provider != nil {
			return ruleInvalid("", "a data source has no provider")
		}
		if s.MimeType == nil {
			return ruleMissing("mimeType")
		}
	case SourceURL:
		if s.Provider != nil {
			return ruleInvalid("", "a url source has no provider")
		}
	case SourceFile:
	default:
		return ruleInvalid("", "unknown source type %s (known: %s)", jsonx.Quote(s.Type), strings.Join(sourceTypes, ", "))
	}
	return nil
}

// sourceFromWire: a data source's MIME type is a plain proto3 string, not
// written when empty.
func sourceFromWire(s *Source) {
	if s.Type == SourceData && s.MimeType == nil {
		s.MimeType = new(string)
	}
}

// runAgentInputFromWire: a request's resume list is a repeated field on the
// wire, which has no absent form: it decodes as a list, empty when none
// was sent (JSON, where absent and empty differ, leaves a nil one out).
func runAgentInputFromWire(in *RunAgentInput) {
	if in.Resume == nil {
		in.Resume = []ResumeEntry{}
	}
}
