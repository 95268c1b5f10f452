package assemble_test

import (
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/event"
)

// TestStrictRules: each of the draft's fatal rules refuses its event with
// its sentinel under Strict, and the same stream assembles without it.
func TestStrictRules(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		thread       string
		want         error
		index        int
	}{
		{"run id", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"x"}`, "", assemble.ErrStrictRunID, 1},
		{"finish thread", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"x","runId":"r"}`, "", assemble.ErrStrictFinishThread, 1},
		{"second thread", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
{"type":"RUN_STARTED","threadId":"x","runId":"r2"}`, "", assemble.ErrStrictThread, 2},
		{"the input's thread", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, "input", assemble.ErrStrictThread, 0},
		{"duplicate interrupt", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"a","reason":"r"},{"id":"b","reason":"r"},{"id":"a","reason":"r"}]}}`, "", assemble.ErrStrictDuplicateInterrupt, 1},
		{"truncated", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STEP_STARTED","stepName":"s"}`, "", assemble.ErrStrictTruncated, 2},
	} {
		for _, strict := range []bool{false, true} {
			_, err := assemble.FromSeq(seqOf(parseLines(t, tc.stream)), assemble.Options{Check: true, Strict: strict, ThreadID: tc.thread})
			if !strict {
				if err != nil {
					t.Errorf("%s: without Strict: %v", tc.name, err)
				}
				continue
			}
			var se *assemble.SequenceError
			if !errors.Is(err, tc.want) || !errors.As(err, &se) || se.Index != tc.index {
				t.Errorf("%s: %v, want a *assemble.SequenceError at event %d wrapping %v", tc.name, err, tc.index, tc.want)
			}
			if tc.want == assemble.ErrStrictDuplicateInterrupt && !strings.Contains(err.Error(), "two interrupts carrying the id 'a' (outcome.interrupts[2])") {
				t.Errorf("%s: %v", tc.name, err)
			}
		}
	}
}

func seqOf(evs []event.Event) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// TestEncryptedValueType: AG-UI 1.1's rules for a consumer. The type is
// stored with the value and returned unmodified; an encrypted value that
// carries none removes the stored type (it described the value replaced).
func TestEncryptedValueType(t *testing.T) {
	p := event.Parser{Protocol: event.Protocol11}
	var evs []event.Event
	for _, l := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","content":"x","encryptedValue":"e0","encryptedValueType":"kept","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""}}]}]}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"e1","encryptedValueType":"  Opaque/Type  "}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"e2","encryptedValueType":"first"}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"e3"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	} {
		ev, err := p.Parse([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		evs = append(evs, ev)
	}
	c, err := assemble.FromSeq(seqOf(evs), assemble.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"messages":[{"id":"a","role":"assistant","encryptedValue":"e0","encryptedValueType":"kept","content":"x","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""},"encryptedValue":"e1","encryptedValueType":"  Opaque/Type  "}]},` +
		`{"id":"m","role":"assistant","content":"","encryptedValue":"e3"}],"state":{}}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
