package codec_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// The four paths — JSON parse, JSON marshal, wire encode, wire decode —
// apply one rule per type (event/rules.go through the schema table), so:
//
//   - whatever the decoder accepts, the encoder and event.Parse accept, and
//     the round trip is exact: the event re-encodes to bytes that decode to
//     the same event, and its JSON parses to the same bytes again;
//   - whatever JSON agwire accepts, the wire keeps: it encodes (but for the
//     codec's documented refusals: lossy numbers, unsafe integers, events
//     with no protobuf form), and decoding gives JSON that parses and
//     encodes to the same bytes.

// checkWire returns false when the decoder refuses b; otherwise it checks
// the invariant for what it decoded.
func checkWire(t *testing.T, name string, b []byte) bool {
	t.Helper()
	ev, err := codec.Unmarshal(b)
	if err != nil {
		return false
	}
	w1, err := codec.Append(nil, ev)
	if err != nil {
		t.Errorf("%s: decoded %x, but the encoder refuses the event: %v", name, b, err)
		return true
	}
	ev2, err := codec.Unmarshal(w1)
	if err != nil {
		t.Errorf("%s: re-encoded %x does not decode: %v", name, w1, err)
		return true
	}
	if !reflect.DeepEqual(ev, ev2) {
		t.Errorf("%s: decode(encode(decode(b))) differs:\n %#v\n %#v", name, ev, ev2)
	}
	if w2, _ := codec.Append(nil, ev2); !bytes.Equal(w1, w2) {
		t.Errorf("%s: encoding is not a fixpoint:\n %x\n %x", name, w1, w2)
	}
	j, err := event.Marshal(ev)
	if err != nil {
		t.Errorf("%s: decoded %x, but Marshal refuses the event: %v", name, b, err)
		return true
	}
	if cj, err := codec.AppendJSONFromWire(nil, b); err != nil || !bytes.Equal(cj, j) {
		t.Errorf("%s: codec.AppendJSONFromWire = %s, %v; event.Marshal = %s", name, cj, err, j)
	}
	p, err := event.Parse(j)
	if err != nil {
		t.Errorf("%s: decoded %x to %s, which Parse refuses: %v", name, b, j, err)
		return true
	}
	if w3, err := codec.Append(nil, p); err != nil || !bytes.Equal(w3, w1) {
		t.Errorf("%s: Parse(Marshal(decode(b))) encodes to %x, %v; want %x", name, w3, err, w1)
	}
	return true
}

// codecOnlyRefusal reports whether err is one of the refusals the wire
// makes of JSON that event.Parse accepts, each documented in package codec.
func codecOnlyRefusal(err error) bool {
	return errors.Is(err, codec.ErrLossyNumber) || errors.Is(err, codec.ErrUnsafeInteger) ||
		errors.Is(err, event.ErrUnsupportedEvent)
}

// checkJSON checks the invariant for one JSON event.
func checkJSON(t *testing.T, name string, j []byte) {
	t.Helper()
	p, err := event.Parse(j)
	if err != nil {
		if _, cerr := codec.AppendFromJSON(nil, j); cerr == nil {
			t.Errorf("%s: Parse refuses %s (%v) but the codec encodes it", name, j, err)
		}
		return
	}
	w, err := codec.Append(nil, p)
	if err != nil {
		if !codecOnlyRefusal(err) {
			t.Errorf("%s: Parse accepts %s but the encoder refuses it: %v", name, j, err)
		}
		return
	}
	if w2, err := codec.AppendFromJSON(nil, j); err != nil || !bytes.Equal(w, w2) {
		t.Errorf("%s: AppendFromJSON = %x, %v; Parse+Append = %x", name, w2, err, w)
	}
	if !checkWire(t, name, w) {
		_, err := codec.Unmarshal(w)
		t.Errorf("%s: the encoder wrote %x for %s, which the decoder refuses: %v", name, w, j, err)
	}
}

// TestOneRuleEveryPathFixtures: the invariant over every golden frame the
// TypeScript peer wrote (its bytes and its JSON input) and the decoder's
// normalisation cases.
func TestOneRuleEveryPathFixtures(t *testing.T) {
	accepted := 0
	for _, g := range loadGolden(t) {
		b, err := hex.DecodeString(g.Hex)
		if err != nil {
			t.Fatal(err)
		}
		if checkWire(t, g.Name, b) {
			accepted++
		}
		checkJSON(t, g.Name, g.Input)
	}
	if accepted < 100 {
		t.Errorf("only %d golden frames decode", accepted)
	}
	for i, b := range [][]byte{
		hSnapshot(wCat(wStr(1, "1"), wStr(2, "system"))),
		hSnapshot(wCat(wStr(1, "1"), wStr(2, "activity"))),
		hSnapshot(wCat(wStr(1, "1"), wStr(2, "user"))),
		hSnapshot(wCat(wStr(1, "1"), wStr(2, "reasoning"))),
		wEvent(hArmToolCallResult, hEnumToolCallResult, wStr(3, "m"), wStr(4, "t")),
		wEvent(hArmRunFinished, hEnumRunFinished, wStr(2, "t"), wStr(3, "r"), wStr(5, "interrupt")),
		wEvent(hArmRunFinished, hEnumRunFinished, wStr(2, "t"), wStr(3, "r"), wStr(5, "")),
		hToolResult(wMsg(2, wMsg(1, wMsg(1, wStr(1, "AA=="))))),
		aRepeatedValue(512), aNestedMerge(4096),
	} {
		if !checkWire(t, "normalisation "+string(rune('a'+i)), b) {
			_, err := codec.Unmarshal(b)
			t.Errorf("normalisation case %d refused: %v", i, err)
		}
	}
}

// TestOneRuleEveryPathProperty: the invariant over frames made by mutating
// the golden frames (seeded, so a failure reproduces): bytes flipped, fields
// repeated (the merge rules), ranges dropped, fields of other frames
// spliced in. Most mutants are refused; every accepted one must keep the
// invariant.
func TestOneRuleEveryPathProperty(t *testing.T) {
	var frames [][]byte
	for _, g := range loadGolden(t) {
		b, _ := hex.DecodeString(g.Hex)
		frames = append(frames, b)
	}
	r := rand.New(rand.NewPCG(7, 2026))
	n := 20000
	if testing.Short() || raceEnabled {
		n = 4000
	}
	accepted := 0
	for i := 0; i < n; i++ {
		b := append([]byte(nil), frames[r.IntN(len(frames))]...)
		for k := 1 + r.IntN(3); k > 0; k-- {
			b = mutate(r, b, frames)
		}
		if checkWire(t, "mutant", b) {
			accepted++
		}
		if t.Failed() {
			t.Fatalf("failing input: %x", b)
		}
	}
	t.Logf("%d of %d mutants decoded", accepted, n)
	if accepted < n/20 {
		t.Errorf("only %d of %d mutants decoded: the mutations no longer reach the decoder's rules", accepted, n)
	}
}

// mutate changes b in one of several ways that keep it often parseable.
func mutate(r *rand.Rand, b []byte, frames [][]byte) []byte {
	if len(b) == 0 {
		return b
	}
	switch r.IntN(5) {
	case 0: // flip one byte
		b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
	case 1: // repeat the envelope's arm: protobuf merges the occurrences
		return append(b, b...)
	case 2: // repeat a nested field inside the arm body
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return b
		}
		body, m := protowire.ConsumeBytes(b[n:])
		if m < 0 || len(body) == 0 {
			return b
		}
		fields := splitFields(body)
		if len(fields) == 0 {
			return b
		}
		f := fields[r.IntN(len(fields))]
		body = append(append([]byte(nil), body...), f...)
		return protowire.AppendBytes(protowire.AppendTag(nil, num, typ), body)
	case 3: // drop a field of the arm body
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return b
		}
		body, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			return b
		}
		fields := splitFields(body)
		if len(fields) < 2 {
			return b
		}
		drop := r.IntN(len(fields))
		var out []byte
		for i, f := range fields {
			if i != drop {
				out = append(out, f...)
			}
		}
		return protowire.AppendBytes(protowire.AppendTag(nil, num, typ), out)
	default: // splice a field of another frame's body into this one's
		other := frames[r.IntN(len(frames))]
		_, _, n := protowire.ConsumeTag(other)
		if n < 0 {
			return b
		}
		obody, m := protowire.ConsumeBytes(other[n:])
		if m < 0 {
			return b
		}
		fields := splitFields(obody)
		num, typ, n2 := protowire.ConsumeTag(b)
		if len(fields) == 0 || n2 < 0 || typ != protowire.BytesType {
			return b
		}
		body, m2 := protowire.ConsumeBytes(b[n2:])
		if m2 < 0 {
			return b
		}
		body = append(append([]byte(nil), body...), fields[r.IntN(len(fields))]...)
		return protowire.AppendBytes(protowire.AppendTag(nil, num, typ), body)
	}
	return b
}

// splitFields returns the encoded fields of a message body.
func splitFields(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return out
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return out
		}
		out = append(out, b[:n+m])
		b = b[n+m:]
	}
	return out
}
