package interop

import (
	"errors"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// TestThinkingRefused: the pre-1.0 THINKING_* events have no protobuf form.
// The peer encodes them to an empty payload without complaint; agwire
// refuses them with ErrUnsupportedEvent. The empty payload itself is
// malformed for both decoders.
func TestThinkingRefused(t *testing.T) {
	events := []string{
		`{"type":"THINKING_START"}`,
		`{"type":"THINKING_START","title":"Planning"}`,
		`{"type":"THINKING_TEXT_MESSAGE_START"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}`,
		`{"type":"THINKING_TEXT_MESSAGE_END"}`,
		`{"type":"THINKING_END"}`,
	}
	reqs := make([]Request, 0, len(events)+1)
	for _, ev := range events {
		reqs = append(reqs, EncodeRequest([]byte(ev)))
	}
	reqs = append(reqs, DecodeRequest(nil))
	resps := do(t, reqs...)

	for i, ev := range events {
		r := resps[i]
		if err := r.Err(); err != nil {
			t.Errorf("%s: peer encode threw: %v", ev, err)
		} else if r.Hex != "" {
			t.Errorf("%s: peer wrote %q, want an empty payload", ev, r.Hex)
		}
		b, err := codec.AppendFromJSON(nil, []byte(ev))
		if !errors.Is(err, event.ErrUnsupportedEvent) {
			t.Errorf("%s: agwire wrote %x, err %v; want ErrUnsupportedEvent", ev, b, err)
		}
	}

	// The empty payload the peer writes for them.
	if r := resps[len(events)]; r.OK {
		t.Errorf("peer decodes an empty payload to %s, want a throw", r.Event)
	} else if r.ErrorName == "AGUIUnknownEventTypeError" {
		t.Errorf("peer decodes an empty payload as an event from a later protocol: %v", r.Err())
	} else {
		t.Logf("peer, empty payload: %v", r.Err())
	}
	if _, err := codec.Unmarshal(nil); !errors.Is(err, codec.ErrMalformed) {
		t.Errorf("codec.Unmarshal(empty): %v, want ErrMalformed", err)
	}
	if out, err := codec.AppendJSONFromWire(nil, []byte{}); !errors.Is(err, codec.ErrMalformed) {
		t.Errorf("codec.AppendJSONFromWire(empty) = %s, %v; want ErrMalformed", out, err)
	}
}

// TestFutureArm: an envelope carrying only an arm past 31 (field 32, holding
// a well-formed message) is an event from a later protocol for both: the
// peer throws AGUIUnknownEventTypeError, agwire returns ErrUnknownEvent.
func TestFutureArm(t *testing.T) {
	r := do(t, DecodeRequest(futureFrame))[0]
	if r.OK {
		t.Errorf("peer decodes % x to %s, want AGUIUnknownEventTypeError", futureFrame, r.Event)
	} else if r.ErrorName != "AGUIUnknownEventTypeError" {
		t.Errorf("peer: %v, want AGUIUnknownEventTypeError", r.Err())
	}
	if _, err := codec.Unmarshal(futureFrame); !errors.Is(err, codec.ErrUnknownEvent) {
		t.Errorf("codec.Unmarshal: %v, want ErrUnknownEvent", err)
	}
	if out, err := codec.AppendJSONFromWire(nil, futureFrame); !errors.Is(err, codec.ErrUnknownEvent) {
		t.Errorf("codec.AppendJSONFromWire = %s, %v; want ErrUnknownEvent", out, err)
	}
}
