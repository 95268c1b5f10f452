package assemble_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

func conversationText(t testing.TB, events []event.Event) []byte {
	t.Helper()
	c, err := fromEvents(events, assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Property: assembling the compacted stream gives exactly the conversation
// the original gives (same JSON text: messages, metadata, state), and the
// compacted stream is itself valid (it passes sequence checking).
func TestCompactReplayEquivalent(t *testing.T) {
	in, out := 0, 0
	splits := 0
	for seed := uint64(0); seed < 500; seed++ {
		s := assembletest.Generate(rand.New(rand.NewPCG(seed, 2)))
		compacted, rep, err := assemble.Compact(s.Events, assemble.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want := conversationText(t, s.Events)
		got := conversationText(t, compacted)
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: compacted stream assembles to\n%s\nthe original to\n%s", seed, got, want)
		}
		if _, err := fromEvents(compacted, assemble.Options{Check: true}); err != nil {
			t.Fatalf("seed %d: the compacted stream fails sequence checking: %v", seed, err)
		}
		// Compacting again changes nothing more.
		again, _, err := assemble.Compact(compacted, assemble.Options{})
		if err != nil || len(again) != len(compacted) {
			t.Fatalf("seed %d: compacting twice: %d -> %d events, %v", seed, len(compacted), len(again), err)
		}
		if rep.EventsIn != len(s.Events) || rep.EventsOut != len(compacted) {
			t.Fatalf("seed %d: report %+v", seed, rep)
		}
		in += rep.EventsIn
		out += rep.EventsOut
		splits += rep.Splits
	}
	t.Logf("500 generated streams: %d events -> %d; %d streams split at a barrier", in, out, splits)
}

// streamCounts counts each stream's events (start, content, end and chunk
// events) by kind and id.
func streamCounts(evs []event.Event) map[string]int {
	n := map[string]int{}
	for _, ev := range evs {
		var key string
		switch e := ev.(type) {
		case *event.TextMessageStart:
			key = "text " + e.MessageID
		case *event.TextMessageContent:
			key = "text " + e.MessageID
		case *event.TextMessageEnd:
			key = "text " + e.MessageID
		case *event.TextMessageChunk:
			if e.MessageID != nil {
				key = "text " + *e.MessageID
			}
		case *event.ToolCallStart:
			key = "tool " + e.ToolCallID
		case *event.ToolCallArgs:
			key = "tool " + e.ToolCallID
		case *event.ToolCallEnd:
			key = "tool " + e.ToolCallID
		case *event.ToolCallChunk:
			if e.ToolCallID != nil {
				key = "tool " + *e.ToolCallID
			}
		case *event.ReasoningMessageStart:
			key = "reasoning " + e.MessageID
		case *event.ReasoningMessageContent:
			key = "reasoning " + e.MessageID
		case *event.ReasoningMessageEnd:
			key = "reasoning " + e.MessageID
		case *event.ReasoningMessageChunk:
			if e.MessageID != nil {
				key = "reasoning " + *e.MessageID
			}
		}
		if key != "" {
			n[key]++
		}
	}
	return n
}

// Compaction is never longer than its input, per stream: a message that came
// as one or two TEXT_MESSAGE_CHUNK events stays a chunk instead of becoming
// start, content and end (on 4 of 200 fresh runs it did).
func TestCompactNeverLongerPerStream(t *testing.T) {
	chunked := 0
	for seed := uint64(0); seed < 500; seed++ {
		s := assembletest.Generate(rand.New(rand.NewPCG(seed, 2)))
		compacted, _, err := assemble.Compact(s.Events, assemble.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(compacted) > len(s.Events) {
			t.Errorf("seed %d: %d events became %d", seed, len(s.Events), len(compacted))
		}
		in, out := streamCounts(s.Events), streamCounts(compacted)
		for k, n := range out {
			if n > in[k] {
				t.Errorf("seed %d: stream %s: %d events became %d", seed, k, in[k], n)
			}
		}
		for _, ev := range compacted {
			switch ev.(type) {
			case *event.TextMessageChunk, *event.ToolCallChunk:
				chunked++
			}
		}
	}
	if chunked == 0 {
		t.Error("no stream was kept as chunks: the corpus does not exercise the rule")
	}
	t.Logf("%d chunk events kept", chunked)

	one := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi","metadata":{"a":1}}
{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"{}"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	evs := parseLines(t, one)
	compacted, _, err := assemble.Compact(evs, assemble.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(compacted) != 4 {
		t.Errorf("one chunk per stream: %d events became %d", len(evs), len(compacted))
	}
	if got, want := conversationText(t, compacted), conversationText(t, evs); !bytes.Equal(got, want) {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func parseLines(t testing.TB, text string) []event.Event {
	t.Helper()
	var evs []event.Event
	for _, l := range strings.Split(text, "\n") {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// A joined text larger than the output limit is written in several content
// events, each within it, so the compacted stream always encodes to binary
// frames of that size; the pieces end on UTF-8 boundaries.
func TestCompactSplitsToTheOutputLimit(t *testing.T) {
	const limit = 4096
	piece := strings.Repeat("é", 900) // 1800 bytes, under the limit
	var lines []string
	lines = append(lines, runStartLine,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"k":"v"}}`)
	for range 10 {
		lines = append(lines, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`+piece+`x"}`)
	}
	lines = append(lines, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"n","delta":"`+strings.Repeat("ab", 5000)+`"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}`)
	for range 10 {
		lines = append(lines, `{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"`+piece+`"}`)
	}
	lines = append(lines, `{"type":"TOOL_CALL_END","toolCallId":"c"}`, runEndLine)
	evs := parseLines(t, strings.Join(lines, "\n"))
	for _, limited := range []bool{false, true} {
		opts := assemble.Options{Check: true}
		if limited {
			opts.MaxEventSize = limit
		}
		compacted, _, err := assemble.Compact(evs, opts)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}, MaxFrameSize: limit})
		var werr error
		for _, ev := range compacted {
			if werr = w.WriteEvent(ev); werr != nil {
				break
			}
		}
		if limited != (werr == nil) {
			t.Errorf("limit %v: writing %d-byte frames: %v", limited, limit, werr)
		}
		if !limited {
			continue
		}
		if got, want := conversationText(t, compacted), conversationText(t, evs); !bytes.Equal(got, want) {
			t.Errorf("the split stream assembles differently")
		}
		if _, err := fromEvents(compacted, assemble.Options{Check: true}); err != nil {
			t.Errorf("the split stream fails checking: %v", err)
		}
		if len(compacted) >= len(evs) || len(compacted) < 10 {
			t.Errorf("%d events became %d", len(evs), len(compacted))
		}
	}
	// A limit no event can meet is a typed error.
	if _, _, err := assemble.Compact(evs, assemble.Options{MaxEventSize: 20}); !errors.Is(err, assemble.ErrEventTooLarge) {
		t.Errorf("limit 20: %v", err)
	}
}

const runStartLine = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
const runEndLine = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
