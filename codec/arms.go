package codec

import (
	"fmt"

	"github.com/agwire/agwire/event"
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
