package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/framing"
)

// A message whose joined text is larger than the output's frame limit is
// written in several content events, so compacting to binary succeeds and
// every frame fits; before, the command failed after writing part of it.
func TestCompactToTheOutputLimit(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	in.WriteString(`{"type":"TEXT_MESSAGE_START","messageId":"m"}` + "\n")
	for range 8 {
		in.WriteString(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 3000) + `"}` + "\n")
	}
	in.WriteString(`{"type":"TEXT_MESSAGE_END","messageId":"m"}` + "\n")
	in.WriteString(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	want, _, code := agwire(t, []byte(in.String()), "assemble")
	if code != 0 {
		t.Fatal("assemble failed")
	}
	for _, args := range [][]string{
		{"compact", "--to", "binary", "--max-output-frame-size", "4096"},
		{"compact", "--to", "binary", "--max-frame-size", "4096", "--max-output-frame-size", "4096"},
	} {
		out, errOut, code := agwire(t, []byte(in.String()), args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		r := framing.NewReader(bytes.NewReader([]byte(out)), framing.ReaderOptions{Codec: codec.Codec{}, MaxFrameSize: 4096})
		n := 0
		for _, err := range r.Events() {
			if err != nil {
				t.Fatalf("%v: reading the output with a 4096-byte limit: %v", args, err)
			}
			n++
		}
		if n < 8 || n >= 12 {
			t.Errorf("%v: %d events", args, n)
		}
		got, errOut, code := agwire(t, []byte(out), "assemble", "--max-frame-size", "4096")
		if code != 0 || got != want {
			t.Errorf("%v: the compacted stream assembles differently (exit %d, %s)", args, code, errOut)
		}
	}
	// Without the option the joined text is one event, too large for such a
	// reader.
	out, _, code := agwire(t, []byte(in.String()), "compact", "--to", "binary")
	if code != 0 {
		t.Fatal("compact failed")
	}
	r := framing.NewReader(bytes.NewReader([]byte(out)), framing.ReaderOptions{Codec: codec.Codec{}, MaxFrameSize: 4096})
	var last error
	for _, err := range r.Events() {
		if err != nil {
			last = err
			break
		}
	}
	if last == nil {
		t.Error("the unsplit output fits a 4096-byte reader: the test does not test the split")
	}
}
