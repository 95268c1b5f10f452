package codec_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// JSON → wire parses into state it recycles: an event costs no allocation
// once warm, escaped strings included.
func TestFromJSONRecyclesItsEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	// An escaped string is unescaped into the parse's recycled arena.
	in := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_1","delta":"The capital of \"South Korea\" is Seoul\n"}`)
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(200, func() {
		var err error
		if buf, err = codec.AppendFromJSON(buf[:0], in); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendFromJSON allocated %v times per event; want 0", allocs)
	}
}

// Conversions running at once each get their own recycled state: every
// output equals the one-at-a-time conversion of its input.
func TestFromJSONConcurrent(t *testing.T) {
	var inputs [][]byte
	for i := range 64 {
		switch i % 4 {
		case 0:
			inputs = append(inputs, fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"d%d"}`, i, i))
		case 1:
			inputs = append(inputs, fmt.Appendf(nil, `{"type":"TOOL_CALL_ARGS","toolCallId":"c%d","delta":"{\"n\":%d}"}`, i, i))
		case 2:
			inputs = append(inputs, fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_START","messageId":"m%d","role":"assistant","subagentRunId":"s%d"}`, i, i))
		case 3:
			inputs = append(inputs, fmt.Appendf(nil, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":%d}],"metadata":{"k":%d}}`, i, i))
		}
	}
	convertAtOnce(t, inputs, codec.AppendFromJSON)
}

// Wire → JSON decodes in place into state it recycles: no copy of the
// frame, no event, no allocation once warm.
func TestJSONFromWireRecyclesItsEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	wire, err := codec.AppendFromJSON(nil, []byte(`{"type":"TEXT_MESSAGE_END","messageId":"msg_1","subagentRunId":"s","metadata":{"usage":{"in":3},"k":[1,"two",null]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want, err := codec.AppendJSONFromWire(nil, wire)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(200, func() {
		if buf, err = codec.AppendJSONFromWire(buf[:0], wire); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendJSONFromWire allocated %v times per event; want 0", allocs)
	}
	if !bytes.Equal(buf, want) {
		t.Fatalf("got %s, want %s", buf, want)
	}
}

// Conversions from wire running at once, and Unmarshal between them, each
// get their own state: every output equals the one-at-a-time conversion,
// and an event from Unmarshal is never a recycled slot.
func TestJSONFromWireConcurrent(t *testing.T) {
	var frames [][]byte
	for i := range 32 {
		in := fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_START","messageId":"m%d","role":"assistant","subagentRunId":"s%d","metadata":{"n":%d}}`, i, i, i)
		if i%2 == 1 {
			in = fmt.Appendf(nil, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a%d","role":"user","content":"hi %d"},{"id":"b%d","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, i, i, i)
		}
		f, err := codec.AppendFromJSON(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	kept, err := codec.Unmarshal(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	keptJSON, _ := event.Marshal(kept)
	convertAtOnce(t, frames, codec.AppendJSONFromWire)
	if again, _ := event.Marshal(kept); !bytes.Equal(again, keptJSON) {
		t.Fatalf("an event from Unmarshal changed under later conversions: %s, was %s", again, keptJSON)
	}
}

// convertAtOnce converts inputs one at a time, then on 8 goroutines at
// once, 200 conversions each, and fails unless every concurrent output
// equals the one-at-a-time output of its input.
func convertAtOnce(t *testing.T, inputs [][]byte, convert func(dst, in []byte) ([]byte, error)) {
	t.Helper()
	want := make([][]byte, len(inputs))
	for i, in := range inputs {
		var err error
		if want[i], err = convert(nil, in); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			var buf []byte
			for round := range 200 {
				i := (g*7 + round) % len(inputs)
				var err error
				if buf, err = convert(buf[:0], inputs[i]); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(buf, want[i]) {
					errs <- fmt.Errorf("input %d: got %q, want %q", i, buf, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
