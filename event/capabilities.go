package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/agwire/agwire/internal/jsonx"
)

// AgentCapabilities is what an agent says it can do: the AgentCapabilities
// object of AG-UI 1.0 (@ag-ui/core's AgentCapabilitiesSchema, what
// AbstractAgent.getCapabilities returns). Every category and every field is
// optional: an absent one is not declared (unknown), not unsupported.
//
// Every object is open, as the schema's are: keys this type does not know
// are kept in Extra, in their JSON form, and written back, so a document
// from a later version round-trips. The types work with encoding/json by
// value and by pointer.
type AgentCapabilities struct {
	Identity       *IdentityCapabilities       `json:"identity,omitempty"`
	Transport      *TransportCapabilities      `json:"transport,omitempty"`
	Tools          *ToolsCapabilities          `json:"tools,omitempty"`
	Output         *OutputCapabilities         `json:"output,omitempty"`
	State          *StateCapabilities          `json:"state,omitempty"`
	MultiAgent     *MultiAgentCapabilities     `json:"multiAgent,omitempty"`
	Reasoning      *ReasoningCapabilities      `json:"reasoning,omitempty"`
	Multimodal     *MultimodalCapabilities     `json:"multimodal,omitempty"`
	Execution      *ExecutionCapabilities      `json:"execution,omitempty"`
	HumanInTheLoop *HumanInTheLoopCapabilities `json:"humanInTheLoop,omitempty"`
	// Custom is the escape hatch for capabilities outside the categories:
	// a JSON object, or nil.
	Custom json.RawMessage `json:"custom,omitempty"`
	// Extra holds the keys of the object not listed above.
	Extra map[string]json.RawMessage `json:"-"`
}

// IdentityCapabilities is basic metadata about the agent.
type IdentityCapabilities struct {
	Name             *string `json:"name,omitempty"`
	Type             *string `json:"type,omitempty"`
	Description      *string `json:"description,omitempty"`
	Version          *string `json:"version,omitempty"`
	Provider         *string `json:"provider,omitempty"`
	DocumentationURL *string `json:"documentationUrl,omitempty"`
	// Metadata is a JSON object, or nil.
	Metadata json.RawMessage            `json:"metadata,omitempty"`
	Extra    map[string]json.RawMessage `json:"-"`
}

// TransportCapabilities says which transports the agent handles.
type TransportCapabilities struct {
	Streaming         *bool                      `json:"streaming,omitempty"`
	WebSocket         *bool                      `json:"websocket,omitempty"`
	HTTPBinary        *bool                      `json:"httpBinary,omitempty"`
	PushNotifications *bool                      `json:"pushNotifications,omitempty"`
	Resumable         *bool                      `json:"resumable,omitempty"`
	Extra             map[string]json.RawMessage `json:"-"`
}

// ToolsCapabilities is the agent's tool calling.
type ToolsCapabilities struct {
	Supported      *bool                      `json:"supported,omitempty"`
	Items          []CapabilityTool           `json:"items,omitempty"`
	ParallelCalls  *bool                      `json:"parallelCalls,omitempty"`
	ClientProvided *bool                      `json:"clientProvided,omitempty"`
	Extra          map[string]json.RawMessage `json:"-"`
}

// CapabilityTool is a tool the agent itself provides (ToolsCapabilities.Items).
type CapabilityTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments (not null), or nil.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// Metadata is a JSON object, or nil.
	Metadata json.RawMessage            `json:"metadata,omitempty"`
	Extra    map[string]json.RawMessage `json:"-"`
}

// OutputCapabilities is the agent's output formats.
type OutputCapabilities struct {
	StructuredOutput   *bool                      `json:"structuredOutput,omitempty"`
	SupportedMimeTypes []string                   `json:"supportedMimeTypes,omitempty"`
	Extra              map[string]json.RawMessage `json:"-"`
}

// StateCapabilities is how the agent handles shared state and memory.
type StateCapabilities struct {
	Snapshots       *bool                      `json:"snapshots,omitempty"`
	Deltas          *bool                      `json:"deltas,omitempty"`
	Memory          *bool                      `json:"memory,omitempty"`
	PersistentState *bool                      `json:"persistentState,omitempty"`
	Extra           map[string]json.RawMessage `json:"-"`
}

// MultiAgentCapabilities is the agent's coordination of other agents.
type MultiAgentCapabilities struct {
	Supported  *bool                      `json:"supported,omitempty"`
	Delegation *bool                      `json:"delegation,omitempty"`
	Handoffs   *bool                      `json:"handoffs,omitempty"`
	Subagents  []SubagentInfo             `json:"subagents,omitempty"`
	Extra      map[string]json.RawMessage `json:"-"`
}

// SubagentInfo describes a subagent the agent can invoke.
type SubagentInfo struct {
	Name        string                     `json:"name"`
	Description *string                    `json:"description,omitempty"`
	Extra       map[string]json.RawMessage `json:"-"`
}

// ReasoningCapabilities is what the agent shows of its reasoning.
type ReasoningCapabilities struct {
	Supported *bool                      `json:"supported,omitempty"`
	Streaming *bool                      `json:"streaming,omitempty"`
	Encrypted *bool                      `json:"encrypted,omitempty"`
	Extra     map[string]json.RawMessage `json:"-"`
}

// MultimodalCapabilities is what the agent accepts and produces beyond text.
type MultimodalCapabilities struct {
	Input  *MultimodalInputCapabilities  `json:"input,omitempty"`
	Output *MultimodalOutputCapabilities `json:"output,omitempty"`
	Extra  map[string]json.RawMessage    `json:"-"`
}

// MultimodalInputCapabilities is the modalities the agent accepts.
type MultimodalInputCapabilities struct {
	Image *bool                      `json:"image,omitempty"`
	Audio *bool                      `json:"audio,omitempty"`
	Video *bool                      `json:"video,omitempty"`
	PDF   *bool                      `json:"pdf,omitempty"`
	File  *bool                      `json:"file,omitempty"`
	Extra map[string]json.RawMessage `json:"-"`
}

// MultimodalOutputCapabilities is the modalities the agent produces.
type MultimodalOutputCapabilities struct {
	Image *bool                      `json:"image,omitempty"`
	Audio *bool                      `json:"audio,omitempty"`
	Extra map[string]json.RawMessage `json:"-"`
}

// ExecutionCapabilities is the agent's execution control and limits.
type ExecutionCapabilities struct {
	CodeExecution *bool `json:"codeExecution,omitempty"`
	Sandboxed     *bool `json:"sandboxed,omitempty"`
	// MaxIterations and MaxExecutionTime are integers from 0 to 2^53-1.
	MaxIterations    *int64                     `json:"maxIterations,omitempty"`
	MaxExecutionTime *int64                     `json:"maxExecutionTime,omitempty"`
	Extra            map[string]json.RawMessage `json:"-"`
}

// HumanInTheLoopCapabilities is the agent's pausing for human input.
type HumanInTheLoopCapabilities struct {
	Supported        *bool                      `json:"supported,omitempty"`
	Approvals        *bool                      `json:"approvals,omitempty"`
	Interventions    *bool                      `json:"interventions,omitempty"`
	Feedback         *bool                      `json:"feedback,omitempty"`
	Interrupts       *bool                      `json:"interrupts,omitempty"`
	ApproveWithEdits *bool                      `json:"approveWithEdits,omitempty"`
	Extra            map[string]json.RawMessage `json:"-"`
}

// The JSON of every type above: the known fields through encoding/json
// (a defined type without the methods), the others from and to Extra.

func (c AgentCapabilities) MarshalJSON() ([]byte, error) {
	type plain AgentCapabilities
	if err := checkObject("custom", c.Custom); err != nil {
		return nil, err
	}
	return marshalOpen(plain(c), c.Extra)
}

func (c *AgentCapabilities) UnmarshalJSON(b []byte) error {
	type plain AgentCapabilities
	if err := unmarshalOpen(b, (*plain)(c), &c.Extra); err != nil {
		return err
	}
	return checkObject("custom", c.Custom)
}

func (c IdentityCapabilities) MarshalJSON() ([]byte, error) {
	type plain IdentityCapabilities
	if err := checkObject("metadata", c.Metadata); err != nil {
		return nil, err
	}
	return marshalOpen(plain(c), c.Extra)
}

func (c *IdentityCapabilities) UnmarshalJSON(b []byte) error {
	type plain IdentityCapabilities
	if err := unmarshalOpen(b, (*plain)(c), &c.Extra); err != nil {
		return err
	}
	return checkObject("metadata", c.Metadata)
}

func (c TransportCapabilities) MarshalJSON() ([]byte, error) {
	type plain TransportCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *TransportCapabilities) UnmarshalJSON(b []byte) error {
	type plain TransportCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c ToolsCapabilities) MarshalJSON() ([]byte, error) {
	type plain ToolsCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *ToolsCapabilities) UnmarshalJSON(b []byte) error {
	type plain ToolsCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c CapabilityTool) MarshalJSON() ([]byte, error) {
	type plain CapabilityTool
	if string(c.Parameters) == "null" {
		return nil, errors.New("event: CapabilityTool.Parameters is null")
	}
	if err := checkObject("metadata", c.Metadata); err != nil {
		return nil, err
	}
	return marshalOpen(plain(c), c.Extra)
}

func (c *CapabilityTool) UnmarshalJSON(b []byte) error {
	type plain CapabilityTool
	if err := unmarshalOpen(b, (*plain)(c), &c.Extra); err != nil {
		return err
	}
	if string(c.Parameters) == "null" {
		return errors.New("event: a capability tool's parameters are null")
	}
	return checkObject("metadata", c.Metadata)
}

func (c OutputCapabilities) MarshalJSON() ([]byte, error) {
	type plain OutputCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *OutputCapabilities) UnmarshalJSON(b []byte) error {
	type plain OutputCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c StateCapabilities) MarshalJSON() ([]byte, error) {
	type plain StateCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *StateCapabilities) UnmarshalJSON(b []byte) error {
	type plain StateCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c MultiAgentCapabilities) MarshalJSON() ([]byte, error) {
	type plain MultiAgentCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *MultiAgentCapabilities) UnmarshalJSON(b []byte) error {
	type plain MultiAgentCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c SubagentInfo) MarshalJSON() ([]byte, error) {
	type plain SubagentInfo
	return marshalOpen(plain(c), c.Extra)
}

func (c *SubagentInfo) UnmarshalJSON(b []byte) error {
	type plain SubagentInfo
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c ReasoningCapabilities) MarshalJSON() ([]byte, error) {
	type plain ReasoningCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *ReasoningCapabilities) UnmarshalJSON(b []byte) error {
	type plain ReasoningCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c MultimodalCapabilities) MarshalJSON() ([]byte, error) {
	type plain MultimodalCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *MultimodalCapabilities) UnmarshalJSON(b []byte) error {
	type plain MultimodalCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c MultimodalInputCapabilities) MarshalJSON() ([]byte, error) {
	type plain MultimodalInputCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *MultimodalInputCapabilities) UnmarshalJSON(b []byte) error {
	type plain MultimodalInputCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c MultimodalOutputCapabilities) MarshalJSON() ([]byte, error) {
	type plain MultimodalOutputCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *MultimodalOutputCapabilities) UnmarshalJSON(b []byte) error {
	type plain MultimodalOutputCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

func (c ExecutionCapabilities) MarshalJSON() ([]byte, error) {
	type plain ExecutionCapabilities
	if err := checkSafe(c.MaxIterations, c.MaxExecutionTime); err != nil {
		return nil, err
	}
	return marshalOpen(plain(c), c.Extra)
}

func (c *ExecutionCapabilities) UnmarshalJSON(b []byte) error {
	type plain ExecutionCapabilities
	if err := unmarshalOpen(b, (*plain)(c), &c.Extra); err != nil {
		return err
	}
	return checkSafe(c.MaxIterations, c.MaxExecutionTime)
}

func (c HumanInTheLoopCapabilities) MarshalJSON() ([]byte, error) {
	type plain HumanInTheLoopCapabilities
	return marshalOpen(plain(c), c.Extra)
}

func (c *HumanInTheLoopCapabilities) UnmarshalJSON(b []byte) error {
	type plain HumanInTheLoopCapabilities
	return unmarshalOpen(b, (*plain)(c), &c.Extra)
}

// checkObject refuses a value that is present and not a JSON object.
func checkObject(name string, v json.RawMessage) error {
	if len(v) == 0 {
		return nil
	}
	if t := bytes.TrimLeft(v, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return errors.New("event: capabilities: " + name + " must be an object")
	}
	return nil
}

// checkSafe refuses integers outside 0..2^53-1, the schema's range.
func checkSafe(vs ...*int64) error {
	for _, v := range vs {
		if v != nil && (*v < 0 || !jsonx.SafeInteger(*v)) {
			return errors.New("event: capabilities: an execution limit is outside 0..2^53-1")
		}
	}
	return nil
}

// knownKeys returns the JSON names of the fields of struct type t.
var knownKeys sync.Map // reflect.Type → []string

func keysOf(t reflect.Type) []string {
	if v, ok := knownKeys.Load(t); ok {
		return v.([]string)
	}
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	knownKeys.Store(t, keys)
	return keys
}

// marshalOpen writes v's fields, then the keys of extra that are not v's,
// in sorted order.
func marshalOpen(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	known := keysOf(reflect.TypeOf(v))
	names := make([]string, 0, len(extra))
	for k := range extra {
		if !slices.Contains(known, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	b = b[:len(b)-1] // the closing brace
	for _, k := range names {
		if len(b) > 1 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		val := extra[k]
		if !json.Valid(val) {
			return nil, errors.New("event: capabilities: Extra[" + string(kb) + "] is not JSON")
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, val); err != nil {
			return nil, err
		}
		b = append(b, buf.Bytes()...)
	}
	return append(b, '}'), nil
}

// unmarshalOpen reads an object into v, and its other keys into extra.
func unmarshalOpen(b []byte, v any, extra *map[string]json.RawMessage) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	if all == nil {
		return errors.New("event: capabilities: null where an object belongs")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	for _, k := range keysOf(reflect.TypeOf(v).Elem()) {
		delete(all, k)
	}
	*extra = nil
	if len(all) > 0 {
		*extra = all
	}
	return nil
}
