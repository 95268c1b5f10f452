package codec_test

import (
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/codec/protoconv"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

// Benchmark inputs: the shapes a run streams most (text deltas, tool-call
// argument deltas), one with metadata, and two heavier snapshots.
var benchEvents = []struct {
	name string
	json string
}{
	{"TextMessageContent", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_01JD8Y3K2V","delta":"The capital of South Korea is Seoul, a "}`},
	{"ToolCallArgs", `{"type":"TOOL_CALL_ARGS","toolCallId":"call_8f2a","delta":"{\"city\":\"Seoul\",\"units\":\"metric\"}"}`},
	{"TextMessageEndMetadata", `{"type":"TEXT_MESSAGE_END","messageId":"msg_01JD8Y3K2V","metadata":{"ag-ui":{"usage":{"input":1200,"output":340}},"finishReason":"stop","traceId":"abc-123","retries":0,"labels":["experimental"]}}`},
	{"StateDelta", `{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/progress","value":0.75},{"op":"add","path":"/steps/-","value":{"id":4,"title":"Book hotel","done":false}},{"op":"remove","path":"/draft"}]}`},
	{"MessagesSnapshot", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"system","content":"You are a travel agent."},{"id":"m2","role":"user","content":"Find me a flight to Seoul next Friday."},{"id":"m3","role":"assistant","content":"Looking up flights.","toolCalls":[{"id":"call_1","type":"function","function":{"name":"search_flights","arguments":"{\"to\":\"ICN\",\"date\":\"2026-12-11\"}"},"metadata":{"provider":"anthropic","latencyMs":84}}]},{"id":"m4","role":"tool","toolCallId":"call_1","content":"[{\"flight\":\"KE082\",\"price\":812.4}]"},{"id":"m5","role":"assistant","content":"KE082 departs at 13:00 for $812.40.","metadata":{"finishReason":"stop"}}]}`},
}

func BenchmarkEncode(b *testing.B) { benchEncode(b, codec.Codec{}.Append) }

func BenchmarkDecode(b *testing.B) { benchDecode(b, codec.Codec{}.Unmarshal) }

// benchEncode and benchDecode run one encoder or decoder over benchEvents.
func benchEncode(b *testing.B, encode func([]byte, event.Event) ([]byte, error)) {
	for _, bc := range benchEvents {
		ev, err := event.Parse([]byte(bc.json))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				buf, err = encode(buf[:0], ev)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

func benchDecode(b *testing.B, decode func([]byte) (event.Event, error)) {
	for _, bc := range benchEvents {
		wire, err := codec.AppendFromJSON(nil, []byte(bc.json))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			for b.Loop() {
				if _, err := decode(wire); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFromJSON(b *testing.B) {
	for _, bc := range benchEvents {
		in := []byte(bc.json)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			var buf []byte
			var err error
			for b.Loop() {
				if buf, err = codec.AppendFromJSON(buf[:0], in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkToJSON(b *testing.B) {
	for _, bc := range benchEvents {
		wire, err := codec.AppendFromJSON(nil, []byte(bc.json))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			var buf []byte
			for b.Loop() {
				if buf, err = codec.AppendJSONFromWire(buf[:0], wire); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGenerated is the reference point: the protobuf runtime marshalling
// and unmarshalling the generated types for the same events.
func BenchmarkGenerated(b *testing.B) {
	for _, bc := range benchEvents {
		ev, err := event.Parse([]byte(bc.json))
		if err != nil {
			b.Fatal(err)
		}
		m, err := protoconv.ToProto(codec.Codec{}, ev)
		if err != nil {
			b.Fatal(err)
		}
		wire, _ := proto.Marshal(m)
		b.Run("Marshal/"+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("Unmarshal/"+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var out aguipb.Event
				if err := proto.Unmarshal(wire, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeReference is BenchmarkDecode through the reference
// decoder alone.
func BenchmarkDecodeReference(b *testing.B) {
	benchDecode(b, func(wire []byte) (event.Event, error) { return codec.UnmarshalReference(codec.Codec{}, wire) })
}

// BenchmarkEncodeBudgetCheck is the cost of the encoder's budget check
// (Append decodes a frame large enough to exceed the readers' memory
// budget once before it returns it): the default Codec against one with
// no budget, which skips the check, on frames past the size where the
// check starts (about 10 KiB).
func BenchmarkEncodeBudgetCheck(b *testing.B) {
	text := make([]byte, 64<<10)
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	tools := make([]event.Tool, 2000)
	for i := range tools {
		tools[i] = event.Tool{Name: "search_flights", Description: "Find flights", Parameters: event.RawValue(`{"type":"object"}`)}
	}
	inputs := []struct {
		name string
		ev   event.Event
	}{
		{"TextMessageContent64KiB", &event.TextMessageContent{MessageID: "m", Delta: string(text)}},
		{"RunStarted2000Tools", &event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []event.Message{}, Tools: tools}}},
	}
	for _, in := range inputs {
		for _, c := range []struct {
			name string
			c    codec.Codec
		}{{"checked", codec.Codec{}}, {"unchecked", codec.Codec{MemoryBudget: -1}}} {
			b.Run(in.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				var buf []byte
				var err error
				for b.Loop() {
					if buf, err = c.c.Append(buf[:0], in.ev); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(int64(len(buf)))
			})
		}
	}
}

// BenchmarkSmallAfterLarge decodes a small event to JSON, with and without
// a state snapshot of 3,000 keys decoded first by the same (pooled)
// decoder: the small event's cost must not depend on what came before it.
// (Releasing a decoder once cleared the whole capacity of its stacks,
// grown by the snapshot: 106 → 3,281 ns per small event after it.)
func BenchmarkSmallAfterLarge(b *testing.B) {
	var obj strings.Builder
	obj.WriteString(`{"a":0`)
	for i := range 3000 {
		obj.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	obj.WriteString("}")
	large, err := codec.Codec{}.Append(nil, &event.StateSnapshot{Snapshot: event.RawValue(obj.String())})
	if err != nil {
		b.Fatal(err)
	}
	small, err := codec.Codec{}.Append(nil, &event.TextMessageContent{MessageID: "m", Delta: "hello"})
	if err != nil {
		b.Fatal(err)
	}
	var out []byte
	for _, after := range []bool{false, true} {
		b.Run("afterLarge="+strconv.FormatBool(after), func(b *testing.B) {
			if after {
				if _, err := (codec.Codec{}).AppendJSONFromWire(nil, large); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				out, _ = codec.Codec{}.AppendJSONFromWire(out[:0], small)
			}
		})
	}
}
