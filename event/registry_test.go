package event

import (
	"strings"
	"testing"
)

// TestRegistryRefusesBrokenEntries: every way an entry can disagree with
// itself or another entry panics at init, naming the type.
func TestRegistryRefusesBrokenEntries(t *testing.T) {
	mutate := func(f func([]Info) []Info) []Info { return f(append([]Info(nil), registry[:]...)) }
	cases := []struct {
		name string
		reg  []Info
		want string // in the panic message
	}{
		{"duplicate entry", mutate(func(r []Info) []Info { return append(r, r[3]) }), "TOOL_CALL_START: registered twice"},
		{"New makes another type", mutate(func(r []Info) []Info { r[1].New = r[2].New; return r }), "TEXT_MESSAGE_CONTENT: New makes"},
		{"arm reused", mutate(func(r []Info) []Info { r[5].Arm = 4; return r }), "TOOL_CALL_END: envelope arm 4 is also TOOL_CALL_START"},
		{"enum reused", mutate(func(r []Info) []Info { r[7].Enum = 6; return r }), "STATE_DELTA: EventType enum value 6 is also STATE_SNAPSHOT"},
		{"wire type without enum", mutate(func(r []Info) []Info { r[9].Enum = -1; return r }), "RAW: arm 10, enum -1"},
		{"no wire form but an enum", mutate(func(r []Info) []Info { r[len(r)-1].Enum = 3; return r }), "THINKING_TEXT_MESSAGE_END: a type with no protobuf form"},
		{"enum not dense", mutate(func(r []Info) []Info { r[30].Enum = 35; return r }), "not dense"},
		{"empty name", mutate(func(r []Info) []Info { r[0].Type = ""; return r }), "empty type name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if r == nil || !strings.Contains(msg, c.want) {
					t.Fatalf("panic = %v, want one containing %q", r, c.want)
				}
			}()
			indexRegistry(c.reg)
		})
	}
}

// TestRegistryDerived: what the package derives from the registry agrees
// with it: New, Types, Known, IsThinking, the JSON tables.
func TestRegistryDerived(t *testing.T) {
	wire := 0
	for _, in := range Registry() {
		ev := New(in.Type)
		if ev == nil || ev.Type() != in.Type {
			t.Errorf("New(%s) = %T", in.Type, ev)
			continue
		}
		if in.Type.Known() != in.Wire() || in.Type.IsThinking() == in.Wire() {
			t.Errorf("%s: Known %v, IsThinking %v, Wire %v", in.Type, in.Type.Known(), in.Type.IsThinking(), in.Wire())
		}
		if in.Wire() {
			wire++
			if ts := Types(); int(in.Enum) >= len(ts) || ts[in.Enum] != in.Type {
				t.Errorf("%s: Types()[%d] is not it", in.Type, in.Enum)
			}
		}
		if _, ok := plans[goTypes[in.Type].Elem()]; !ok {
			t.Errorf("%s: no JSON table", in.Type)
		}
		got, ok := Lookup(in.Type)
		if !ok || got.Arm != in.Arm || got.Enum != in.Enum {
			t.Errorf("Lookup(%s) = %+v, %v", in.Type, got, ok)
		}
	}
	if wire != 31 || len(Types()) != 31 {
		t.Errorf("%d wire types, Types() has %d; AG-UI 1.0 has 31", wire, len(Types()))
	}
	if New("NOPE") != nil || Type("NOPE").Known() || Type("NOPE").IsThinking() {
		t.Error("an unregistered type is known")
	}
}
