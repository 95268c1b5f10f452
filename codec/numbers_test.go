package codec_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// nearest is what strconv (correct rounding, overflow to ±Inf, underflow to
// ±0) makes of a decimal: the double every JSON number becomes on the wire.
func nearest(t testing.TB, text string) uint64 {
	t.Helper()
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		t.Fatalf("ParseFloat(%s): %v", text, err)
	}
	return math.Float64bits(f)
}

func customJSON(value string) []byte {
	return []byte(`{"type":"CUSTOM","name":"c","value":` + value + `}`)
}

// TestLosslessNumbers: numbers whose decimal survives a double are accepted
// by default and travel as that double (fixed64 bits of number_value).
func TestLosslessNumbers(t *testing.T) {
	for _, text := range []string{
		"0", "-0", "-0.0", "0e400", "0.1", "1.5e300", "1e21", "1E21", "1e+21", "9007199254740991", "9007199254740992",
		"-9007199254740991", "5e-324", "2.2250738585072014e-308", "2.225073858507201e-308", "1.7976931348623157e308",
		"-1.7976931348623157e+308", "100", "1e2", "0.000001", "1e-7", "123456789012345680000", "4.35", "0.30000000000000004",
		"1152921504606847000", "3.141592653589793", "-2.5e-10", "0.1000", "1.0",
	} {
		wire, err := codec.AppendFromJSON(nil, customJSON(text))
		if err != nil {
			t.Errorf("%s refused: %v", text, err)
			continue
		}
		bits := nearest(t, text)
		if want := hCustom(wvBits(bits)); string(wire) != string(want) {
			t.Errorf("%s: wire %x, want %x (number_value bits %016x)", text, wire, want, bits)
		}
		out := hDecodeJSON(t, codec.Codec{}, wire)
		val := strings.TrimSuffix(strings.TrimPrefix(string(out), `{"type":"CUSTOM","name":"c","value":`), "}")
		back, err := strconv.ParseFloat(val, 64)
		if err != nil || math.Float64bits(back) != bits {
			t.Errorf("%s: decoded as %s", text, val)
		}
	}
}

// lossyTexts are numbers a double cannot carry without changing the
// decimal: beyond 2^53, too many digits, overflow, underflow.
var lossyTexts = []string{
	"9007199254740993", "-9007199254740993", "0.12345678901234567891", "1e400", "-1e400", "1e-400", "-1e-400",
	"4.9e-324", "2e-324", "1.7976931348623159e308", "123456789012345678901234567890", "1.00000000000000000001",
	"1152921504606846976", // 2^60: a double, but it prints as 1152921504606847000
}

// TestLossyNumbersRefused: by default a lossy number fails with
// ErrLossyNumber and an error that names where it is.
func TestLossyNumbersRefused(t *testing.T) {
	locations := []struct {
		typ      event.Type
		template string // @N@ is replaced by the number
		path     string
	}{
		{"CUSTOM", `{"type":"CUSTOM","name":"c","value":@N@}`, "value"},
		{"CUSTOM", `{"type":"CUSTOM","name":"c","metadata":{"ok":1,"big":@N@}}`, "metadata.big"},
		{"STATE_SNAPSHOT", `{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2,@N@]}}`, "snapshot.a[2]"},
		{"STATE_DELTA", `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1},{"op":"add","path":"/b","value":{"x":@N@}}]}`, "delta[1].value.x"},
		{"RAW", `{"type":"RAW","event":{},"rawEvent":[[@N@]]}`, "rawEvent[0][0]"},
		{"MESSAGES_SNAPSHOT", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x"},{"id":"2","role":"assistant","toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":""},"metadata":{"n":@N@}}]}]}`, "messages[1].toolCalls[0].metadata.n"},
		{"TOOL_CALL_RESULT", `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"text","text":"x","metadata":{"n":@N@}}]}`, "content[0].metadata.n"},
		{"RUN_STARTED", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"n","description":"d","parameters":{"maximum":@N@}}]}}`, "input.tools[0].parameters.maximum"},
		{"RUN_STARTED", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":@N@}]}}`, "input.resume[0].payload"},
		{"RUN_FINISHED", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","responseSchema":{"max":@N@}}]}}`, "outcome.interrupts[0].responseSchema.max"},
		{"ACTIVITY_SNAPSHOT", `{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{"pct":@N@}}`, "content.pct"},
	}
	for _, loc := range locations {
		for _, text := range lossyTexts {
			in := []byte(strings.Replace(loc.template, "@N@", text, 1))
			dst := []byte("keep")
			out, err := codec.AppendFromJSON(dst, in)
			if string(out) != "keep" {
				t.Errorf("%s: dst changed to %q", in, out)
			}
			ce := hCodecErr(t, err, codec.ErrLossyNumber)
			if ce == nil {
				t.Errorf("(input %s)", in)
				continue
			}
			if ce.Path != loc.path {
				t.Errorf("%s: path %q, want %q", in, ce.Path, loc.path)
			}
			if ce.Type != loc.typ || ce.Op != "encode" {
				t.Errorf("%s: Type %q Op %q", in, ce.Type, ce.Op)
			}
			if msg := err.Error(); !strings.Contains(msg, loc.path) || !strings.Contains(msg, text) {
				t.Errorf("%s: message %q does not name the path and the number", in, msg)
			}
		}
	}
	// The same for a Go value.
	_, err := codec.Append(nil, &event.Custom{Name: "c", Value: event.RawValue(`{"id":9007199254740993}`)})
	if ce := hCodecErr(t, err, codec.ErrLossyNumber); ce != nil && ce.Path != "value.id" {
		t.Errorf("Go value: path %q", ce.Path)
	}
}

// TestLossyNumbersAllowed: with LossyNumbers they encode to the nearest
// double, as the other peers do silently; overflow gives ±Inf, underflow ±0.
func TestLossyNumbersAllowed(t *testing.T) {
	lossy := codec.Codec{LossyNumbers: true}
	explicit := map[string]uint64{
		"1e400":            0x7ff0000000000000, // +Inf
		"-1e400":           0xfff0000000000000, // -Inf
		"1e-400":           0x0000000000000000,
		"-1e-400":          0x8000000000000000,
		"9007199254740993": 0x4340000000000000, // 2^53
		"4.9e-324":         0x0000000000000001,
		"2e-324":           0x0000000000000000,
	}
	for _, text := range lossyTexts {
		wire, err := lossy.AppendFromJSON(nil, customJSON(text))
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		bits := nearest(t, text)
		if want, ok := explicit[text]; ok && want != bits {
			t.Fatalf("test table: strconv rounds %s to %016x, expected %016x", text, bits, want)
		}
		if want := hCustom(wvBits(bits)); string(wire) != string(want) {
			t.Errorf("%s: wire %x, want %x", text, wire, want)
		}
	}
	// An overflowed number then has no JSON spelling on the way back.
	wire, err := lossy.AppendFromJSON(nil, customJSON("1e400"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codec.AppendJSONFromWire(nil, wire); !errors.Is(err, codec.ErrNonFinite) {
		t.Errorf("decoding +Inf: %v", err)
	}
	if out, err := (codec.Codec{NonFiniteAsNull: true}).AppendJSONFromWire(nil, wire); err != nil || string(out) != `{"type":"CUSTOM","name":"c","value":null}` {
		t.Errorf("decoding +Inf as null: %s, %v", out, err)
	}
}

// TestNonFiniteDecode: NaN and ±Inf doubles have no JSON spelling. Decoding
// fails with ErrNonFinite naming the place, or writes null with
// NonFiniteAsNull.
func TestNonFiniteDecode(t *testing.T) {
	for _, bits := range []uint64{0x7ff8000000000000, 0x7ff8000000000001, 0xfff8000000000000, 0x7ff0000000000001, 0x7ff0000000000000, 0xfff0000000000000} {
		for _, loc := range []struct {
			in         []byte
			path, want string
		}{
			{hCustom(wvBits(bits)), "value", `{"type":"CUSTOM","name":"c","value":null}`},
			{hCustom(wvList(wvNum(1), wvBits(bits))), "value[1]", `{"type":"CUSTOM","name":"c","value":[1,null]}`},
			{wMsg(hArmCustom, wBase(hEnumCustom, wMsg(4, wsEntry("ok", wvNum(2)), wsEntry("x", wvBits(bits)))), wStr(2, "c")), "metadata.x",
				`{"type":"CUSTOM","name":"c","metadata":{"ok":2,"x":null}}`},
			{wEvent(hArmStateSnapshot, hEnumStateSnapshot, wBytes(2, wvStruct(wsEntry("a", wvList(wvStr("s"), wvBits(bits)))))), "snapshot.a[1]",
				`{"type":"STATE_SNAPSHOT","snapshot":{"a":["s",null]}}`},
			{hSnapshot(wCat(wStr(1, "1"), wStr(2, "system"), wStr(3, "x"), wMsg(9, wsEntry("k", wvBits(bits))))), "messages[0].metadata.k",
				`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"system","content":"x","metadata":{"k":null}}]}`},
			{hToolResult(wMsg(1, wStr(1, "t"), wBytes(3, wvBits(bits)))), "content[0].metadata",
				`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"text","text":"t"}]}`}, // a part's null metadata is absent, as Parse reads it
		} {
			_, err := codec.Unmarshal(loc.in)
			ce := hCodecErr(t, err, codec.ErrNonFinite)
			if ce == nil {
				continue
			}
			if ce.Path != loc.path || !strings.Contains(err.Error(), loc.path) {
				t.Errorf("%016x: path %q, want %q (%v)", bits, ce.Path, loc.path, err)
			}
			if ce.Offset < 0 || ce.Offset >= len(loc.in) {
				t.Errorf("%016x at %s: offset %d outside the %d-byte input", bits, loc.path, ce.Offset, len(loc.in))
			}
			out, err := codec.Codec{NonFiniteAsNull: true}.AppendJSONFromWire(nil, loc.in)
			if err != nil || string(out) != loc.want {
				t.Errorf("%016x with NonFiniteAsNull:\n got %s, %v\nwant %s", bits, out, err, loc.want)
			}
		}
	}
}

// TestNegativeZero: -0 keeps its sign: wire bits 0x8000000000000000, JSON
// "-0" (agwire's one documented departure from JavaScript's spelling).
func TestNegativeZero(t *testing.T) {
	for _, text := range []string{"-0", "-0.0", "-0e5", "-0.000e-3"} {
		wire, err := codec.AppendFromJSON(nil, customJSON(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if want := hCustom(wvBits(0x8000000000000000)); string(wire) != string(want) {
			t.Errorf("%s: wire %x, want %x", text, wire, want)
		}
		if out := hDecodeJSON(t, codec.Codec{}, wire); string(out) != `{"type":"CUSTOM","name":"c","value":-0}` {
			t.Errorf("%s: decoded as %s", text, out)
		}
	}
	in := `{"type":"CUSTOM","name":"c","value":[0,-0,{"z":-0}],"metadata":{"n":-0}}`
	wire, err := codec.AppendFromJSON(nil, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if out := hDecodeJSON(t, codec.Codec{}, wire); string(out) != in {
		t.Errorf("got %s, want %s", out, in)
	}
	// +0 stays unsigned.
	if out := hDecodeJSON(t, codec.Codec{}, hCustom(wvBits(0))); string(out) != `{"type":"CUSTOM","name":"c","value":0}` {
		t.Errorf("+0 decoded as %s", out)
	}
}

// TestSubnormals: the denormal range round-trips exactly.
func TestSubnormals(t *testing.T) {
	for _, bits := range []uint64{1, 2, 3, 0x7e8, 0x0008000000000000, 0x000fffffffffffff, 0x8000000000000001, 0x800fffffffffffff, 0x0010000000000000} {
		f := math.Float64frombits(bits)
		text := strconv.FormatFloat(f, 'g', -1, 64) // exponent below -7: JavaScript writes the same
		wire, err := codec.AppendFromJSON(nil, customJSON(text))
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if want := hCustom(wvBits(bits)); string(wire) != string(want) {
			t.Errorf("%s: wire %x, want %x", text, wire, want)
		}
		if out := hDecodeJSON(t, codec.Codec{}, wire); string(out) != string(customJSON(text)) {
			t.Errorf("%016x: decoded as %s, want %s", bits, out, customJSON(text))
		}
	}
}

// TestDecodedNumberSpelling: decoded doubles are written as JavaScript's
// Number#toString writes them (strings from Node 20, `String(x)`).
func TestDecodedNumberSpelling(t *testing.T) {
	for _, tc := range []struct {
		bits uint64
		want string
	}{
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3e7ad7f29abcaf48, "1e-7"},
		{0x441ac53a7e04bcda, "123456789012345680000"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x4415af1d78b58c40, "100000000000000000000"},
		{0x3fb999999999999a, "0.1"},
		{0x0000000000000001, "5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xbde49da7e361ce4c, "-1.5e-10"},
		{0x3eb421f5f40d8376, "0.0000012"},
		{0x43e56a95319d63e1, "12345678901234567000"},
		{0x4059200000000000, "100.5"},
	} {
		out := hDecodeJSON(t, codec.Codec{}, hCustom(wvBits(tc.bits)))
		if want := `{"type":"CUSTOM","name":"c","value":` + tc.want + `}`; string(out) != want {
			t.Errorf("%016x: got %s, want %s", tc.bits, out, want)
		}
	}
}

// TestTimestamps: timestamp is an int64, not a double: it must be a JSON
// integer (an integral value in any spelling) and is carried exactly, also
// beyond 2^53.
func TestTimestamps(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
	}{
		{"0", 0}, {"-0", 0}, {"1", 1}, {"-1", -1}, {"1733140800123", 1733140800123},
		{"9007199254740993", 9007199254740993}, {"9223372036854775807", math.MaxInt64}, {"-9223372036854775808", math.MinInt64},
		{"1e3", 1000}, {"1E3", 1000}, {"1.0", 1}, {"1000e-3", 1}, {"0.5e1", 5}, {"1.7331408001230e12", 1733140800123},
		{"9007199254740991", 1<<53 - 1}, {"-9007199254740991", -(1<<53 - 1)}, {"9007199254740992", 1 << 53},
	} {
		in := []byte(`{"type":"STEP_STARTED","stepName":"s","timestamp":` + tc.text + `}`)
		wire, err := codec.Codec{UnsafeIntegers: true}.AppendFromJSON(nil, in)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		// Beyond ±(2^53−1) the default codec refuses: JavaScript peers
		// cannot decode such a frame.
		_, errDefault := codec.AppendFromJSON(nil, in)
		if unsafe(tc.want) != errors.Is(errDefault, codec.ErrUnsafeInteger) {
			t.Errorf("%s: default codec gives %v (beyond the safe range: %v)", tc.text, errDefault, unsafe(tc.want))
		}
		want := wMsg(15, wBase(14, wVarint(2, uint64(tc.want))), wStr(2, "s"))
		if string(wire) != string(want) {
			t.Errorf("%s: wire %x, want %x", tc.text, wire, want)
		}
		// Decoding follows the same rule: the default codec refuses what
		// it would not write, UnsafeIntegers reads it exactly.
		if _, err := codec.Unmarshal(wire); unsafe(tc.want) != errors.Is(err, codec.ErrUnsafeInteger) {
			t.Errorf("%s: default decode gives %v", tc.text, err)
		}
		out := hDecodeJSON(t, codec.Codec{UnsafeIntegers: true}, wire)
		if w := `{"type":"STEP_STARTED","stepName":"s","timestamp":` + strconv.FormatInt(tc.want, 10) + `}`; string(out) != w {
			t.Errorf("%s: decoded as %s, want %s", tc.text, out, w)
		}
	}
	for _, text := range []string{"1.5", "0.1", "1e-3", "1e400", "-1e400", "9223372036854775808", "-9223372036854775809", "1e19",
		`"1"`, "true", "{}", "[]"} {
		in := []byte(`{"type":"STEP_STARTED","stepName":"s","timestamp":` + text + `}`)
		_, err := codec.AppendFromJSON(nil, in)
		if ce := hCodecErr(t, err, event.ErrInvalidField); ce != nil && ce.Path != "timestamp" {
			t.Errorf("%s: path %q", text, ce.Path)
		}
	}
	// Usage counts are int64 too, bounded to the safe range by default.
	in := `{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":9007199254740993,"outputTokens":0}]}`
	if _, err := codec.AppendFromJSON(nil, []byte(in)); !errors.Is(err, codec.ErrUnsafeInteger) {
		t.Errorf("usage beyond 2^53 with the default codec: %v, want ErrUnsafeInteger", err)
	} else if ce := hCodecErr(t, err, codec.ErrUnsafeInteger); ce != nil && ce.Path != "usage[0].inputTokens" {
		t.Errorf("usage: path %q", ce.Path)
	}
	wire, err := codec.Codec{UnsafeIntegers: true}.AppendFromJSON(nil, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if out := hDecodeJSON(t, codec.Codec{UnsafeIntegers: true}, wire); string(out) != in {
		t.Errorf("usage: got %s", out)
	}
	if _, err := codec.Unmarshal(wire); !errors.Is(err, codec.ErrUnsafeInteger) {
		t.Errorf("usage beyond 2^53, default decode: %v, want ErrUnsafeInteger", err)
	}
}

// TestTimestampExponentBeyond2To53: an integer timestamp written with an
// exponent is still the integer it denotes, beyond 2^53 too: the timestamp
// is an int64, not a double.
// (This once failed: spellings other than plain digits went through a
// double and 9.007199254740993e15 was refused. Fixed in 634ee19.)
func TestTimestampExponentBeyond2To53(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
	}{
		{"9.007199254740993e15", 9007199254740993},
		{"90071992547409930e-1", 9007199254740993},
		{"-9.223372036854775808e18", math.MinInt64},
	} {
		in := []byte(`{"type":"STEP_STARTED","stepName":"s","timestamp":` + tc.text + `}`)
		wire, err := codec.Codec{UnsafeIntegers: true}.AppendFromJSON(nil, in)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if want := wMsg(15, wBase(14, wVarint(2, uint64(tc.want))), wStr(2, "s")); string(wire) != string(want) {
			t.Errorf("%s: wire %x, want %x", tc.text, wire, want)
		}
	}
}

// unsafe reports whether v is beyond ±(2^53−1).
func unsafe(v int64) bool { return v > 1<<53-1 || v < -(1<<53-1) }
