package codec

import (
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestArmsRefuseBrokenRegistry: a registry the envelope cannot carry panics
// when the package initialises, naming the type or the arm, instead of
// encoding anything under field number 0.
func TestArmsRefuseBrokenRegistry(t *testing.T) {
	drop := func(typ event.Type) []event.Info {
		var out []event.Info
		for _, in := range event.Registry() {
			if in.Type != typ {
				out = append(out, in)
			}
		}
		return out
	}
	edit := func(f func(r []event.Info)) []event.Info { r := event.Registry(); f(r); return r }
	cases := []struct {
		name string
		reg  []event.Info
		want string
	}{
		{"a type left out", drop(event.TypeStateDelta), "envelope arm 8 has no registered event type"},
		{"arm beyond the envelope", edit(func(r []event.Info) { r[30].Arm = 32 }), "REASONING_ENCRYPTED_VALUE has envelope arm 32"},
		{"pre-1.0 flag wrong", edit(func(r []event.Info) { r[16].PreV1 = true }), "SUBAGENT_STARTED: arm 19 and pre-1.0 flag true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Fatalf("panic %q, want one containing %q", msg, c.want)
				}
			}()
			indexArms(c.reg)
		})
	}
}
