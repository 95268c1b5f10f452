package cli

import (
	"bytes"
	"strings"
	"testing"
)

// agwire bench runs every built-in input through every implementation and
// prints one encode and one decode row each (timings are not checked).
func TestBenchCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"bench", "--time", "2ms", "--node=false"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"text delta", "end+metadata", "state delta×20", "snapshot×5", "demo run", "protobuf-go", "encoding/json", "TypeScript peer: not measured (--node=false)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if got := strings.Count(out.String(), " decode "); got != 5 {
		t.Errorf("%d decode rows, want 5:\n%s", got, out.String())
	}
}
