package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/bench/harness"
	"github.com/agwire/agwire/bench/vtpb"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/gen/aguipb"
)

var (
	inputsOnce sync.Once
	inputs     []*harness.Input
	inputsErr  error
	runOnce    sync.Once
	runInput   *harness.Input
	runErr     error
)

// loadInputs returns the synthetic cases and a placeholder for the run
// (named "Run", no events), which loadRun fills on first use: preparing
// 85,000 events in every form takes seconds, so only benchmarks of the run
// pay for it.
func loadInputs(b *testing.B) []*harness.Input {
	inputsOnce.Do(func() {
		inputs, inputsErr = harness.Cases(false)
		inputs = append(inputs, &harness.Input{Name: "Run"})
	})
	if inputsErr != nil {
		b.Fatal(inputsErr)
	}
	return inputs
}

func loadRun(b *testing.B) *harness.Input {
	runOnce.Do(func() { runInput, runErr = harness.Prepare("Run", corpus.Run()) })
	if runErr != nil {
		b.Fatal(runErr)
	}
	return runInput
}

// vtStrings returns, per event of in, every string field value its
// vtproto message holds (map keys of Structs included).
func vtStrings(in *harness.Input) [][]string {
	out := make([][]string, len(in.VT))
	var walk func(i int, m protoreflect.Message)
	walk = func(i int, m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					if fd.MapKey().Kind() == protoreflect.StringKind {
						out[i] = append(out[i], k.String())
					}
					if fd.MapValue().Message() != nil {
						walk(i, mv.Message())
					}
					return true
				})
			case fd.IsList():
				for j := range v.List().Len() {
					switch {
					case fd.Message() != nil:
						walk(i, v.List().Get(j).Message())
					case fd.Kind() == protoreflect.StringKind:
						out[i] = append(out[i], v.List().Get(j).String())
					}
				}
			case fd.Message() != nil:
				walk(i, v.Message())
			case fd.Kind() == protoreflect.StringKind:
				out[i] = append(out[i], v.String())
			}
			return true
		})
	}
	for i, m := range in.VT {
		walk(i, m.ProtoReflect())
	}
	return out
}

// impl is one implementation's encode and decode of a whole Input. Each
// returns the bytes it processed (for MB/s) through setup.
type impl struct {
	name string
	// encode / decode run once over every event of in; setup prepares
	// whatever they reuse and returns the byte count for b.SetBytes.
	encode func(b *testing.B, in *harness.Input) (run func(), size int)
	decode func(b *testing.B, in *harness.Input) (run func(), size int)
}

// frames splits a framed stream into payloads (for decoders that are handed
// a frame at a time).
func frames(stream []byte) [][]byte {
	var out [][]byte
	for len(stream) >= 4 {
		n := binary.BigEndian.Uint32(stream)
		out = append(out, stream[4:4+n])
		stream = stream[4+n:]
	}
	return out
}

var impls = []impl{
	{
		// agwire: typed events through framing.Writer / framing.Reader.
		name: "agwire",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			w := framing.NewWriter(io.Discard, framing.WriterOptions{Codec: codec.Codec{}})
			return func() {
				for _, ev := range in.Events {
					if err := w.WriteEvent(ev); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.Framed
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			var br bytes.Reader
			r := framing.NewReader(&br, framing.ReaderOptions{MaxFrameSize: 64 << 20})
			return func() {
				br.Reset(in.Framed)
				r.Reset(&br)
				for range in.Events {
					if _, err := r.ReadEvent(); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.Framed
		},
	},
	{
		// agwire-codec: the codec alone, handed what vtproto is handed — an
		// event to append after a reused buffer's length prefix, a payload
		// already split from the stream — so that the targets against
		// vtproto compare like with like (the agwire row also reads and
		// writes the stream through framing's Reader and Writer, one more
		// copy of every frame).
		name: "agwire-codec",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			var buf []byte
			c := codec.Codec{}
			return func() {
				for _, ev := range in.Events {
					var err error
					if buf, err = c.Append(append(buf[:0], 0, 0, 0, 0), ev); err != nil {
						b.Fatal(err)
					}
					binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
					io.Discard.Write(buf)
				}
			}, in.Bytes.Framed
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			fs := frames(in.Framed)
			c := codec.Codec{}
			return func() {
				for _, f := range fs {
					if _, err := c.Unmarshal(f); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.Framed
		},
	},
	{
		// agwire-json: AG-UI JSON text to frames (Writer.WriteJSON) and
		// frames to AG-UI JSON text (Reader.ReadJSON), no Go event types.
		name: "agwire-json",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			w := framing.NewWriter(io.Discard, framing.WriterOptions{Codec: codec.Codec{}})
			return func() {
				for _, js := range in.JSON {
					if err := w.WriteJSON(js); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.JSON
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			var br bytes.Reader
			r := framing.NewReader(&br, framing.ReaderOptions{MaxFrameSize: 64 << 20})
			var buf []byte
			return func() {
				br.Reset(in.Framed)
				r.Reset(&br)
				for range in.Events {
					var err error
					if buf, err = r.ReadJSON(buf[:0]); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.JSON
		},
	},
	{
		// protobuf-go on the Buf-generated aguipb types, length-prefixed.
		name: "protobuf-go",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			var buf []byte
			return func() {
				for _, m := range in.PB {
					buf = append(buf[:0], 0, 0, 0, 0)
					var err error
					if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf, m); err != nil {
						b.Fatal(err)
					}
					binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
					io.Discard.Write(buf)
				}
			}, in.Bytes.Framed
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			fs := frames(in.Framed)
			return func() {
				for _, f := range fs {
					m := new(aguipb.Event)
					if err := proto.Unmarshal(f, m); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.Framed
		},
	},
	{
		// vtproto: vtprotobuf's generated MarshalVT/UnmarshalVT for the same
		// schema, length-prefixed.
		name: "vtproto",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			var buf []byte
			return func() {
				for _, m := range in.VT {
					n := m.SizeVT()
					if cap(buf) < n+4 {
						buf = make([]byte, n+4)
					}
					buf = buf[:n+4]
					binary.BigEndian.PutUint32(buf, uint32(n))
					if _, err := m.MarshalToSizedBufferVT(buf[4:]); err != nil {
						b.Fatal(err)
					}
					io.Discard.Write(buf)
				}
			}, in.Bytes.Framed
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			fs := frames(in.Framed)
			return func() {
				for _, f := range fs {
					m := new(vtpb.Event)
					if err := m.UnmarshalVT(f); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.Framed
		},
	},
	{
		// vtproto+utf8: vtproto's encode or decode plus a utf8.ValidString
		// of every string field of the event (collected beforehand): the
		// floor for a coder that, unlike vtproto, checks the UTF-8 of its
		// strings.
		name: "vtproto+utf8",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			strs := vtStrings(in)
			var buf []byte
			return func() {
				for i, m := range in.VT {
					n := m.SizeVT()
					if cap(buf) < n+4 {
						buf = make([]byte, n+4)
					}
					buf = buf[:n+4]
					binary.BigEndian.PutUint32(buf, uint32(n))
					if _, err := m.MarshalToSizedBufferVT(buf[4:]); err != nil {
						b.Fatal(err)
					}
					for _, s := range strs[i] {
						if !utf8.ValidString(s) {
							b.Fatal("invalid UTF-8 in the corpus")
						}
					}
					io.Discard.Write(buf)
				}
			}, in.Bytes.Framed
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			fs := frames(in.Framed)
			strs := vtStrings(in)
			return func() {
				for i, f := range fs {
					m := new(vtpb.Event)
					if err := m.UnmarshalVT(f); err != nil {
						b.Fatal(err)
					}
					for _, s := range strs[i] {
						if !utf8.ValidString(s) {
							b.Fatal("invalid UTF-8 in the corpus")
						}
					}
				}
			}, in.Bytes.Framed
		},
	},
	{
		// protojson: the protobuf JSON mapping of the generated types, as SSE.
		name: "protojson",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			var buf []byte
			size := 0
			for _, pj := range in.PJSON {
				size += len(pj)
			}
			return func() {
				for _, m := range in.PB {
					buf = append(buf[:0], "data: "...)
					var err error
					if buf, err = (protojson.MarshalOptions{}).MarshalAppend(buf, m); err != nil {
						b.Fatal(err)
					}
					buf = append(buf, "\n\n"...)
					io.Discard.Write(buf)
				}
			}, size
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			size := 0
			for _, pj := range in.PJSON {
				size += len(pj)
			}
			return func() {
				for _, pj := range in.PJSON {
					m := new(aguipb.Event)
					if err := protojson.Unmarshal(pj, m); err != nil {
						b.Fatal(err)
					}
				}
			}, size
		},
	},
	{
		// encoding/json on a generic value (what a server without AG-UI
		// types does), framed as SSE "data:" blocks.
		name: "encoding-json-sse",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			return func() {
				for _, v := range in.Any {
					buf.Reset()
					buf.WriteString("data: ")
					if err := enc.Encode(v); err != nil { // adds one '\n'
						b.Fatal(err)
					}
					buf.WriteByte('\n')
					io.Discard.Write(buf.Bytes())
				}
			}, in.Bytes.SSE
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			return func() {
				for _, blk := range in.SSE {
					var v any
					if err := json.Unmarshal(blk[len("data: "):len(blk)-2], &v); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.SSE
		},
	},
	{
		// agwire-sse: agwire's own AG-UI JSON writer and parser, as SSE: the
		// JSON transport agwire replaces, for reference.
		name: "agwire-sse",
		encode: func(b *testing.B, in *harness.Input) (func(), int) {
			var buf []byte
			return func() {
				for _, ev := range in.Events {
					buf = append(buf[:0], "data: "...)
					var err error
					if buf, err = event.AppendJSON(buf, ev); err != nil {
						b.Fatal(err)
					}
					buf = append(buf, "\n\n"...)
					io.Discard.Write(buf)
				}
			}, in.Bytes.SSE
		},
		decode: func(b *testing.B, in *harness.Input) (func(), int) {
			return func() {
				for _, blk := range in.SSE {
					if _, err := event.Parse(blk[len("data: ") : len(blk)-2]); err != nil {
						b.Fatal(err)
					}
				}
			}, in.Bytes.SSE
		},
	},
}

// BenchmarkSide runs every implementation on every input, encode and decode.
// Names are key=value so benchstat can project them:
//
//	benchstat -row /case -col /impl side.txt
//
// One op is one pass over the input's events; ns/event divides by their
// number (1 for the synthetic cases, about 85,000 for case=Run).
func BenchmarkSide(b *testing.B) {
	for _, in := range loadInputs(b) {
		for _, op := range []string{"Encode", "Decode"} {
			for _, im := range impls {
				b.Run("case="+in.Name+"/op="+op+"/impl="+im.name, func(b *testing.B) {
					in := in
					if in.Name == "Run" {
						in = loadRun(b)
					}
					setup := im.encode
					if op == "Decode" {
						setup = im.decode
					}
					run, size := setup(b, in)
					run() // warm up buffers
					b.SetBytes(int64(size))
					b.ReportAllocs()
					b.ResetTimer()
					loopCPU(b, len(in.Events), run)
					reportPerEvent(b, len(in.Events))
				})
			}
		}
	}
}

// reportPerEvent adds ns/event and events/s for multi-event inputs.
func reportPerEvent(b *testing.B, events int) {
	if b.N == 0 || b.Elapsed() == 0 {
		return
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	if events > 1 {
		b.ReportMetric(perOp/float64(events), "ns/event")
		b.ReportMetric(float64(events)/(perOp/1e9), "events/s")
	}
}
