package assemble_test

import (
	"bytes"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/framing"
)

// BenchmarkApplyRealistic applies the realistic run (925 parsed events) to a
// new Conversation and reads the result once, as a client does at the end.
func BenchmarkApplyRealistic(b *testing.B) {
	run := assembletest.Realistic(1)
	b.ReportAllocs()
	for b.Loop() {
		c, err := fromEvents(run.Events, assemble.Options{Check: true})
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Messages()
		_ = c.State()
	}
	b.ReportMetric(float64(len(run.Events)*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkApplyRealisticBinary decodes the realistic run from its binary
// frames and applies it: what a Go client reading a binary stream does.
func BenchmarkApplyRealisticBinary(b *testing.B) {
	run := assembletest.Realistic(1)
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, ev := range run.Events {
		if err := w.WriteEvent(ev); err != nil {
			b.Fatal(err)
		}
	}
	stream := buf.Bytes()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := framing.NewReader(bytes.NewReader(stream), framing.ReaderOptions{})
		if _, err := assemble.FromSeq(r.Events(), assemble.Options{Check: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(run.Events)*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCompactRealistic compacts the realistic run; bytes are its JSON
// lines.
func BenchmarkCompactRealistic(b *testing.B) {
	run := assembletest.Realistic(1)
	n := 0
	for _, l := range run.Lines {
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := assemble.Compact(run.Events, assemble.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(run.Events)*b.N)/b.Elapsed().Seconds(), "events/s")
}
