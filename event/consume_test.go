package event_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

func consume(t *testing.T, s string) (event.Event, []event.Warning, error) {
	t.Helper()
	var ws []event.Warning
	ev, err := event.Parser{Consume: true, Warn: func(w event.Warning) { ws = append(ws, w) }}.Parse([]byte(s))
	return ev, ws, err
}

// TestConsumeRefuses: malformed known values fail with a *PathError naming
// the field, the sentinel telling missing from invalid. The first five the
// strict parser accepts; the client refuses each.
func TestConsumeRefuses(t *testing.T) {
	for _, c := range []struct {
		in, path string
		err      error
	}{
		{`{"type":"CUSTOM","name":"x"}`, "value", event.ErrMissingField},
		{`{"type":"RAW"}`, "event", event.ErrMissingField},
		{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`, "outcome.interrupts", event.ErrInvalidField},
		{`{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-1}]}`, "usage[0].inputTokens", event.ErrInvalidField},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"tool","content":"x"}]}`, "messages[0].toolCallId", event.ErrMissingField},
		{`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":42}`, "delta", event.ErrInvalidField},
		{`{"type":"TEXT_MESSAGE_START","messageId":"m","name":null}`, "name", event.ErrInvalidField},
		{`{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":null}`, "metadata", event.ErrInvalidField},
		{`{"type":"STATE_SNAPSHOT"}`, "snapshot", event.ErrMissingField},
		{`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"}]}`, "delta[0].value", event.ErrMissingField},
		{`{"type":"STATE_DELTA","delta":[{"op":"move","path":"/a"}]}`, "delta[0].from", event.ErrMissingField},
		{`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"a"}]}`, "delta[0].path", event.ErrInvalidField},
		{`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a~2"}]}`, "delta[0].path", event.ErrInvalidField},
		{`{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":9007199254740992}`, "timestamp", event.ErrInvalidField},
		{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":[]}`, "outcome", event.ErrInvalidField},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":[{"type":"image","source":{"type":"data","value":"x"}}]}]}`, "messages[0].content[0].source.mimeType", event.ErrMissingField},
	} {
		_, _, err := consume(t, c.in)
		var pe *event.PathError
		if !errors.As(err, &pe) || !errors.Is(err, c.err) || !strings.HasPrefix(pe.Path, c.path) {
			t.Errorf("%s: %v, want a *PathError at %s wrapping %v", c.in, err, c.path, c.err)
		}
	}
}

// TestConsumeStrips: what no schema describes goes, with a warning naming
// its JSON Pointer; the rest of the event survives.
func TestConsumeStrips(t *testing.T) {
	for _, c := range []struct {
		in, want string
		paths    []string
	}{
		{`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","futureProp":1}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`, []string{"/futureProp"}},
		{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"paused"}}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`, []string{"/outcome"}},
		{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","interrupts":[]}}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}`, []string{"/outcome/interrupts"}},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"user","content":[{"type":"text","text":"a"},{"type":"hologram"},{"type":"text","text":"b","x":1}]},{"id":"n","role":"narrator","content":"?"}]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`,
			[]string{"/messages/0/content/1", "/messages/0/content/2/x", "/messages/1"}},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi","toolCalls":[]}]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi"}]}`, []string{"/messages/0/toolCalls"}},
		// Patch operations are open: extras go in silence, an unknown op
		// takes its element with it.
		{`{"type":"STATE_DELTA","delta":[{"op":"increment","path":"/c"},{"op":"remove","path":"/c","value":"kept","note":"x"}]}`,
			`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/c","value":"kept"}]}`, []string{"/delta/0"}},
		// Pre-1.0 nulls for absent fields; a request's null state is absent
		// too, as the schema reads it.
		{`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null,"rawEvent":null}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}`, []string{"/parentMessageId", "/rawEvent"}},
		{`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"state":null,"extra":1}}`,
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}}`, []string{"/input/extra"}},
	} {
		ev, ws, err := consume(t, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
		var paths []string
		for _, w := range ws {
			paths = append(paths, w.Path)
		}
		if fmt.Sprint(paths) != fmt.Sprint(c.paths) {
			t.Errorf("%s: warnings at %q, want %q", c.in, paths, c.paths)
		}
	}
}

// TestConsumeDrops: an event of a type the protocol does not describe is
// dropped with a warning naming it; the strict parser refuses it.
func TestConsumeDrops(t *testing.T) {
	for _, in := range []string{`{"type":"FUTURE_EVENT","x":1}`, `{"x":1}`, `{"type":42}`} {
		ev, ws, err := consume(t, in)
		if ev != nil || err != nil || len(ws) != 1 || ws[0].Path != "" {
			t.Errorf("%s: %v, %v, warnings %v; want dropped with one warning", in, ev, err, ws)
		}
	}
	_, ws, _ := consume(t, `{"type":"FUTURE_EVENT"}`)
	if !strings.Contains(ws[0].String(), "FUTURE_EVENT") {
		t.Errorf("warning %q does not name the type", ws[0])
	}
}

// TestConsumeCostLinear: stripping is linear in the input: four times the
// messages, each with an unknown member, cost four times the allocations.
func TestConsumeCostLinear(t *testing.T) {
	in := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"MESSAGES_SNAPSHOT","messages":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"m%d","role":"user","content":[{"type":"text","text":"t","x":%d}],"y":{"z":[1,2,3]}}`, i, i)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	p := event.Parser{Consume: true, Warn: func(event.Warning) {}}
	cost := func(data []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := p.Parse(data); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, big := cost(in(500)), cost(in(2000))
	if ratio := big / small; ratio > 5 {
		t.Errorf("4x the input: %.0f allocations against %.0f (%.1fx), want about 4x", big, small, ratio)
	}
}

func BenchmarkConsume(b *testing.B) {
	data := []byte(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"user","content":[{"type":"text","text":"hello"}],"metadata":{"k":1}},{"id":"m2","role":"assistant","content":"hi","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`)
	for _, mode := range []struct {
		name string
		p    event.Parser
	}{{"strict", event.Parser{}}, {"consume", event.Parser{Consume: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := mode.p.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
