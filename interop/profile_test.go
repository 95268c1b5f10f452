package interop

import (
	"bytes"
	"errors"
	"sort"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// preV1Outside are the 13 AG-UI 1.0 event types a pre-1.0 peer cannot read:
// everything past envelope arm 18.
var preV1Outside = map[string]bool{
	"SUBAGENT_STARTED":          true,
	"SUBAGENT_FINISHED":         true,
	"SUBAGENT_ERROR":            true,
	"TOOL_CALL_RESULT":          true,
	"ACTIVITY_SNAPSHOT":         true,
	"ACTIVITY_DELTA":            true,
	"REASONING_START":           true,
	"REASONING_MESSAGE_START":   true,
	"REASONING_MESSAGE_CONTENT": true,
	"REASONING_MESSAGE_END":     true,
	"REASONING_MESSAGE_CHUNK":   true,
	"REASONING_END":             true,
	"REASONING_ENCRYPTED_VALUE": true,
}

// envelopeArm returns the field number of the single top-level field of an
// Event message, and false when b is not exactly one length-delimited field.
func envelopeArm(b []byte) (protowire.Number, bool) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 || typ != protowire.BytesType {
		return 0, false
	}
	m := protowire.ConsumeFieldValue(num, typ, b[n:])
	if m < 0 || n+m != len(b) {
		return 0, false
	}
	return num, true
}

// TestPreV1Profile encodes the whole corpus, in order, as for a pre-1.0
// peer. Every event either goes out on one of the first 18 envelope arms or
// is refused with ErrNotInProfile because its type is one of the 13 outside;
// the successes decode in the 1.0 peer to the events it reads from its own
// bytes.
func TestPreV1Profile(t *testing.T) {
	if len(preV1Outside) != 13 {
		t.Fatalf("the list of types outside the pre-1.0 wire has %d entries, want 13", len(preV1Outside))
	}
	cases := corpus(t)
	typesIn := map[string]bool{}
	typesOut := map[string]bool{}
	var reqs []Request
	var idx []int
	var sameAsV1 int
	for i, c := range cases {
		b, err := codec.Codec{Profile: codec.PreV1, LossyNumbers: c.Lossy}.AppendFromJSON(nil, c.Event)
		if err != nil {
			if !errors.Is(err, codec.ErrNotInProfile) {
				t.Errorf("%s (%s): PreV1 error %v, want ErrNotInProfile", c.Name, c.Type, err)
			}
			if !preV1Outside[c.Type] {
				t.Errorf("%s: PreV1 refused %s, which pre-1.0 peers read: %v", c.Name, c.Type, err)
			}
			var ce *codec.Error
			if errors.As(err, &ce) && string(ce.Type) != c.Type {
				t.Errorf("%s: the error names type %s, the event is %s", c.Name, ce.Type, c.Type)
			}
			typesOut[c.Type] = true
			continue
		}
		if preV1Outside[c.Type] {
			t.Errorf("%s: PreV1 encoded %s, which pre-1.0 peers cannot read", c.Name, c.Type)
		}
		arm, ok := envelopeArm(b)
		if !ok || arm < 1 || arm > 18 {
			t.Errorf("%s (%s): PreV1 output is on envelope arm %d (single field: %v), want 1..18", c.Name, c.Type, arm, ok)
		}
		if want, _ := codec.Arm(event.Type(c.Type)); int32(arm) != want {
			t.Errorf("%s (%s): envelope arm %d, codec.Arm says %d", c.Name, c.Type, arm, want)
		}
		v1, err := codec.Codec{LossyNumbers: c.Lossy}.AppendFromJSON(nil, c.Event)
		if err == nil && bytes.Equal(b, v1) {
			sameAsV1++
		}
		typesIn[c.Type] = true
		reqs = append(reqs, DecodeRequest(b))
		idx = append(idx, i)
	}
	for typ := range typesIn {
		if typesOut[typ] {
			t.Errorf("%s is both encoded and refused", typ)
		}
	}
	for typ := range preV1Outside {
		if !typesOut[typ] {
			t.Errorf("the corpus has no %s event, so its refusal is not exercised", typ)
		}
	}

	resps := do(t, reqs...)
	for j, i := range idx {
		c := cases[i]
		if err := resps[j].Err(); err != nil {
			t.Errorf("%s: the peer cannot decode the PreV1 bytes: %v", c.Name, err)
			continue
		}
		if d := jsonDiff(resps[j].Event, c.Decoded); d != "" {
			t.Errorf("%s: the peer reads the PreV1 bytes differently: %s\nPreV1: %s\npeer:  %s", c.Name, d, short(resps[j].Event), short(c.Decoded))
		}
	}
	t.Logf("PreV1: %d of %d fixtures encoded (%d types, %d byte-identical to V1), %d refused (%d types: %v)",
		len(idx), len(cases), len(typesIn), sameAsV1, len(cases)-len(idx), len(typesOut), sortedKeys(typesOut))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
