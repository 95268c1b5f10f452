package schema_test

import (
	"reflect"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/schema"
)

// TestEventPlans checks the tables every JSON and wire path walks: each
// event type has a plan built from its tags, with field numbers in
// ascending order (the order the wire is written in), unique, and findable
// by number; the embedded Base is recognised.
func TestEventPlans(t *testing.T) {
	plans := event.Plans()
	for _, typ := range event.Types() {
		ev := event.New(typ)
		p := plans[reflect.TypeOf(ev).Elem()]
		if p == nil {
			t.Errorf("%s: no plan", typ)
			continue
		}
		if !p.Event || p.Base == nil {
			t.Errorf("%s: plan does not know it is an event", typ)
		}
		checkPlan(t, string(typ), p, map[*schema.Plan]bool{})
	}
	base := plans[reflect.TypeOf(event.Base{})]
	if base == nil || len(base.Fields) != 3 {
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
	if seen[p] {
		return
	}
	seen[p] = true
	last := int32(0)
	for i := range p.Fields {
		f := &p.Fields[i]
		if f.Num <= last {
			t.Errorf("%s.%s: field number %d not above %d: fields must be in wire order", where, f.GoName, f.Num, last)
		}
		last = f.Num
		if got := p.FieldByNum(f.Num); got != f {
			t.Errorf("%s.%s: FieldByNum(%d) = %v", where, f.GoName, f.Num, got)
		}
		if f.Kind == 0 || f.Name == "" {
			t.Errorf("%s.%s: kind %d name %q", where, f.GoName, f.Kind, f.Name)
		}
		if f.Elem != nil {
			checkPlan(t, where+"."+f.GoName, f.Elem, seen)
		}
	}
	if p.FieldByNum(0) != nil || p.FieldByNum(last+1) != nil || p.FieldByNum(-1) != nil {
		t.Errorf("%s: FieldByNum finds numbers that are not fields", where)
	}
}

// TestUnionFields: a message's "content" is carried by three fields (string,
// parts, activity object) and is marked as a union on each; no other field
// is.
func TestUnionFields(t *testing.T) {
	plans := event.Plans()
	for _, tc := range []struct {
		typ  reflect.Type
		nums []int32
	}{
		{reflect.TypeOf(event.Message{}), []int32{3, 8, 13}},
		{reflect.TypeOf(event.ToolCallResult{}), []int32{5, 7}},
	} {
		p := plans[tc.typ]
		var got []int32
		for _, f := range p.Fields {
			if f.Union {
				if f.Name != "content" {
					t.Errorf("%s: union field %s named %q", tc.typ.Name(), f.GoName, f.Name)
				}
				got = append(got, f.Num)
			}
		}
		if !reflect.DeepEqual(got, tc.nums) {
			t.Errorf("%s: union fields %v, want %v", tc.typ.Name(), got, tc.nums)
		}
	}
}

// TestBadTagsPanic: a malformed tag is a programming error caught when the
// plan is built.
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
	for _, v := range []any{badNumber{}, badOption{}, badType{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: no panic", v)
				}
			}()
			schema.For(reflect.TypeOf(v))
		}()
	}
}
