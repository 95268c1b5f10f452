package event_test

import (
	"errors"
	"fmt"

	"github.com/agwire/agwire/event"
)

// Parse reads an AG-UI JSON event into its Go type; dynamic values keep
// their exact text, so Marshal gives back the same key order and numbers.
func ExampleParse() {
	ev, err := event.Parse([]byte(`{"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"z":1.50,"a":null}}`))
	if err != nil {
		panic(err)
	}
	end := ev.(*event.TextMessageEnd)
	fmt.Println(end.MessageID, end.Metadata.Keys())
	out, _ := event.Marshal(end)
	fmt.Println(string(out))
	// Output:
	// m1 [z a]
	// {"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"z":1.50,"a":null}}
}

// Errors say what is wrong and where.
func ExampleParse_errors() {
	_, err := event.Parse([]byte(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"hi","metadata":null}]}`))
	fmt.Println(err)
	var pe *event.PathError
	fmt.Println(errors.Is(err, event.ErrNullMetadata), errors.As(err, &pe) && pe.Path == "messages[0].metadata")
	// Output:
	// messages[0].metadata (byte 90): metadata must be an object or absent, not null
	// true true
}
