package codec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestReleaseLeavesNothingBehind: a decoder goes back to its pool holding
// no pointer into the frame it read, past its stacks' length included, on
// success and on error (the release clears only their length, for their
// levels clear what they push).
func TestReleaseLeavesNothingBehind(t *testing.T) {
	var obj strings.Builder
	obj.WriteString(`{"a":{"b":[1,{"c":"x"}],"d":"y"}`)
	for i := range 300 {
		obj.WriteString(`,"k` + strconv.Itoa(i) + `":{"n":` + strconv.Itoa(i) + `,"s":"v"}`)
	}
	obj.WriteString("}")
	good, err := Codec{}.Append(nil, &event.StateSnapshot{Snapshot: event.RawValue(obj.String())})
	if err != nil {
		t.Fatal(err)
	}
	hi := "hi"
	msgs := &event.MessagesSnapshot{Messages: []event.Message{{ID: "m", Role: "user", Content: &hi, Metadata: event.Object(`{"x":{"y":1}}`)}}}
	snap, err := Codec{}.Append(nil, msgs)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good[:len(good)/2]...) // cut in a nested Struct
	// The event's arm again, empty: protobuf merges it into the first, which
	// the generated decoders leave to the reference decoder.
	_, _, n := protowire.ConsumeTag(snap)
	merged := append(append([]byte(nil), snap...), append(snap[:n:n], 0)...)
	var usedEntries, usedPend bool
	for _, tc := range []struct {
		name  string
		frame []byte
	}{{"state", good}, {"messages", snap}, {"merged", merged}, {"cut", bad}} {
		for _, transient := range []bool{false, true} {
			d, err := Codec{}.decoderOf(tc.frame, transient)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.decode(); (err != nil) != (tc.name == "cut") {
				t.Fatalf("%s: %v", tc.name, err)
			}
			entries, pend := d.entries[:cap(d.entries)], d.pend[:cap(d.pend)]
			usedEntries = usedEntries || cap(entries) > 0
			usedPend = usedPend || cap(pend) > 0
			d.release()
			for i, e := range entries {
				if e.key != "" || !zero(e.value) {
					t.Fatalf("%s (transient %v): entry %d of %d kept %+v", tc.name, transient, i, len(entries), e)
				}
			}
			for i, p := range pend {
				if !zero(p) {
					t.Fatalf("%s (transient %v): pending field %d of %d kept %+v", tc.name, transient, i, len(pend), p)
				}
			}
		}
	}
	if !usedEntries || !usedPend {
		t.Fatalf("the decodes used the entries stack: %v, the pending fields: %v; the test tests nothing", usedEntries, usedPend)
	}
}

func zero(p payload) bool { return p.first == nil && p.more == 0 && p.last == 0 && p.n == 0 }
