package jsonx

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsStringify lists what JavaScript's JSON.stringify writes for each ASCII
// character it escapes. Generated with Node 20:
//
//	node -e 'for (let c = 0; c < 0x80; c++) { const s = String.fromCharCode(c);
//	  const o = JSON.stringify(s); if (o !== "\"" + s + "\"") console.log(c, o) }'
//
// Every other character (the rest of ASCII, and everything from U+0080 up,
// U+2028 and U+2029 included) comes out unchanged.
var jsStringify = map[rune]string{
	0x00: `\u0000`, 0x01: `\u0001`, 0x02: `\u0002`, 0x03: `\u0003`, 0x04: `\u0004`, 0x05: `\u0005`,
	0x06: `\u0006`, 0x07: `\u0007`, 0x08: `\b`, 0x09: `\t`, 0x0a: `\n`, 0x0b: `\u000b`, 0x0c: `\f`,
	0x0d: `\r`, 0x0e: `\u000e`, 0x0f: `\u000f`, 0x10: `\u0010`, 0x11: `\u0011`, 0x12: `\u0012`,
	0x13: `\u0013`, 0x14: `\u0014`, 0x15: `\u0015`, 0x16: `\u0016`, 0x17: `\u0017`, 0x18: `\u0018`,
	0x19: `\u0019`, 0x1a: `\u001a`, 0x1b: `\u001b`, 0x1c: `\u001c`, 0x1d: `\u001d`, 0x1e: `\u001e`,
	0x1f: `\u001f`, '"': `\"`, '\\': `\\`,
}

func TestAppendStringMatchesJSONStringify(t *testing.T) {
	for c := rune(0); c < 0x80; c++ {
		want, escaped := jsStringify[c]
		if !escaped {
			want = string(c)
		}
		if got := string(AppendString(nil, string(c))); got != `"`+want+`"` {
			t.Errorf("U+%04X: got %s, want %q", c, got, `"`+want+`"`)
		}
	}
	// Non-ASCII is never escaped by JSON.stringify (checked with Node 20 for
	// each of these), not even the line and paragraph separators.
	for _, c := range []rune{0x80, 0x9f, 0xa0, 0xad, 0x2028, 0x2029, 0xfeff, 0xfffd, 0xffff, 0x1f600, 0x10ffff} {
		if got, want := string(AppendString(nil, string(c))), `"`+string(c)+`"`; got != want {
			t.Errorf("U+%04X: got %q, want %q", c, got, want)
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"line\nnext\ttab\r\b\f", `"line\nnext\ttab\r\b\f"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"</script>", `"</script>"`}, // JSON.stringify does not escape '/' or '<'
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"é😀", `"é😀"`},
		// Invalid UTF-8 becomes U+FFFD, one per bad byte, as TextDecoder does.
		{"a\xffb", "\"a\uFFFDb\""},
		{"\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\""},
		{"\xc3", "\"\uFFFD\""},
		{"ok\xc3(", "\"ok\uFFFD(\""},
	} {
		got := AppendString([]byte("prefix:"), tc.in)
		if string(got) != "prefix:"+tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got[len("prefix:"):], tc.want)
		}
		if !utf8.Valid(got) {
			t.Errorf("AppendString(%q) is not valid UTF-8", tc.in)
		}
		// What is written reads back as the same string (for valid input).
		if utf8.ValidString(tc.in) {
			var s Scanner
			s.Reset(got[len("prefix:"):])
			back, err := s.String()
			if err != nil || back != tc.in {
				t.Errorf("AppendString(%q) reads back as %q, %v", tc.in, back, err)
			}
		}
	}
}

// jsNumberToString holds float64 bit patterns and JavaScript's String(x) for
// them. Generated with Node 20 (v20.20.2):
//
//	node -e 'const x = new Float64Array(new BigUint64Array([BigInt("0x"+h)]).buffer)[0];
//	  console.log(String(x))'
//
// for a list of hand-picked values (the boundaries of plain and exponential
// notation, subnormals, the extremes) followed by random bit patterns, random
// values scaled by 10^-25..10^25 and random integers below 2^62.
var jsNumberToString = []struct {
	bits uint64
	want string
}{
	{0x444b1ae4d6e2ef50, "1e+21"},
	{0x3e7ad7f29abcaf48, "1e-7"},
	{0x441ac53a7e04bcda, "123456789012345680000"},
	{0x3eb0c6f7a0b5ed8d, "0.000001"},
	{0x4415af1d78b58c40, "100000000000000000000"},
	{0x3ff8000000000000, "1.5"},
	{0x3fb999999999999a, "0.1"},
	{0x0000000000000001, "5e-324"},
	{0x7fefffffffffffff, "1.7976931348623157e+308"},
	{0x0010000000000000, "2.2250738585072014e-308"},
	{0x000fffffffffffff, "2.225073858507201e-308"},
	{0x4340000000000000, "9007199254740992"},
	{0x4340000000000001, "9007199254740994"},
	{0x3fd5555555555555, "0.3333333333333333"},
	{0xbde49da7e361ce4c, "-1.5e-10"},
	{0x54b249ad2594c37d, "1e+100"},
	{0x3c36b082c2148b8e, "1.23e-18"},
	{0x4059000000000000, "100"},
	{0x3eb421f5f40d8376, "0.0000012"},
	{0x444b1ae4d6e2ef4f, "999999999999999900000"},
	{0x3ee4f8b588e368f1, "0.00001"},
	{0x3ee9e0fcaf9380fc, "0.00001234"},
	{0x4132d68720000000, "1234567.125"},
	{0xbfe0000000000000, "-0.5"},
	{0x3ff0000000000000, "1"},
	{0xbff0000000000000, "-1"},
	{0x43e56a95319d63e1, "12345678901234567000"},
	{0x4480f0cf064dd592, "1e+22"},
	{0x7fb9999999999999, "1.7976931348623158e+307"},
	{0x4011666666666666, "4.35"},
	{0x3fd3333333333333, "0.3"},
	{0x3e90c6f7a0b5ed8d, "2.5e-7"},
	{0x444dd0c885f9a0d8, "1.1e+21"},
	{0x3ea0c6f7a0b5ed8d, "5e-7"},
	{0x419d6f3454000000, "123456789"},
	{0x430c6bf526340000, "1000000000000000"},
	{0x4341c37937e08000, "10000000000000000"},
	{0x4376345785d8a000, "100000000000000000"},
	{0x400921f9f01b866e, "3.14159"},
	{0x01a56e1fc2f8f359, "1e-300"},
	{0x44dfe185ca57c517, "6.02214076e+23"},
	{0x3c07a4da290c1653, "1.602176634e-19"},
	{0x0000000000000004, "2e-323"},
	{0x3eb0000000000000, "9.5367431640625e-7"},
	{0x4059200000000000, "100.5"},
	{0x00000000000007e8, "1e-320"},
	{0x0000000000000003, "1.5e-323"},
	{0x4380000000000000, "144115188075855870"},
	{0x7e41eb2d66005835, "1.5e+300"},
	{0x3e080d43de9cc603, "7e-10"},
	{0xc4f5a58656eef510, "-1.63556942559376e+24"},
	{0x9dcec3ad077dec6c, "-4.173690677876617e-165"},
	{0xc8d04605312f8088, "-5.670492968474445e+42"},
	{0xcbedc0dcb63ac19a, "-5.836403644424916e+57"},
	{0x3bf98798cae97950, "8.649790404211737e-20"},
	{0x0a8c6d7f8d485abc, "7.39564180972377e-258"},
	{0x730ad2626b1c2f8e, "1.4651248189898814e+246"},
	{0x21ff2330f4a0ad99, "6.2339793810561896e-145"},
	{0x2f0901a1947094b0, "4.119095640075036e-82"},
	{0xa9735a3cfbe36cef, "-5.150133635804742e-109"},
	{0x71ddb0a01a12c84a, "3.0933276276711344e+240"},
	{0xf0e53e77a78453bb, "-6.754655226130086e+235"},
	{0x1f173e9663be1e9d, "6.613360170036697e-159"},
	{0x657651da3ac4115e, "5.788505795342792e+180"},
	{0xc8987376b65a157b, "-5.3249628257170086e+41"},
	{0xbb17008f5fca28e7, "-4.756740931316741e-24"},
	{0x8232bd645f29ed22, "-4.477231489238053e-298"},
	{0x12be8f07ad14c539, "2.1642039540017977e-218"},
	{0x54908a48e8e4736e, "2.2610943617514247e+99"},
	{0x0c7467d15c33b499, "1.140017838150091e-248"},
	{0xa3f6e4a38fef3477, "-1.9685523071127114e-135"},
	{0x3511c6f618e5ce2d, "4.640063784089612e-53"},
	{0x058912aa64192646, "5.395588941594937e-282"},
	{0x557863ba39f360c6, "5.4626389533071155e+103"},
	{0xb4ed01401eaeda70, "-9.463285167199324e-54"},
	{0xbcfba70482a27bd3, "-6.140069024682949e-15"},
	{0xd2b03a4bbc5c8ce1, "-2.0660278536040863e+90"},
	{0xf5627d984f77405c, "-2.7763706126645584e+257"},
	{0x75f51f7555362bea, "1.623863376984634e+260"},
	{0x9781583a020620b3, "-1.85625651532978e-195"},
	{0xac5af4439444830e, "-5.047625425251754e-95"},
	{0x80885ac6b6cdfcf6, "-4.335261748770999e-306"},
	{0x01e7504b266d74a1, "1.7406222623529921e-299"},
	{0x9d8124e5828640ce, "-1.4536765436602836e-166"},
	{0xf27c36ba3135dd38, "-3.0100781231530105e+243"},
	{0xb2f8040bf3db2caf, "-3.6486996153835296e-63"},
	{0x19ff47038d9bc61d, "1.840234928934064e-183"},
	{0x612255ca2387d6b8, "8.055478973793947e+159"},
	{0xe746b53757d14d14, "-3.16172285505699e+189"},
	{0xd7daea1d17ddf421, "-1.657008670356193e+115"},
	{0x62f12e08710c8b94, "4.0522488258647026e+168"},
	{0xb2ea9f4a3641bce0, "-2.022345214413048e-63"},
	{0x0daa842c4130b474, "7.766877155226391e-243"},
	{0xa1bc0bbd864b1dbf, "-3.5093839705342283e-146"},
	{0x6cb175b16594f26c, "3.7617907821041125e+215"},
	{0xf188fc847a92198d, "-8.13523692678429e+238"},
	{0x8f339eda4f0c8817, "-1.9283856112315283e-235"},
	{0xe44af926a4d4dfa0, "-1.334260747926784e+175"},
	{0xd2f0b424e7090b87, "-3.402601357106593e+91"},
	{0xd4168dd7c554e776, "-1.2043802231719297e+97"},
	{0xe480783902a61251, "-1.3035000653330876e+176"},
	{0xa6ae26aaf9182eb9, "-2.280521450892039e-122"},
	{0x4b4bbaca1ec48691, "5.311944972314936e+54"},
	{0x23810defd0716095, "1.145696185291403e-137"},
	{0x96bb859c9deb0e5d, "-3.595519293811738e-199"},
	{0xf8db9658647611e5, "-1.492399355982603e+274"},
	{0xd57f76891f2be860, "-7.046915559456418e+103"},
	{0xf81a741cf3983d0f, "-3.4938186628072626e+270"},
	{0x781b980cec569b5f, "3.6444328485385262e+270"},
	{0x8c5b913bb3cb74de, "-3.850331327432309e-249"},
	{0x685568dd92b4add2, "3.907206791761243e+194"},
	{0xbd5a9edd4051a708, "-3.7830096070608866e-13"},
	{0xc87705f3196559af, "-1.2535044515819477e+41"},
	{0x1fba554ba8423aca, "7.671948101578652e-156"},
	{0x3bc457f0494b541e, "8.615811712982813e-21"},
	{0xd2330bc81db847fc, "-9.472029440651255e+87"},
	{0x8db9921ffe543e4f, "-1.49798626214994e-242"},
	{0xbbffdedffcefc493, "-1.0798181090524727e-19"},
	{0xd14a0682336ff77e, "-3.949904845062568e+83"},
	{0xc6bcffed41074b67, "-5.881840769053376e+32"},
	{0xdb6a9eab869a3d9f, "-2.361853630894425e+132"},
	{0x57d39b63be46abcf, "1.2071168273521303e+115"},
	{0xb87fbabffccc5c95, "-1.4919135438615371e-36"},
	{0x1674c2685f3634fc, "1.6950316039545965e-200"},
	{0x97df45a079df75a4, "-1.0709721554941248e-193"},
	{0x57f963bcbb84fb66, "6.252507003428044e+115"},
	{0x29f9c9a47b60a7ac, "1.7568455422136271e-106"},
	{0x4b2cda8178cadd00, "1.3818099516027895e+54"},
	{0x3b4347c70a6faef6, "3.1896714518380035e-23"},
	{0x1bdcc8dbc773c6e9, "1.8184559115839953e-174"},
	{0xbebba5c5eb2e50a7, "-0.0000016479224711251496"},
	{0x4340368bc46b52ae, "9127147102184796"},
	{0xc045d6e164f8ce62, "-43.67875349186649"},
	{0xbcc070d01625d99b, "-4.563204022489617e-16"},
	{0xbdf933bf6f79c8af, "-3.6673940228038607e-10"},
	{0x40cdcbaf130a9005, "15255.367768593142"},
	{0x44a43908162abc68, "4.774968838489241e+22"},
	{0x3e8c31d2c6d86b09, "2.100663069472578e-7"},
	{0x4258a0d10a00856e, "423109076994.08484"},
	{0xc3f0d31465f32a93, "-19397362444747223000"},
	{0xbc2af6a099489e68, "-7.308440973357722e-19"},
	{0xbd1832e6ff72f687, "-2.149288502500797e-14"},
	{0x3dbae2b8b1d4b76e, "2.4452338690695387e-11"},
	{0xbfa40a27192e88da, "-0.03913995916743014"},
	{0xc39b80887306706f, "-495433465913416640"},
	{0xbfa6aee935876734, "-0.04430321482114011"},
	{0x42c21780583be945, "39784293627858.54"},
	{0x40313319e3006af2, "17.199613750078193"},
	{0xbae1d48f8e8e05ef, "-4.609028531380092e-25"},
	{0xc4abdfd573497b86, "-6.5816449841932465e+22"},
	{0x3f8f2a8eea1aadad, "0.0152178921883522"},
	{0x3b0505ef0be0b7cf, "2.1737457405843822e-24"},
	{0xc2d3d9d1224a7ca2, "-87304950065650.53"},
	{0x3c74f628ccb650fe, "1.8181255158829645e-17"},
	{0xc1840cb646abc26e, "-42047176.83386694"},
	{0x3efdfda3aa6f0354, "0.000028601435271505382"},
	{0x3b4c105913c65876, "4.6427760505341325e-23"},
	{0xbd3ccc64a9218b4a, "-1.0231250854495965e-13"},
	{0xc33a37d0b47819b9, "-7379718914972089"},
	{0x40788bfa464a9a6c, "392.74860219137076"},
	{0xc1d5ac2933ec47fe, "-1454417103.691894"},
	{0xbeed7d564cb967f7, "-0.000014061736144533445"},
	{0x423d78b0941f0cad, "126578889759.04951"},
	{0x43890409f78cb650, "225322088709671420"},
	{0x3ce8343b083a42d0, "2.6871866686214206e-15"},
	{0x3c1632d5f8f2f208, "3.008468238607071e-19"},
	{0xc3cac4a2c56bb431, "-3857691018441286000"},
	{0x42a8c614d0b6ebc7, "13619515906933.889"},
	{0xbd6c10faa8d68d30, "-7.976929271308141e-13"},
	{0xbd598e6be15cb1b0, "-3.6317734417049205e-13"},
	{0xbfc159cee75da614, "-0.1355532293048759"},
	{0x3f373bbdd93295bf, "0.00035451302501096274"},
	{0x4454f2500fa607d6, "1.5455814177411076e+21"},
	{0x3adb1f7064e39b1b, "3.5055408678423753e-25"},
	{0xc3a4deb580604c9d, "-751919444282199700"},
	{0x411dadcc4cf479a4, "486259.0751513487"},
	{0x3e3574dea2e244e7, "4.995735865041316e-9"},
	{0xc25c8d89a16fb00d, "-490534766014.7508"},
	{0x4281de381a99530c, "2455765209898.381"},
	{0x44ca178981843ff3, "2.4643142402874296e+23"},
	{0xc010dcbef50d797c, "-4.215572194049283"},
	{0xc2f6b88fbf0c0c6e, "-399711063294150.9"},
	{0x3fd65f42c0d64338, "0.34956425506338773"},
	{0x4242792f26ab557e, "158685089110.6679"},
	{0x3aa732bdf3dec1ee, "3.7478731135181303e-26"},
	{0x3ec102ac883b73f3, "0.0000020278030791035775"},
	{0xbe929ebc3791683a, "-2.774605075188644e-7"},
	{0xbeeed9f14c45749c, "-0.000014711064417022913"},
	{0x4115054231babba6, "344400.5485638924"},
	{0x3cf407a9f9874c3e, "4.447539527421183e-15"},
	{0x43b21cf2a54b8cbd, "1305184783781641500"},
	{0x43b9f189e00f256d, "1869426915755257000"},
	{0x436b5971b765e62c, "61585354514182500"},
	{0x43a3a10d966ecec7, "707213348863173500"},
	{0x43b88b0a11ced85c, "1768518350274059300"},
	{0x43ce69471b62235c, "4382721753257261000"},
	{0x43c9029530540c5b, "3604333671405369000"},
	{0x43ca481ad38a3c5d, "3787586278337854000"},
	{0x43c2ea7f32e30d0f, "2726083387534745000"},
	{0x43ce45ea8beedb8b, "4362814962519185000"},
	{0x43a802c8026bcc6c, "865082559793870300"},
	{0x43c603afb5402b29, "3172609373530116600"},
	{0x43cd27f586f08ead, "4201835422203861500"},
	{0x43c9f788833ac412, "3742228534807504000"},
	{0x43ccc7424a82b01e, "4147398082429992000"},
	{0x438fa339bcf89327, "284966165020828900"},
	{0x43ca607a7d33c581, "3801307441816863000"},
	{0x43c6eff693316b5a, "3305621400636011500"},
	{0x439c8f8d5db8b1ff, "514504747100438460"},
	{0x43b1b994e45cf206, "1277215677869065700"},
}

func TestAppendFloatMatchesJavaScript(t *testing.T) {
	for _, tc := range jsNumberToString {
		f := math.Float64frombits(tc.bits)
		if got := string(AppendFloat(nil, f)); got != tc.want {
			t.Errorf("AppendFloat(%v [%016x]) = %s, want %s", f, tc.bits, got, tc.want)
		}
		// The spelling must read back as the very same double.
		back, err := strconv.ParseFloat(tc.want, 64)
		if err != nil || math.Float64bits(back) != tc.bits {
			t.Errorf("%s does not read back as %016x", tc.want, tc.bits)
		}
	}
}

func TestAppendFloatRules(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"},
		// The documented departure from JavaScript: the sign of zero is kept.
		{math.Copysign(0, -1), "-0"},
		{1e21, "1e+21"},
		{1e-7, "1e-7"},
		{123456789012345680000, "123456789012345680000"},
		{0.000001, "0.000001"},
		{1e20, "100000000000000000000"},
		{-1e21, "-1e+21"},
		{-1e-7, "-1e-7"},
		{1.5e-7, "1.5e-7"},
		{-0.000001, "-0.000001"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
	} {
		if got := string(AppendFloat([]byte("x"), tc.f)); got != "x"+tc.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", tc.f, got[1:], tc.want)
		}
	}
}

// TestAppendFloatShortest: for many doubles, the output reads back as the
// same double, and it is never longer than Go's shortest 'g' form plus the
// zeros JavaScript's plain notation adds.
func TestAppendFloatShortest(t *testing.T) {
	for i := 0; i < 20000; i++ {
		bits := uint64(i) * 0x9E3779B97F4A7C15
		f := math.Float64frombits(bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		got := string(AppendFloat(nil, f))
		back, err := strconv.ParseFloat(got, 64)
		if err != nil || math.Float64bits(back) != bits {
			t.Fatalf("AppendFloat(%016x) = %s reads back as %016x, %v", bits, got, math.Float64bits(back), err)
		}
		// Same significant digits as Go's shortest form.
		short := strconv.FormatFloat(f, 'e', -1, 64)
		mant := strings.TrimLeft(strings.SplitN(short, "e", 2)[0], "-")
		mant = strings.Replace(mant, ".", "", 1)
		digits := strings.TrimLeft(strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, strings.SplitN(strings.TrimLeft(got, "-"), "e", 2)[0]), "0")
		digits = strings.TrimRight(digits, "0")
		if digits != strings.TrimRight(mant, "0") {
			t.Fatalf("AppendFloat(%016x) = %s: digits %s, want %s", bits, got, digits, mant)
		}
	}
}
