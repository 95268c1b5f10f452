package codec

import (
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// The decoder charges at most maxDecodeAmplification bytes per byte of
// frame, and at most chargePerByte per byte plus chargePerMessage per
// nested message the encoder counted: checkBudget skips the frames whose
// bound fits the budget. Measured on a long run of the emptiest element of
// every repeated field of a message type, where the charge per wire byte
// peaks, and on a long string, where it is least.
func TestDecodeAmplification(t *testing.T) {
	asst := event.Message{Role: event.RoleAssistant}
	user := event.Message{Role: event.RoleUser, Parts: []event.ContentPart{}}
	const n = 4096
	rep := func(m event.Message) []event.Message {
		ms := make([]event.Message, n)
		for i := range ms {
			ms[i] = m
		}
		return ms
	}
	toolCalls := make([]event.ToolCall, n)
	for i := range toolCalls {
		toolCalls[i].Type = "function"
	}
	parts := make([]event.ContentPart, n)
	for i := range parts {
		parts[i].Type = event.PartText
	}
	ops := make([]event.PatchOp, n)
	for i := range ops {
		ops[i].Op = "remove"
	}
	ids := make([]string, n)
	resume := make([]event.ResumeEntry, n)
	for i := range resume {
		resume[i].Status = "resolved"
	}
	in := func(f func(*event.RunAgentInput)) event.Event {
		i := &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []event.Message{}}
		f(i)
		return &event.RunStarted{ThreadID: "t", RunID: "r", Input: i}
	}
	cases := []struct {
		name string
		ev   event.Event
	}{
		{"tools", in(func(i *event.RunAgentInput) { i.Tools = make([]event.Tool, n) })},
		{"context", in(func(i *event.RunAgentInput) { i.Context = make([]event.Context, n) })},
		{"resume", in(func(i *event.RunAgentInput) { i.Resume = resume })},
		{"input messages", in(func(i *event.RunAgentInput) { i.Messages = rep(asst) })},
		{"snapshot messages", &event.MessagesSnapshot{Messages: rep(asst)}},
		{"user messages with parts", &event.MessagesSnapshot{Messages: rep(user)}},
		{"tool calls", &event.MessagesSnapshot{Messages: []event.Message{{Role: event.RoleAssistant, ToolCalls: toolCalls}}}},
		{"content parts", &event.MessagesSnapshot{Messages: []event.Message{{Role: event.RoleUser, Parts: parts}}}},
		{"interrupts", &event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "interrupt", Interrupts: make([]event.Interrupt, n)}}},
		{"pending tool call ids", &event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "success", PendingToolCallIDs: ids}}},
		{"usage", &event.RunFinished{ThreadID: "t", RunID: "r", Usage: make([]event.Usage, n)}},
		{"state delta", &event.StateDelta{Delta: ops}},
		{"activity delta", &event.ActivityDelta{MessageID: "m", ActivityType: "a", Patch: ops}},
		{"custom null values", &event.Custom{Name: "c", Value: event.RawValue("[" + strings.Repeat("null,", n) + "null]")}},
		{"custom empty objects", &event.Custom{Name: "c", Value: event.RawValue("[" + strings.Repeat("{},", n) + "{}]")}},
		{"custom empty keys", &event.Custom{Name: "c", Value: event.RawValue("[" + strings.Repeat(`{"":[]},`, n) + "[]]")}},
		{"ids", &event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "success", PendingToolCallIDs: ids}}},
		{"text", &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("a", 1<<16)}},
	}
	open := Codec{MemoryBudget: -1}
	worst := 0.0
	for _, tc := range cases {
		wire, err := open.Append(nil, tc.ev)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		g := newGenc(&open)
		if _, err, ok := appendGenerated(&g, nil, tc.ev); err != nil || !ok {
			t.Fatalf("%s: generated encoder: %v %v", tc.name, ok, err)
		}
		nested := 0
		if g.e != nil {
			nested = len(g.e.sizes)
		}
		g.release()
		bound := int64(len(wire))*chargePerByte + int64(nested)*chargePerMessage
		for _, ref := range []bool{false, true} {
			d, err := open.decoder(wire)
			if err != nil {
				t.Fatal(err)
			}
			start := d.budget + int64(len(wire)) // decoder charged the copy
			if ref {
				_, err = d.reference()
			} else if _, ok := decodeGenerated(d); !ok {
				err = nil // left to the reference decoder, measured next
			}
			charged := start - d.budget
			d.release()
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			a := float64(charged) / float64(len(wire))
			worst = max(worst, a)
			if charged > bound {
				t.Errorf("%s (reference %v): %d bytes charged for a %d-byte frame of %d nested messages, above the bound %d", tc.name, ref, charged, len(wire), nested, bound)
			}
			if a > maxDecodeAmplification {
				t.Errorf("%s (reference %v): %d bytes charged for a %d-byte frame, %.1f×, above maxDecodeAmplification %d", tc.name, ref, charged, len(wire), a, maxDecodeAmplification)
			}
		}
	}
	t.Logf("worst: %.1f bytes charged per byte of frame", worst)
}
