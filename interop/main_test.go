package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// One peer per test binary, started by the first test that needs it and
// stopped by TestMain.
var (
	peerOnce sync.Once
	thePeer  *Peer
	peerErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if thePeer != nil {
		if err := thePeer.Close(); err != nil && code == 0 {
			fmt.Fprintf(os.Stderr, "interop: peer exited with %v\n%s", err, thePeer.Stderr())
			code = 1
		}
	}
	os.Exit(code)
}

// peer returns the shared reference peer. Without node or the installed
// packages the test is skipped, or fails when the CI variable is set.
func peer(t testing.TB) *Peer {
	t.Helper()
	peerOnce.Do(func() { thePeer, peerErr = Start(Options{}) })
	if peerErr != nil {
		if errors.Is(peerErr, ErrUnavailable) {
			if os.Getenv("CI") != "" {
				t.Fatalf("%v\n(CI is set, so the interop tests fail instead of skipping)", peerErr)
			}
			t.Skipf("%v (skipping; set CI=1 to make this a failure)", peerErr)
		}
		t.Fatalf("starting the reference peer: %v", peerErr)
	}
	return thePeer
}

// do sends a batch to the peer and fails the test if the peer does not answer.
func do(t testing.TB, reqs ...Request) []Response {
	t.Helper()
	resps, err := peer(t).Do(reqs...)
	if err != nil {
		t.Fatal(err)
	}
	return resps
}

// ---------------------------------------------------------------------------
// The fixture corpus

type fixture struct {
	Name      string          `json:"name"`
	Event     json.RawMessage `json:"event"` // the event's text exactly as written
	IntKeys   bool            `json:"intKeys"`
	Lossy     bool            `json:"lossy"`
	PeerWarns bool            `json:"peerWarns"`

	Type string `json:"-"` // the event's "type"
}

const fixturesPath = "fixtures/events.jsonl"

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	data, err := os.ReadFile(fixturesPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f fixture
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatalf("%s:%d: %v", fixturesPath, lineNo, err)
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(f.Event, &head); err != nil || head.Type == "" {
			t.Fatalf("%s:%d: event has no type (%v)", fixturesPath, lineNo, err)
		}
		f.Type = head.Type
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// peerCase is what the peer makes of one fixture: proto.encode(event), and
// proto.decode of those bytes. Decoded is the reference every comparison
// uses: the event as the peer itself reads its own bytes.
type peerCase struct {
	fixture
	Encode  Response
	Bytes   []byte // nil if encode threw
	Decode  Response
	Decoded json.RawMessage // nil if decode threw
}

var (
	corpusOnce sync.Once
	corpusData []peerCase
	corpusErr  error
)

// corpus runs every fixture through the peer once per test binary, in two
// pipelined batches.
func corpus(t testing.TB) []peerCase {
	t.Helper()
	p := peer(t)
	fixtures := loadFixtures(t)
	corpusOnce.Do(func() {
		corpusData, corpusErr = buildCorpus(p, fixtures)
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusData
}

func buildCorpus(p *Peer, fixtures []fixture) ([]peerCase, error) {
	cases := make([]peerCase, len(fixtures))
	encodes := make([]Request, len(fixtures))
	for i, f := range fixtures {
		cases[i].fixture = f
		encodes[i] = EncodeRequest(f.Event)
	}
	resps, err := p.Do(encodes...)
	if err != nil {
		return nil, err
	}
	var decodes []Request
	var idx []int
	for i := range cases {
		cases[i].Encode = resps[i]
		if !resps[i].OK {
			continue
		}
		b, err := resps[i].Bytes()
		if err != nil {
			return nil, fmt.Errorf("%s: peer hex: %v", cases[i].Name, err)
		}
		cases[i].Bytes = b
		decodes = append(decodes, DecodeRequest(b))
		idx = append(idx, i)
	}
	resps, err = p.Do(decodes...)
	if err != nil {
		return nil, err
	}
	for j, i := range idx {
		cases[i].Decode = resps[j]
		if resps[j].OK {
			cases[i].Decoded = resps[j].Event
		}
	}
	return cases, nil
}

// ---------------------------------------------------------------------------
// Semantic JSON comparison

// jsonDiff compares two JSON texts as JSON values: object key order does not
// matter, numbers compare as the doubles they denote (both peers hold every
// dynamic number as a double) and a negative zero differs from a positive
// one (both peers keep the sign). It returns "" when they are equal and
// otherwise the first difference found.
func jsonDiff(a, b []byte) string {
	va, err := parseJSON(a)
	if err != nil {
		return fmt.Sprintf("left is not JSON: %v", err)
	}
	vb, err := parseJSON(b)
	if err != nil {
		return fmt.Sprintf("right is not JSON: %v", err)
	}
	return diffValue(va, vb, "")
}

func parseJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func diffValue(a, b any, path string) string {
	at := func() string {
		if path == "" {
			return "/"
		}
		return path
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object vs %s", at(), brief(b))
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			va, okA := x[k]
			vb, okB := y[k]
			switch {
			case !okA:
				return fmt.Sprintf("%s/%s: absent vs %s", path, k, brief(vb))
			case !okB:
				return fmt.Sprintf("%s/%s: %s vs absent", path, k, brief(va))
			}
			if d := diffValue(va, vb, path+"/"+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("%s: array vs %s", at(), brief(b))
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: array of %d vs array of %d", at(), len(x), len(y))
		}
		for i := range x {
			if d := diffValue(x[i], y[i], path+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: %s vs %s", at(), x, brief(b))
		}
		fa, _ := strconv.ParseFloat(string(x), 64) // ±Inf on overflow is the double meant
		fb, _ := strconv.ParseFloat(string(y), 64)
		if fa != fb || math.Signbit(fa) != math.Signbit(fb) {
			return fmt.Sprintf("%s: %s vs %s", at(), x, y)
		}
		return ""
	default: // string, bool, nil
		if a != b {
			return fmt.Sprintf("%s: %s vs %s", at(), brief(a), brief(b))
		}
		return ""
	}
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = s[:597] + "..."
	}
	return s
}
