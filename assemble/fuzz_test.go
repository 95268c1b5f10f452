package assemble_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/event"
)

// FuzzCompact: for any JSON lines (the lines that parse as events), applying
// never panics, and whenever Compact accepts the stream, the compacted stream
// assembles to exactly the same conversation — valid sequences or not.
func FuzzCompact(f *testing.F) {
	for seed := uint64(0); seed < 20; seed++ {
		f.Add(strings.Join(assembletest.Generate(rand.New(rand.NewPCG(seed, 5))).Lines, "\n"))
	}
	f.Add(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}
{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f","parentMessageId":"m"}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"a":1}}`)
	f.Fuzz(func(t *testing.T, text string) {
		var evs []event.Event
		for _, l := range strings.Split(text, "\n") {
			if ev, err := event.Parse([]byte(l)); err == nil {
				evs = append(evs, ev)
			}
		}
		if len(evs) > 400 {
			evs = evs[:400]
		}
		c, err := fromEvents(evs, assemble.Options{})
		compacted, _, cerr := assemble.Compact(evs, assemble.Options{})
		if cerr != nil {
			return
		}
		if err != nil {
			t.Fatalf("Compact accepted a stream that does not apply: %v", err)
		}
		want, _ := c.MarshalJSON()
		c2, err := fromEvents(compacted, assemble.Options{})
		if err != nil {
			t.Fatalf("the compacted stream does not apply: %v", err)
		}
		got, _ := c2.MarshalJSON()
		if !bytes.Equal(got, want) {
			var in, out []string
			for _, ev := range evs {
				b, _ := event.Marshal(ev)
				in = append(in, string(b))
			}
			for _, ev := range compacted {
				b, _ := event.Marshal(ev)
				out = append(out, string(b))
			}
			t.Fatalf("compacted assembles to\n%s\noriginal to\n%s\ninput:\n%s\ncompacted:\n%s", got, want, strings.Join(in, "\n"), strings.Join(out, "\n"))
		}
	})
}
