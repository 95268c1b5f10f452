package fuzz

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
	"github.com/agwire/agwire/internal/jsonx"
)

// jsonNumber is the number grammar of RFC 8259 §6.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// numberSeeds are the float64 edges every number target starts from.
var numberSeeds = []string{
	"9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993",
	"-0", "0", "0.1", "1e21", "1e-7", "5e-324", "2.2250738585072014e-308",
	"1.7976931348623157e308", "1e400", "1e-400", "123456789012345678", "1.0", "1E+2", "-0.0",
	"0.30000000000000004",
	// Around them: the largest subnormal, halfway cases at both ends of
	// the range, the last values before overflow, JavaScript's switch to
	// exponent notation, spellings with a huge or zero-padded exponent.
	"2.225073858507201e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
	"2.4703282292062328e-324", "1.7976931348623158e308", "1.7976931348623159e308",
	"-1.7976931348623157e308", "1e20", "9.999999999999999e20", "1e-6", "1.5e-7", "0.000001",
	"100000000000000000000", "1000000000000000000000", "1e-0000000000000000000000000000007",
	"0e999999999999999999999", "-0e-5", "1e999999999999999999999", "0.1e1", "10.0e-1",
	"0.12345678901234567891", "1152921504606846976", "4503599627370497.5",
}

// customNumber is a CUSTOM event whose value is the number text.
func customNumber(text string) []byte {
	return []byte(`{"type":"CUSTOM","name":"c","value":` + text + `}`)
}

// wireNumber reads the value of an encoded CUSTOM event with the protobuf
// runtime: the double's bits, and whether the value is a number at all.
func wireNumber(t *testing.T, wire []byte) (uint64, bool) {
	t.Helper()
	var m aguipb.Event
	if err := proto.Unmarshal(wire, &m); err != nil {
		t.Fatalf("protobuf-go cannot read agwire's bytes %x: %v", wire, err)
	}
	v := m.GetCustom().GetValue()
	if _, ok := v.GetKind().(*structpb.Value_NumberValue); !ok {
		return 0, false
	}
	return math.Float64bits(v.GetNumberValue()), true
}

// refLossless decides, with exact rational arithmetic, whether a JSON number
// text survives the double nearest to it: the double is finite, and its
// shortest round-trip spelling denotes the same rational number; a zero
// keeps the text's sign. f is strconv.ParseFloat's double for text.
func refLossless(text string, f float64) bool {
	neg := strings.HasPrefix(text, "-")
	mant, exp := strings.TrimPrefix(text, "-"), "0"
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		mant, exp = mant[:i], mant[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" { // zero, whatever its exponent
		return f == 0 && math.Signbit(f) == neg
	}
	// The value is 0.<digits> × 10^point; bound it before building a
	// rational, since the exponent may have any number of digits.
	e, _ := new(big.Int).SetString(strings.TrimPrefix(exp, "+"), 10)
	point := new(big.Int).Add(e, big.NewInt(int64(len(intPart)-(len(intPart+frac)-len(digits)))))
	if point.Cmp(big.NewInt(310)) > 0 || point.Cmp(big.NewInt(-330)) < 0 {
		return false // far beyond the largest double or below the least
	}
	if math.IsInf(f, 0) || f == 0 {
		return false
	}
	want, ok := new(big.Rat).SetString(text)
	if !ok {
		panic("big.Rat cannot read " + text)
	}
	got, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'e', -1, 64))
	return want.Cmp(got) == 0
}

// checkShortest checks that text is how agwire must print the finite double
// f: it parses back to the very bits (the sign of zero included, "-0"),
// it has no more significant digits than the shortest round-trip form, and
// it is spelled as JavaScript's Number#toString spells numbers: plain
// decimal notation for 1e-6 <= |f| < 1e21, otherwise d[.ddd]e±n; no
// redundant zeros.
func checkShortest(t *testing.T, f float64, text string) {
	t.Helper()
	back, err := strconv.ParseFloat(text, 64)
	if err != nil || math.Float64bits(back) != math.Float64bits(f) {
		t.Fatalf("%016x printed as %q, which reads back as %016x (%v)", math.Float64bits(f), text, math.Float64bits(back), err)
	}
	if f == 0 {
		if want := map[bool]string{false: "0", true: "-0"}[math.Signbit(f)]; text != want {
			t.Fatalf("zero printed as %q, want %q", text, want)
		}
		return
	}
	short := strconv.FormatFloat(f, 'e', -1, 64)
	shortDigits := len(strings.TrimRight(strings.ReplaceAll(strings.TrimPrefix(short[:strings.IndexByte(short, 'e')], "-"), ".", ""), "0"))
	mant, exp, hasExp := strings.Cut(strings.TrimPrefix(text, "-"), "e")
	sig := strings.Trim(strings.ReplaceAll(mant, ".", ""), "0")
	if len(sig) > shortDigits || len(sig) == 0 {
		t.Fatalf("%v printed as %q: %d significant digits, the shortest form has %d", f, text, len(sig), shortDigits)
	}
	abs := math.Abs(f)
	if plain := abs >= 1e-6 && abs < 1e21; plain == hasExp {
		t.Fatalf("%v printed as %q: exponent notation is for |x| < 1e-6 or >= 1e21 only", f, text)
	}
	if hasExp {
		if len(exp) < 2 || (exp[0] != '+' && exp[0] != '-') || exp[1] == '0' || mant[0] == '0' ||
			len(mant) > 1 && (mant[1] != '.' || strings.HasSuffix(mant, "0")) {
			t.Fatalf("%v printed as %q: not in d[.ddd]e±n form", f, text)
		}
	} else if strings.Contains(mant, ".") && strings.HasSuffix(mant, "0") || len(mant) > 1 && mant[0] == '0' && mant[1] != '.' {
		t.Fatalf("%v printed as %q: redundant zeros", f, text)
	}
}

// FuzzNumbers: the float64 edges, both ways.
//
// Text → double: for any text in the JSON number grammar, the default codec
// accepts it exactly when refLossless says it survives a double, and then
// writes strconv.ParseFloat's double; it refuses it otherwise with a
// *codec.Error wrapping ErrLossyNumber and naming the path "value". With
// LossyNumbers it accepts every such text and writes strconv's double
// (±Inf on overflow, ±0 on underflow). jsonx.ParseNumber, the check
// itself, agrees with both. A text of number characters outside the
// grammar ("01", "1.", "+1", "1e") is refused as a syntax error.
//
// Double → text: for any bits, a finite double decodes to the text
// checkShortest accepts, and that text encodes back to the same bits; NaN
// and ±Inf decode to ErrNonFinite, or to null with NonFiniteAsNull.
func FuzzNumbers(f *testing.F) {
	for _, s := range numberSeeds {
		v, _ := strconv.ParseFloat(s, 64)
		f.Add(math.Float64bits(v), s)
	}
	for _, b := range []uint64{
		0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7ff8000000000001,
		0xfff8000000000000, 0x7ff0000000000001, 0x8000000000000000, 0x0000000000000001,
		0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff, 0x444b1ae4d6e2ef50,
		0x3e7ad7f29abcaf48, 0x3eb0c6f7a0b5ed8d,
	} {
		f.Add(b, "")
	}
	for _, s := range []string{"01", "1.", ".5", "+1", "1e", "1e+", "--1", "-", "0x10", "1.5.2", "1e5e5", "00"} {
		f.Add(uint64(0), s)
	}
	f.Fuzz(func(t *testing.T, bits uint64, text string) {
		checkDouble(t, bits)
		checkNumberText(t, text)
	})
}

func checkDouble(t *testing.T, bits uint64) {
	t.Helper()
	f := math.Float64frombits(bits)
	wire := wCustom(wvNumBits(bits))
	if math.IsNaN(f) || math.IsInf(f, 0) {
		_, err := codec.Unmarshal(wire)
		var ce *codec.Error
		if !errors.As(err, &ce) || !errors.Is(err, codec.ErrNonFinite) {
			t.Fatalf("%016x decodes with %v, want ErrNonFinite", bits, err)
		}
		out, err := codec.Codec{NonFiniteAsNull: true}.AppendJSONFromWire(nil, wire)
		if err != nil {
			t.Fatalf("%016x with NonFiniteAsNull: %v", bits, err)
		}
		if v, _ := mustTree(t, out).get("value"); v == nil || v.kind != 'z' {
			t.Fatalf("%016x with NonFiniteAsNull: %s", bits, out)
		}
		return
	}
	out, err := codec.AppendJSONFromWire(nil, wire)
	if err != nil {
		t.Fatalf("%016x does not decode: %v", bits, err)
	}
	v, _ := mustTree(t, out).get("value")
	if v == nil || v.kind != 'n' {
		t.Fatalf("%016x decodes to %s", bits, out)
	}
	checkShortest(t, f, v.text)
	if s := string(jsonx.AppendFloat(nil, f)); s != v.text {
		t.Fatalf("%016x: jsonx.AppendFloat writes %q, the decoder %q", bits, s, v.text)
	}
	// Every shortest spelling of the double is lossless and travels as
	// exactly these bits.
	for _, s := range []string{v.text, strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'e', -1, 64),
		strconv.FormatFloat(f, 'f', -1, 64)} {
		w, err := codec.AppendFromJSON(nil, customNumber(s))
		if err != nil {
			t.Fatalf("%016x spelled %s is refused: %v", bits, s, err)
		}
		if got, ok := wireNumber(t, w); !ok || got != bits {
			t.Fatalf("%016x spelled %s encodes as %016x", bits, s, got)
		}
	}
	// Longer spellings of (nearly) the same value are lossless only when
	// they are the same decimal; checkNumberText decides.
	checkNumberText(t, strconv.FormatFloat(f, 'E', 17, 64))
	checkNumberText(t, strconv.FormatFloat(f, 'e', 25, 64))
}

func checkNumberText(t *testing.T, text string) {
	t.Helper()
	if text == "" || len(text) > 1000 || strings.Trim(text, "0123456789+-.eE") != "" {
		return
	}
	wire, err := codec.AppendFromJSON(nil, customNumber(text))
	if !jsonNumber.MatchString(text) {
		var ce *codec.Error
		if !errors.As(err, &ce) || !errors.Is(err, event.ErrSyntax) {
			t.Fatalf("%q is not a JSON number, yet: %x, %v", text, wire, err)
		}
		return
	}
	ref, rerr := strconv.ParseFloat(text, 64)
	if rerr != nil && !errors.Is(rerr, strconv.ErrRange) {
		t.Fatalf("strconv cannot read %q: %v", text, rerr)
	}
	lossless := refLossless(text, ref)
	pf, exact := jsonx.ParseNumber([]byte(text))
	if math.Float64bits(pf) != math.Float64bits(ref) || exact != lossless {
		t.Fatalf("jsonx.ParseNumber(%s) = %v, exact %v; strconv: %v, math/big: lossless %v", text, pf, exact, ref, lossless)
	}
	switch {
	case lossless && err != nil:
		t.Fatalf("%s is lossless but refused: %v", text, err)
	case lossless:
		if got, ok := wireNumber(t, wire); !ok || got != math.Float64bits(ref) {
			t.Fatalf("%s encodes as %016x, strconv says %016x", text, got, math.Float64bits(ref))
		}
	default:
		var ce *codec.Error
		if !errors.As(err, &ce) || !errors.Is(err, codec.ErrLossyNumber) || ce.Path != "value" {
			t.Fatalf("%s is lossy but: %x, %v", text, wire, err)
		}
	}
	wire, err = codec.Codec{LossyNumbers: true}.AppendFromJSON(nil, customNumber(text))
	if err != nil {
		t.Fatalf("%s with LossyNumbers: %v", text, err)
	}
	if got, ok := wireNumber(t, wire); !ok || got != math.Float64bits(ref) {
		t.Fatalf("%s with LossyNumbers encodes as %016x, strconv rounds to %016x", text, got, math.Float64bits(ref))
	}
}

func mustTree(t *testing.T, b []byte) *jnode {
	t.Helper()
	n, err := parseTree(b)
	if err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return n
}

// ---- benchmarks --------------------------------------------------------

// benchNumbers returns the texts and doubles the number benchmarks use: the
// seeds, and 1,000 random finite doubles in their shortest spelling.
func benchNumbers() map[string][]string {
	var seeds []string
	for _, s := range numberSeeds {
		if jsonNumber.MatchString(s) {
			seeds = append(seeds, s)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var random []string
	for len(random) < 1000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		random = append(random, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return map[string][]string{"seeds": seeds, "random": random}
}

// BenchmarkTextToDouble: a JSON number's text to a double with the
// exactness check (jsonx.ParseNumber, what the codec runs on every number),
// beside plain strconv.ParseFloat on the same texts. Compare the two with
// `benchstat -col /impl`. One op is one pass over the set.
func BenchmarkTextToDouble(b *testing.B) {
	for _, set := range []string{"seeds", "random"} {
		texts := benchNumbers()[set]
		bs := make([][]byte, len(texts))
		for i, s := range texts {
			bs[i] = []byte(s)
		}
		b.Run("set="+set+"/impl=agwire", func(b *testing.B) {
			for b.Loop() {
				for _, t := range bs {
					jsonx.ParseNumber(t)
				}
			}
		})
		b.Run("set="+set+"/impl=strconv", func(b *testing.B) {
			for b.Loop() {
				for _, t := range bs {
					strconv.ParseFloat(string(t), 64)
				}
			}
		})
	}
}

// BenchmarkDoubleToText: a double to its shortest text in JavaScript's
// spelling (jsonx.AppendFloat, what the decoder writes), beside plain
// strconv.AppendFloat(f, 'g', -1, 64). One op is one pass over the set.
func BenchmarkDoubleToText(b *testing.B) {
	for _, set := range []string{"seeds", "random"} {
		var fs []float64
		for _, s := range benchNumbers()[set] {
			f, err := strconv.ParseFloat(s, 64)
			if err == nil {
				fs = append(fs, f)
			}
		}
		buf := make([]byte, 0, 64)
		b.Run("set="+set+"/impl=agwire", func(b *testing.B) {
			for b.Loop() {
				for _, f := range fs {
					buf = jsonx.AppendFloat(buf[:0], f)
				}
			}
		})
		b.Run("set="+set+"/impl=strconv", func(b *testing.B) {
			for b.Loop() {
				for _, f := range fs {
					buf = strconv.AppendFloat(buf[:0], f, 'g', -1, 64)
				}
			}
		})
	}
}
