package assemble_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

func mustParse(lines ...string) []event.Event {
	var out []event.Event
	for _, l := range lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			panic(err)
		}
		out = append(out, ev)
	}
	return out
}

// Apply events one at a time and read the conversation whenever you like:
// what a UI or a proxy does while a run streams.
func ExampleConversation() {
	c, _ := assemble.New(assemble.Options{Check: true})
	for _, ev := range mustParse(
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"source":"openai","stage":"start"}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hel","metadata":{"stage":"content"}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"lo"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"stage":"end","usage":{"output":340}}}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"count":1.50}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/done","value":true}]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	) {
		if err := c.Apply(ev); err != nil {
			panic(err)
		}
	}
	m := c.Messages()[0]
	fmt.Println(m.Role, *m.Content, string(m.Metadata))
	fmt.Println(string(c.State()), c.Runs()[0].Status)
	// Output:
	// assistant Hello {"source":"openai","stage":"end","usage":{"output":340}}
	// {"count":1.50,"done":true} finished
}

// Metadata merges key by key, the last write winning, never recursively.
func ExampleMergeMetadata() {
	merged := assemble.MergeMetadata(
		event.Object(`{"tags":["a","b","c"],"source":"openai"}`),
		event.Object(`{"tags":["z"],"finishReason":null}`))
	fmt.Println(string(merged))
	fmt.Println(string(assemble.MergeMetadata(merged, event.Object(`{}`))))
	// Output:
	// {"tags":["z"],"source":"openai","finishReason":null}
	// {"tags":["z"],"source":"openai","finishReason":null}
}

// Assemble a whole binary stream in one call.
func ExampleFromSeq() {
	var stream bytes.Buffer
	w := framing.NewWriter(&stream, framing.WriterOptions{Codec: codec.Codec{}})
	for _, ev := range mustParse(
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"search","delta":"{\"q\":"}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","delta":"\"go\"}","metadata":{"latencyMs":84}}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"3 hits"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	) {
		w.WriteEvent(ev)
	}
	c, err := assemble.FromSeq(framing.NewReader(&stream, framing.ReaderOptions{}).Events(), assemble.Options{Check: true})
	if err != nil {
		panic(err)
	}
	out, _ := c.MarshalJSON()
	fmt.Println(string(out))
	// Output:
	// {"messages":[{"id":"c1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"q\":\"go\"}"},"metadata":{"latencyMs":84}}]},{"id":"r1","toolCallId":"c1","role":"tool","content":"3 hits"}],"state":{}}
}

// A failed JSON Patch names the operation; the state is left as it was.
func ExampleApplyError() {
	c, _ := assemble.New(assemble.Options{})
	for _, ev := range mustParse(
		`{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2},{"op":"remove","path":"/gone"}]}`,
	) {
		if err := c.Apply(ev); err != nil {
			var pe *assemble.PatchError
			fmt.Println(err)
			fmt.Println(errors.As(err, &pe) && pe.Index == 1, errors.Is(err, assemble.ErrPatchPath))
		}
	}
	fmt.Println(string(c.State()))
	// Output:
	// event 1 (STATE_DELTA): patch operation 1 (remove "/gone"): path does not exist: "/gone" (no member "gone")
	// true true
	// {"n":1}
}

// Compact a recorded run: far fewer events, the same conversation.
func ExampleCompact() {
	evs := mustParse(
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"a":1}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hel"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}]}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"lo","metadata":{"b":2}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"a":3}}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	)
	out, rep, err := assemble.Compact(evs, assemble.Options{})
	if err != nil {
		panic(err)
	}
	for _, ev := range out {
		b, _ := event.Marshal(ev)
		fmt.Println(string(b))
	}
	fmt.Println(rep.EventsIn, "->", rep.EventsOut)
	// Output:
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"a":3,"b":2}}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello"}
	// {"type":"TEXT_MESSAGE_END","messageId":"m"}
	// {"type":"STATE_SNAPSHOT","snapshot":{"n":2}}
	// {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
	// 8 -> 6
}
