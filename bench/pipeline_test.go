package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/pipeline"
)

// recordedStream returns the recorded run as JSON lines and as the binary
// stream the sequential conversion makes of it.
func recordedStream(tb testing.TB) (jsonl, stream []byte) {
	tb.Helper()
	jsonl = corpus.RunJSONL()
	var out bytes.Buffer
	if _, err := pipeline.EncodeLines(&out, bytes.NewReader(jsonl), framing.WriterOptions{}, pipeline.Options{Workers: 1}); err != nil {
		tb.Fatal(err)
	}
	return jsonl, out.Bytes()
}

// piecewise reads its data in pieces of random length.
type piecewise struct {
	data []byte
	r    *rand.Rand
}

func (p *piecewise) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(b), len(p.data), 1+p.r.IntN(5000))
	copy(b, p.data[:n])
	p.data = p.data[n:]
	return n, nil
}

// convertBoth runs one direction sequentially and on two workers and
// returns what each wrote, reported and returned.
func convertBoth(encode bool, input []byte, seed uint64) (outs [2][]byte, logs [2]string) {
	for i, workers := range []int{1, 2} {
		var out, log bytes.Buffer
		opts := pipeline.Options{Workers: workers, OnError: func(err error) bool {
			fmt.Fprintf(&log, "%T %v\n", err, err)
			return framing.Skippable(err)
		}}
		var src io.Reader = bytes.NewReader(input)
		if seed != 0 {
			src = &piecewise{data: input, r: rand.New(rand.NewPCG(seed, 0))}
		}
		var st pipeline.Stats
		var err error
		if encode {
			st, err = pipeline.EncodeLines(&out, src, framing.WriterOptions{}, opts)
		} else {
			st, err = pipeline.DecodeFrames(&out, src, framing.ReaderOptions{}, opts)
		}
		st.PeakBuffered = 0
		fmt.Fprintf(&log, "end %+v %v", st, err)
		outs[i], logs[i] = out.Bytes(), log.String()
	}
	return outs, logs
}

// TestPipelineRecordedRun converts the recorded run both ways, whole, in
// random pieces and spoilt at random places, on one and on two workers:
// the outputs and the errors must be the same.
func TestPipelineRecordedRun(t *testing.T) {
	jsonl, stream := recordedStream(t)
	lines := bytes.SplitAfter(jsonl, []byte("\n"))
	r := rand.New(rand.NewPCG(15, 4))
	spoilt := func() ([]byte, []byte) {
		var l bytes.Buffer
		for _, line := range lines {
			if r.IntN(5000) == 0 {
				l.WriteString(`{"type":"TEXT_MESSAGE_START","messageId":`)
				l.WriteByte('\n')
			}
			l.Write(line)
		}
		f := bytes.Clone(stream)
		for range 10 {
			f[r.IntN(len(f))] ^= 0x40
		}
		return l.Bytes(), f
	}
	badLines, badFrames := spoilt()
	for _, tc := range []struct {
		name   string
		encode bool
		input  []byte
		seed   uint64
	}{
		{"encode", true, jsonl, 0},
		{"encode/pieces", true, jsonl, 1},
		{"encode/spoilt", true, badLines, 2},
		{"decode", false, stream, 0},
		{"decode/pieces", false, stream, 3},
		{"decode/spoilt", false, badFrames, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs, logs := convertBoth(tc.encode, tc.input, tc.seed)
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("output: %d bytes on one worker, %d on two", len(outs[0]), len(outs[1]))
			}
			if logs[0] != logs[1] {
				t.Errorf("one worker:\n%s\ntwo:\n%s", logs[0], logs[1])
			}
			if tc.seed == 0 && !tc.encode && !bytes.Equal(outs[0], jsonl) {
				t.Errorf("the recorded run does not decode to its JSON lines")
			}
			if tc.name == "encode/spoilt" && !bytes.Contains([]byte(logs[0]), []byte("*pipeline.LineError")) {
				t.Errorf("the spoilt lines hold no error: %s", logs[0])
			}
		})
	}
}

// BenchmarkPipeline converts the recorded run, JSON lines to frames and
// frames to JSON lines, on one and on two workers, and reports events/s
// (wall time) and cpu-ns/event (all threads).
func BenchmarkPipeline(b *testing.B) {
	jsonl, stream := recordedStream(b)
	events := len(corpus.Run())
	for _, dir := range []string{"encode", "decode"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", dir, workers), func(b *testing.B) {
				opts := pipeline.Options{Workers: workers}
				input := stream
				if dir == "encode" {
					input = jsonl
				}
				b.SetBytes(int64(len(input)))
				start, cpu := time.Now(), cpuTime()
				n := 0
				for b.Loop() {
					var err error
					if dir == "encode" {
						_, err = pipeline.EncodeLines(io.Discard, bytes.NewReader(input), framing.WriterOptions{}, opts)
					} else {
						_, err = pipeline.DecodeFrames(io.Discard, bytes.NewReader(input), framing.ReaderOptions{}, opts)
					}
					if err != nil && !errors.Is(err, io.EOF) {
						b.Fatal(err)
					}
					n++
				}
				wall, used := time.Since(start), cpuTime()-cpu
				b.ReportMetric(float64(n*events)/wall.Seconds(), "events/s")
				b.ReportMetric(float64(used)/float64(n*events), "cpu-ns/event")
			})
		}
	}
}
