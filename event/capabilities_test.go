package event_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestCapabilitiesJSON: capabilities read and write through package
// event's own JSON (the tables' interpreter): members of a later version
// kept at every level and written back in sorted order after the known
// ones (encoding/json compacts what MarshalJSON returns); null on an
// optional member is absence.
func TestCapabilitiesJSON(t *testing.T) {
	in := `{"identity":{"name":"w","metadata":{"team":"geo"},"x-id":1},"transport":{"streaming":true,"future":[1, 2]},` +
		`"tools":{"items":[{"name":"f","description":"d","parameters":{"type":"object"},"x":true}]},` +
		`"multiAgent":{"subagents":[{"name":"a","y":"z"}]},"execution":{"maxIterations":10},"reasoning":null,` +
		`"custom":{"k":1},"zeta":0,"alpha":{"b":null}}`
	var c event.AgentCapabilities
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.Reasoning != nil || string(c.Extra["zeta"]) != "0" || string(c.Identity.Extra["x-id"]) != "1" ||
		string(c.Tools.Items[0].Extra["x"]) != "true" || string(c.MultiAgent.Subagents[0].Extra["y"]) != `"z"` {
		t.Fatalf("read %+v", c)
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"identity":{"name":"w","metadata":{"team":"geo"},"x-id":1},"transport":{"streaming":true,"future":[1,2]},` +
		`"tools":{"items":[{"name":"f","description":"d","parameters":{"type":"object"},"x":true}]},` +
		`"multiAgent":{"subagents":[{"name":"a","y":"z"}]},"execution":{"maxIterations":10},` +
		`"custom":{"k":1},"alpha":{"b":null},"zeta":0}`
	if string(out) != want {
		t.Fatalf("wrote\n%s\nwant\n%s", out, want)
	}
}

// TestCapabilitiesRefusals: what @ag-ui/core's schema refuses is refused
// with the package's sentinels and a path, reading and writing.
func TestCapabilitiesRefusals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
		path string
	}{
		{`{"transport":{"streaming":true,"streaming":false}}`, event.ErrDuplicateKey, "transport.streaming"},
		{`{"later":1,"later":2}`, event.ErrDuplicateKey, "later"},
		{`{"tools":{"items":[{"name":"f","description":"d","parameters":null}]}}`, event.ErrInvalidField, "tools.items[0].parameters"},
		{`{"tools":{"items":[{"description":"d"}]}}`, event.ErrMissingField, "tools.items[0].name"},
		{`{"execution":{"maxIterations":-1}}`, event.ErrInvalidField, "execution.maxIterations"},
		{`{"execution":{"maxExecutionTime":9007199254740992}}`, event.ErrInvalidField, "execution.maxExecutionTime"},
		{`{"custom":[1]}`, event.ErrInvalidField, "custom"},
		{`{"identity":{"metadata":null}}`, event.ErrNullMetadata, "identity.metadata"},
		{`{"state":{"snapshots":"yes"}}`, event.ErrInvalidField, "state.snapshots"},
		{`null`, event.ErrInvalidField, ""},
	} {
		var c event.AgentCapabilities
		err := json.Unmarshal([]byte(tc.in), &c)
		var pe *event.PathError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Path != tc.path {
			t.Errorf("%s: %v, want %v at %q", tc.in, err, tc.want, tc.path)
		}
	}
	big := int64(1) << 53
	for _, c := range []event.AgentCapabilities{
		{Execution: &event.ExecutionCapabilities{MaxIterations: &big}},
		{Custom: json.RawMessage(`"s"`)},
		{Extra: map[string]json.RawMessage{"k": json.RawMessage(`{`)}},
		{Tools: &event.ToolsCapabilities{Items: []event.CapabilityTool{{Name: "f", Parameters: json.RawMessage("null")}}}},
	} {
		if _, err := json.Marshal(c); err == nil || !strings.Contains(err.Error(), "invalid") && !errors.Is(err, event.ErrInvalidField) {
			t.Errorf("%+v: marshalled (%v)", c, err)
		}
	}
}
