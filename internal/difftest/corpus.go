package difftest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// Root returns the repository's root directory: the nearest directory
// above the working directory (a test's package directory) that holds
// go.mod and codec/testdata.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "codec", "testdata", goldenFile)); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("difftest: no directory above the working directory holds codec/testdata/%s", goldenFile)
		}
		dir = up
	}
}

const goldenFile = "golden-peer-1.0.0.jsonl"

// Golden is one line of codec/testdata/golden-peer-1.0.0.jsonl, written
// by interop/regen-golden.sh from the real @ag-ui/proto@1.0.0: the JSON
// event the peer was given, the wire it wrote, and what it decodes to.
type Golden struct {
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Hex       string          `json:"hex"`
	Decoded   json.RawMessage `json:"decoded"`
	IntKeys   bool            `json:"intKeys"`   // the input has integer-like keys
	Lossy     bool            `json:"lossy"`     // a number of the input is not a double's
	PeerWarns bool            `json:"peerWarns"` // the peer warns about the input
}

// Wire returns the peer's frame.
func (g Golden) Wire() []byte {
	b, err := hex.DecodeString(g.Hex)
	if err != nil {
		panic("difftest: golden frame " + g.Name + ": " + err.Error())
	}
	return b
}

// LoadGolden returns the golden frames, all of them (at least 100).
func LoadGolden(t testing.TB) []Golden {
	t.Helper()
	f, err := os.Open(filepath.Join(Root(t), "codec", "testdata", goldenFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Golden
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var g Golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("golden line %d: %v", len(out)+1, err)
		}
		if _, err := hex.DecodeString(g.Hex); err != nil {
			t.Fatalf("golden line %d (%s): hex: %v", len(out)+1, g.Name, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d golden frames", len(out))
	}
	return out
}

// Corpus is the shared corpus of AG-UI JSON events, canonical and not,
// valid and not, beside the golden frames.
type Corpus struct {
	// Conformance holds the events of the AG-UI 1.0 conformance streams
	// (conformance/testdata/1.0/streams), each as written and compact.
	Conformance [][]byte
	// Seeds holds the seeds of the JSON fuzz target FuzzJSONRoundTrip.
	Seeds [][]byte
	// Edges holds the hand-written edge cases (Edges).
	Edges [][]byte
	// Members holds, for every event type, its richest valid event
	// (canonical) and that event with each member, at every depth,
	// absent and null (Members).
	Members [][]byte
}

// Load reads the corpus.
func Load(t testing.TB) *Corpus {
	t.Helper()
	root := Root(t)
	c := &Corpus{Members: Members(LoadGolden(t))}
	streams, _ := filepath.Glob(filepath.Join(root, "conformance", "testdata", "1.0", "streams", "*.json"))
	for _, f := range streams {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Stream []json.RawMessage }
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, ev := range s.Stream {
			var compact bytes.Buffer
			if err := json.Compact(&compact, ev); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			c.Conformance = append(c.Conformance, ev, compact.Bytes())
		}
	}
	seeds, _ := filepath.Glob(filepath.Join(root, "fuzz", "testdata", "fuzz", "FuzzJSONRoundTrip", "*"))
	for _, f := range seeds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "[]byte("); ok {
				if v, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					c.Seeds = append(c.Seeds, []byte(v))
				}
			}
		}
	}
	for _, e := range Edges {
		c.Edges = append(c.Edges, []byte(e))
	}
	if len(streams) < 50 || len(c.Conformance)+len(c.Seeds) < 200 {
		t.Fatalf("corpus: %d streams, %d conformance events, %d seeds", len(streams), len(c.Conformance), len(c.Seeds))
	}
	return c
}

// Texts returns every text of the corpus: Conformance, Seeds, Edges and
// Members, in that order.
func (c *Corpus) Texts() [][]byte {
	var out [][]byte
	for _, g := range [][][]byte{c.Conformance, c.Seeds, c.Edges, c.Members} {
		out = append(out, g...)
	}
	return out
}

// Members returns, for every event type, its richest valid event: of the
// canonical texts (event.Marshal's) of the golden inputs and of the filled
// events of seeds 0 to 3999 of that type, the one with the most paths of
// keys (list indexes left out), the shortest of those; and, for every
// member of that text at every depth, the text with the member absent and
// with its value null (once per path: of the members of a list's elements,
// those of the first element that has them). The richest texts come
// first, in the order of event.Types().
func Members(golden []Golden) [][]byte {
	type best struct {
		text  []byte
		paths int
	}
	richest := map[event.Type]best{}
	keep := func(ev event.Event, err error) {
		if err != nil || ev == nil || !ev.Type().Known() {
			return
		}
		b, err := event.Marshal(ev)
		if err != nil {
			return
		}
		n := len(paths(b))
		if r, ok := richest[ev.Type()]; !ok || n > r.paths || n == r.paths && len(b) < len(r.text) {
			richest[ev.Type()] = best{b, n}
		}
	}
	for _, g := range golden {
		keep(event.Parse(g.Input))
	}
	for seed := range 4000 {
		keep(Fill(seed), nil)
	}
	var out [][]byte
	for _, ty := range event.Types() {
		if r, ok := richest[ty]; ok {
			out = append(out, r.text)
		}
	}
	for _, ty := range event.Types() {
		r, ok := richest[ty]
		if !ok {
			continue
		}
		for _, m := range paths(r.text) {
			out = append(out, without(r.text, m), withNull(r.text, m))
		}
	}
	return out
}

// paths returns the members of compact JSON text b, at every depth, the
// first of each path.
func paths(b []byte) []member {
	var ms, out []member
	scanValue(b, 0, "", &ms)
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.path] {
			seen[m.path] = true
			out = append(out, m)
		}
	}
	return out
}

// member is the place of one object member in a compact JSON text: its
// key's opening quote, its value's first byte, and one past its value;
// path is the keys leading to it, from the outermost (list indexes left
// out).
type member struct {
	start, value, end int
	path              string
}

// scanValue records the members of the JSON value at b[i:] (valid, as
// event.Marshal writes it), at every depth, and returns the index after
// the value and the whitespace after it; path is the value's. A member's
// end is the end of its value, whitespace excluded.
func scanValue(b []byte, i int, path string, out *[]member) int {
	i = space(b, i)
	switch b[i] {
	case '{':
		i = space(b, i+1)
		if b[i] == '}' {
			return space(b, i+1)
		}
		for {
			start := i
			key := skipString(b, i)
			p := path + "/" + string(b[start:key])
			v := space(b, space(b, key)+1) // after the colon
			i = scanValue(b, v, p, out)
			end := i
			for end > v && isSpace(b[end-1]) {
				end--
			}
			*out = append(*out, member{start, v, end, p})
			if b[i] == '}' {
				return space(b, i+1)
			}
			i = space(b, i+1) // after a comma
		}
	case '[':
		i = space(b, i+1)
		if b[i] == ']' {
			return space(b, i+1)
		}
		for {
			i = scanValue(b, i, path, out)
			if b[i] == ']' {
				return space(b, i+1)
			}
			i++
		}
	case '"':
		return space(b, skipString(b, i))
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return space(b, i)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// space returns the index of the first byte at or after i that is not
// whitespace.
func space(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index after the string at b[i:].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// without returns b without member m (and one comma beside it).
func without(b []byte, m member) []byte {
	start, end := m.start, space(b, m.end)
	switch {
	case b[end] == ',':
		end++
	default:
		for start > 0 && isSpace(b[start-1]) {
			start--
		}
		if b[start-1] == ',' {
			start--
		} else {
			start = m.start
		}
	}
	return append(append([]byte(nil), b[:start]...), b[end:]...)
}

// withNull returns b with member m's value replaced by null.
func withNull(b []byte, m member) []byte {
	return append(append(append([]byte(nil), b[:m.value]...), "null"...), b[m.end:]...)
}
