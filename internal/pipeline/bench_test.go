package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, all threads: on a shared
// machine, what the work cost, whatever the neighbours do.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOverhead measures the pipeline's own cost per record: JSON lines
// copied through ConvertLines unchanged, sequentially and on two workers.
// The codec's cost comes on top (bench/'s BenchmarkPipeline has both).
func BenchmarkOverhead(b *testing.B) {
	jsonl, _ := golden(b)
	input := bytes.Repeat(jsonl, 200)
	records := bytes.Count(input, []byte("\n"))
	copyLine := func() LineFunc {
		return func(dst, line []byte, _ int64) ([]byte, error) { return append(dst, line...), nil }
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			cpu := cpuTime()
			for b.Loop() {
				if _, err := ConvertLines(io.Discard, bytes.NewReader(input), copyLine, Options{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records), "ns/record")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N*records), "cpu-ns/record")
		})
	}
}
