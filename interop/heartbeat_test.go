package interop

import (
	"testing"

	"github.com/agwire/agwire/codec"
)

// TestZeroLengthFrameIsNoHeartbeat: why a binary stream of a resumable run
// gets no heartbeat (transport's HandlerOptions.Heartbeat). The only frame
// the format has is an event's; an empty one, the one candidate, is not
// ignored by @ag-ui/proto's stream reader: it does not deliver the events
// after it.
func TestZeroLengthFrameIsNoHeartbeat(t *testing.T) {
	payload, err := codec.AppendFromJSON(nil, []byte(`{"type":"STEP_STARTED","stepName":"plan"}`))
	if err != nil {
		t.Fatal(err)
	}
	stream := frameConcat([][]byte{payload, {}, payload})
	r := do(t, ParseStreamRequest(stream, 0))[0]
	if r.Err() == nil && len(r.Events) == 2 {
		t.Fatalf("parseProtoStream read past a zero-length frame (%d events): a binary heartbeat would be possible", len(r.Events))
	}
	t.Logf("parseProtoStream on a zero-length frame between two events: %d events, error %v, warned %v", len(r.Events), r.Err(), r.Warned)
}
