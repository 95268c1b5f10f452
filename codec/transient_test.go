package codec_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/agwire/agwire/codec"
)

// JSON → wire parses into state it recycles: an event without escaped
// strings or optional members costs no allocation once warm.
func TestFromJSONRecyclesItsEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	in := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_1","delta":"The capital of South Korea is Seoul"}`)
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
	want := make([][]byte, len(inputs))
	for i, in := range inputs {
		var err error
		if want[i], err = codec.AppendFromJSON(nil, in); err != nil {
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
				if buf, err = codec.AppendFromJSON(buf[:0], inputs[i]); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(buf, want[i]) {
					errs <- fmt.Errorf("input %d: got %x, want %x", i, buf, want[i])
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
