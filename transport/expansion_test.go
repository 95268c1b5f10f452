package transport_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// TestJSONExpansion holds the densest JSON renderings found, per byte of
// wire form, to 16 bytes plus 1 KiB: a quarter of the bound a run log
// relies on to skip rendering the JSON of events far below the size limit
// (64 per byte plus 4 KiB). If a form ever breaks this, the bound in
// writer.go must grow with it.
func TestJSONExpansion(t *testing.T) {
	var msgs []event.Message
	for range 1000 {
		msgs = append(msgs, event.Message{Role: event.RoleAssistant, ToolCalls: []event.ToolCall{{Type: "function"}}})
	}
	var ops []event.PatchOp
	for range 1000 {
		ops = append(ops, event.PatchOp{Op: "add", Value: event.RawValue(`null`)})
	}
	for _, ev := range append(realisticRun(),
		&event.StateSnapshot{Snapshot: event.RawValue("[" + strings.Repeat(`null,`, 1000) + "null]")},
		&event.StateSnapshot{Snapshot: event.RawValue("[" + strings.Repeat(`{},[],"",`, 1000) + "0]")},
		&event.MessagesSnapshot{Messages: msgs},
		&event.StateDelta{Delta: ops},
		&event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("\x01", 1000)},
		&event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("\u2028", 1000)},
		&event.Custom{Name: strings.Repeat("\x1f", 1000), Value: event.RawValue(`[` + strings.Repeat(`-1.2345678901234568e-300,`, 1000) + `1]`)},
	) {
		w, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatalf("%s: %v", ev.Type(), err)
		}
		j, err := codec.AppendJSONFromWire(nil, w)
		if err != nil {
			t.Fatalf("%s: %v", ev.Type(), err)
		}
		if len(j) > 16*len(w)+1024 {
			t.Errorf("%s: %d bytes of wire render %d of JSON", ev.Type(), len(w), len(j))
		}
	}
}

// TestLoggedExpandingEventDefaultLimit: with the default limits a run log
// refuses an event whose frame fits (2 MiB) but whose SSE block would not
// (12 MiB of \u0001 escapes), since an SSE response might serve it; a
// plain binary response sends it.
func TestLoggedExpandingEventDefaultLimit(t *testing.T) {
	ev := &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("\x01", 2<<20)}
	for _, p := range writerPaths {
		for _, c := range carriersByAccept {
			opts := p.opts()
			errs, _ := runWriterCase(t, opts, c.accept, func(w transport.EventWriter) []error {
				return []error{w.WriteEvent(ev), w.WriteEvent(&event.RunFinished{ThreadID: "thread-1", RunID: "run-1"})}
			}, nil)
			refuse := p.name != "plain" || c.name == "sse"
			if got := errors.Is(errs[0], transport.ErrEventTooLarge); got != refuse || errs[1] != nil {
				t.Errorf("%s/%s: %v, %v; want refused = %v", p.name, c.name, errs[0], errs[1], refuse)
			}
		}
	}
}
