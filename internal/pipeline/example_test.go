package pipeline_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/internal/pipeline"
)

// JSON lines to a binary stream and back, on every core, skipping a bad
// line.
func Example() {
	in := strings.NewReader(`{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}
not an event
{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
`)
	var stream bytes.Buffer
	st, err := pipeline.EncodeLines(&stream, in, framing.WriterOptions{}, pipeline.Options{
		OnError: func(err error) bool {
			var le *pipeline.LineError
			if errors.As(err, &le) {
				fmt.Printf("skipping line %d\n", le.Line)
			}
			return framing.Skippable(err) // a bad line, not a failing input
		},
	})
	fmt.Println(st.Records, "frames,", st.Skipped, "line skipped,", err)

	out := bufio.NewWriter(os.Stdout) // flushed whenever the input would block
	if _, err := pipeline.DecodeFrames(out, &stream, framing.ReaderOptions{}, pipeline.Options{}); err != nil {
		fmt.Println(err)
	}
	out.Flush()
	// Output:
	// skipping line 3
	// 3 frames, 1 line skipped, <nil>
	// {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}
	// {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}
