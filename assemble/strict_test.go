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
