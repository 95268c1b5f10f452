package framing_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

func Example() {
	var stream bytes.Buffer // an HTTP response body, a file, a pipe...

	w := framing.NewWriter(&stream, framing.WriterOptions{Codec: codec.Codec{}})
	w.WriteEvent(&event.RunStarted{ThreadID: "t1", RunID: "r1"})
	w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "hi"})
	w.WriteJSON([]byte(`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`))
	if err := w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "\xff"}); err != nil {
		fmt.Println("not sent:", err)
	}
	fmt.Println(w.FramesWritten(), "frames,", w.BytesWritten(), "bytes")

	r := framing.NewReader(&stream, framing.ReaderOptions{})
	for ev, err := range r.Events() {
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		js, _ := event.Marshal(ev)
		fmt.Printf("byte %d: %s\n", r.Offset(), js)
	}
	// Output:
	// not sent: agwire: encode TEXT_MESSAGE_CONTENT: delta: invalid event: string is not valid UTF-8
	// 3 frames, 54 bytes
	// byte 0: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	// byte 18: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}
	// byte 36: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}

// A frame that does not decode fails alone; the stream goes on.
func ExampleReader_ReadEvent() {
	var stream bytes.Buffer
	w := framing.NewWriter(&stream, framing.WriterOptions{Codec: codec.Codec{}})
	w.WriteEvent(&event.StepStarted{StepName: "plan"})
	w.WriteFrame([]byte{0x82, 0x02, 0x02, 0x08, 0x01}) // an event from a later protocol
	w.WriteEvent(&event.StepFinished{StepName: "plan"})
	stream.Write([]byte{0, 0, 0, 9, 1, 2}) // a frame cut short

	r := framing.NewReader(&stream, framing.ReaderOptions{})
	for {
		ev, err := r.ReadEvent()
		switch {
		case err == io.EOF:
			return
		case errors.Is(err, codec.ErrUnknownEvent):
			fmt.Println("skipped a newer event at byte", r.Offset())
		case framing.Skippable(err):
			fmt.Println("skipped a bad frame:", err)
		case err != nil:
			fmt.Println(err)
			return
		default:
			fmt.Println(ev.Type())
		}
	}
	// Output:
	// STEP_STARTED
	// skipped a newer event at byte 16
	// STEP_FINISHED
	// framing: frame 3 at byte 42: truncated frame: the stream ends after 2 of the 9 bytes of the payload
}
