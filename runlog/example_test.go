package runlog_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// A run is written once; a follower that joins late replays it from its
// cursor and reads to the end marker.
func Example() {
	ctx := context.Background()
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()

	w, err := log.Start(ctx, "run-1")
	if err != nil {
		panic(err)
	}
	for _, ev := range []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "run-1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "Hello"},
		&event.RunFinished{ThreadID: "t", RunID: "run-1"},
	} {
		if _, err := runlog.AppendEvent(ctx, w, codec.Codec{}, ev); err != nil {
			panic(err)
		}
	}
	w.End(ctx)

	// A client that received event 1 resumes after it.
	rd, err := log.Read(ctx, runlog.Cursor{Run: "run-1", Seq: 1})
	if err != nil {
		panic(err)
	}
	defer rd.Close()
	for {
		e, err := rd.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		ev, _ := e.Decode(codec.Codec{})
		// The cursor after e, bound to this run (its text, such as
		// "run-1/q7z1vUFlDgQfo9bi/2", carries the run's incarnation).
		c := e.Cursor("run-1")
		fmt.Println(c.Run, c.Seq, c.Inc == runlog.IncarnationOf(w), ev.Type())
	}
	// Output:
	// run-1 2 true TEXT_MESSAGE_CONTENT
	// run-1 3 true RUN_FINISHED
}

// The cursor's text is what an SSE id line and a Last-Event-ID header
// carry; a header that is not one is refused with ErrBadCursor.
func ExampleParseCursor() {
	c, err := runlog.ParseCursor("run%2F7/42")
	fmt.Printf("%q %d %v\n", c.Run, c.Seq, err)
	c, err = runlog.ParseCursor("run%2F7/q7z1vUFlDgQfo9bi/42")
	fmt.Printf("%q %q %d %v\n", c.Run, c.Inc, c.Seq, err)
	_, err = runlog.ParseCursor("42")
	fmt.Println(errors.Is(err, runlog.ErrBadCursor), err)
	// Output:
	// "run/7" 42 <nil>
	// "run/7" "q7z1vUFlDgQfo9bi" 42 <nil>
	// true runlog: bad cursor: "42" has no '/' between run id and sequence
}
