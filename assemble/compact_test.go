package assemble_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/event"
)

func conversationText(t testing.TB, events []event.Event) []byte {
	t.Helper()
	c, err := assemble.FromEvents(events, assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Property: assembling the compacted stream gives exactly the conversation
// the original gives (same JSON text: messages, metadata, state), and the
// compacted stream is itself valid (it passes sequence checking).
func TestCompactReplayEquivalent(t *testing.T) {
	in, out := 0, 0
	splits := 0
	for seed := uint64(0); seed < 500; seed++ {
		s := assembletest.Generate(rand.New(rand.NewPCG(seed, 2)))
		compacted, rep, err := assemble.Compact(s.Events, assemble.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want := conversationText(t, s.Events)
		got := conversationText(t, compacted)
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: compacted stream assembles to\n%s\nthe original to\n%s", seed, got, want)
		}
		if _, err := assemble.FromEvents(compacted, assemble.Options{Check: true}); err != nil {
			t.Fatalf("seed %d: the compacted stream fails sequence checking: %v", seed, err)
		}
		// Compacting again changes nothing more.
		again, _, err := assemble.Compact(compacted, assemble.Options{})
		if err != nil || len(again) != len(compacted) {
			t.Fatalf("seed %d: compacting twice: %d -> %d events, %v", seed, len(compacted), len(again), err)
		}
		if rep.EventsIn != len(s.Events) || rep.EventsOut != len(compacted) {
			t.Fatalf("seed %d: report %+v", seed, rep)
		}
		in += rep.EventsIn
		out += rep.EventsOut
		splits += rep.Splits
	}
	t.Logf("500 generated streams: %d events -> %d; %d streams split at a barrier", in, out, splits)
}
