package event

import (
	"testing"
	"unsafe"
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

// Lists are read into the parse state's scratch: Parse copies each out to a
// slice of its own (exact length, later parses cannot change it), the
// scratch keeps nothing of the input, and a transient parse's lists, the
// tool calls of two messages included, stay apart until Release.
func TestListsLeaveTheScratch(t *testing.T) {
	snap := func(a, b string) []byte {
		return []byte(`{"type":"MESSAGES_SNAPSHOT","messages":[` +
			`{"id":"` + a + `","role":"assistant","toolCalls":[{"id":"` + a + `1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"` + a + `2","type":"function","function":{"name":"g","arguments":"{}"}}]},` +
			`{"id":"` + b + `","role":"assistant","toolCalls":[{"id":"` + b + `1","type":"function","function":{"name":"h","arguments":"{}"}}]},` +
			`{"id":"u","role":"user","content":"hi"}]}`)
	}
	check := func(ev Event, a, b string) {
		t.Helper()
		ms := ev.(*MessagesSnapshot).Messages
		if len(ms) != 3 || cap(ms) != 3 {
			t.Fatalf("messages len %d cap %d, want 3 and 3", len(ms), cap(ms))
		}
		if ms[0].ID != a || len(ms[0].ToolCalls) != 2 || ms[0].ToolCalls[1].ID != a+"2" ||
			ms[1].ID != b || len(ms[1].ToolCalls) != 1 || ms[1].ToolCalls[0].ID != b+"1" || ms[2].ID != "u" {
			t.Fatalf("lists mixed up: %+v", ms)
		}
	}
	first, ok := parseOwned(0, snap("a", "b"))
	if !ok {
		t.Fatal("the compiled parser gave up")
	}
	second, ok := parseOwned(0, snap("c", "d"))
	if !ok {
		t.Fatal("the compiled parser gave up")
	}
	check(first, "a", "b")
	check(second, "c", "d")

	ev, tr, ok := parseTransient(0, snap("e", "f"))
	if !ok {
		t.Fatal("the compiled parser gave up")
	}
	check(ev.(Event), "e", "f")
	st := tr.(*parsing)
	msgs := scratchOf[Message](st)
	if len(msgs.buf) != 3 {
		t.Fatalf("transient parse: scratch holds %d messages, want 3", len(msgs.buf))
	}
	tr.Release()
	if len(msgs.buf) != 0 || msgs.buf[:1][0].ID != "" {
		t.Fatal("Release left the messages' scratch holding the input")
	}
}

// A pooled state keeps a list's scratch only up to maxScratchBytes.
func TestScratchIsBounded(t *testing.T) {
	var s parsing
	sc := scratchOf[Message](&s)
	sc.buf = make([]Message, 0, 2*maxScratchBytes/int(unsafe.Sizeof(Message{})))
	sc.buf = append(sc.buf, Message{ID: "x"})
	sc.truncate(0)
	if sc.buf != nil {
		t.Fatalf("a %d-byte scratch was kept", cap(sc.buf)*int(unsafe.Sizeof(Message{})))
	}
	sc.buf = make([]Message, 1, 4)
	sc.truncate(0)
	if cap(sc.buf) != 4 {
		t.Fatal("a small scratch was dropped")
	}
}
