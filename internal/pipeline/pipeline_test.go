package pipeline

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// golden returns the events of the golden corpus as JSON lines and as a
// binary stream.
func golden(t testing.TB) (jsonl, stream []byte) {
	t.Helper()
	data, err := os.ReadFile("../../codec/testdata/golden-peer-1.0.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(data) {
		var c struct {
			Input json.RawMessage `json:"input"`
			Hex   string          `json:"hex"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Input); err != nil {
			t.Fatal(err)
		}
		jsonl = append(append(jsonl, compact.Bytes()...), '\n')
		if c.Hex == "" {
			continue
		}
		p, err := hex.DecodeString(c.Hex)
		if err != nil {
			t.Fatal(err)
		}
		stream = binary.BigEndian.AppendUint32(stream, uint32(len(p)))
		stream = append(stream, p...)
	}
	return jsonl, stream
}

// result is everything a conversion did that the caller can see.
type result struct {
	out      []byte
	reported []string // the errors given to OnError, in order
	err      string   // the error returned
	stats    Stats
	progress int // Progress calls
}

// explain spells an error with every field a caller can test.
func explain(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%T %q skippable=%v", err, err.Error(), framing.Skippable(err))
	var le *LineError
	if errors.As(err, &le) {
		s += fmt.Sprintf(" line=%d off=%d text=%q", le.Line, le.Offset, le.Text)
	}
	var fe *framing.Error
	if errors.As(err, &fe) {
		s += fmt.Sprintf(" frame=%d off=%d", fe.Frame, fe.Offset)
	}
	var ce *codec.Error
	if errors.As(err, &ce) {
		s += fmt.Sprintf(" codec=%+v", *ce)
	}
	for _, target := range []error{codec.ErrMalformed, codec.ErrUnknownEvent, codec.ErrInvalid, framing.ErrFrameTooLarge,
		framing.ErrTruncated, framing.ErrTooManyErrors, io.ErrShortWrite, errBroken} {
		if errors.Is(err, target) {
			s += " is(" + target.Error() + ")"
		}
	}
	return s
}

// setup is how a conversion is run: its options besides the workers.
type setup struct {
	encode    bool
	conv      bool // ConvertLines (encode) or ConvertFrames with the test's functions
	toBinary  bool // with conv, the functions write frames, else JSON lines
	wopts     framing.WriterOptions
	ropts     framing.ReaderOptions
	stopAfter int   // errors skipped before stopping (-1: skip every one)
	chunks    int64 // the seed of a source reading in random pieces, 0 for whole reads
	bufSrc    bool  // the source is a *bufio.Reader
	failAfter int   // the output fails after this many bytes, 0 for never
	buffered  bool  // the output is a *bufio.Writer of 100 bytes
}

func (s setup) run(input []byte, opts Options) result {
	var res result
	n := 0
	opts.OnError = func(err error) bool {
		res.reported = append(res.reported, explain(err))
		n++
		return s.stopAfter < 0 || n <= s.stopAfter
	}
	opts.Progress = func(Stats) { res.progress++ }
	var src io.Reader = bytes.NewReader(input)
	if s.chunks != 0 {
		src = &chunked{data: input, r: rand.New(rand.NewPCG(uint64(s.chunks), 1))}
	}
	if s.bufSrc {
		src = bufio.NewReaderSize(src, 16)
	}
	var sink bytes.Buffer
	var dst io.Writer = &sink
	if s.failAfter > 0 {
		dst = &failing{w: &sink, left: s.failAfter}
	}
	var bw *bufio.Writer
	if s.buffered {
		bw = bufio.NewWriterSize(dst, 100)
		dst = bw
	}
	var st Stats
	var err error
	switch {
	case s.conv && s.encode:
		st, err = ConvertLines(dst, src, func() LineFunc { return testLineFunc(s) }, opts)
	case s.conv:
		st, err = ConvertFrames(dst, src, s.ropts, func() EventFunc { return testEventFunc(s) }, opts)
	case s.encode:
		st, err = EncodeLines(dst, src, s.wopts, opts)
	default:
		st, err = DecodeFrames(dst, src, s.ropts, opts)
	}
	if bw != nil {
		bw.Flush()
	}
	res.err = explain(err)
	st.PeakBuffered = 0
	res.stats = st
	res.out = sink.Bytes()
	return res
}

// chunked reads its data in pieces of random length.
type chunked struct {
	data []byte
	r    *rand.Rand
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.r.IntN(300))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

var errBroken = errors.New("broken output")

// failing accepts left bytes, then fails.
type failing struct {
	w    io.Writer
	left int
}

func (f *failing) Write(p []byte) (int, error) {
	if len(p) <= f.left {
		f.left -= len(p)
		return f.w.Write(p)
	}
	n, _ := f.w.Write(p[:f.left])
	f.left = 0
	return n, errBroken
}

// same runs input sequentially and in parallel with several batch sizes and
// worker counts, and fails on any difference.
func same(t *testing.T, s setup, input []byte) result {
	t.Helper()
	want := s.run(input, Options{Workers: 1})
	for _, o := range []Options{
		{Workers: 2},
		{Workers: 2, BatchSize: 1},
		{Workers: 3, BatchSize: 200, Depth: 3},
		{Workers: 4, BatchSize: 3000, Depth: 9},
	} {
		got := s.run(input, o)
		if !bytes.Equal(got.out, want.out) {
			t.Fatalf("%+v %+v: output differs: %d bytes, sequential %d (first difference at %d)", s, o, len(got.out), len(want.out), firstDiff(got.out, want.out))
		}
		if got.err != want.err {
			t.Fatalf("%+v %+v: error\n%s\nsequential\n%s", s, o, got.err, want.err)
		}
		if strings.Join(got.reported, "\n") != strings.Join(want.reported, "\n") {
			t.Fatalf("%+v %+v: reported\n%s\nsequential\n%s", s, o, strings.Join(got.reported, "\n"), strings.Join(want.reported, "\n"))
		}
		if got.stats != want.stats || got.progress != want.progress {
			t.Fatalf("%+v %+v: stats %+v (%d progress calls), sequential %+v (%d)", s, o, got.stats, got.progress, want.stats, want.progress)
		}
	}
	return want
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestGoldenSameAsSequential(t *testing.T) {
	jsonl, stream := golden(t)
	lines := int64(bytes.Count(jsonl, []byte("\n")))
	// The corpus holds cases the codec refuses (a number a double cannot
	// hold): skip them.
	enc := same(t, setup{encode: true, stopAfter: -1}, jsonl)
	if enc.err != "<nil>" || enc.stats.Records+enc.stats.Skipped != lines || enc.stats.Records < lines-5 {
		t.Fatalf("encoding the golden corpus: %s, %+v", enc.err, enc.stats)
	}
	dec := same(t, setup{}, stream)
	if dec.err != "<nil>" || dec.stats.Records < lines-5 || len(dec.reported) != 0 {
		t.Fatalf("decoding: %s, %d records", dec.err, dec.stats.Records)
	}
	for seed := range int64(8) {
		same(t, setup{encode: true, stopAfter: -1, chunks: seed + 1}, jsonl)
		same(t, setup{chunks: seed + 1}, stream)
		same(t, setup{encode: true, stopAfter: -1, chunks: seed + 1, bufSrc: true, buffered: true}, jsonl)
		same(t, setup{chunks: seed + 1, bufSrc: true, buffered: true}, stream)
	}
}

// spoilLines damages the JSON lines at random places: a line cut short,
// garbage, a line of another format, blank lines, CRLF, a missing final
// newline.
func spoilLines(r *rand.Rand, jsonl []byte) []byte {
	lines := bytes.SplitAfter(jsonl, []byte("\n"))
	var out []byte
	for _, l := range lines {
		switch r.IntN(12) {
		case 0:
			out = append(out, l[:r.IntN(len(l)+1)]...)
			out = append(out, '\n')
		case 1:
			out = append(out, "  \t\r\n\n"...)
			out = append(out, l...)
		case 2:
			out = append(out, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}`+"\n"...)
		case 3:
			out = append(out, bytes.TrimSuffix(l, []byte("\n"))...)
			out = append(out, "\r\n"...)
		case 4:
			if len(l) > 2 {
				l = bytes.Clone(l)
				l[r.IntN(len(l)-1)] ^= byte(1 + r.IntN(255))
			}
			out = append(out, l...)
		default:
			out = append(out, l...)
		}
	}
	return bytes.TrimSuffix(out, []byte("\n")[:r.IntN(2)])
}

// spoilFrames damages a binary stream at random places: a flipped byte in
// a payload, an empty frame, a frame of garbage, and maybe a truncated or
// oversized end.
func spoilFrames(r *rand.Rand, stream []byte) []byte {
	var out []byte
	for len(stream) >= 4 {
		n := int(binary.BigEndian.Uint32(stream))
		if 4+n > len(stream) { // a cut stream: keep its end as it is
			break
		}
		frame := stream[:4+n]
		stream = stream[4+n:]
		switch r.IntN(10) {
		case 0:
			if n > 0 {
				frame = bytes.Clone(frame)
				frame[4+r.IntN(n)] ^= byte(1 + r.IntN(255))
			}
		case 1:
			out = append(out, 0, 0, 0, 0)
		case 2:
			g := make([]byte, r.IntN(20))
			for i := range g {
				g[i] = byte(r.Uint32())
			}
			out = binary.BigEndian.AppendUint32(out, uint32(len(g)))
			out = append(out, g...)
		}
		out = append(out, frame...)
	}
	out = append(out, stream...)
	switch r.IntN(4) {
	case 0:
		out = out[:len(out)-r.IntN(min(len(out), 9))]
	case 1:
		out = append(out, 0x7f, 0, 0, 0)
	}
	return out
}

func TestErrorsSameAsSequential(t *testing.T) {
	jsonl, stream := golden(t)
	seeds := uint64(24)
	if raceEnabled {
		seeds = 8
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 2))
		lines, frames := spoilLines(r, jsonl), spoilFrames(r, stream)
		for _, stop := range []int{0, 1, 3, -1} {
			same(t, setup{encode: true, stopAfter: stop, chunks: int64(seed)}, lines)
			same(t, setup{stopAfter: stop, chunks: int64(seed)}, frames)
		}
		// Limits: a small frame size, few errors in a row.
		same(t, setup{encode: true, stopAfter: -1, wopts: framing.WriterOptions{MaxFrameSize: 40}}, lines)
		same(t, setup{stopAfter: -1, ropts: framing.ReaderOptions{MaxFrameSize: 300, MaxConsecutiveErrors: 1 + r.IntN(3)}}, frames)
		same(t, setup{stopAfter: -1, ropts: framing.ReaderOptions{MaxConsecutiveErrors: -1}}, frames)
		// An output that fails part way, buffered or not.
		fail := 1 + r.IntN(len(stream))
		same(t, setup{encode: true, stopAfter: -1, failAfter: fail}, lines)
		same(t, setup{stopAfter: -1, failAfter: 3 * fail}, frames)
		same(t, setup{encode: true, stopAfter: -1, failAfter: fail, buffered: true}, lines)
		same(t, setup{stopAfter: -1, failAfter: 3 * fail, buffered: true}, frames)
	}
}

// TestErrorsFound checks that the spoilt inputs of the comparisons do hold
// errors of every kind, so that the comparisons compare errors.
func TestErrorsFound(t *testing.T) {
	jsonl, stream := golden(t)
	r := rand.New(rand.NewPCG(7, 2))
	lines := setup{encode: true, stopAfter: -1}.run(spoilLines(r, jsonl), Options{Workers: 2, BatchSize: 100})
	if len(lines.reported) < 5 || !strings.Contains(lines.reported[0], "*pipeline.LineError") {
		t.Errorf("spoilt lines: %d errors reported: %v", len(lines.reported), lines.reported)
	}
	frames := setup{stopAfter: -1}.run(spoilFrames(r, stream), Options{Workers: 2, BatchSize: 100})
	if len(frames.reported) < 5 || !strings.Contains(frames.reported[0], "*framing.Error") {
		t.Errorf("spoilt frames: %d errors reported: %v", len(frames.reported), frames.reported)
	}
	tooMany := setup{stopAfter: -1, ropts: framing.ReaderOptions{MaxConsecutiveErrors: 2}}.run(
		bytes.Repeat([]byte{0, 0, 0, 0}, 10), Options{Workers: 2, BatchSize: 1})
	if !strings.Contains(tooMany.err, "is(too many undecodable frames in a row)") || !strings.Contains(tooMany.err, "frame=2 off=8") ||
		len(tooMany.reported) != 3 {
		t.Errorf("three empty frames with a limit of 2 in a row: %s, reported %v", tooMany.err, tooMany.reported)
	}
	big := setup{encode: true, stopAfter: -1, wopts: framing.WriterOptions{MaxFrameSize: 40}}.run(jsonl, Options{Workers: 2, BatchSize: 50})
	if len(big.reported) == 0 || !strings.Contains(big.reported[0], "is(frame too large)") {
		t.Errorf("frames above 40 bytes: %v", big.reported)
	}
}

// testEventFunc writes an event as a frame or as a JSON line, refusing
// CUSTOM events.
func testEventFunc(s setup) EventFunc {
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, s.wopts)
	return func(dst []byte, ev event.Event) ([]byte, error) {
		if ev.Type() == event.TypeCustom {
			return dst, errors.New("no custom events here")
		}
		if !s.toBinary {
			out, err := event.AppendJSON(dst, ev)
			if err != nil {
				return dst, err
			}
			return append(out, '\n'), nil
		}
		buf.Reset()
		w.Reset(&buf)
		if err := w.WriteEvent(ev); err != nil {
			return dst, err
		}
		return append(dst, buf.Bytes()...), nil
	}
}

// testLineFunc parses a JSON line (dropping a byte order mark on line 1)
// and writes the event as testEventFunc does.
func testLineFunc(s setup) LineFunc {
	f := testEventFunc(s)
	return func(dst, line []byte, num int64) ([]byte, error) {
		if num == 1 {
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			return dst, Skip
		}
		ev, err := event.Parser{}.Parse(line)
		if err != nil {
			return dst, err
		}
		return f(dst, ev)
	}
}

func TestConvertSameAsSequential(t *testing.T) {
	jsonl, stream := golden(t)
	seeds := uint64(25)
	if raceEnabled {
		seeds = 8
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 9))
		lines, frames := spoilLines(r, jsonl), spoilFrames(r, stream)
		if seed%3 == 0 {
			lines = append([]byte("\xEF\xBB\xBF\n"), lines...)
		}
		for _, bin := range []bool{false, true} {
			for _, stop := range []int{0, 2, -1} {
				same(t, setup{encode: true, conv: true, toBinary: bin, stopAfter: stop, chunks: int64(seed)}, lines)
				same(t, setup{conv: true, toBinary: bin, stopAfter: stop, chunks: int64(seed)}, frames)
			}
			small := framing.WriterOptions{MaxFrameSize: 50}
			same(t, setup{encode: true, conv: true, toBinary: bin, stopAfter: -1, wopts: small}, lines)
			same(t, setup{conv: true, toBinary: bin, stopAfter: -1, wopts: small, ropts: framing.ReaderOptions{MaxConsecutiveErrors: 1}}, frames)
			same(t, setup{encode: true, conv: true, toBinary: bin, stopAfter: -1, failAfter: 1 + r.IntN(len(stream)), buffered: true}, lines)
		}
	}
	// The comparisons met every kind of error.
	got := setup{conv: true, toBinary: true, stopAfter: -1, wopts: framing.WriterOptions{MaxFrameSize: 50}}.run(stream, Options{Workers: 2, BatchSize: 300})
	all := strings.Join(got.reported, "\n")
	for _, want := range []string{"*pipeline.FrameError", "no custom events here", "is(frame too large)"} {
		if !strings.Contains(all, want) {
			t.Errorf("converting the golden frames reports no %q: %s", want, all)
		}
	}
	got = setup{encode: true, conv: true, stopAfter: -1}.run(append([]byte("\xEF\xBB\xBF\n{\n"), jsonl...), Options{Workers: 2, BatchSize: 300})
	if len(got.reported) == 0 || !strings.Contains(got.reported[0], "line=2") || got.stats.Records < 100 {
		t.Errorf("a BOM line, then a bad line: %v, %+v", got.reported, got.stats)
	}
}
