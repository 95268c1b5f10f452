package codec_test

import (
	"errors"
	"fmt"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// A typed event to protobuf bytes and back.
func ExampleCodec_Append() {
	var c codec.Codec // the zero value is the strict AG-UI 1.0 codec
	wire, err := c.Append(nil, &event.TextMessageContent{MessageID: "m1", Delta: "Hello"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", wire)

	ev, err := c.Unmarshal(wire)
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Type(), ev.(*event.TextMessageContent).Delta)
	// Output:
	// 120f0a02080112026d311a0548656c6c6f
	// TEXT_MESSAGE_CONTENT Hello
}

// A server that already has JSON events (from another SDK, or its own
// encoding/json code) converts them without adopting agwire's types.
func ExampleAppendFromJSON() {
	wire, err := codec.AppendFromJSON(nil, []byte(`{"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"finishReason":"stop","retries":null}}`))
	if err != nil {
		panic(err)
	}
	back, err := codec.AppendJSONFromWire(nil, wire)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(back))
	// Output:
	// {"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"finishReason":"stop","retries":null}}
}

// What cannot cross the binary wire is refused with a typed error, never
// sent as an empty or silently altered payload.
func ExampleCodec_AppendFromJSON_refusals() {
	var c codec.Codec
	for _, in := range []string{
		`{"type":"THINKING_START"}`,
		`{"type":"CUSTOM","name":"n","value":{"id":9007199254740993}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":null}`,
	} {
		_, err := c.AppendFromJSON(nil, []byte(in))
		fmt.Println(err)
		fmt.Println(errors.Is(err, event.ErrUnsupportedEvent), errors.Is(err, codec.ErrLossyNumber), errors.Is(err, event.ErrNullMetadata))
	}
	// Output:
	// agwire: encode THINKING_START: unsupported event type: THINKING_* events were removed in AG-UI 1.0 and never had a protobuf form; send REASONING_* events, or use SSE
	// true false false
	// agwire: encode CUSTOM: value.id: number cannot be represented exactly as a double: 9007199254740993 would become 9007199254740992
	// false true false
	// agwire: encode TEXT_MESSAGE_END: metadata (byte 55): metadata must be an object or absent, not null
	// false false true
}

// A peer built before AG-UI 1.0 knows only 18 of the 31 envelope arms.
func ExampleProfile() {
	old := codec.Codec{Profile: codec.PreV1}
	_, err := old.Append(nil, &event.ReasoningStart{MessageID: "r1"})
	fmt.Println(errors.Is(err, codec.ErrNotInProfile))
	fmt.Println(codec.PreV1.Supports(event.TypeTextMessageChunk), codec.PreV1.Supports(event.TypeToolCallResult))
	// Output:
	// true
	// true false
}
