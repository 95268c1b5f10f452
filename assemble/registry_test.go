package assemble

import (
	"errors"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestEveryRegisteredTypeIsApplied holds the conversation's dispatch to the
// event registry: every type with a wire form but the chunks (expanded
// first) has a case in apply (a type
// added to the registry without one fails here, and at run time is an
// error, never silently dropped), and a value that only looks like a
// registered type gets the same error rather than being ignored.
func TestEveryRegisteredTypeIsApplied(t *testing.T) {
	for _, in := range event.Registry() {
		if !in.Wire() || isChunk(in.New()) {
			continue // chunks are expanded into the events apply takes
		}
		c, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = nil // a zero event may trip a case; it has one
				}
			}()
			return c.apply(in.New())
		}()
		if errors.Is(err, errUnhandled) {
			t.Errorf("%s: registered, but the conversation has no case for it", in.Type)
		}
	}
	c, _ := New(Options{})
	if err := c.apply(&lookalike{}); !errors.Is(err, errUnhandled) {
		t.Errorf("a look-alike event: %v, want errUnhandled", err)
	}
}

type lookalike struct{ event.Base }

func (*lookalike) Type() event.Type { return event.TypeRaw }
