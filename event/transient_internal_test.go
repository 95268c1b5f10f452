package event

import (
	"testing"
)

// A transient parse hands out the state's own slot and clears it on
// Release; an ordinary parse hands out an event of its own every time.
func TestTransientParseRecyclesItsEvent(t *testing.T) {
	in := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello","subagentRunId":"sub"}`)
	ev, tr, ok := parseTransient(0, in)
	if !ok {
		t.Fatal("the compiled parser gave up on a canonical event")
	}
	tmc := ev.(*TextMessageContent)
	if tmc.Delta != "hello" || tmc.SubagentRunID == nil || *tmc.SubagentRunID != "sub" {
		t.Fatalf("parsed %+v", tmc)
	}
	sub := tmc.SubagentRunID
	tr.Release()
	if tmc.Delta != "" || tmc.MessageID != "" || tmc.SubagentRunID != nil || *sub != "" {
		t.Fatalf("Release left the slot holding the input: %+v, subagent %q", tmc, *sub)
	}

	// Parse (not transient) must never hand out a slot: two events, two
	// values, the first unchanged by the second.
	a, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"bye"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a.(*TextMessageContent).Delta != "hello" || b.(*TextMessageContent).Delta != "bye" {
		t.Fatalf("Parse shared memory between events: %+v %+v", a, b)
	}

	// A parse that gives up releases its state itself: nothing to release,
	// and the next transient parse works.
	if _, tr, ok := parseTransient(0, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":null}`)); ok || tr != nil {
		t.Fatalf("non-canonical text: ok %v, state %v", ok, tr)
	}
	if ev, tr, ok := parseTransient(0, in); !ok || ev.(*TextMessageContent).Delta != "hello" {
		t.Fatalf("after a failed parse: %v %v", ev, ok)
	} else {
		tr.Release()
	}
}
