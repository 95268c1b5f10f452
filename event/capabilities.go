package event

import (
	"encoding/json"

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
// value and by pointer; their JSON is package event's own (the field
// tables' interpreter, as for the parts of an event): strict about the
// known members (a duplicate, a wrong kind or a missing name is an error
// with a path, tested with errors.Is), open to the others.
type AgentCapabilities struct {
	Identity       *IdentityCapabilities       `agui:"identity,-,opt"`
	Transport      *TransportCapabilities      `agui:"transport,-,opt"`
	Tools          *ToolsCapabilities          `agui:"tools,-,opt"`
	Output         *OutputCapabilities         `agui:"output,-,opt"`
	State          *StateCapabilities          `agui:"state,-,opt"`
	MultiAgent     *MultiAgentCapabilities     `agui:"multiAgent,-,opt"`
	Reasoning      *ReasoningCapabilities      `agui:"reasoning,-,opt"`
	Multimodal     *MultimodalCapabilities     `agui:"multimodal,-,opt"`
	Execution      *ExecutionCapabilities      `agui:"execution,-,opt"`
	HumanInTheLoop *HumanInTheLoopCapabilities `agui:"humanInTheLoop,-,opt"`
	// Custom is the escape hatch for capabilities outside the categories:
	// a JSON object, or nil.
	Custom json.RawMessage `agui:"custom,-,opt,object"`
	// Extra holds the keys of the object not listed above.
	Extra map[string]json.RawMessage `agui:"extra"`
}

// IdentityCapabilities is basic metadata about the agent.
type IdentityCapabilities struct {
	Name             *string `agui:"name,-,opt"`
	Type             *string `agui:"type,-,opt"`
	Description      *string `agui:"description,-,opt"`
	Version          *string `agui:"version,-,opt"`
	Provider         *string `agui:"provider,-,opt"`
	DocumentationURL *string `agui:"documentationUrl,-,opt"`
	// Metadata is a JSON object, or nil.
	Metadata json.RawMessage            `agui:"metadata,-,opt,object"`
	Extra    map[string]json.RawMessage `agui:"extra"`
}

// TransportCapabilities says which transports the agent handles.
type TransportCapabilities struct {
	Streaming         *bool                      `agui:"streaming,-,opt"`
	WebSocket         *bool                      `agui:"websocket,-,opt"`
	HTTPBinary        *bool                      `agui:"httpBinary,-,opt"`
	PushNotifications *bool                      `agui:"pushNotifications,-,opt"`
	Resumable         *bool                      `agui:"resumable,-,opt"`
	Extra             map[string]json.RawMessage `agui:"extra"`
}

// ToolsCapabilities is the agent's tool calling.
type ToolsCapabilities struct {
	Supported      *bool                      `agui:"supported,-,opt"`
	Items          []CapabilityTool           `agui:"items,-,opt"`
	ParallelCalls  *bool                      `agui:"parallelCalls,-,opt"`
	ClientProvided *bool                      `agui:"clientProvided,-,opt"`
	Extra          map[string]json.RawMessage `agui:"extra"`
}

// CapabilityTool is a tool the agent itself provides (ToolsCapabilities.Items).
type CapabilityTool struct {
	Name        string `agui:"name,-"`
	Description string `agui:"description,-"`
	// Parameters is the JSON Schema of the arguments (not null), or nil.
	Parameters json.RawMessage `agui:"parameters,-"`
	// Metadata is a JSON object, or nil.
	Metadata json.RawMessage            `agui:"metadata,-,opt,object"`
	Extra    map[string]json.RawMessage `agui:"extra"`
}

// OutputCapabilities is the agent's output formats.
type OutputCapabilities struct {
	StructuredOutput   *bool                      `agui:"structuredOutput,-,opt"`
	SupportedMimeTypes []string                   `agui:"supportedMimeTypes,-,opt"`
	Extra              map[string]json.RawMessage `agui:"extra"`
}

// StateCapabilities is how the agent handles shared state and memory.
type StateCapabilities struct {
	Snapshots       *bool                      `agui:"snapshots,-,opt"`
	Deltas          *bool                      `agui:"deltas,-,opt"`
	Memory          *bool                      `agui:"memory,-,opt"`
	PersistentState *bool                      `agui:"persistentState,-,opt"`
	Extra           map[string]json.RawMessage `agui:"extra"`
}

// MultiAgentCapabilities is the agent's coordination of other agents.
type MultiAgentCapabilities struct {
	Supported  *bool                      `agui:"supported,-,opt"`
	Delegation *bool                      `agui:"delegation,-,opt"`
	Handoffs   *bool                      `agui:"handoffs,-,opt"`
	Subagents  []SubagentInfo             `agui:"subagents,-,opt"`
	Extra      map[string]json.RawMessage `agui:"extra"`
}

// SubagentInfo describes a subagent the agent can invoke.
type SubagentInfo struct {
	Name        string                     `agui:"name,-"`
	Description *string                    `agui:"description,-,opt"`
	Extra       map[string]json.RawMessage `agui:"extra"`
}

// ReasoningCapabilities is what the agent shows of its reasoning.
type ReasoningCapabilities struct {
	Supported *bool                      `agui:"supported,-,opt"`
	Streaming *bool                      `agui:"streaming,-,opt"`
	Encrypted *bool                      `agui:"encrypted,-,opt"`
	Extra     map[string]json.RawMessage `agui:"extra"`
}

// MultimodalCapabilities is what the agent accepts and produces beyond text.
type MultimodalCapabilities struct {
	Input  *MultimodalInputCapabilities  `agui:"input,-,opt"`
	Output *MultimodalOutputCapabilities `agui:"output,-,opt"`
	Extra  map[string]json.RawMessage    `agui:"extra"`
}

// MultimodalInputCapabilities is the modalities the agent accepts.
type MultimodalInputCapabilities struct {
	Image *bool                      `agui:"image,-,opt"`
	Audio *bool                      `agui:"audio,-,opt"`
	Video *bool                      `agui:"video,-,opt"`
	PDF   *bool                      `agui:"pdf,-,opt"`
	File  *bool                      `agui:"file,-,opt"`
	Extra map[string]json.RawMessage `agui:"extra"`
}

// MultimodalOutputCapabilities is the modalities the agent produces.
type MultimodalOutputCapabilities struct {
	Image *bool                      `agui:"image,-,opt"`
	Audio *bool                      `agui:"audio,-,opt"`
	Extra map[string]json.RawMessage `agui:"extra"`
}

// ExecutionCapabilities is the agent's execution control and limits.
type ExecutionCapabilities struct {
	CodeExecution *bool `agui:"codeExecution,-,opt"`
	Sandboxed     *bool `agui:"sandboxed,-,opt"`
	// MaxIterations and MaxExecutionTime are integers from 0 to 2^53-1.
	MaxIterations    *int64                     `agui:"maxIterations,-,opt"`
	MaxExecutionTime *int64                     `agui:"maxExecutionTime,-,opt"`
	Extra            map[string]json.RawMessage `agui:"extra"`
}

// HumanInTheLoopCapabilities is the agent's pausing for human input.
type HumanInTheLoopCapabilities struct {
	Supported        *bool                      `agui:"supported,-,opt"`
	Approvals        *bool                      `agui:"approvals,-,opt"`
	Interventions    *bool                      `agui:"interventions,-,opt"`
	Feedback         *bool                      `agui:"feedback,-,opt"`
	Interrupts       *bool                      `agui:"interrupts,-,opt"`
	ApproveWithEdits *bool                      `agui:"approveWithEdits,-,opt"`
	Extra            map[string]json.RawMessage `agui:"extra"`
}

// The JSON of every type above: the interpreter of the field tables
// (marshalPart, unmarshalPart), with the rules in rules.go.

// MarshalJSON returns the JSON form.
func (c AgentCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *AgentCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c IdentityCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *IdentityCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c TransportCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *TransportCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c ToolsCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *ToolsCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c CapabilityTool) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *CapabilityTool) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c OutputCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *OutputCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c StateCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *StateCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c MultiAgentCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *MultiAgentCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c SubagentInfo) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *SubagentInfo) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c ReasoningCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *ReasoningCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c MultimodalCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *MultimodalCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c MultimodalInputCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *MultimodalInputCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c MultimodalOutputCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *MultimodalOutputCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c ExecutionCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *ExecutionCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// MarshalJSON returns the JSON form.
func (c HumanInTheLoopCapabilities) MarshalJSON() ([]byte, error) { return marshalPart(&c) }

// UnmarshalJSON reads the JSON form.
func (c *HumanInTheLoopCapabilities) UnmarshalJSON(b []byte) error { return unmarshalPart(c, b) }

// checkCapabilityTool refuses a null parameters schema.
func checkCapabilityTool(c *CapabilityTool) error {
	if jsonx.IsNull(c.Parameters) {
		return ruleInvalid("parameters", "parameters must not be null")
	}
	return nil
}

// checkExecution refuses limits outside 0..2^53-1, the schema's range.
func checkExecution(c *ExecutionCapabilities) error {
	for _, f := range []struct {
		name string
		v    *int64
	}{{"maxIterations", c.MaxIterations}, {"maxExecutionTime", c.MaxExecutionTime}} {
		if f.v != nil && (*f.v < 0 || !jsonx.SafeInteger(*f.v)) {
			return ruleInvalid(f.name, "%s %d is outside 0..2^53-1", f.name, *f.v)
		}
	}
	return nil
}
