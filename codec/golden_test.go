package codec_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/internal/difftest"
)

// goldenFrame is one line of testdata/golden-peer-1.0.0.jsonl, written by
// interop/regen-golden.sh from the real @ag-ui/proto@1.0.0.
type goldenFrame = difftest.Golden

// loadGolden returns the golden frames.
func loadGolden(t testing.TB) []goldenFrame { return difftest.LoadGolden(t) }

// semanticJSON parses JSON into generic values, numbers as float64, so two
// texts compare equal when they denote the same JSON value.
func semanticJSON(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// TestGoldenEncode: agwire's encoder reproduces the peer's bytes for every
// fixture without integer-like keys.
func TestGoldenEncode(t *testing.T) {
	identical, differing := 0, 0
	for _, g := range loadGolden(t) {
		t.Run(g.Name, func(t *testing.T) {
			want, _ := hex.DecodeString(g.Hex)
			c := codec.Codec{LossyNumbers: g.Lossy}
			got, err := c.AppendFromJSON(nil, g.Input)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if bytes.Equal(got, want) {
				identical++
				return
			}
			differing++
			if !g.IntKeys {
				t.Errorf("bytes differ from the peer\n got %x\nwant %x", got, want)
			}
		})
	}
	t.Logf("byte-identical with @ag-ui/proto@1.0.0: %d, differing (integer-like keys): %d", identical, differing)
}

// TestGoldenDecode: the peer's bytes decode to the event the peer itself
// decodes them to.
func TestGoldenDecode(t *testing.T) {
	for _, g := range loadGolden(t) {
		t.Run(g.Name, func(t *testing.T) {
			wire, _ := hex.DecodeString(g.Hex)
			got, err := codec.AppendJSONFromWire(nil, wire)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if a, b := semanticJSON(t, got), semanticJSON(t, g.Decoded); !reflect.DeepEqual(a, b) {
				t.Errorf("decoded event differs from the peer's\n got %s\nwant %s", got, g.Decoded)
			}
		})
	}
}
