package event_test

import (
	"bytes"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/difftest"
)

// Parse keeps nothing of its input: for every text of the shared corpus it
// reads, the event writes the same JSON after the input is overwritten.
// (The compiled path copies each string and dynamic value into the event's
// own buffer; a value left pointing into the input would change here.)
func TestParseKeepsNothingOfItsInput(t *testing.T) {
	parsed := 0
	for _, text := range difftest.Load(t).Texts() {
		in := bytes.Clone(text)
		ev, err := event.Parse(in)
		if err != nil {
			continue
		}
		before, err := event.Marshal(ev)
		if err != nil {
			continue
		}
		for i := range in {
			in[i] = 'x'
		}
		after, err := event.Marshal(ev)
		if err != nil || !bytes.Equal(before, after) {
			t.Fatalf("%s: overwriting the input changed the event: %s (%v), was %s", text, after, err, before)
		}
		parsed++
	}
	if parsed < 1000 {
		t.Fatalf("only %d texts parsed", parsed)
	}
	t.Logf("%d events checked", parsed)
}
