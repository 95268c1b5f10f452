package corpus_test

import (
	"testing"

	"github.com/agwire/agwire/bench/corpus"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// Every generated event is valid AG-UI JSON that agwire encodes and decodes
// back to the same JSON.
func TestCorpusValid(t *testing.T) {
	check := func(name string, js []byte) {
		t.Helper()
		ev, err := event.Parse(js)
		if err != nil {
			t.Fatalf("%s: parse: %v\n%s", name, err, js)
		}
		wire, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatalf("%s: encode: %v", name, err)
		}
		back, err := codec.AppendJSONFromWire(nil, wire)
		if err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if string(back) != string(js) {
			i := 0
			for i < len(js) && i < len(back) && js[i] == back[i] {
				i++
			}
			t.Fatalf("%s: round trip differs at %d:\n%s\n%s", name, i, js[max(0, i-80):min(len(js), i+80)], back[max(0, i-80):min(len(back), i+80)])
		}
	}
	for _, c := range corpus.Cases() {
		check(c.Name, c.JSON)
	}
	for _, n := range []int{1, 1000, 1 << 20} {
		check("text", corpus.TextDelta(n))
	}
	for _, k := range []int{1, 33, 10000} {
		check("meta", corpus.MetadataKeys(k))
	}
	run := corpus.Run()
	if len(run) < corpus.RunEvents || len(run) > corpus.RunEvents+1000 {
		t.Fatalf("run has %d events", len(run))
	}
	for i, js := range run {
		check("run", js)
		_ = i
	}
}
