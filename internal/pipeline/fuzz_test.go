package pipeline

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// fuzzSame fails when a parallel conversion of input differs from the
// sequential one in output, errors or counts.
func fuzzSame(t *testing.T, s setup, input []byte, batch int) {
	want := s.run(input, Options{Workers: 1})
	got := s.run(input, Options{Workers: 2, BatchSize: batch, Depth: 3})
	if !bytes.Equal(got.out, want.out) || got.err != want.err || got.stats != want.stats ||
		strings.Join(got.reported, "\n") != strings.Join(want.reported, "\n") {
		t.Fatalf("batch %d: parallel %q %v %+v %q\nsequential %q %v %+v %q", batch,
			got.out, got.reported, got.stats, got.err, want.out, want.reported, want.stats, want.err)
	}
}

// fuzzOptions derives a run's setup from the fuzzer's knobs.
func fuzzOptions(encode bool, knobs uint16) (setup, int) {
	s := setup{encode: encode, chunks: int64(knobs & 7), bufSrc: knobs&8 != 0, buffered: knobs&16 != 0}
	switch (knobs >> 5) & 3 {
	case 0:
		s.stopAfter = -1
	case 1:
		s.stopAfter = 2
	}
	if knobs&128 != 0 {
		s.wopts.MaxFrameSize, s.ropts.MaxFrameSize = 64, 64
	}
	s.ropts.MaxConsecutiveErrors = int(knobs>>8&3) - 1
	s.conv, s.toBinary = knobs&(1<<15) != 0, knobs&(1<<14) != 0
	return s, 1 + int(knobs>>10&15)*29
}

// seeds adds short pieces of the golden corpus, spoilt: short, so that
// the fuzzer's minimizing of an input that finds new code stays quick.
func seeds(f *testing.F, encode bool) {
	jsonl, stream := golden(f)
	r := rand.New(rand.NewPCG(5, 5))
	for range 8 {
		var in []byte
		if encode {
			lo := r.IntN(len(jsonl) - 1500)
			in = spoilLines(r, jsonl[lo:lo+r.IntN(1500)])
		} else {
			// Whole frames from the start, up to about 1 KB.
			end := 0
			for end < len(stream) && end < 200+r.IntN(800) {
				end += 4 + int(binary.BigEndian.Uint32(stream[end:]))
			}
			in = spoilFrames(r, stream[:end])
		}
		f.Add(in, uint16(r.Uint32()))
	}
}

func FuzzEncodeLines(f *testing.F) {
	seeds(f, true)
	f.Fuzz(func(t *testing.T, input []byte, knobs uint16) {
		s, batch := fuzzOptions(true, knobs)
		fuzzSame(t, s, input, batch)
	})
}

func FuzzDecodeFrames(f *testing.F) {
	seeds(f, false)
	f.Fuzz(func(t *testing.T, input []byte, knobs uint16) {
		s, batch := fuzzOptions(false, knobs)
		fuzzSame(t, s, input, batch)
	})
}
