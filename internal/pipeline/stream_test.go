package pipeline

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/framing"
)

// watched is an output that tells of each write reaching it.
type watched struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watched) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// TestPauseFlushes feeds a conversion through a pipe that pauses after some
// records and part of the next: what was read in full must reach the output
// (behind a bufio.Writer) while the input waits.
func TestPauseFlushes(t *testing.T) {
	jsonl, stream := golden(t)
	lines := bytes.SplitAfter(jsonl, []byte("\n"))
	head := bytes.Join(lines[:3], nil)
	var frames []byte
	for i := 0; i < 3; i++ {
		n := int(binary.BigEndian.Uint32(stream[len(frames):]))
		frames = stream[:len(frames)+4+n]
	}
	for _, tc := range []struct {
		name        string
		encode      bool
		input, head []byte
		partial     int // bytes of the next record sent before the pause
	}{
		{"encode", true, jsonl, head, 10},
		{"encode/at a record's end", true, jsonl, head, 0},
		{"decode", false, stream, frames, 2},
		{"decode/at a record's end", false, stream, frames, 0},
	} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				// What the records before the pause convert to.
				want := setup{encode: tc.encode}.run(tc.head, Options{Workers: 1}).out
				pr, pw := io.Pipe()
				resume := make(chan struct{})
				go func() {
					pw.Write(tc.input[:len(tc.head)+tc.partial])
					<-resume
					pw.Write(tc.input[len(tc.head)+tc.partial:])
					pw.Close()
				}()
				out := &watched{wrote: make(chan struct{}, 1)}
				bw := bufio.NewWriterSize(out, 64<<10)
				done := make(chan error, 1)
				go func() {
					var err error
					opts := Options{Workers: workers, OnError: func(error) bool { return true }}
					if tc.encode {
						_, err = EncodeLines(bw, pr, framing.WriterOptions{}, opts)
					} else {
						_, err = DecodeFrames(bw, pr, framing.ReaderOptions{}, opts)
					}
					done <- err
				}()
				// The deadline only stops a test that would hang: the
				// output must come while the input waits, however long.
				deadline := time.After(20 * time.Second)
				for !bytes.Equal(out.bytes(), want) {
					select {
					case <-out.wrote:
					case <-deadline:
						t.Fatalf("workers %d: the input paused after %d bytes; the output holds %d bytes, want %d", workers, len(tc.head)+tc.partial, len(out.bytes()), len(want))
					}
				}
				close(resume)
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				bw.Flush()
				if full := (setup{encode: tc.encode, stopAfter: -1}).run(tc.input, Options{Workers: 1}).out; !bytes.Equal(out.bytes(), full) {
					t.Fatalf("workers %d: after the pause the output differs", workers)
				}
			})
		}
	}
}

// repeat is an input of n copies of a record set, made as it is read.
type repeat struct {
	unit []byte
	n    int
	at   int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.unit[r.at:])
	r.at += k
	if r.at == len(r.unit) {
		r.at, r.n = 0, r.n-1
	}
	return k, nil
}

// TestMemoryBounded converts an input four times as long: the batch
// buffers in flight, and the heap at its peak, stay the same.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 100 MB")
	}
	jsonl, stream := golden(t)
	longest := 0
	for l := range bytes.Lines(jsonl) {
		longest = max(longest, len(l))
	}
	const batch, depth = 16 << 10, 4
	for _, encode := range []bool{true, false} {
		unit := stream
		if encode {
			unit = jsonl
		}
		copies := (6 << 20) / len(unit) // about 6 MB of input
		if raceEnabled {
			copies /= 4
		}
		var peakBuf [2]int64
		var peakHeap [2]uint64
		for i, n := range []int{copies, 4 * copies} {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapInuse
			records := 0
			opts := Options{Workers: 2, BatchSize: batch, Depth: depth,
				OnError: func(error) bool { return true },
				Progress: func(Stats) {
					if records++; records%2000 == 0 {
						runtime.ReadMemStats(&ms)
						peakHeap[i] = max(peakHeap[i], ms.HeapInuse-min(base, ms.HeapInuse))
					}
				}}
			var st Stats
			var err error
			if encode {
				st, err = EncodeLines(io.Discard, &repeat{unit: unit, n: n}, framing.WriterOptions{}, opts)
			} else {
				st, err = DecodeFrames(io.Discard, &repeat{unit: unit, n: n}, framing.ReaderOptions{}, opts)
			}
			if err != nil || st.Records < int64(n) {
				t.Fatalf("encode %v: %v after %d records", encode, err, st.Records)
			}
			peakBuf[i] = st.PeakBuffered
		}
		t.Logf("encode %v: batch buffers at most %d and %d bytes, heap growth at most %d and %d bytes", encode, peakBuf[0], peakBuf[1], peakHeap[0], peakHeap[1])
		// Each batch holds about batch bytes of input (one more record at
		// most) and their output, which JSON of the binary at most triples.
		bound := int64(depth * 5 * (batch + longest))
		// How many of the Depth batches get made depends on how the
		// goroutines ran (a busy machine lets the reader run ahead), hence
		// a factor of 2 between the runs, not an equality.
		if peakBuf[0] > bound || peakBuf[1] > bound || peakBuf[1] > 2*peakBuf[0] || peakBuf[0] == 0 {
			t.Errorf("encode %v: batch buffers held %d bytes for 1x, %d for 4x the input (bound %d)", encode, peakBuf[0], peakBuf[1], bound)
		}
		// The input is 6 and 24 MB (a quarter under the race detector): a
		// pipeline holding it would show. (The bound leaves room for a
		// collector that lags on a busy machine.)
		if !raceEnabled && peakHeap[1] > 16<<20 {
			t.Errorf("encode %v: heap grew by %d bytes for 1x, %d for 4x the input", encode, peakHeap[0], peakHeap[1])
		}
	}
}

func TestWorkersDefault(t *testing.T) {
	if got, want := (Options{}).workers(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("default workers %d, GOMAXPROCS %d", got, want)
	}
	if got := (Options{Workers: 1}).depth(); got != 3 {
		t.Errorf("depth of one worker %d, want the least, 3", got)
	}
	if got := (Options{Workers: 5}).depth(); got != 10 {
		t.Errorf("depth of five workers %d, want 10", got)
	}
}

// TestRandomChunksLong compares the conversions of a longer stream read in
// random pieces, many batches of records long.
func TestRandomChunksLong(t *testing.T) {
	jsonl, stream := golden(t)
	r := rand.New(rand.NewPCG(99, 3))
	var lines, frames []byte
	for range 20 {
		lines = append(lines, spoilLines(r, jsonl)...)
		lines = append(lines, '\n')
		frames = append(frames, stream...)
	}
	frames = spoilFrames(r, frames)
	for seed := range int64(3) {
		same(t, setup{encode: true, stopAfter: -1, chunks: seed + 1}, lines)
		same(t, setup{stopAfter: -1, chunks: seed + 1, ropts: framing.ReaderOptions{MaxConsecutiveErrors: -1}}, frames)
	}
}

// TestLongRecords mixes records far longer than a batch, and than the
// input buffer, with short ones: the conversions agree, and a long
// record's batch buffers are given back once written.
func TestLongRecords(t *testing.T) {
	long := func(n int) []byte {
		return []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"` + strings.Repeat("x", n) + `"}` + "\n")
	}
	short := []byte(`{"type":"TEXT_MESSAGE_END","messageId":"m1"}` + "\n")
	var in []byte
	// Between two long records, more short ones than Depth batches hold:
	// one long record at most is in flight at a time.
	for i := range 8 {
		in = append(in, bytes.Repeat(short, 2500)...)
		in = append(in, long(200<<10*(1+i%3))...)
	}
	res := same(t, setup{encode: true}, in)
	if res.err != "<nil>" || res.stats.Records != 8*2501 {
		t.Fatalf("%s, %+v", res.err, res.stats)
	}
	stream := res.out
	same(t, setup{}, stream)
	const batch, depth = 16 << 10, 3
	for _, encode := range []bool{true, false} {
		input := stream
		if encode {
			input = in
		}
		var st Stats
		var err error
		opts := Options{Workers: 2, BatchSize: batch, Depth: depth}
		if encode {
			st, err = EncodeLines(io.Discard, bytes.NewReader(input), framing.WriterOptions{}, opts)
		} else {
			st, err = DecodeFrames(io.Discard, bytes.NewReader(input), framing.ReaderOptions{}, opts)
		}
		// The longest record is 600 KiB: its batch holds it in its input
		// and its output, grown by appending (three times it, at most, in
		// all), and the other batches their usual size. Kept, the long
		// records' buffers would make each batch as large in turn.
		bound := int64(depth*4*batch + 3*(600<<10+64<<10))
		if err != nil || st.PeakBuffered > bound {
			t.Errorf("encode %v: %v; batches held at most %d bytes, bound %d", encode, err, st.PeakBuffered, bound)
		}
	}
}

// TestDefaultFrameLimit encodes events just under and just over the
// framing.Writer's default limit: the parallel encoder refuses what the
// Writer refuses, with its error.
func TestDefaultFrameLimit(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("encodes 20 MB events")
	}
	event := func(payload int) []byte {
		// TEXT_MESSAGE_CONTENT with a message id "m": the envelope, the
		// event's header and the delta's tag and length take 17 bytes.
		return []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", payload-17) + `"}` + "\n")
	}
	in := append(event(framing.DefaultMaxWriteFrameSize), event(framing.DefaultMaxWriteFrameSize+1)...)
	res := same(t, setup{encode: true, stopAfter: -1}, in)
	if res.stats.Records != 1 || len(res.reported) != 1 || !strings.Contains(res.reported[0], "is(frame too large)") {
		t.Errorf("one event at the limit and one over it: %+v, reported %v", res.stats, res.reported)
	}
}

// TestGarbageBounded converts JSON lines on two workers: what the pipeline
// allocates is its batches, made once, whatever the input's length. (A
// batch regrown for each line read across a buffer's end made garbage
// in proportion to the input.)
func TestGarbageBounded(t *testing.T) {
	jsonl, _ := golden(t)
	copyLine := func() LineFunc {
		return func(dst, line []byte, _ int64) ([]byte, error) { return append(dst, line...), nil }
	}
	allocated := func(copies int) uint64 {
		input := bytes.Repeat(jsonl, copies)
		least := uint64(math.MaxUint64)
		for range 3 { // the least of three: the runtime may allocate too
			var a, b runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&a)
			if _, err := ConvertLines(io.Discard, bytes.NewReader(input), copyLine, Options{Workers: 2, Depth: 4}); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&b)
			least = min(least, b.TotalAlloc-a.TotalAlloc)
		}
		return least
	}
	small, large := allocated(100), allocated(400)
	t.Logf("%d and %d bytes allocated for %d and %d bytes of input", small, large, 100*len(jsonl), 400*len(jsonl))
	if large > small+small/2 {
		t.Errorf("4x the input allocated %d bytes, 1x %d: the garbage grows with the input", large, small)
	}
}
