package assemble_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// sizes returns the bytes of events as JSON lines and as binary frames.
func sizes(t testing.TB, events []event.Event) (jsonl, binary int) {
	t.Helper()
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, ev := range events {
		b, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		jsonl += len(b) + 1
		if err := w.WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	return jsonl, buf.Len()
}

// The reduction on the realistic run, and that it is replay-equivalent.
func TestCompactRealisticRun(t *testing.T) {
	run := assembletest.Realistic(1)
	compacted, rep, err := assemble.Compact(run.Events, assemble.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := conversationText(t, compacted), conversationText(t, run.Events); !bytes.Equal(got, want) {
		t.Fatalf("compacted run assembles to\n%s\nthe original to\n%s", got, want)
	}
	j0, b0 := sizes(t, run.Events)
	j1, b1 := sizes(t, compacted)
	t.Logf("realistic run: %d events -> %d; JSON lines %d -> %d bytes; binary %d -> %d bytes; %d streams joined, %d state events -> 1, %d splits",
		rep.EventsIn, rep.EventsOut, j0, j1, b0, b1, rep.Streams, rep.StateEvents, rep.Splits)
	if rep.EventsOut*10 > rep.EventsIn {
		t.Errorf("compaction kept %d of %d events", rep.EventsOut, rep.EventsIn)
	}
}

// testdata/realistic-run.jsonl is Realistic(1) as JSON lines, for trying
// the CLI on (agwire assemble/compact -i assemble/testdata/realistic-run.jsonl).
// Regenerate with AGWIRE_UPDATE_TESTDATA=1 go test ./assemble -run TestRealisticRunFile.
func TestRealisticRunFile(t *testing.T) {
	want := strings.Join(assembletest.Realistic(1).Lines, "\n") + "\n"
	path := filepath.Join("testdata", "realistic-run.jsonl")
	if os.Getenv("AGWIRE_UPDATE_TESTDATA") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not Realistic(1); regenerate it", path)
	}
}
