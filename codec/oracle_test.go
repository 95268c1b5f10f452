package codec_test

// An independent oracle for the JSON → wire mapping: it turns an AG-UI JSON
// event into a *aguipb.Event built field by field with the generated types
// (and structpb for google.protobuf.Value/Struct), following the AG-UI 1.0
// mapping rules (base fields into base_event, outcome flattening, JSON Patch
// op enum, content carriers by role, content parts and sources as oneofs,
// the retired "binary" part as a document part, usage absent ⇄ empty), and,
// where those rules are silent, what @ag-ui/proto@1.0.0 was observed to write
// (null part metadata is absent; outcome companions ride only with their own
// variant).
//
// It deliberately shares no code with package codec or package event: it
// parses the JSON with encoding/json (numbers as json.Number) and knows the
// field names itself, so it can disagree with them. Every JSON key must be
// consumed by the oracle; a key it does not know is an oracle error rather
// than something silently dropped.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agwire/agwire/gen/aguipb"
)

// orcError is an input the oracle cannot represent or refuses.
type orcError struct {
	path string
	msg  string
}

func (e *orcError) Error() string { return "oracle: " + e.path + ": " + e.msg }

// orcLossyMsg marks a number a double cannot hold exactly (when lossy
// numbers are not allowed).
const orcLossyMsg = "number cannot be held exactly by a double"

func orcFail(path, format string, args ...any) {
	panic(&orcError{path: path, msg: fmt.Sprintf(format, args...)})
}

// orcParse decodes JSON into generic values with numbers kept as json.Number.
func orcParse(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// orcCanonical re-serialises JSON with every object's keys sorted
// (encoding/json sorts map keys bytewise, the order the protobuf runtime's
// deterministic marshal uses for map<string, Value>) and number text kept.
func orcCanonical(b []byte) ([]byte, error) {
	v, err := orcParse(b)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// orcOracle converts one JSON event. lossy allows numbers that a double
// cannot hold exactly (rounded to nearest).
func orcOracle(jsonEvent []byte, lossy bool) (m *aguipb.Event, err error) {
	v, perr := orcParse(jsonEvent)
	if perr != nil {
		return nil, perr
	}
	defer func() {
		if r := recover(); r != nil {
			oe, ok := r.(*orcError)
			if !ok {
				panic(r)
			}
			m, err = nil, oe
		}
	}()
	o := &orc{lossy: lossy}
	return o.event(o.obj("", v)), nil
}

type orc struct{ lossy bool }

// orcObj is one JSON object being consumed.
type orcObj struct {
	o    *orc
	path string
	m    map[string]any
	used map[string]bool
}

func (o *orc) obj(path string, v any) *orcObj {
	m, ok := v.(map[string]any)
	if !ok {
		orcFail(path, "want a JSON object, found %s", orcKind(v))
	}
	return &orcObj{o: o, path: path, m: m, used: map[string]bool{}}
}

func orcKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (j *orcObj) at(k string) string {
	if j.path == "" {
		return k
	}
	return j.path + "." + k
}

func orcIdx(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// take marks k consumed and returns its value.
func (j *orcObj) take(k string) (any, bool) {
	j.used[k] = true
	v, ok := j.m[k]
	return v, ok
}

// done fails on any key nobody consumed.
func (j *orcObj) done() {
	for k := range j.m {
		if !j.used[k] {
			orcFail(j.at(k), "key unknown to the oracle")
		}
	}
}

// str: a plain proto3 string (absent → "").
func (j *orcObj) str(k string) string {
	v, ok := j.take(k)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		orcFail(j.at(k), "want a string, found %s", orcKind(v))
	}
	return s
}

// optStr: a proto3 optional string (absent or null → unset).
func (j *orcObj) optStr(k string) *string {
	v, ok := j.take(k)
	if !ok || v == nil {
		return nil
	}
	s, isStr := v.(string)
	if !isStr {
		orcFail(j.at(k), "want a string, found %s", orcKind(v))
	}
	return &s
}

func (j *orcObj) optBool(k string) *bool {
	v, ok := j.take(k)
	if !ok || v == nil {
		return nil
	}
	b, isBool := v.(bool)
	if !isBool {
		orcFail(j.at(k), "want a boolean, found %s", orcKind(v))
	}
	return &b
}

// optInt: a proto3 optional int64; the JSON number must be an integer.
func (j *orcObj) optInt(k string) *int64 {
	v, ok := j.take(k)
	if !ok || v == nil {
		return nil
	}
	n, isNum := v.(json.Number)
	if !isNum {
		orcFail(j.at(k), "want an integer, found %s", orcKind(v))
	}
	// Any spelling of an integral value is an integer (1e3, 5.0), as for a
	// JavaScript number; it must fit int64.
	if f, err := strconv.ParseFloat(string(n), 64); err != nil || math.Abs(f) > 1<<63 {
		orcFail(j.at(k), "want an int64, found %s", n)
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		orcFail(j.at(k), "want an int64, found %s", n)
	}
	i := r.Num().Int64()
	return &i
}

// val: a google.protobuf.Value field that is present whenever the key is
// (null → null_value).
func (j *orcObj) val(k string) *structpb.Value {
	v, ok := j.take(k)
	if !ok {
		return nil
	}
	return j.o.value(j.at(k), v)
}

// optVal: an optional Value field (absent or null → unset).
func (j *orcObj) optVal(k string) *structpb.Value {
	v, ok := j.take(k)
	if !ok || v == nil {
		return nil
	}
	return j.o.value(j.at(k), v)
}

// strct: a google.protobuf.Struct field (absent → unset, {} → present and
// empty, null or a non-object → refused).
func (j *orcObj) strct(k string) *structpb.Struct {
	v, ok := j.take(k)
	if !ok {
		return nil
	}
	return j.o.structOf(j.at(k), v)
}

func (j *orcObj) sub(k string) *orcObj {
	v, ok := j.take(k)
	if !ok || v == nil {
		return nil
	}
	return j.o.obj(j.at(k), v)
}

func (j *orcObj) arr(k string) []any {
	v, ok := j.take(k)
	if !ok || v == nil {
		return nil
	}
	a, isArr := v.([]any)
	if !isArr {
		orcFail(j.at(k), "want an array, found %s", orcKind(v))
	}
	return a
}

func (j *orcObj) strs(k string) []string {
	var out []string
	for i, v := range j.arr(k) {
		s, ok := v.(string)
		if !ok {
			orcFail(orcIdx(j.at(k), i), "want a string, found %s", orcKind(v))
		}
		out = append(out, s)
	}
	return out
}

// objs calls fn for each element of the array under k, each an object.
func (j *orcObj) objs(k string, fn func(*orcObj)) {
	for i, v := range j.arr(k) {
		e := j.o.obj(orcIdx(j.at(k), i), v)
		fn(e)
		e.done()
	}
}

// ---- google.protobuf.Value / Struct ----

func (o *orc) value(path string, v any) *structpb.Value {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue()
	case bool:
		return structpb.NewBoolValue(x)
	case string:
		return structpb.NewStringValue(x)
	case json.Number:
		return structpb.NewNumberValue(o.number(path, x))
	case []any:
		l := &structpb.ListValue{Values: make([]*structpb.Value, len(x))}
		for i, e := range x {
			l.Values[i] = o.value(orcIdx(path, i), e)
		}
		return structpb.NewListValue(l)
	case map[string]any:
		return structpb.NewStructValue(o.structOf(path, x))
	}
	orcFail(path, "unexpected Go type %T", v)
	return nil
}

func (o *orc) structOf(path string, v any) *structpb.Struct {
	m, ok := v.(map[string]any)
	if !ok {
		orcFail(path, "want a JSON object, found %s", orcKind(v))
	}
	s := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(m))}
	for k, e := range m {
		s.Fields[k] = o.value(path+"."+k, e)
	}
	return s
}

// number converts JSON number text to the nearest double. Unless lossy, a
// number is accepted only when the double's shortest round-trip spelling
// denotes the same decimal value (0.1 is exact in this sense,
// 9007199254740993 is not, nor are overflow to ±Inf or underflow to 0).
func (o *orc) number(path string, n json.Number) float64 {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !o.lossy {
		orcFail(path, "%s %s (%v)", orcLossyMsg, n, err)
	}
	if o.lossy {
		return f // ParseFloat rounds to nearest, ±Inf on overflow
	}
	want, ok := new(big.Rat).SetString(string(n))
	if !ok {
		orcFail(path, "bad number %s", n)
	}
	got, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if got == nil || got.Cmp(want) != 0 {
		orcFail(path, "%s %s", orcLossyMsg, n)
	}
	return f
}

// ---- events ----

func (o *orc) event(j *orcObj) *aguipb.Event {
	typ := j.str("type")
	enum, ok := aguipb.EventType_value[typ]
	if !ok {
		orcFail(j.at("type"), "no protobuf form for event type %q", typ)
	}
	base := &aguipb.BaseEvent{
		Type:      aguipb.EventType(enum),
		Timestamp: j.optInt("timestamp"),
		RawEvent:  j.optVal("rawEvent"),
		Metadata:  j.strct("metadata"),
	}
	ev := &aguipb.Event{}
	switch typ {
	case "TEXT_MESSAGE_START":
		ev.Event = &aguipb.Event_TextMessageStart{TextMessageStart: &aguipb.TextMessageStartEvent{
			BaseEvent: base, MessageId: j.str("messageId"), Role: j.optStr("role"),
			Name: j.optStr("name"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TEXT_MESSAGE_CONTENT":
		ev.Event = &aguipb.Event_TextMessageContent{TextMessageContent: &aguipb.TextMessageContentEvent{
			BaseEvent: base, MessageId: j.str("messageId"), Delta: j.str("delta"),
			SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TEXT_MESSAGE_END":
		ev.Event = &aguipb.Event_TextMessageEnd{TextMessageEnd: &aguipb.TextMessageEndEvent{
			BaseEvent: base, MessageId: j.str("messageId"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TEXT_MESSAGE_CHUNK":
		ev.Event = &aguipb.Event_TextMessageChunk{TextMessageChunk: &aguipb.TextMessageChunkEvent{
			BaseEvent: base, MessageId: j.optStr("messageId"), Role: j.optStr("role"),
			Delta: j.optStr("delta"), Name: j.optStr("name"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TOOL_CALL_START":
		ev.Event = &aguipb.Event_ToolCallStart{ToolCallStart: &aguipb.ToolCallStartEvent{
			BaseEvent: base, ToolCallId: j.str("toolCallId"), ToolCallName: j.str("toolCallName"),
			ParentMessageId: j.optStr("parentMessageId"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TOOL_CALL_ARGS":
		ev.Event = &aguipb.Event_ToolCallArgs{ToolCallArgs: &aguipb.ToolCallArgsEvent{
			BaseEvent: base, ToolCallId: j.str("toolCallId"), Delta: j.str("delta"),
			SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TOOL_CALL_END":
		ev.Event = &aguipb.Event_ToolCallEnd{ToolCallEnd: &aguipb.ToolCallEndEvent{
			BaseEvent: base, ToolCallId: j.str("toolCallId"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TOOL_CALL_CHUNK":
		ev.Event = &aguipb.Event_ToolCallChunk{ToolCallChunk: &aguipb.ToolCallChunkEvent{
			BaseEvent: base, ToolCallId: j.optStr("toolCallId"), ToolCallName: j.optStr("toolCallName"),
			ParentMessageId: j.optStr("parentMessageId"), Delta: j.optStr("delta"),
			SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "TOOL_CALL_RESULT":
		r := &aguipb.ToolCallResultEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
			ToolCallId: j.str("toolCallId"), Role: j.optStr("role"),
		}
		// content: a string rides content (5), an array of parts rides
		// content_parts (7).
		switch c, _ := j.take("content"); c := c.(type) {
		case string:
			r.Content = &c
		case []any:
			r.ContentParts = o.parts(j.at("content"), c)
		default:
			orcFail(j.at("content"), "want a string or an array of parts, found %s", orcKind(c))
		}
		ev.Event = &aguipb.Event_ToolCallResult{ToolCallResult: r}
	case "STATE_SNAPSHOT":
		ev.Event = &aguipb.Event_StateSnapshot{StateSnapshot: &aguipb.StateSnapshotEvent{
			BaseEvent: base, Snapshot: j.val("snapshot"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "STATE_DELTA":
		ev.Event = &aguipb.Event_StateDelta{StateDelta: &aguipb.StateDeltaEvent{
			BaseEvent: base, Delta: o.patch(j, "delta"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "MESSAGES_SNAPSHOT":
		ev.Event = &aguipb.Event_MessagesSnapshot{MessagesSnapshot: &aguipb.MessagesSnapshotEvent{
			BaseEvent: base, Messages: o.messages(j, "messages"),
		}}
	case "ACTIVITY_SNAPSHOT":
		ev.Event = &aguipb.Event_ActivitySnapshot{ActivitySnapshot: &aguipb.ActivitySnapshotEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
			ActivityType: j.str("activityType"), Content: j.strct("content"), Replace: j.optBool("replace"),
		}}
	case "ACTIVITY_DELTA":
		ev.Event = &aguipb.Event_ActivityDelta{ActivityDelta: &aguipb.ActivityDeltaEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
			ActivityType: j.str("activityType"), Patch: o.patch(j, "patch"),
		}}
	case "RAW":
		ev.Event = &aguipb.Event_Raw{Raw: &aguipb.RawEvent{
			BaseEvent: base, Event: j.val("event"), Source: j.optStr("source"),
			SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "CUSTOM":
		ev.Event = &aguipb.Event_Custom{Custom: &aguipb.CustomEvent{
			BaseEvent: base, Name: j.str("name"), Value: j.val("value"),
			SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "RUN_STARTED":
		var in *aguipb.RunAgentInput
		if s := j.sub("input"); s != nil {
			in = o.runAgentInput(s)
			s.done()
		}
		ev.Event = &aguipb.Event_RunStarted{RunStarted: &aguipb.RunStartedEvent{
			BaseEvent: base, ThreadId: j.str("threadId"), RunId: j.str("runId"),
			ParentRunId: j.optStr("parentRunId"), Input: in, ProtocolVersion: j.optStr("protocolVersion"),
		}}
	case "RUN_FINISHED":
		r := &aguipb.RunFinishedEvent{
			BaseEvent: base, ThreadId: j.str("threadId"), RunId: j.str("runId"),
			Result: j.optVal("result"), Usage: o.usage(j, "usage"),
		}
		// The outcome union is flattened into outcome (5), interrupts (6)
		// and pending_tool_call_ids (8). Each companion rides only with its
		// own variant, as @ag-ui/proto@1.0.0 writes it: pendingToolCallIds
		// with "success", interrupts with "interrupt"; on any other type
		// they are not part of the union and are not written.
		if oc := j.sub("outcome"); oc != nil {
			r.Outcome = oc.str("type")
			pending := oc.strs("pendingToolCallIds")
			var interrupts []*aguipb.Interrupt
			oc.objs("interrupts", func(e *orcObj) { interrupts = append(interrupts, o.interrupt(e)) })
			switch r.Outcome {
			case "success":
				r.PendingToolCallIds = pending
			case "interrupt":
				r.Interrupts = interrupts
			}
			oc.done()
		}
		ev.Event = &aguipb.Event_RunFinished{RunFinished: r}
	case "RUN_ERROR":
		ev.Event = &aguipb.Event_RunError{RunError: &aguipb.RunErrorEvent{
			BaseEvent: base, Code: j.optStr("code"), Message: j.str("message"), Usage: o.usage(j, "usage"),
		}}
	case "STEP_STARTED":
		ev.Event = &aguipb.Event_StepStarted{StepStarted: &aguipb.StepStartedEvent{
			BaseEvent: base, StepName: j.str("stepName"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "STEP_FINISHED":
		ev.Event = &aguipb.Event_StepFinished{StepFinished: &aguipb.StepFinishedEvent{
			BaseEvent: base, StepName: j.str("stepName"), SubagentRunId: j.optStr("subagentRunId"),
		}}
	case "REASONING_START":
		ev.Event = &aguipb.Event_ReasoningStart{ReasoningStart: &aguipb.ReasoningStartEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
		}}
	case "REASONING_MESSAGE_START":
		ev.Event = &aguipb.Event_ReasoningMessageStart{ReasoningMessageStart: &aguipb.ReasoningMessageStartEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
			Role: j.str("role"),
		}}
	case "REASONING_MESSAGE_CONTENT":
		ev.Event = &aguipb.Event_ReasoningMessageContent{ReasoningMessageContent: &aguipb.ReasoningMessageContentEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
			Delta: j.str("delta"),
		}}
	case "REASONING_MESSAGE_END":
		ev.Event = &aguipb.Event_ReasoningMessageEnd{ReasoningMessageEnd: &aguipb.ReasoningMessageEndEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
		}}
	case "REASONING_MESSAGE_CHUNK":
		ev.Event = &aguipb.Event_ReasoningMessageChunk{ReasoningMessageChunk: &aguipb.ReasoningMessageChunkEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.optStr("messageId"),
			Delta: j.optStr("delta"),
		}}
	case "REASONING_END":
		ev.Event = &aguipb.Event_ReasoningEnd{ReasoningEnd: &aguipb.ReasoningEndEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), MessageId: j.str("messageId"),
		}}
	case "REASONING_ENCRYPTED_VALUE":
		ev.Event = &aguipb.Event_ReasoningEncryptedValue{ReasoningEncryptedValue: &aguipb.ReasoningEncryptedValueEvent{
			BaseEvent: base, SubagentRunId: j.optStr("subagentRunId"), Subtype: j.str("subtype"),
			EntityId: j.str("entityId"), EncryptedValue: j.str("encryptedValue"),
		}}
	case "SUBAGENT_STARTED":
		ev.Event = &aguipb.Event_SubagentStarted{SubagentStarted: &aguipb.SubagentStartedEvent{
			BaseEvent: base, SubagentRunId: j.str("subagentRunId"), Name: j.str("name"),
			Description: j.optStr("description"), ParentSubagentRunId: j.optStr("parentSubagentRunId"),
			ParentToolCallId: j.optStr("parentToolCallId"), ParentMessageId: j.optStr("parentMessageId"),
		}}
	case "SUBAGENT_FINISHED":
		r := &aguipb.SubagentFinishedEvent{
			BaseEvent: base, SubagentRunId: j.str("subagentRunId"), Result: j.optVal("result"),
		}
		// interruptIds rides only with "suspended" (see RUN_FINISHED).
		if oc := j.sub("outcome"); oc != nil {
			r.Outcome = oc.str("type")
			if ids := oc.strs("interruptIds"); r.Outcome == "suspended" {
				r.InterruptIds = ids
			}
			oc.done()
		}
		ev.Event = &aguipb.Event_SubagentFinished{SubagentFinished: r}
	case "SUBAGENT_ERROR":
		ev.Event = &aguipb.Event_SubagentError{SubagentError: &aguipb.SubagentErrorEvent{
			BaseEvent: base, SubagentRunId: j.str("subagentRunId"), Message: j.str("message"),
			Code: j.optStr("code"),
		}}
	default:
		orcFail(j.at("type"), "oracle has no mapping for %s", typ)
	}
	j.done()
	return ev
}

var orcPatchOps = map[string]aguipb.JsonPatchOperationType{
	"add":     aguipb.JsonPatchOperationType_ADD,
	"remove":  aguipb.JsonPatchOperationType_REMOVE,
	"replace": aguipb.JsonPatchOperationType_REPLACE,
	"move":    aguipb.JsonPatchOperationType_MOVE,
	"copy":    aguipb.JsonPatchOperationType_COPY,
	"test":    aguipb.JsonPatchOperationType_TEST,
}

func (o *orc) patch(j *orcObj, k string) []*aguipb.JsonPatchOperation {
	var out []*aguipb.JsonPatchOperation
	j.objs(k, func(e *orcObj) {
		name := e.str("op")
		op, ok := orcPatchOps[name]
		if !ok {
			orcFail(e.at("op"), "unknown JSON Patch op %q", name)
		}
		out = append(out, &aguipb.JsonPatchOperation{
			Op: op, Path: e.str("path"), From: e.optStr("from"), Value: e.val("value"),
		})
	})
	return out
}

func (o *orc) usage(j *orcObj, k string) []*aguipb.Usage {
	var out []*aguipb.Usage
	j.objs(k, func(e *orcObj) {
		out = append(out, &aguipb.Usage{
			Provider:              e.optStr("provider"),
			Model:                 e.optStr("model"),
			InputTokens:           e.optInt("inputTokens"),
			OutputTokens:          e.optInt("outputTokens"),
			TotalTokens:           e.optInt("totalTokens"),
			ReasoningTokens:       e.optInt("reasoningTokens"),
			CachedInputTokens:     e.optInt("cachedInputTokens"),
			CacheWriteInputTokens: e.optInt("cacheWriteInputTokens"),
		})
	})
	return out
}

func (o *orc) interrupt(e *orcObj) *aguipb.Interrupt {
	return &aguipb.Interrupt{
		Id:             e.str("id"),
		Reason:         e.str("reason"),
		Message:        e.optStr("message"),
		ToolCallId:     e.optStr("toolCallId"),
		ResponseSchema: e.optVal("responseSchema"),
		ExpiresAt:      e.optStr("expiresAt"),
		Metadata:       e.optVal("metadata"), // a Value here, not a Struct
		SubagentRunId:  e.optStr("subagentRunId"),
	}
}

func (o *orc) runAgentInput(j *orcObj) *aguipb.RunAgentInput {
	in := &aguipb.RunAgentInput{
		ThreadId:        j.str("threadId"),
		RunId:           j.str("runId"),
		ParentRunId:     j.optStr("parentRunId"),
		State:           j.optVal("state"),
		Messages:        o.messages(j, "messages"),
		ForwardedProps:  j.optVal("forwardedProps"),
		ProtocolVersion: j.optStr("protocolVersion"),
	}
	j.objs("tools", func(e *orcObj) {
		in.Tools = append(in.Tools, &aguipb.Tool{
			Name: e.str("name"), Description: e.str("description"),
			Parameters: e.optVal("parameters"), Metadata: e.strct("metadata"),
		})
	})
	j.objs("context", func(e *orcObj) {
		in.Context = append(in.Context, &aguipb.Context{Description: e.str("description"), Value: e.str("value")})
	})
	j.objs("resume", func(e *orcObj) {
		in.Resume = append(in.Resume, &aguipb.ResumeEntry{
			InterruptId: e.str("interruptId"), Status: e.str("status"),
			Payload: e.optVal("payload"), Metadata: e.strct("metadata"),
		})
	})
	return in
}

func (o *orc) messages(j *orcObj, k string) []*aguipb.Message {
	var out []*aguipb.Message
	j.objs(k, func(e *orcObj) { out = append(out, o.message(e)) })
	return out
}

// message: one wire Message for every role; the role picks the carrier of
// "content".
func (o *orc) message(j *orcObj) *aguipb.Message {
	m := &aguipb.Message{
		Id:             j.str("id"),
		Role:           j.str("role"),
		Name:           j.optStr("name"),
		ToolCallId:     j.optStr("toolCallId"),
		Error:          j.optStr("error"),
		Metadata:       j.strct("metadata"),
		SubagentRunId:  j.optStr("subagentRunId"),
		EncryptedValue: j.optStr("encryptedValue"),
		ActivityType:   j.optStr("activityType"),
	}
	j.objs("toolCalls", func(e *orcObj) {
		tc := &aguipb.ToolCall{
			Id: e.str("id"), Type: e.str("type"), Metadata: e.strct("metadata"),
			EncryptedValue: e.optStr("encryptedValue"),
			Function:       &aguipb.ToolCall_Function{}, // always on the wire
		}
		if f := e.sub("function"); f != nil {
			tc.Function.Name, tc.Function.Arguments = f.str("name"), f.str("arguments")
			f.done()
		}
		m.ToolCalls = append(m.ToolCalls, tc)
	})
	c, has := j.take("content")
	path := j.at("content")
	switch m.Role {
	case "activity":
		// The content object rides activity_content, written even as {}
		// when absent.
		if !has || c == nil {
			m.ActivityContent = &structpb.Struct{}
		} else {
			m.ActivityContent = o.structOf(path, c)
		}
	case "user", "tool":
		switch c := c.(type) {
		case nil:
		case string:
			m.Content = &c
		case []any:
			m.ContentParts = o.parts(path, c)
		default:
			orcFail(path, "want a string or an array of parts, found %s", orcKind(c))
		}
	default:
		switch c := c.(type) {
		case nil:
		case string:
			m.Content = &c
		default:
			orcFail(path, "role %q carries string content only, found %s", m.Role, orcKind(c))
		}
	}
	return m
}

func (o *orc) parts(path string, a []any) []*aguipb.InputContent {
	out := make([]*aguipb.InputContent, 0, len(a))
	for i, v := range a {
		e := o.obj(orcIdx(path, i), v)
		out = append(out, o.part(e))
		e.done()
	}
	return out
}

func (o *orc) part(j *orcObj) *aguipb.InputContent {
	typ := j.str("type")
	switch typ {
	case "text":
		return &aguipb.InputContent{Part: &aguipb.InputContent_Text{Text: &aguipb.TextInputPart{
			Text: j.str("text"), Id: j.optStr("id"), Metadata: j.optVal("metadata"),
		}}}
	case "binary":
		return o.binaryPart(j)
	}
	var src *aguipb.InputContentSource
	if s := j.sub("source"); s != nil {
		src = o.source(s)
		s.done()
	}
	// A part's metadata is any JSON value, but null means absent: the TS
	// peer writes no metadata field for it.
	id, md := j.optStr("id"), j.optVal("metadata")
	switch typ {
	case "image":
		return &aguipb.InputContent{Part: &aguipb.InputContent_Image{Image: &aguipb.ImageInputPart{Source: src, Metadata: md, Id: id}}}
	case "audio":
		return &aguipb.InputContent{Part: &aguipb.InputContent_Audio{Audio: &aguipb.AudioInputPart{Source: src, Metadata: md, Id: id}}}
	case "video":
		return &aguipb.InputContent{Part: &aguipb.InputContent_Video{Video: &aguipb.VideoInputPart{Source: src, Metadata: md, Id: id}}}
	case "document":
		return &aguipb.InputContent{Part: &aguipb.InputContent_Document{Document: &aguipb.DocumentInputPart{Source: src, Metadata: md, Id: id}}}
	}
	orcFail(j.at("type"), "content part type %q has no wire form", typ)
	return nil
}

func (o *orc) source(j *orcObj) *aguipb.InputContentSource {
	switch typ := j.str("type"); typ {
	case "data":
		d := &aguipb.InputContentDataSource{Value: j.str("value")}
		if mt := j.optStr("mimeType"); mt != nil {
			d.MimeType = *mt // a plain string on the data arm
		}
		return &aguipb.InputContentSource{Source: &aguipb.InputContentSource_Data{Data: d}}
	case "url":
		return &aguipb.InputContentSource{Source: &aguipb.InputContentSource_Url{Url: &aguipb.InputContentUrlSource{
			Value: j.str("value"), MimeType: j.optStr("mimeType"),
		}}}
	case "file":
		return &aguipb.InputContentSource{Source: &aguipb.InputContentSource_File{File: &aguipb.InputContentFileSource{
			Value: j.str("value"), Provider: j.optStr("provider"), MimeType: j.optStr("mimeType"),
		}}}
	default:
		orcFail(j.at("type"), "source type %q has no wire form", typ)
	}
	return nil
}

// binaryPart: the retired {type:"binary", mimeType, data?, url?, id?,
// filename?} part travels as a document part whose metadata is the marker
// {legacyBinary:true, filename?, id?} and whose source is data (if data),
// else url (if url), else a url holding the id.
func (o *orc) binaryPart(j *orcObj) *aguipb.InputContent {
	mime := j.optStr("mimeType")
	data, url, id, filename := j.optStr("data"), j.optStr("url"), j.optStr("id"), j.optStr("filename")
	marker := &structpb.Struct{Fields: map[string]*structpb.Value{"legacyBinary": structpb.NewBoolValue(true)}}
	if filename != nil {
		marker.Fields["filename"] = structpb.NewStringValue(*filename)
	}
	if id != nil {
		marker.Fields["id"] = structpb.NewStringValue(*id)
	}
	src := &aguipb.InputContentSource{}
	switch {
	case data != nil:
		d := &aguipb.InputContentDataSource{Value: *data}
		if mime != nil {
			d.MimeType = *mime
		}
		src.Source = &aguipb.InputContentSource_Data{Data: d}
	case url != nil:
		src.Source = &aguipb.InputContentSource_Url{Url: &aguipb.InputContentUrlSource{Value: *url, MimeType: mime}}
	case id != nil:
		src.Source = &aguipb.InputContentSource_Url{Url: &aguipb.InputContentUrlSource{Value: *id, MimeType: mime}}
	default:
		orcFail(j.path, "binary part with neither data, url nor id")
	}
	return &aguipb.InputContent{Part: &aguipb.InputContent_Document{Document: &aguipb.DocumentInputPart{
		Source: src, Metadata: structpb.NewStructValue(marker),
	}}}
}

// orcIsLossy reports whether err is the oracle refusing an inexact number.
func orcIsLossy(err error) bool {
	oe, ok := err.(*orcError)
	return ok && strings.HasPrefix(oe.msg, orcLossyMsg)
}
