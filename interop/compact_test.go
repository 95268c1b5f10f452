package interop

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/event"
)

// compactRuns is the size of the fresh corpus TestCompactFreshCorpus
// compacts (a generator stream no other test uses).
const compactRuns = 200

// On runs the comparison never saw, agwire's compacted streams — chunks
// kept where they are shorter, long texts split to an output limit — replay
// in @ag-ui/client@1.0.0 to the conversation the originals give, and no
// stream is longer than it came.
func TestCompactFreshCorpus(t *testing.T) {
	const limit = 512 // small, so that joined texts are split
	var streams [][]string
	var names []string
	chunksKept, longer := 0, 0
	for seed := uint64(0); seed < compactRuns; seed++ {
		s := assembletest.Generate(rand.New(rand.NewPCG(seed, 17)))
		// One long message per run, so the limit splits something.
		long := strings.Repeat("ab😀", 200)
		lines := append([]string{}, s.Lines[:1]...)
		lines = append(lines, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"long","delta":"`+long+`"}`)
		lines = append(lines, s.Lines[1:]...)
		var evs []event.Event
		for _, l := range lines {
			ev, err := event.Parse([]byte(l))
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		for _, maxSize := range []int{0, limit} {
			compacted, _, err := assemble.Compact(evs, assemble.Options{MaxEventSize: maxSize})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if maxSize == 0 && len(compacted) > len(evs) {
				longer++ // with the limit, the long message is rightly split
			}
			var out []string
			for _, ev := range compacted {
				switch ev.(type) {
				case *event.TextMessageChunk, *event.ToolCallChunk:
					chunksKept++
				}
				b, err := event.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, string(b))
			}
			streams = append(streams, lines, out)
			names = append(names, fmt.Sprintf("seed %d, limit %d", seed, maxSize))
		}
	}
	if longer > 0 {
		t.Errorf("%d compacted streams are longer than their input", longer)
	}
	if chunksKept == 0 {
		t.Error("no chunk kept: the corpus does not exercise the rule")
	}
	results := runClient(t, streams)
	for i, name := range names {
		orig, comp := results[2*i], results[2*i+1]
		if !orig.OK || !comp.OK {
			t.Errorf("%s: the client failed: %q / %q", name, orig.Error, comp.Error)
			continue
		}
		if !reflect.DeepEqual(conversationValue(t, comp.Messages, comp.State), conversationValue(t, orig.Messages, orig.State)) {
			t.Errorf("%s: the client assembles the compacted stream to\n%s\nand the original to\n%s\ncompacted:\n%s",
				name, comp.Messages, orig.Messages, strings.Join(streams[2*i+1], "\n"))
		}
	}
	t.Logf("%d runs, each compacted without and with a %d-byte limit: %d chunk events kept, all replay-equal in the client", compactRuns, limit, chunksKept)
}
