package interop

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/agwire/agwire/codec"
)

// TestPeerVersions: the peer that answers is the pinned 1.0.0.
func TestPeerVersions(t *testing.T) {
	v := peer(t).Versions()
	for _, name := range []string{"@ag-ui/proto", "@ag-ui/core", "@ag-ui/encoder", "@ag-ui/client"} {
		if v[name] != "1.0.0" {
			t.Errorf("%s = %q, want 1.0.0", name, v[name])
		}
	}
	t.Logf("peer: %v", v)
}

// TestCorpus: the corpus is what the README says it is, and the peer takes
// every fixture: encode and decode never throw, and the peer warns exactly
// for the fixtures flagged peerWarns.
func TestCorpus(t *testing.T) {
	cases := corpus(t)
	if len(cases) < 150 {
		t.Fatalf("only %d fixtures", len(cases))
	}
	seen := map[string]bool{}
	var intKeys, lossy, warns int
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("duplicate fixture name %s", c.Name)
		}
		seen[c.Name] = true
		if c.IntKeys {
			intKeys++
		}
		if c.Lossy {
			lossy++
		}
		if c.PeerWarns {
			warns++
		}
		if err := c.Encode.Err(); err != nil {
			t.Errorf("%s: peer encode: %v", c.Name, err)
			continue
		}
		if len(c.Bytes) == 0 {
			t.Errorf("%s: peer encoded an empty payload", c.Name)
		}
		if err := c.Decode.Err(); err != nil {
			t.Errorf("%s: peer decode of its own bytes: %v", c.Name, err)
		}
		if c.Encode.Warned != c.PeerWarns {
			t.Errorf("%s: peer warned=%v (%q), fixture says peerWarns=%v", c.Name, c.Encode.Warned, c.Encode.Warnings, c.PeerWarns)
		}
		if c.Decode.Warned {
			t.Errorf("%s: peer warned decoding its own bytes: %q", c.Name, c.Decode.Warnings)
		}
	}
	t.Logf("fixtures: %d (intKeys %d, lossy %d, peerWarns %d)", len(cases), intKeys, lossy, warns)
}

// TestPeerEncodeGoDecode (direction 1): the peer encodes each fixture;
// agwire's codec.AppendJSONFromWire reads those bytes to the same event the peer
// reads them to.
func TestPeerEncodeGoDecode(t *testing.T) {
	for _, c := range corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			if c.Bytes == nil || c.Decoded == nil {
				t.Skipf("the peer did not round-trip this fixture (see TestCorpus)")
			}
			got, err := codec.AppendJSONFromWire(nil, c.Bytes)
			if err != nil {
				t.Fatalf("agwire cannot decode the peer's bytes: %v\npeer hex: %x\npeer decodes them to: %s", err, c.Bytes, short(c.Decoded))
			}
			if d := jsonDiff(got, c.Decoded); d != "" {
				t.Errorf("agwire and the peer read the peer's bytes differently: %s\nagwire: %s\npeer:   %s\nhex: %x", d, short(got), short(c.Decoded), c.Bytes)
			}
		})
	}
}

// goEncoded is agwire's encoding of every fixture, with LossyNumbers set
// only for the fixtures flagged lossy.
type goEncoded struct {
	bytes []byte
	err   error
}

func goEncodeCorpus(cases []peerCase) []goEncoded {
	out := make([]goEncoded, len(cases))
	for i, c := range cases {
		out[i].bytes, out[i].err = codec.Codec{LossyNumbers: c.Lossy}.AppendFromJSON(nil, c.Event)
	}
	return out
}

// TestGoEncodePeerDecode (direction 2): agwire encodes each fixture's JSON
// text; the peer decodes those bytes without throwing or warning, to the same
// event it decodes its own bytes to.
func TestGoEncodePeerDecode(t *testing.T) {
	cases := corpus(t)
	enc := goEncodeCorpus(cases)
	var reqs []Request
	var idx []int
	for i := range cases {
		if enc[i].err == nil {
			reqs = append(reqs, DecodeRequest(enc[i].bytes))
			idx = append(idx, i)
		}
	}
	resps := do(t, reqs...)
	byCase := make([]*Response, len(cases))
	for j, i := range idx {
		byCase[i] = &resps[j]
	}
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if enc[i].err != nil {
				t.Fatalf("agwire refuses to encode a fixture the peer encodes: %v\nevent: %s\npeer hex: %x", enc[i].err, short(c.Event), c.Bytes)
			}
			r := byCase[i]
			if err := r.Err(); err != nil {
				t.Fatalf("the peer cannot decode agwire's bytes: %v\nagwire hex: %x\npeer hex:   %x", err, enc[i].bytes, c.Bytes)
			}
			if r.Warned {
				t.Errorf("the peer warned decoding agwire's bytes: %q", r.Warnings)
			}
			if c.Decoded == nil {
				t.Fatalf("no reference: the peer did not decode its own bytes")
			}
			if d := jsonDiff(r.Event, c.Decoded); d != "" {
				t.Errorf("the peer reads agwire's bytes to another event than its own: %s\nfrom agwire's bytes: %s\nfrom its own bytes:  %s\nagwire hex: %x\npeer hex:   %x", d, short(r.Event), short(c.Decoded), enc[i].bytes, c.Bytes)
			}
		})
	}
}

// TestByteIdentity (direction 3): agwire writes exactly the peer's bytes for
// every fixture whose dynamic objects have no integer-like keys. For the
// intKeys fixtures (JavaScript reorders such keys) it counts how many are
// identical anyway.
func TestByteIdentity(t *testing.T) {
	cases := corpus(t)
	enc := goEncodeCorpus(cases)
	var total, same, ikTotal, ikSame int
	for i, c := range cases {
		if c.Bytes == nil || enc[i].err != nil {
			continue // reported by TestCorpus and TestGoEncodePeerDecode
		}
		equal := bytes.Equal(enc[i].bytes, c.Bytes)
		total++
		if equal {
			same++
		}
		if c.IntKeys {
			ikTotal++
			if equal {
				ikSame++
			}
			continue
		}
		if !equal {
			t.Errorf("%s: agwire's bytes differ from the peer's\nagwire: %s\npeer:   %s\nevent: %s", c.Name, hex.EncodeToString(enc[i].bytes), hex.EncodeToString(c.Bytes), short(c.Event))
		}
	}
	t.Logf("byte-identical: %d of %d; integer-like-key fixtures identical: %d of %d", same, total, ikSame, ikTotal)
	if total != len(cases) {
		t.Errorf("compared only %d of %d fixtures", total, len(cases))
	}
}
