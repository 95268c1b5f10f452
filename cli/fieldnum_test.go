package cli

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// TestInspectFieldNumberBeyondMax: a field number above 2^29-1 makes a frame
// malformed, as protobuf-go and @ag-ui/proto have it, not an event from a
// later protocol version (STEP_FINISHED with field 536870912 in the
// envelope).
func TestInspectFieldNumberBeyondMax(t *testing.T) {
	payload, _ := hex.DecodeString("82010a0a02080f1204706c616e828080801000")
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	frame = append(frame, payload...)
	lines, _, _ := inspectLines(t, frame)
	if len(lines) != 2 || !strings.Contains(lines[1], "MALFORMED") || !strings.Contains(lines[1], "field number") {
		t.Errorf("got %q", lines)
	}
}
