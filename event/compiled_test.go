package event_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// The compiled JSON path (json_gen.go) against the interpreter: what the
// compiled parsers and writers accept, they read and write exactly as the
// interpreter does; what they give up on, Parse and AppendJSON leave to the
// interpreter, so the public functions answer as the interpreter does,
// event for event, byte for byte, error for error.

type golden struct {
	Input json.RawMessage `json:"input"`
	Hex   string          `json:"hex"`
}

// loadGolden reads the peer's golden frames: its JSON input and the wire.
func loadGolden(t testing.TB) []golden {
	t.Helper()
	f, err := os.Open("../codec/testdata/golden-peer-1.0.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	if len(out) < 100 {
		t.Fatalf("only %d golden frames", len(out))
	}
	return out
}

// loadCorpora returns the event texts of the AG-UI 1.0 conformance streams
// (as written, and compact) and the seeds of the JSON fuzz targets.
func loadCorpora(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	streams, _ := filepath.Glob("../conformance/testdata/1.0/streams/*.json")
	for _, f := range streams {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ Stream []json.RawMessage }
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, ev := range c.Stream {
			var compact bytes.Buffer
			json.Compact(&compact, ev)
			out = append(out, ev, compact.Bytes())
		}
	}
	seeds, _ := filepath.Glob("../fuzz/testdata/fuzz/FuzzJSONRoundTrip/*")
	for _, f := range seeds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "[]byte("); ok {
				if v, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, []byte(v))
				}
			}
		}
	}
	if len(streams) < 50 || len(out) < 200 {
		t.Fatalf("corpora: %d streams, %d texts", len(streams), len(out))
	}
	return out
}

// filler makes values from a byte stream, cycling through it.
type filler struct {
	data []byte
	i    int
	pick int
}

func (f *filler) next() byte { b := f.data[f.i%len(f.data)]; f.i++; return b }

var fillStrings = []string{"", "a", "user", "assistant", "tool", "reasoning", "function", "resolved", "success",
	"interrupt", "suspended", "message", "text", "image", "data", "url", "file", "add", "test", "h\u00e9", "\xff", "bot"}

var fillValues = []string{`null`, `1`, `"s"`, `{}`, `{"a":1}`, `[1,{"b":null}]`, `{"a":1,"a":2}`, `9007199254740993`,
	`1e400`, `{"x":`, `true`, `{"m":{"n":[[[]]]}}`, `"\ud800"`, `[]`, "{\r\n\"a\": 1\n}"}

// fillEvent returns an event of a type picked from the registry, its
// fields filled from seed: valid or not.
func fillEvent(seed int) event.Event {
	f := &filler{data: []byte{byte(seed), byte(seed >> 8), byte(seed * 7), byte(seed * 13)}, pick: seed}
	types := event.Types()
	ev := event.New(types[f.pick%len(types)])
	f.fill(reflect.ValueOf(ev).Elem(), 0)
	return ev
}

func (f *filler) fill(v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[event.RawValue](), reflect.TypeFor[event.Object]():
		if b := f.next(); b%3 != 0 {
			v.SetBytes([]byte(fillValues[int(b)%len(fillValues)]))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fillStrings[int(f.next())%len(fillStrings)])
	case reflect.Bool:
		v.SetBool(f.next()%2 == 0)
	case reflect.Int64:
		v.SetInt([]int64{0, 1, -1, 1 << 53, 1<<53 - 1, -(1 << 60), 1733140800123}[int(f.next())%7])
	case reflect.Pointer:
		if b := f.next(); b%2 == 0 && depth < 4 {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		if depth >= 4 {
			return
		}
		n := int(f.next() % 4)
		if n == 3 {
			return // nil
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth)
			}
		}
	}
}

// sameWrite requires the compiled writers, where they write ev, to write
// the interpreter's bytes, and AppendJSON to answer as the interpreter. It
// reports whether the compiled writers wrote ev.
func sameWrite(t testing.TB, ev event.Event) bool {
	t.Helper()
	want, werr := event.AppendJSONInterpreted([]byte("x"), ev)
	got, err := event.AppendJSON([]byte("x"), ev)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON and the interpreter differ\nAppendJSON  %s, %v\ninterpreter %s, %v\nevent %#v", got, err, want, werr, ev)
	}
	c, ok := event.AppendJSONCompiled([]byte("x"), ev)
	if ok && (werr != nil || !bytes.Equal(c, want)) {
		t.Fatalf("the compiled writers write what the interpreter writes otherwise\ncompiled    %s\ninterpreter %s, %v", c, want, werr)
	}
	return ok
}

// TestCompiledWriteMatchesInterpreter: on every decoded golden frame and on
// filled events, valid or not (invalid UTF-8, names outside their set,
// broken dynamic values, two carriers of a union, rules broken), AppendJSON
// writes the interpreter's bytes or returns its error, and the compiled
// writers write every valid event of a wire type themselves.
func TestCompiledWriteMatchesInterpreter(t *testing.T) {
	var evs []event.Event
	for _, g := range loadGolden(t) {
		wire, _ := hex.DecodeString(g.Hex)
		if ev, err := codec.Unmarshal(wire); err == nil {
			evs = append(evs, ev)
		}
	}
	for seed := range 4000 {
		evs = append(evs, fillEvent(seed))
	}
	// Each condition of the layout at least once.
	for _, in := range []string{
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":[]},"usage":[]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null,"rawEvent":null}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{}}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[]},{"id":"2","role":"activity","activityType":"x","content":{}},{"id":"3","role":"developer","content":""},{"id":"4","role":"assistant","toolCalls":[]}]}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":[]}}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"image","source":{"type":"data","value":"","mimeType":""}}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[]}}`,
	} {
		ev, err := event.Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		evs = append(evs, ev)
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
}

// sameParse requires the compiled parsers, where they accept a text, to
// read the interpreter's event, and Parse to answer as the interpreter; it
// reports whether the compiled parsers read it.
func sameParse(t testing.TB, p event.Parser, in []byte) bool {
	t.Helper()
	want, werr := event.ParseInterpreted(p, in)
	got, err := p.Parse(in)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse and the interpreter differ\nParse       %#v, %v\ninterpreter %#v, %v\n%s", got, err, want, werr, in)
	}
	c, ok := event.ParseCompiled(p.MaxDepth, in)
	if !ok {
		return false
	}
	if werr != nil {
		t.Fatalf("the compiled parsers accept what the interpreter refuses (%v)\n%s", werr, in)
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("events differ\ncompiled    %#v\ninterpreter %#v\n%s", c, want, in)
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

// TestCompiledParseMatchesInterpreter: on agwire's own JSON of every golden
// and filled event (canonical: all of it is read by the compiled parsers),
// on the peer's own spellings, the conformance streams, the JSON fuzz
// targets' seeds, and on one-byte changes, cuts, reorderings
// and repetitions of them, Parse answers as the interpreter, under every
// option, and what the compiled parsers accept they read as it does.
func TestCompiledParseMatchesInterpreter(t *testing.T) {
	var texts [][]byte
	for _, g := range loadGolden(t) {
		sameParse(t, event.Parser{}, g.Input) // legacy binary parts included
		if ev, err := event.Parse(g.Input); err == nil {
			if b, err := event.Marshal(ev); err == nil {
				texts = append(texts, b)
			}
		}
	}
	for seed := range 3000 {
		ev := fillEvent(seed)
		if !ev.Type().Known() {
			continue
		}
		if b, err := event.Marshal(ev); err == nil {
			texts = append(texts, b)
		}
	}
	// The conformance streams and the fuzz seeds, under every option; the
	// events they hold written by both writers.
	for _, b := range loadCorpora(t) {
		for _, p := range parsers {
			sameParse(t, p, b)
		}
		if ev, err := event.Parse(b); err == nil {
			sameWrite(t, ev)
		}
	}
	fast := 0
	for _, b := range texts {
		if sameParse(t, event.Parser{}, b) {
			fast++
		}
	}
	if fast != len(texts) {
		t.Errorf("the compiled parsers read %d of %d canonical texts", fast, len(texts))
	}
	rng := uint32(7)
	for i, b := range texts {
		for k := 0; k < 4; k++ {
			rng = rng*1664525 + 1013904223
			p := parsers[(i+k)%len(parsers)]
			m := append([]byte(nil), b...)
			m[int(rng>>8)%len(m)] ^= byte(rng >> 24)
			sameParse(t, p, m)
			sameParse(t, p, b[:int(rng>>4)%len(b)])
			// A member repeated, a null, "type" moved, an unknown member, whitespace.
			sameParse(t, p, bytes.Replace(b, []byte(`,"`), []byte(`,"metadata":null,"`), 1))
			sameParse(t, p, bytes.Replace(b, []byte(`{"type"`), []byte(`{"x":1,"type"`), 1))
			sameParse(t, p, bytes.ReplaceAll(b, []byte(`:`), []byte(` : `)))
			if j := bytes.IndexByte(b[1:], ','); j > 0 {
				sameParse(t, p, append(append(append([]byte(nil), b[:len(b)-1]...), b[j+1:len(b)-1]...), '}'))
			}
		}
	}
}

// FuzzCompiledParse: on arbitrary text, under every option, Parse answers
// as the interpreter; what the compiled parsers accept, the interpreter
// reads to the same event, and encoding/json reads the same values.
func FuzzCompiledParse(f *testing.F) {
	for _, g := range loadGolden(f) {
		f.Add([]byte(g.Input), uint8(0))
	}
	for i, b := range loadCorpora(f) {
		f.Add(b, uint8(i))
	}
	f.Fuzz(func(t *testing.T, b []byte, pick uint8) {
		sameParse(t, parsers[int(pick)%len(parsers)], b)
	})
}
