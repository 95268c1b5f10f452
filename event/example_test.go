package event_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agwire/agwire/codec"
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

// Metadata is an event.Object: an object's JSON text, kept as it is (key
// order, null under a key, and on SSE the number spelling; the binary form
// carries numbers as doubles). Build it from text, or from any Go value
// encoding/json writes as an object (a struct keeps its field order; a
// map's keys come sorted). Nil is absent, "{}" is present and empty; null
// as the metadata itself is refused, null under a key is kept.
func ExampleObject() {
	end := &event.TextMessageEnd{MessageID: "m1"}
	end.Metadata = event.Object(`{"source":"search","score":0.930,"trace":null}`)

	b, err := json.Marshal(struct {
		Model  string `json:"model"`
		Tokens int    `json:"tokens"`
	}{"m-large", 812})
	if err != nil {
		panic(err)
	}
	start := &event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)}
	start.Metadata = event.Object(b)

	absent := &event.StepStarted{StepName: "plan"}
	empty := &event.StepStarted{StepName: "plan"}
	empty.Metadata = event.Object(`{}`)

	for _, ev := range []event.Event{end, start, absent, empty} {
		out, err := event.Marshal(ev)
		if err != nil {
			panic(err)
		}
		wire, err := codec.Codec{}.Append(nil, ev)
		if err != nil {
			panic(err)
		}
		back, err := codec.Codec{}.AppendJSONFromWire(nil, wire)
		if err != nil {
			panic(err)
		}
		fmt.Println(string(out))
		if !bytes.Equal(out, back) {
			fmt.Println("  binary:", string(back)) // a number is a double there
		}
	}
	v, ok := end.Metadata.Get("trace")
	fmt.Println(string(v), ok, end.Metadata.Keys())
	_, err = event.Parse([]byte(`{"type":"STEP_STARTED","stepName":"plan","metadata":null}`))
	fmt.Println(errors.Is(err, event.ErrNullMetadata))
	// Output:
	// {"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"source":"search","score":0.930,"trace":null}}
	//   binary: {"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"source":"search","score":0.93,"trace":null}}
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","metadata":{"model":"m-large","tokens":812}}
	// {"type":"STEP_STARTED","stepName":"plan"}
	// {"type":"STEP_STARTED","stepName":"plan","metadata":{}}
	// null true [source score trace]
	// true
}
