package schema_test

import (
	"cmp"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
	"github.com/agwire/agwire/gen/aguipb11"
	"github.com/agwire/agwire/internal/schema"
)

// plans returns the tables package event prepared (For returns the cached
// plan for a type it has already built).
func planOf(v any) *schema.Plan { return schema.For(reflect.TypeOf(v)) }

// TestEventPlans checks the tables every JSON and wire path walks: each
// event type has a plan built from its tags, wire fields in ascending,
// unique number order (the order the wire is written in) and findable by
// number; the embedded Base is recognised.
func TestEventPlans(t *testing.T) {
	for _, typ := range event.Types() {
		p := schema.For(reflect.TypeOf(event.New(typ)).Elem())
		if !p.Event || p.Base == nil {
			t.Errorf("%s: plan does not know it is an event", typ)
		}
		checkPlan(t, string(typ), p, map[*schema.Plan]bool{})
	}
	base := planOf(event.Base{})
	if len(base.Fields) != 3 {
		t.Fatalf("Base plan: %+v", base)
	}
	for i, want := range []struct {
		name string
		num  int32
		kind schema.Kind
	}{{"timestamp", 2, schema.OptInt64}, {"rawEvent", 3, schema.Value}, {"metadata", 4, schema.Object}} {
		if f := base.Fields[i]; f.Name != want.name || f.Num != want.num || f.Kind != want.kind {
			t.Errorf("Base field %d = %s/%d/%d, want %+v", i, f.Name, f.Num, f.Kind, want)
		}
	}
}

func checkPlan(t *testing.T, where string, p *schema.Plan, seen map[*schema.Plan]bool) {
	t.Helper()
	if seen[p] || p.Hand {
		return
	}
	seen[p] = true
	last := int32(0)
	for i := range p.Wire {
		f := &p.Wire[i]
		if f.Num <= last {
			t.Errorf("%s.%s: field number %d not above %d: fields must be in wire order", where, f.GoName, f.Num, last)
		}
		last = f.Num
		if got := p.FieldByNum(f.Num); got != f {
			t.Errorf("%s.%s: FieldByNum(%d) = %v", where, f.GoName, f.Num, got)
		}
		if f.Kind == 0 || f.Name == "" || f.Flat {
			t.Errorf("%s.%s: kind %d name %q flat %v", where, f.GoName, f.Kind, f.Name, f.Flat)
		}
		if f.Elem != nil {
			checkPlan(t, where+"."+f.GoName, f.Elem, seen)
		}
	}
	if p.FieldByNum(0) != nil || p.FieldByNum(last+1) != nil || p.FieldByNum(-1) != nil {
		t.Errorf("%s: FieldByNum finds numbers that are not fields", where)
	}
}

// TestFlatOutcomes: RUN_FINISHED's outcome is one JSON field and three
// wire fields (5, 6, 8) around usage (7); SUBAGENT_FINISHED's is 4 and 5.
func TestFlatOutcomes(t *testing.T) {
	for _, tc := range []struct {
		v    any
		wire []int32
		via  []bool
	}{
		{event.RunFinished{}, []int32{2, 3, 4, 5, 6, 7, 8}, []bool{false, false, false, true, true, false, true}},
		{event.SubagentFinished{}, []int32{2, 3, 4, 5}, []bool{false, false, true, true}},
	} {
		p := planOf(tc.v)
		var nums []int32
		var via []bool
		for _, f := range p.Wire {
			nums = append(nums, f.Num)
			via = append(via, f.Via != nil)
		}
		if !reflect.DeepEqual(nums, tc.wire) || !reflect.DeepEqual(via, tc.via) {
			t.Errorf("%T: wire %v via %v, want %v %v", tc.v, nums, via, tc.wire, tc.via)
		}
		found := false
		for _, f := range p.Fields {
			if f.Name == "outcome" {
				found = f.Flat && f.Kind == schema.OptMessage
			}
		}
		if !found {
			t.Errorf("%T: no flat outcome field in the JSON view", tc.v)
		}
	}
}

// TestUnionFields: a message's "content" is carried by three fields (string,
// parts, activity object) and is marked as a union on each; no other field
// is.
func TestUnionFields(t *testing.T) {
	for _, tc := range []struct {
		v    any
		nums []int32
	}{
		{event.Message{}, []int32{3, 8, 13}},
		{event.ToolCallResult{}, []int32{5, 7}},
	} {
		var got []int32
		for _, f := range planOf(tc.v).Fields {
			if f.Union {
				if f.Name != "content" {
					t.Errorf("%T: union field %s named %q", tc.v, f.GoName, f.Name)
				}
				got = append(got, f.Num)
			}
		}
		if !reflect.DeepEqual(got, tc.nums) {
			t.Errorf("%T: union fields %v, want %v", tc.v, got, tc.nums)
		}
	}
}

// TestBadTagsPanic: a malformed tag is a programming error caught when the
// plan is built — and a failed build leaves nothing behind: asking again
// panics again rather than handing out a half-built plan.
func TestBadTagsPanic(t *testing.T) {
	type badNumber struct {
		X string `agui:"x,notanumber"`
	}
	type badOption struct {
		X string `agui:"x,1,sometimes"`
	}
	type badType struct {
		X complex128 `agui:"x,1"`
	}
	type zeroNumber struct {
		X string `agui:"x,0"`
	}
	type hugeNumber struct {
		X string `agui:"x,100000"`
	}
	type twice struct {
		X string `agui:"x,1"`
		Y string `agui:"y,1"`
	}
	type flatString struct {
		X string `agui:"x,flat"`
	}
	type badNested struct {
		Ok  string    `agui:"ok,1"`
		Bad badNumber `agui:"bad,2"`
	}
	type unknownEnum struct {
		X string `agui:"x,1,enum=nosuch"`
	}
	tooMany := reflect.StructOf(func() []reflect.StructField {
		var fs []reflect.StructField
		for i := 1; i <= schema.MaxFields+1; i++ {
			fs = append(fs, reflect.StructField{Name: "F" + strings.Repeat("x", i), Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`agui:"f` + strings.Repeat("x", i) + `,` + itoa(i) + `"`)})
		}
		return fs
	}())
	for _, typ := range []reflect.Type{
		reflect.TypeFor[badNumber](), reflect.TypeFor[badOption](), reflect.TypeFor[badType](),
		reflect.TypeFor[zeroNumber](), reflect.TypeFor[hugeNumber](), reflect.TypeFor[twice](),
		reflect.TypeFor[flatString](), reflect.TypeFor[badNested](), reflect.TypeFor[unknownEnum](), tooMany,
	} {
		for round := 0; round < 2; round++ {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%v (round %d): no panic", typ, round)
					}
				}()
				schema.For(typ)
			}()
		}
	}
}

func itoa(i int) string {
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestTagsMatchDescriptors ties every agui tag to the generated schema: each
// wire field of each table has the number, the type and the label of the
// field the aguipb descriptors give at the same place, and no descriptor
// field is left without a table field. A renumbered or retyped field fails
// here instead of corrupting bytes.
//
// It runs twice: against the 1.0 descriptors (gen/aguipb), where a field a
// later version added (",since=1.1") must be absent, and against the 1.1
// descriptors (gen/aguipb11), where every field must be present.
func TestTagsMatchDescriptors(t *testing.T) {
	for _, wire := range []struct {
		version string
		env     protoreflect.MessageDescriptor
	}{
		{"", (&aguipb.Event{}).ProtoReflect().Descriptor()},
		{"1.1", (&aguipb11.Event{}).ProtoReflect().Descriptor()},
	} {
		t.Run("wire "+cmp.Or(wire.version, "1.0"), func(t *testing.T) { tagsMatch(t, wire.env, wire.version) })
	}
}

func tagsMatch(t *testing.T, env protoreflect.MessageDescriptor, version string) {
	seen := map[*schema.Plan]bool{}
	for _, typ := range event.Types() {
		arm, ok := codec.Arm(typ)
		if !ok {
			t.Fatalf("%s: no arm", typ)
		}
		fd := env.Fields().ByNumber(protoreflect.FieldNumber(arm))
		if fd == nil || fd.Message() == nil {
			t.Fatalf("%s: arm %d is not a message field of ag_ui.Event", typ, arm)
		}
		p := schema.For(reflect.TypeOf(event.New(typ)).Elem())
		md := fd.Message()
		// Field 1 of every event is its BaseEvent.
		bf := md.Fields().ByNumber(1)
		if bf == nil || bf.Message() == nil || bf.Message().Name() != "BaseEvent" {
			t.Errorf("%s: field 1 of %s is not BaseEvent", typ, md.FullName())
			continue
		}
		matchPlan(t, string(typ), p, md, seen, 2, version)
		matchPlan(t, string(typ)+".base", p.Base, bf.Message(), seen, 2, version)
	}
}

// matchPlan compares a plan with a message descriptor. Descriptor fields
// numbered below from are handled by the caller (BaseEvent's type, an
// event's base_event).
func matchPlan(t *testing.T, where string, p *schema.Plan, md protoreflect.MessageDescriptor, seen map[*schema.Plan]bool, from protoreflect.FieldNumber, version string) {
	t.Helper()
	if p.Hand {
		return // content parts: mapped by hand, checked by the differential tests
	}
	if seen[p] && p.Type.Name() != "Base" {
		return
	}
	seen[p] = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Number() < from && (p.Event || p.Type.Name() == "Base") {
			continue
		}
		if p.FieldByNum(int32(fd.Number())) == nil {
			t.Errorf("%s: %s (%d) has no table field", where, fd.FullName(), fd.Number())
		}
	}
	for i := range p.Wire {
		f := &p.Wire[i]
		fd := fields.ByNumber(protoreflect.FieldNumber(f.Num))
		at := where + "." + f.GoName
		if newer := f.Since != "" && f.Since > version; newer || fd == nil {
			if newer && fd != nil {
				t.Errorf("%s: field number %d is in %s, but the table says it came in %s", at, f.Num, md.FullName(), f.Since)
			}
			if newer {
				continue
			}
			t.Errorf("%s: field number %d is not in %s", at, f.Num, md.FullName())
			continue
		}
		if got, want := describe(fd), expect(f); got != want {
			t.Errorf("%s (%d): descriptor %s, table %s", at, f.Num, got, want)
		}
		if fd.Message() != nil && f.Elem != nil {
			matchPlan(t, at, f.Elem, fd.Message(), seen, 1, version)
		}
		if fd.Enum() != nil && f.Kind == schema.Enum {
			vals := fd.Enum().Values()
			if vals.Len() != len(f.Names) {
				t.Errorf("%s: %d enum values, table names %d", at, vals.Len(), len(f.Names))
			}
			for j := 0; j < vals.Len(); j++ {
				v := vals.Get(j)
				if int(v.Number()) >= len(f.Names) || !strings.EqualFold(string(v.Name()), f.Names[v.Number()]) {
					t.Errorf("%s: enum value %s = %d has no table name", at, v.Name(), v.Number())
				}
			}
		}
	}
}

// describe spells a descriptor field as "label kind[/type]".
func describe(fd protoreflect.FieldDescriptor) string {
	label := "singular"
	switch {
	case fd.IsList():
		label = "repeated"
	case fd.HasOptionalKeyword():
		label = "optional"
	}
	kind := fd.Kind().String()
	if fd.Message() != nil {
		switch fd.Message().FullName() {
		case "google.protobuf.Value", "google.protobuf.Struct":
			kind = string(fd.Message().FullName())
		default:
			kind = "message"
		}
	}
	return label + " " + kind
}

// expect is what the table's kind promises.
func expect(f *schema.Field) string {
	switch f.Kind {
	case schema.String:
		return "singular string"
	case schema.OptString:
		return "optional string"
	case schema.OptBool:
		return "optional bool"
	case schema.OptInt64:
		return "optional int64"
	case schema.Value:
		return "singular google.protobuf.Value"
	case schema.Object:
		return "singular google.protobuf.Struct"
	case schema.Message, schema.OptMessage:
		return "singular message"
	case schema.Messages, schema.Parts:
		return "repeated message"
	case schema.Strings:
		return "repeated string"
	case schema.Enum:
		return "singular enum"
	}
	return "unknown kind"
}

// TestRulesAttached: every rule that varies by type hangs off the table.
func TestRulesAttached(t *testing.T) {
	for _, v := range []any{event.Message{}, event.ToolCallResult{}, event.RunOutcome{}, event.SubagentOutcome{}, event.ContentPart{}, event.Source{}} {
		if planOf(v).Check == nil {
			t.Errorf("%T: no Check", v)
		}
	}
	for _, v := range []any{event.Message{}, event.ToolCallResult{}, event.RunFinished{}, event.SubagentFinished{}, event.Source{}} {
		if planOf(v).FromWire == nil {
			t.Errorf("%T: no FromWire", v)
		}
	}
	op := planOf(event.PatchOp{}).FieldByNum(1)
	if op.Kind != schema.Enum || op.NameIndex("test") != 5 || op.NameIndex("0") != -1 {
		t.Errorf("PatchOp.op: %+v", op)
	}
	role := planOf(event.Message{}).FieldByNum(2)
	if role.Kind != schema.String || role.NameIndex("activity") < 0 || role.NameIndex("critic") >= 0 {
		t.Errorf("Message.role: %+v", role)
	}
	if !planOf(event.ContentPart{}).Hand || !planOf(event.Source{}).Hand {
		t.Errorf("content parts and sources are not marked as mapped by hand")
	}
}
