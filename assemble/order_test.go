package assemble

import (
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestMessageKeyOrder: the conversation is written as @ag-ui/client's
// JSON.stringify writes it. The want text is what the client (1.0.0, run in
// node on these events) printed: a snapshot message in its schema's order
// whatever the event's order, a started message in the order of the
// client's object literal with metadata after, a call's parent with the
// content its text stream added last, a tool message with toolCallId second,
// an activity message that lost its subagentRunId on replace.
func TestMessageKeyOrder(t *testing.T) {
	const stream = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"MESSAGES_SNAPSHOT","messages":[{"content":"hi","role":"user","id":"u","metadata":{},"subagentRunId":"s"}]}
{"type":"TEXT_MESSAGE_START","messageId":"m","name":"n","subagentRunId":"s","metadata":{"a":1}}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"p","subagentRunId":"s"}
{"type":"TOOL_CALL_END","toolCallId":"c","metadata":{"b":2}}
{"type":"TEXT_MESSAGE_START","messageId":"p"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"x"}
{"type":"TEXT_MESSAGE_END","messageId":"p"}
{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"e"}
{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c","content":"ok","metadata":{"c":3}}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"k":1},"subagentRunId":"s"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"k":2}}
{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan2","patch":[],"metadata":{"d":4}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	const want = `{"messages":[{"subagentRunId":"s","id":"u","role":"user","metadata":{},"content":"hi"},` +
		`{"id":"m","role":"assistant","content":"","name":"n","subagentRunId":"s","metadata":{"a":1}},` +
		`{"id":"p","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""},"metadata":{"b":2},"encryptedValue":"e"}],"subagentRunId":"s","content":"x"},` +
		`{"id":"r1","toolCallId":"c","role":"tool","content":"ok","metadata":{"c":3}},` +
		`{"id":"a","role":"activity","activityType":"plan2","content":{"k":2},"metadata":{"d":4}}],"state":{}}`
	c, err := New(Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(stream, "\n") {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got\n%s\nwant (the client's JSON.stringify)\n%s", got, want)
	}
}

// TestObjectsAsJavaScriptHoldsThem: the printed state and metadata are
// JSON.stringify's text of what JavaScript reads: array-index keys first in
// ascending order, numbers in JavaScript's spelling. The want text is what
// @ag-ui/client 1.0.0 printed for these events in node.
func TestObjectsAsJavaScriptHoldsThem(t *testing.T) {
	const stream = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STATE_SNAPSHOT","snapshot":{"b":1,"10":2,"2":3,"a":{"1":0,"x":1e2,"y":1.50,"z":-0,"w":0.0000001,"v":1e21,"u":"\u00e9\/"},"01":4,"4294967295":5,"4294967294":6}}
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"k":1.0,"3":"x"}}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	const want = `{"messages":[{"id":"m","role":"assistant","content":"","metadata":{"3":"x","k":1}}],` +
		`"state":{"2":3,"10":2,"4294967294":6,"b":1,"a":{"1":0,"x":100,"y":1.5,"z":0,"w":1e-7,"v":1e+21,"u":"é/"},"01":4,"4294967295":5}}`
	c, err := New(Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(stream, "\n") {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got\n%s\nwant (the client's JSON.stringify)\n%s", got, want)
	}
	// State keeps the text as it arrived.
	if s := string(c.State()); !strings.HasPrefix(s, `{"b":1,"10":2`) {
		t.Errorf("State: %s", s)
	}
}
