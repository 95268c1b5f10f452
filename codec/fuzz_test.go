package codec_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// Fuzz targets. Run each for a while with, for example,
//
//	go test ./codec -run '^$' -fuzz FuzzUnmarshal -fuzztime 60s
//
// Without -fuzz they run over their seeds (the golden frames of the TS peer
// and the cases below) and over testdata/fuzz/<Name>/, where the fuzzer
// stores what it finds.
//
// AGWIRE_FUZZ_SKIP_KNOWN=1 makes the targets skip inputs that only hit bugs
// already reported (see knownBug), so that a long run can look for new ones.

// knownBug reports whether err is one of the reported, unfixed bugs and the
// environment asks to skip those.
func knownBug(err error) bool {
	if os.Getenv("AGWIRE_FUZZ_SKIP_KNOWN") == "" {
		return false
	}
	// hardening_test.go TestDecodedOutcomeReencodes: decoding keeps outcome
	// lists that encoding refuses.
	return errors.Is(err, codec.ErrInvalid) && strings.Contains(err.Error(), "outcome")
}

// fzGolden reads the golden frames: each line's JSON input and its wire hex.
func fzGolden(tb testing.TB) (inputs, wires [][]byte) {
	f, err := os.Open("testdata/golden-peer-1.0.0.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Input json.RawMessage `json:"input"`
			Hex   string          `json:"hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			tb.Fatal(err)
		}
		w, err := hex.DecodeString(line.Hex)
		if err != nil {
			tb.Fatal(err)
		}
		inputs = append(inputs, line.Input)
		wires = append(wires, w)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return inputs, wires
}

// fzCheckError: every failure is a *codec.Error whose offset, if any, lies
// inside the input (a JSON error may also point just past its end, where
// the text broke off).
func fzCheckError(t *testing.T, err error, inputLen int, sentinels ...error) {
	t.Helper()
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %v is not a *codec.Error", err, err)
	}
	limit := inputLen
	if ce.Op == "encode" {
		limit++
	}
	if ce.Offset < -1 || ce.Offset >= limit && ce.Offset != -1 {
		t.Fatalf("offset %d outside the %d-byte input: %v", ce.Offset, inputLen, err)
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	if len(sentinels) > 0 {
		t.Fatalf("error %v wraps none of %v", err, sentinels)
	}
}

// fzNormalise applies the one normalisation that re-encoding a decoded event
// adds: an activity message without content gains {} (the encoder always
// writes activity_content for an activity message, as the other peers do).
func fzNormalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x["role"] == "activity" {
			if _, ok := x["content"]; !ok {
				x["content"] = map[string]any{}
			}
		}
		for k, e := range x {
			x[k] = fzNormalise(e)
		}
	case []any:
		for i, e := range x {
			x[i] = fzNormalise(e)
		}
	}
	return v
}

func fzJSON(t *testing.T, ev event.Event) []byte {
	t.Helper()
	j, err := event.Marshal(ev)
	if err != nil {
		t.Fatalf("event.Marshal of a decoded event: %v", err)
	}
	return j
}

// FuzzUnmarshal: arbitrary bytes never panic the decoder; a failure is a
// *codec.Error with a decode sentinel; a success re-encodes, and re-encoding
// is a fixed point that keeps the event's meaning.
func FuzzUnmarshal(f *testing.F) {
	_, wires := fzGolden(f)
	for _, w := range wires {
		f.Add(w)
	}
	for _, s := range [][]byte{
		nil, {0x00}, {0x0a, 0x00}, {0x12, 0x02, 0x0a, 0x00},
		wCat(wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m")), wMsg(hArmTextMessageContent, wStr(3, "d"))),
		wMsg(32, wStr(1, "x")),
		hCustom(wvStruct(wsEntry("a", wvList(wvNum(1), wvNull())), wsEntry("a", wvStr("s")))),
		hSnapshot(wCat(wStr(1, "1"), wStr(2, "activity"), wStr(12, "a"))),
		hToolResult(wMsg(2, wMsg(1, wMsg(1, wStr(1, "AA=="))))),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := append([]byte(nil), data...)
		ev, err := codec.Unmarshal(data)
		if !bytes.Equal(orig, data) {
			t.Fatal("Unmarshal modified its input")
		}
		if err != nil {
			if ev != nil {
				t.Fatal("event returned with an error")
			}
			fzCheckError(t, err, len(data), codec.ErrMalformed, codec.ErrUnknownEvent, codec.ErrNonFinite, event.ErrTooDeep)
			return
		}
		j1 := fzJSON(t, ev)
		wire2, err := codec.Append(nil, ev)
		if err != nil {
			if knownBug(err) {
				t.Skip("known bug")
			}
			t.Fatalf("decoded event does not re-encode: %v\nevent %s", err, j1)
		}
		ev2, err := codec.Unmarshal(wire2)
		if err != nil {
			t.Fatalf("re-encoded event does not decode: %v\nevent %s\nwire %x", err, j1, wire2)
		}
		j2 := fzJSON(t, ev2)
		if a, b := fzNormalise(hJSONValue(t, j1)), hJSONValue(t, j2); !jsonEqual(a, b) {
			t.Fatalf("decode → encode → decode changed the event\nfirst  %s\nsecond %s", j1, j2)
		}
		wire3, err := codec.Append(nil, ev2)
		if err != nil || !bytes.Equal(wire2, wire3) {
			t.Fatalf("encoding is not a fixed point: %x then %x (%v)", wire2, wire3, err)
		}
		// Through JSON: AppendJSONFromWire gives the same text as event.Marshal, and
		// when that JSON is valid AG-UI JSON it encodes to the same bytes.
		out, err := codec.AppendJSONFromWire(nil, data)
		if err != nil || !bytes.Equal(out, j1) {
			t.Fatalf("AppendJSONFromWire = %s, %v; event.Marshal = %s", out, err, j1)
		}
		if wire4, err := codec.AppendFromJSON(nil, j2); err == nil && !bytes.Equal(wire4, wire2) {
			t.Fatalf("JSON path encodes %s as %x, Go path as %x", j2, wire4, wire2)
		}
	})
}

// jsonEqual compares generic JSON values; numbers compare as float64, so
// -0 and 0 are equal here (the sign of zero is tested elsewhere).
func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// FuzzFromJSON: arbitrary text never panics the encoder; a failure is a
// *codec.Error; a success decodes, and decode → JSON → encode gives the
// very same bytes (idempotence).
func FuzzFromJSON(f *testing.F) {
	inputs, _ := fzGolden(f)
	for _, in := range inputs {
		f.Add(in)
	}
	for _, s := range []string{
		``, `{}`, `null`, `{"type":"CUSTOM","name":"c","value":-0}`,
		`{"type":"STATE_DELTA","delta":[{"op":"+7","path":"/a"},{"op":"2","path":"/b"},{"op":"0","path":"/c"}]}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"binary","mimeType":"m","id":"i"}]}`,
		`{"type":"CUSTOM","name":"c","value":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":[]},"usage":[]}`,
		`{"type":"THINKING_START"}`,
		`{"type":"CUSTOM","name":"c","metadata":{"":{"":[{"":null}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := append([]byte(nil), data...)
		wire1, err := codec.AppendFromJSON(nil, data)
		if !bytes.Equal(orig, data) {
			t.Fatal("AppendFromJSON modified its input")
		}
		if err != nil {
			fzCheckError(t, err, len(data))
			return
		}
		ev, err := codec.Unmarshal(wire1)
		if err != nil {
			t.Fatalf("agwire cannot decode what it encoded: %v\ninput %s\nwire %x", err, data, wire1)
		}
		j, err := event.Marshal(ev)
		if err != nil {
			t.Fatalf("decoded event does not marshal: %v", err)
		}
		wire2, err := codec.AppendFromJSON(nil, j)
		if err != nil {
			t.Fatalf("decoded JSON does not encode: %v\ninput   %s\ndecoded %s", err, data, j)
		}
		if !bytes.Equal(wire1, wire2) {
			t.Fatalf("not idempotent\ninput   %s\ndecoded %s\nwire1 %x\nwire2 %x", data, j, wire1, wire2)
		}
		// The Go-value path agrees with the JSON path.
		parsed, err := event.Parse(data)
		if err != nil {
			t.Fatalf("AppendFromJSON accepted what event.Parse refuses: %v", err)
		}
		if direct, err := codec.Append(nil, parsed); err != nil || !bytes.Equal(direct, wire1) {
			t.Fatalf("Append(Parse(x)) = %x, %v; AppendFromJSON(x) = %x", direct, err, wire1)
		}
	})
}

var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// fzExact decides with math/big whether the decimal text survives the
// double strconv rounds it to: the double is finite and its shortest
// spelling denotes the same rational number. The sign of zero must match.
func fzExact(text string, f float64) bool {
	mant, exp := text, "0"
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mant, exp = text[:i], text[i+1:]
	}
	if strings.Trim(mant, "-0.") == "" {
		// Zero, whatever the exponent; its sign is the text's.
		return f == 0 && math.Signbit(f) == strings.HasPrefix(text, "-")
	}
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || e > 1000 || e < -1000 {
		return false // with at most 400 digits: far outside the double range
	}
	if math.IsInf(f, 0) || f == 0 {
		return false
	}
	r1, ok := new(big.Rat).SetString(text)
	if !ok {
		return false
	}
	r2, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'e', -1, 64))
	return r1.Cmp(r2) == 0
}

// FuzzNumber: the lossless check agrees with strconv and math/big. For a
// finite double, every shortest spelling of it is lossless and travels as
// exactly its bits, -0 included; NaN and ±Inf have no JSON form. For a
// decimal text, the double is strconv's, and it is refused by default
// exactly when the decimal does not survive.
func FuzzNumber(f *testing.F) {
	for _, b := range []uint64{0, 0x8000000000000000, 1, 0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
		0x3fb999999999999a, 0x4340000000000000, 0x444b1ae4d6e2ef50, 0x7ff0000000000000, 0x7ff8000000000001, 0xfff0000000000000} {
		f.Add(b, "")
	}
	for _, s := range []string{"0", "-0", "0.1", "1.5e300", "1e21", "9007199254740991", "9007199254740993", "5e-324",
		"2.2250738585072014e-308", "0.12345678901234567891", "1e400", "1e-400", "-1e400", "0e99999999999999999999",
		"1152921504606846976", "4.9e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1.7976931348623158e308"} {
		f.Add(uint64(0), s)
	}
	f.Fuzz(func(t *testing.T, bits uint64, text string) {
		fv := math.Float64frombits(bits)
		if math.IsNaN(fv) || math.IsInf(fv, 0) {
			wire := hCustom(wvBits(bits))
			if _, err := codec.Unmarshal(wire); !errors.Is(err, codec.ErrNonFinite) {
				t.Fatalf("%016x decoded: %v", bits, err)
			}
			if out, err := (codec.Codec{NonFiniteAsNull: true}).AppendJSONFromWire(nil, wire); err != nil || string(out) != `{"type":"CUSTOM","name":"c","value":null}` {
				t.Fatalf("%016x as null: %s, %v", bits, out, err)
			}
		} else {
			js := string(jsonx.AppendFloat(nil, fv))
			for _, s := range []string{strconv.FormatFloat(fv, 'g', -1, 64), strconv.FormatFloat(fv, 'e', -1, 64), js} {
				got, exact := jsonx.ParseNumber([]byte(s))
				if !exact || math.Float64bits(got) != bits {
					t.Fatalf("%016x: ParseNumber(%s) = %016x, exact %v", bits, s, math.Float64bits(got), exact)
				}
				wire, err := codec.AppendFromJSON(nil, customJSON(s))
				if err != nil {
					t.Fatalf("%016x: %s refused: %v", bits, s, err)
				}
				if want := hCustom(wvBits(bits)); !bytes.Equal(wire, want) {
					t.Fatalf("%016x: %s encodes as %x, want %x", bits, s, wire, want)
				}
				out, err := codec.AppendJSONFromWire(nil, wire)
				if err != nil || string(out) != string(customJSON(js)) {
					t.Fatalf("%016x: decodes as %s, %v; want value %s", bits, out, err, js)
				}
			}
		}
		if len(text) == 0 || len(text) > 400 || !jsonNumberRE.MatchString(text) {
			return
		}
		ref, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatalf("strconv cannot read %s: %v", text, err)
		}
		got, exact := jsonx.ParseNumber([]byte(text))
		if math.Float64bits(got) != math.Float64bits(ref) {
			t.Fatalf("ParseNumber(%s) = %v, strconv says %v", text, got, ref)
		}
		if want := fzExact(text, ref); exact != want {
			t.Fatalf("ParseNumber(%s): exact = %v, math/big says %v", text, exact, want)
		}
		wire, err := codec.AppendFromJSON(nil, customJSON(text))
		switch {
		case exact && err != nil:
			t.Fatalf("%s: exact but refused: %v", text, err)
		case !exact && !errors.Is(err, codec.ErrLossyNumber):
			t.Fatalf("%s: lossy but %v", text, err)
		case exact && !bytes.Equal(wire, hCustom(wvBits(math.Float64bits(ref)))):
			t.Fatalf("%s: wire %x", text, wire)
		}
		wire, err = codec.Codec{LossyNumbers: true}.AppendFromJSON(nil, customJSON(text))
		if err != nil || !bytes.Equal(wire, hCustom(wvBits(math.Float64bits(ref)))) {
			t.Fatalf("%s with LossyNumbers: %x, %v", text, wire, err)
		}
	})
}
