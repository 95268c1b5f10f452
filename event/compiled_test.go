package event_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/difftest"
)

// The compiled JSON path (json_gen.go) against the interpreter: what the
// compiled parsers and writers accept, they read and write exactly as the
// interpreter does; what they give up on, Parse and AppendJSON leave to the
// interpreter, so the public functions answer as the interpreter does,
// event for event, byte for byte, error for error.

// sameWrite requires the compiled writers, where they write ev, to write
// the interpreter's bytes, and AppendJSON to answer as the interpreter. It
// reports whether the compiled writers wrote ev.
func sameWrite(t testing.TB, ev event.Event) bool {
	t.Helper()
	in := evText{ev}
	want, werr := event.AppendJSONInterpreted([]byte("x"), ev)
	interp := difftest.Answer{By: "interpreter", Val: want, Err: werr}
	got, err := event.AppendJSON([]byte("x"), ev)
	difftest.Agree(t, in, difftest.Answer{By: "AppendJSON", Val: got, Err: err}, interp)
	c, ok := event.AppendJSONCompiled([]byte("x"), ev)
	return difftest.Within(t, in, difftest.Answer{By: "compiled", Val: c}, ok, interp)
}

// evText shows an event in a failure message.
type evText struct{ ev event.Event }

func (e evText) String() string { return fmt.Sprintf("event %#v", e.ev) }

// TestCompiledWriteMatchesInterpreter: on every decoded golden frame, on
// filled events, valid or not (invalid UTF-8, names outside their set,
// broken dynamic values, two carriers of a union, rules broken), and on
// every event the shared corpus's texts parse to (its edge cases, each
// type's richest event with members absent and null, the conformance
// streams, the fuzz seeds), AppendJSON writes the interpreter's bytes or
// returns its error, and the compiled writers write every valid event of a
// wire type themselves.
func TestCompiledWriteMatchesInterpreter(t *testing.T) {
	var evs []event.Event
	for _, g := range difftest.LoadGolden(t) {
		if ev, err := codec.Unmarshal(g.Wire()); err == nil {
			evs = append(evs, ev)
		}
	}
	for seed := range 4000 {
		evs = append(evs, difftest.Fill(seed))
	}
	for _, b := range difftest.Load(t).Texts() {
		if ev, err := event.Parse(b); err == nil {
			evs = append(evs, ev)
		}
	}
	fast, valid, refused := 0, 0, 0
	for _, ev := range evs {
		ok := sameWrite(t, ev)
		_, err := event.AppendJSONInterpreted(nil, ev)
		switch {
		case err != nil:
			refused++
		case ev.Type().Known():
			valid++
			if ok {
				fast++
			}
		}
	}
	if fast != valid {
		t.Errorf("the compiled writers wrote %d of %d valid events", fast, valid)
	}
	if refused == 0 || valid < 500 {
		t.Errorf("the corpus is lopsided: %d valid, %d refused", valid, refused)
	}
	// A nil event of a compiled type, and a nil interface.
	sameWrite(t, (*event.TextMessageStart)(nil))
	sameWrite(t, nil)
	t.Logf("%d events written by both (+2 nil): %d valid, all by the compiled writers; %d refused", len(evs), valid, refused)
}

// sameParse requires the compiled parsers, where they accept a text, to
// read the interpreter's event, and Parse to answer as the interpreter; it
// reports whether the compiled parsers read it.
func sameParse(t testing.TB, p event.Parser, in []byte) bool {
	t.Helper()
	want, werr := event.ParseInterpreted(p, in)
	interp := difftest.Answer{By: "interpreter", Val: want, Err: werr}
	got, err := p.Parse(in)
	difftest.Agree(t, difftest.Text(in), difftest.Answer{By: "Parse", Val: got, Err: err}, interp)
	c, ok := event.ParseCompiled(p.MaxDepth, in)
	if !difftest.Within(t, difftest.Text(in), difftest.Answer{By: "compiled", Val: c}, ok, interp) {
		return false
	}
	sameValue(t, in, c)
	return true
}

// sameValue requires the JSON ev writes to hold the values encoding/json
// reads from in, a text the compiled parsers accepted: the same members
// and values, but for the normal form's own choices (an optional value's
// null is absence; an empty optional list is left out, a required one
// written), which it compares as absent.
func sameValue(t testing.TB, in []byte, ev event.Event) {
	t.Helper()
	if bytes.Contains(in, []byte(`"binary"`)) {
		return // a legacy binary part reads as the document part it stands for
	}
	out, err := event.Marshal(ev)
	if err != nil {
		t.Fatalf("a compiled parse does not marshal: %v\n%s", err, in)
	}
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
		return // a duplicate key or a number encoding/json refuses is not comparable
	}
	if !reflect.DeepEqual(dropNulls(a), dropNulls(b)) {
		t.Fatalf("encoding/json reads different values\nin  %s\nout %s", in, out)
	}
}

// dropNulls removes the members holding null or [], at every depth.
func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if a, ok := e.([]any); e == nil || ok && len(a) == 0 {
				delete(v, k)
			} else {
				v[k] = dropNulls(e)
			}
		}
	case []any:
		for i := range v {
			v[i] = dropNulls(v[i])
		}
	}
	return v
}

var parsers = []event.Parser{{}, {DropUnknownFields: true}, {MaxDepth: 2}, {MaxDepth: 4}}

// TestCompiledParseMatchesInterpreter: on the peer's own spellings, on
// agwire's own JSON of every golden and filled event (canonical: all of it
// is read by the compiled parsers), on the shared corpus (the conformance
// streams, the JSON fuzz targets' seeds, the edge cases, each type's
// richest event with members absent and null), and on one-byte changes,
// cuts, reshapings and repetitions of the canonical texts, Parse answers
// as the interpreter, under every option, and what the compiled parsers
// accept they read as it does.
func TestCompiledParseMatchesInterpreter(t *testing.T) {
	parses, writes := 0, 0
	var texts [][]byte
	for _, g := range difftest.LoadGolden(t) {
		sameParse(t, event.Parser{}, g.Input) // legacy binary parts included
		parses++
		if ev, err := event.Parse(g.Input); err == nil {
			if b, err := event.Marshal(ev); err == nil {
				texts = append(texts, b)
			}
		}
	}
	for seed := range 3000 {
		ev := difftest.Fill(seed)
		if !ev.Type().Known() {
			continue
		}
		if b, err := event.Marshal(ev); err == nil {
			texts = append(texts, b)
		}
	}
	// The shared corpus, under every option; the events it holds written
	// by both writers.
	for _, b := range difftest.Load(t).Texts() {
		for _, p := range parsers {
			sameParse(t, p, b)
			parses++
		}
		if ev, err := event.Parse(b); err == nil {
			sameWrite(t, ev)
			writes++
		}
	}
	fast := 0
	for _, b := range texts {
		if sameParse(t, event.Parser{}, b) {
			fast++
		}
		parses++
	}
	if fast != len(texts) {
		t.Errorf("the compiled parsers read %d of %d canonical texts", fast, len(texts))
	}
	m := difftest.NewMutator(7)
	for i, b := range texts {
		for k := 0; k < 4; k++ {
			p := parsers[(i+k)%len(parsers)]
			changed, cut := m.Next(b)
			sameParse(t, p, changed)
			sameParse(t, p, cut)
			parses += 2
			for _, r := range difftest.Reshape(b) {
				sameParse(t, p, r)
				parses++
			}
		}
	}
	t.Logf("%d texts parsed by both, %d events written by both; %d canonical texts, all read by the compiled parsers", parses, writes, len(texts))
}

// FuzzCompiledParse: on arbitrary text, under every option, Parse answers
// as the interpreter; what the compiled parsers accept, the interpreter
// reads to the same event, and encoding/json reads the same values.
func FuzzCompiledParse(f *testing.F) {
	for _, g := range difftest.LoadGolden(f) {
		f.Add([]byte(g.Input), uint8(0))
	}
	for i, b := range difftest.Load(f).Texts() {
		f.Add(b, uint8(i))
	}
	f.Fuzz(func(t *testing.T, b []byte, pick uint8) {
		sameParse(t, parsers[int(pick)%len(parsers)], b)
	})
}
