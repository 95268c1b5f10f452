package codec_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
	"github.com/agwire/agwire/internal/schema"
)

// TestRegistryMatchesDescriptors holds the event registry to the generated
// schema: every arm of ag_ui.Event's oneof is a registered type whose
// message is named after its Go struct, every EventType enum value is the
// registered enum of the type of the same name, and nothing else is
// registered with a wire form.
func TestRegistryMatchesDescriptors(t *testing.T) {
	env := (&aguipb.Event{}).ProtoReflect().Descriptor()
	enum := aguipb.EventType(0).Descriptor()
	oneof := env.Oneofs().ByName("event")
	if oneof == nil {
		t.Fatal("ag_ui.Event has no oneof event")
	}
	byArm := map[int32]event.Info{}
	wire := 0
	for _, in := range event.Registry() {
		if !in.Wire() {
			continue
		}
		wire++
		byArm[in.Arm] = in
		ev := enum.Values().ByName(protoreflect.Name(in.Type))
		if ev == nil || int32(ev.Number()) != in.Enum {
			t.Errorf("%s: registry enum %d, EventType has %v", in.Type, in.Enum, ev)
		}
	}
	for i := 0; i < oneof.Fields().Len(); i++ {
		fd := oneof.Fields().Get(i)
		in, ok := byArm[int32(fd.Number())]
		if !ok {
			t.Errorf("arm %d (%s) of ag_ui.Event is not registered", fd.Number(), fd.Name())
			continue
		}
		goName := reflect.TypeOf(in.New()).Elem().Name()
		if string(fd.Message().Name()) != goName+"Event" {
			t.Errorf("%s: arm %d carries %s, the Go type is %s", in.Type, fd.Number(), fd.Message().Name(), goName)
		}
		if in.PreV1 != codec.PreV1.Supports(in.Type) || !codec.V1.Supports(in.Type) {
			t.Errorf("%s: profiles disagree with the registry", in.Type)
		}
	}
	if wire != oneof.Fields().Len() || wire != enum.Values().Len() {
		t.Errorf("%d registered wire types, %d arms, %d enum values", wire, oneof.Fields().Len(), enum.Values().Len())
	}
}

// TestRegistryRecipe checks, for every registered type, each step of adding
// an event type (docs/design.md): the proto message and its arm,
// the struct with its tags (a table whose wire fields are the message's),
// the registry line (Lookup, Arm, New), and a golden case from the real
// peer that the codec reproduces byte for byte. A type added without one of
// these fails here (or, for a missing registry line, at init).
func TestRegistryRecipe(t *testing.T) {
	env := (&aguipb.Event{}).ProtoReflect().Descriptor()
	golden := map[event.Type][]goldenFrame{}
	for _, g := range loadGolden(t) {
		var head struct{ Type event.Type }
		if err := json.Unmarshal(g.Input, &head); err != nil {
			t.Fatal(err)
		}
		golden[head.Type] = append(golden[head.Type], g)
	}
	for _, in := range event.Registry() {
		if !in.Wire() {
			if _, err := codec.AppendFromJSON(nil, []byte(`{"type":"`+string(in.Type)+`"}`)); err == nil {
				t.Errorf("%s has no wire form but encodes", in.Type)
			}
			continue
		}
		// The proto: an arm carrying a message whose field 1 is BaseEvent.
		fd := env.Fields().ByNumber(protoreflect.FieldNumber(in.Arm))
		if fd == nil || fd.Message() == nil || fd.Message().Fields().ByNumber(1) == nil {
			t.Errorf("%s: no proto message on arm %d", in.Type, in.Arm)
			continue
		}
		// The struct and its tags: one table field per proto field past
		// base_event (their numbers and types are held to the descriptors
		// by internal/schema's TestTagsMatchDescriptors).
		plan := schema.For(reflect.TypeOf(in.New()).Elem())
		got := 0 // the 1.0 wire's: a field a later version added is not in aguipb
		for _, f := range plan.Wire {
			if f.Since == "" {
				got++
			}
		}
		if want := fd.Message().Fields().Len() - 1; got != want {
			t.Errorf("%s: the struct's tags give %d wire fields, %s has %d besides base_event", in.Type, got, fd.Message().Name(), want)
		}
		// The registry line, as the codec sees it.
		if arm, ok := codec.Arm(in.Type); !ok || arm != in.Arm {
			t.Errorf("%s: codec.Arm = %d, %v; registry says %d", in.Type, arm, ok, in.Arm)
		}
		// A golden case the codec writes as the peer does.
		cases := golden[in.Type]
		if len(cases) == 0 {
			t.Errorf("%s: no golden case in testdata/golden-peer-1.0.0.jsonl (interop/regen-golden.sh)", in.Type)
			continue
		}
		matched := false
		for _, g := range cases {
			want, _ := hex.DecodeString(g.Hex)
			got, err := codec.AppendFromJSON(nil, g.Input)
			if err == nil && bytes.Equal(got, want) {
				matched = true
				break
			}
		}
		if !matched {
			t.Errorf("%s: none of its %d golden cases encodes to the peer's bytes", in.Type, len(cases))
		}
	}
}
