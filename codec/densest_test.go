package codec_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// The densest events: a repeated field of elements that are (nearly)
// empty, two or three bytes each on the wire and a Go struct of 40 to 192
// bytes once decoded. Each builder returns the event with n elements.
var densest = []struct {
	name string
	make func(n int) event.Event
}{
	{"RUN_STARTED input.tools", func(n int) event.Event {
		return &event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []event.Message{}, Tools: make([]event.Tool, n)}}
	}},
	{"RUN_STARTED input.context", func(n int) event.Event {
		return &event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []event.Message{}, Context: make([]event.Context, n)}}
	}},
	{"RUN_STARTED input.messages", func(n int) event.Event {
		ms := make([]event.Message, n)
		for i := range ms {
			ms[i].Role = event.RoleAssistant
		}
		return &event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{ThreadID: "t", RunID: "r", Messages: ms}}
	}},
	{"RUN_FINISHED outcome.interrupts", func(n int) event.Event {
		return &event.RunFinished{ThreadID: "t", RunID: "r", Outcome: &event.RunOutcome{Type: "interrupt", Interrupts: make([]event.Interrupt, n)}}
	}},
	{"RUN_FINISHED usage", func(n int) event.Event {
		return &event.RunFinished{ThreadID: "t", RunID: "r", Usage: make([]event.Usage, n)}
	}},
	{"STATE_DELTA delta (remove)", func(n int) event.Event {
		ops := make([]event.PatchOp, n)
		for i := range ops {
			ops[i].Op = "remove"
		}
		return &event.StateDelta{Delta: ops}
	}},
	{"MESSAGES_SNAPSHOT messages", func(n int) event.Event {
		ms := make([]event.Message, n)
		for i := range ms {
			ms[i].Role = event.RoleAssistant
		}
		return &event.MessagesSnapshot{Messages: ms}
	}},
}

// Every event the encoder writes, the decoder reads back at the same
// budget, and renders as JSON; every event past the budget is refused by
// the encoder, with ErrBudget, exactly where the decoder would refuse it.
// The sizes go from 16 elements, ×4, to past the refusal point.
func TestEncoderRefusesWhatDecoderRefuses(t *testing.T) {
	unbounded := codec.Codec{MemoryBudget: -1}
	for _, budget := range []int{0, 8, 64} {
		c := codec.Codec{MemoryBudget: budget}
		for _, d := range densest {
			refused := false
			for n := 16; n <= 1<<17; n *= 4 {
				ev := d.make(n)
				wire, err := c.Append(nil, ev)
				full, ferr := unbounded.Append(nil, ev)
				if ferr != nil {
					t.Fatalf("%s ×%d: unbounded encode: %v", d.name, n, ferr)
				}
				_, derr := c.Unmarshal(full)
				if err != nil {
					if !errors.Is(err, codec.ErrBudget) {
						t.Fatalf("budget %d, %s ×%d: encode: %v, want ErrBudget", budget, d.name, n, err)
					}
					if !errors.Is(derr, codec.ErrBudget) {
						t.Fatalf("budget %d, %s ×%d: encoder refused (%v) what the decoder reads (%v)", budget, d.name, n, err, derr)
					}
					if _, serr := c.Servable(ev); !errors.Is(serr, codec.ErrBudget) {
						t.Fatalf("budget %d, %s ×%d: Servable = %v, want ErrBudget", budget, d.name, n, serr)
					}
					if refused {
						break // twice in a row: past the point
					}
					refused = true
					continue
				}
				if refused && budget == 0 {
					t.Fatalf("%s: ×%d accepted after a smaller count was refused", d.name, n)
				}
				if derr != nil {
					t.Fatalf("budget %d, %s ×%d: encoder wrote %d bytes the decoder refuses: %v", budget, d.name, n, len(wire), derr)
				}
				if _, err := c.AppendJSONFromWire(nil, wire); err != nil {
					t.Fatalf("budget %d, %s ×%d: render: %v", budget, d.name, n, err)
				}
				if size, err := c.Servable(ev); err != nil || size != len(wire) {
					t.Fatalf("budget %d, %s ×%d: Servable = %d, %v; want %d, nil", budget, d.name, n, size, err, len(wire))
				}
			}
			if budget == 8 && !refused && d.name != "RUN_STARTED input.context" {
				t.Errorf("budget 8, %s: never refused up to %d elements", d.name, 1<<17)
			}
		}
	}
}

// The defect: a RUN_STARTED copying a RunAgentInput of 60,000 empty tools
// (1.7 MB of JSON, 120 KB on the wire) and a RUN_FINISHED of 20,983
// interrupts were written, and every agwire reader refused them.
func TestDenseEventsRefusedAtEncode(t *testing.T) {
	for _, ev := range []event.Event{densest[0].make(60000), densest[3].make(20983)} {
		_, err := (codec.Codec{}).Append(nil, ev)
		var ce *codec.Error
		if !errors.Is(err, codec.ErrBudget) || !errors.As(err, &ce) || ce.Op != "encode" || ce.Type != ev.Type() {
			t.Fatalf("%s: Append = %v; want an encode *codec.Error wrapping ErrBudget", ev.Type(), err)
		}
		js, err := event.AppendJSON(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (codec.Codec{}).AppendFromJSON(nil, js); !errors.Is(err, codec.ErrBudget) {
			t.Fatalf("%s from JSON: %v; want ErrBudget", ev.Type(), err)
		}
	}
}

// Growth over the densest events, both directions: 4× the elements is
// about 4× the wire, 4× the fields decoded and 4× the bytes allocated to
// encode and to decode. The encoder's budget check costs at most one
// decode, so encoding is measured without it (MemoryBudget -1: whether a
// size is checked depends on the size) and decoding at MemoryBudget 64,
// which both sizes fit.
func TestDensestGrowth(t *testing.T) {
	c, unchecked := codec.Codec{MemoryBudget: 64}, codec.Codec{MemoryBudget: -1}
	const n = 8192
	type cost struct{ wire, work, encAlloc, decAlloc float64 }
	measure := func(ev event.Event) cost {
		wire, err := c.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, 0, len(wire)) // the output's growth is not the encoder's
		work, err := codec.DecodeWork(c, wire)
		if err != nil {
			t.Fatal(err)
		}
		return cost{
			wire:     float64(len(wire)),
			work:     float64(work),
			encAlloc: allocated(func() { _, _ = unchecked.Append(dst[:0], ev) }),
			decAlloc: allocated(func() { _, _ = c.Unmarshal(wire) }),
		}
	}
	for _, d := range densest {
		small, big := measure(d.make(n)), measure(d.make(4*n))
		for _, r := range []struct {
			what string
			s, b float64
		}{
			{"wire bytes", small.wire, big.wire},
			{"fields decoded", small.work, big.work},
			{"bytes allocated to encode", small.encAlloc, big.encAlloc},
			{"bytes allocated to decode", small.decAlloc, big.decAlloc},
		} {
			if g := r.b / r.s; g < 3 || g > 5 {
				t.Errorf("%s: %s grew %.2f× for 4× the elements (%.0f → %.0f)", d.name, r.what, g, r.s, r.b)
			}
		}
	}
}

// allocated returns the bytes f allocates, averaged over a few runs.
func allocated(f func()) float64 {
	const runs = 4
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs
}
