package codec

import (
	"fmt"
	"reflect"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
	"github.com/agwire/agwire/internal/schema"
)

// maxArm is the highest envelope field number of AG-UI 1.0; preV1MaxArm the
// highest a pre-1.0 peer knows. Both are checked against the event
// registry when the package initialises.
const (
	maxArm      = 31
	preV1MaxArm = 18
)

// arms lists the event type carried by each arm of the Event envelope's
// oneof; the index is the field number. It is derived from the event
// registry (event.Registry).
var arms [maxArm + 1]event.Type

// typeInfos holds the registry's wire facts by type name.
var typeInfos map[event.Type]typeInfo

type typeInfo struct {
	arm   int32 // envelope field number
	enum  int32 // EventType enum value
	preV1 bool  // pre-1.0 peers know it
}

func init() { arms, typeInfos = indexArms(event.Registry()) }

// indexArms builds arms and typeInfos from the registry and panics, naming
// the type, when an entry does not fit the envelope: an arm beyond maxArm,
// an arm left unfilled, a pre-1.0 flag that disagrees with preV1MaxArm.
func indexArms(reg []event.Info) (arms [maxArm + 1]event.Type, typeInfos map[event.Type]typeInfo) {
	typeInfos = map[event.Type]typeInfo{}
	for _, in := range reg {
		if !in.Wire() {
			continue
		}
		if in.Arm > maxArm {
			panic(fmt.Sprintf("codec: event type %s has envelope arm %d, beyond maxArm %d", in.Type, in.Arm, maxArm))
		}
		if in.PreV1 != (in.Arm <= preV1MaxArm) {
			panic(fmt.Sprintf("codec: event type %s: arm %d and pre-1.0 flag %v disagree with preV1MaxArm %d", in.Type, in.Arm, in.PreV1, preV1MaxArm))
		}
		arms[in.Arm] = in.Type
		typeInfos[in.Type] = typeInfo{arm: in.Arm, enum: in.Enum, preV1: in.PreV1}
	}
	for arm := 1; arm <= maxArm; arm++ {
		if arms[arm] == "" {
			panic(fmt.Sprintf("codec: envelope arm %d has no registered event type", arm))
		}
	}
	return arms, typeInfos
}

// Arm returns the Event envelope field number that carries events of type t,
// and false for a type with no protobuf form.
func Arm(t event.Type) (int32, bool) {
	ti, ok := typeInfos[t]
	return ti.arm, ok
}

// Supports reports whether the profile's wire can carry events of type t.
func (p Profile) Supports(t event.Type) bool {
	ti, ok := typeInfos[t]
	if !ok {
		return false
	}
	if p == PreV1 {
		return ti.preV1
	}
	return true
}

// eventPlans holds the field table of each registered event type, by its
// Go type (the pointer type), read without a lock after init.
var eventPlans = func() map[reflect.Type]*schema.Plan {
	m := map[reflect.Type]*schema.Plan{}
	for _, in := range event.Registry() {
		t := reflect.TypeOf(in.New())
		m[t] = schema.For(t.Elem())
	}
	return m
}()

// planOf returns the field table and the address of an event of package
// event's types, refusing nil events and types defined elsewhere (which
// may embed event.Base and name a registered type).
func planOf(ev event.Event) (*schema.Plan, schema.Pointer, error) {
	if ev == nil {
		return nil, schema.Pointer{}, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: nil event", event.ErrInvalidField)}
	}
	v := reflect.ValueOf(ev)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, schema.Pointer{}, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: nil %T", event.ErrInvalidField, ev)}
	}
	// Only package event's own types are in the table: a look-alike is not.
	plan, ok := eventPlans[v.Type()]
	if !ok {
		return nil, schema.Pointer{}, &jsonx.Error{Offset: -1, Err: fmt.Errorf("%w: %T (type %s) is not one of package event's types", event.ErrUnsupportedEvent, ev, jsonx.Quote(string(ev.Type())))}
	}
	return plan, schema.PointerOf(v), nil
}
