package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/cli"
)

// The pipeline that converts long streams on every core is internal to the
// agwire module; it is measured here the way it is used, through the
// command's encode and decode (cli.Main), which run it on GOMAXPROCS
// workers.

// agwire runs the command on procs cores (GOMAXPROCS; 1 makes the pipeline
// take its sequential path) and returns its output, its standard error and
// its exit status.
func agwire(procs int, stdin io.Reader, args ...string) (stdout []byte, stderr string, code int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var out, errs bytes.Buffer
	code = cli.Main(args, stdin, &out, &errs)
	return out.Bytes(), errs.String(), code
}

// recordedStream returns the recorded run as JSON lines and as the binary
// stream the sequential conversion makes of it.
func recordedStream(tb testing.TB) (jsonl, stream []byte) {
	tb.Helper()
	jsonl = corpus.RunJSONL()
	stream, stderr, code := agwire(1, bytes.NewReader(jsonl), "encode")
	if code != 0 {
		tb.Fatalf("agwire encode: exit %d: %s", code, stderr)
	}
	return jsonl, stream
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

// convertBoth runs one direction on one core and on two and returns what
// each wrote and reported (standard error and exit status).
func convertBoth(encode bool, input []byte, seed uint64) (outs [2][]byte, logs [2]string) {
	for i, procs := range []int{1, 2} {
		var src io.Reader = bytes.NewReader(input)
		if seed != 0 {
			src = &piecewise{data: input, r: rand.New(rand.NewPCG(seed, 0))}
		}
		cmd := "decode"
		if encode {
			cmd = "encode"
		}
		out, stderr, code := agwire(procs, src, cmd)
		outs[i], logs[i] = out, fmt.Sprintf("%s\nexit %d", stderr, code)
	}
	return outs, logs
}

// TestPipelineRecordedRun converts the recorded run both ways with the
// command, whole, in random pieces and spoilt at random places, on one core
// and on two: the outputs, the errors and the exit statuses must be the
// same.
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
			if tc.name == "encode/spoilt" && !strings.Contains(logs[0], "line ") {
				t.Errorf("the spoilt lines hold no error: %s", logs[0])
			}
		})
	}
}

// BenchmarkPipeline converts the recorded run with the command, JSON lines
// to frames (agwire encode) and frames to JSON lines (agwire decode), on
// one and on two cores (GOMAXPROCS, the pipeline's workers), and reports
// events/s (wall time) and cpu-ns/event (all threads).
func BenchmarkPipeline(b *testing.B) {
	jsonl, stream := recordedStream(b)
	events := len(corpus.Run())
	for _, dir := range []string{"encode", "decode"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", dir, workers), func(b *testing.B) {
				input := stream
				if dir == "encode" {
					input = jsonl
				}
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
				b.SetBytes(int64(len(input)))
				start, cpu := time.Now(), cpuTime()
				n := 0
				for b.Loop() {
					var errs bytes.Buffer
					if code := cli.Main([]string{dir}, bytes.NewReader(input), io.Discard, &errs); code != 0 {
						b.Fatalf("agwire %s: exit %d: %s", dir, code, errs.String())
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
