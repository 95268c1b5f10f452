package interop

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/schema"
)

// TestRestrictedSetsMatchSchema holds every restricted string field of
// agwire's tables to @ag-ui/core 1.0's schema, read from the zod schemas by
// sets.mjs: each set agwire checks is exactly the schema's, every
// restricted field in the tables is compared, and the outcome types (a rule,
// not a tag) accept what the schema lists and nothing else.
func TestRestrictedSetsMatchSchema(t *testing.T) {
	stdout, stderr, err := runNodeScript(t, "sets.mjs")
	if err != nil {
		t.Fatalf("sets.mjs: %v\n%s", err, stderr)
	}
	var peer map[string][]string
	if err := json.Unmarshal(stdout, &peer); err != nil {
		t.Fatalf("sets.mjs printed %q: %v", stdout, err)
	}
	tagged := []struct {
		key  string
		typ  reflect.Type
		name string
	}{
		{"textMessageStartRole", reflect.TypeFor[event.TextMessageStart](), "role"},
		{"textMessageChunkRole", reflect.TypeFor[event.TextMessageChunk](), "role"},
		{"toolCallResultRole", reflect.TypeFor[event.ToolCallResult](), "role"},
		{"reasoningMessageStartRole", reflect.TypeFor[event.ReasoningMessageStart](), "role"},
		{"reasoningEncryptedValueSubtype", reflect.TypeFor[event.ReasoningEncryptedValue](), "subtype"},
		{"toolCallType", reflect.TypeFor[event.ToolCall](), "type"},
		{"resumeEntryStatus", reflect.TypeFor[event.ResumeEntry](), "status"},
		{"messageRole", reflect.TypeFor[event.Message](), "role"},
		{"patchOp", reflect.TypeFor[event.PatchOp](), "op"},
	}
	compared := map[*schema.Field]bool{}
	for _, c := range tagged {
		want, ok := peer[c.key]
		if !ok {
			t.Errorf("sets.mjs did not print %s", c.key)
			continue
		}
		f := fieldNamed(schema.For(c.typ), c.name)
		if f == nil {
			t.Errorf("%s has no field %s", c.typ, c.name)
			continue
		}
		compared[f] = true
		if got := f.Names; !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("%s.%s: agwire allows %q, @ag-ui/core allows %q", c.typ.Name(), c.name, got, want)
		}
	}
	// No restricted field of any table escapes the comparison.
	seen := map[*schema.Plan]bool{}
	var walk func(p *schema.Plan)
	walk = func(p *schema.Plan) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		for i := range p.Fields {
			f := &p.Fields[i]
			if f.Names != nil && !compared[f] {
				t.Errorf("%s.%s is restricted to %q but not compared with the schema", p.Type.Name(), f.Name, f.Names)
			}
			walk(f.Elem)
		}
		walk(p.Base)
	}
	for _, in := range event.Registry() {
		walk(schema.For(reflect.TypeOf(in.New()).Elem()))
	}
	walk(schema.For(reflect.TypeFor[event.RunAgentInput]()))

	outcomes := []struct{ key, prefix string }{
		{"runFinishedOutcomeType", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"`},
		{"subagentFinishedOutcomeType", `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"`},
	}
	for _, o := range outcomes {
		for _, v := range append(peer[o.key], "not-an-outcome") {
			extra := ""
			if v == event.OutcomeInterrupt {
				extra = `,"interrupts":[{"id":"i","reason":"r"}]`
			}
			in := o.prefix + v + `"` + extra + `}}`
			_, err := event.Parse([]byte(in))
			if allowed := slices.Contains(peer[o.key], v); allowed != (err == nil) {
				t.Errorf("%s: schema allows it: %v; agwire: %v", in, allowed, err)
			}
		}
		if len(peer[o.key]) == 0 {
			t.Errorf("sets.mjs printed no %s", o.key)
		}
	}
}

func fieldNamed(p *schema.Plan, name string) *schema.Field {
	for i := range p.Fields {
		if p.Fields[i].Name == name {
			return &p.Fields[i]
		}
	}
	return nil
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
