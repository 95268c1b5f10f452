package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// demoEvent is one line of the built-in run, recounted independently of the
// demo's code.
type demoEvent struct {
	typ   event.Type
	json  string // the line, which is the event's canonical JSON
	frame int    // its frame under the 1.0 profile, prefix included
}

func demoEvents(t *testing.T) []demoEvent {
	t.Helper()
	var out []demoEvent
	for _, line := range events(string(demoRun)) {
		ev, err := event.Parse([]byte(line))
		if err != nil {
			t.Fatalf("demo-run.jsonl: %v: %s", err, line)
		}
		var buf bytes.Buffer
		w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
		if err := w.WriteJSON([]byte(line)); err != nil {
			t.Fatalf("demo-run.jsonl: %v", err)
		}
		out = append(out, demoEvent{typ: ev.Type(), json: line, frame: int(w.BytesWritten())})
	}
	return out
}

// TestDemoRun checks the embedded sample: canonical JSON (so that the sizes
// the demo shows are those of the file's lines) and the content the demo is
// meant to show.
func TestDemoRun(t *testing.T) {
	evs := demoEvents(t)
	seen := map[event.Type]int{}
	for i, e := range evs {
		ev, _ := event.Parse([]byte(e.json))
		js, err := event.Marshal(ev)
		if err != nil || string(js) != e.json {
			t.Errorf("line %d is not canonical:\n got %s\nwant %s", i+1, e.json, js)
		}
		seen[e.typ]++
	}
	for _, typ := range []event.Type{
		event.TypeRunStarted, event.TypeStepStarted, event.TypeTextMessageStart, event.TypeTextMessageEnd,
		event.TypeToolCallStart, event.TypeToolCallEnd, event.TypeToolCallResult, event.TypeStateSnapshot,
		event.TypeStateDelta, event.TypeActivitySnapshot, event.TypeReasoningStart, event.TypeReasoningMessageStart,
		event.TypeReasoningMessageContent, event.TypeReasoningMessageEnd, event.TypeReasoningEnd,
		event.TypeMessagesSnapshot, event.TypeCustom, event.TypeStepFinished, event.TypeRunFinished,
	} {
		if seen[typ] == 0 {
			t.Errorf("the demo run has no %s", typ)
		}
	}
	for _, typ := range []event.Type{event.TypeTextMessageContent, event.TypeToolCallArgs} {
		if seen[typ] < 2 {
			t.Errorf("the demo run has %d %s, want several", seen[typ], typ)
		}
	}
	if evs[0].typ != event.TypeRunStarted || evs[len(evs)-1].typ != event.TypeRunFinished {
		t.Errorf("the demo run goes from %s to %s", evs[0].typ, evs[len(evs)-1].typ)
	}
	for _, want := range []string{
		`"input":{`, `"role":"user"`, `"parameters":{"type":"object"`, // RUN_STARTED's input
		`"metadata":{"ag-ui":{"usage":{`, `"finishReason":"stop"`, // TEXT_MESSAGE_END
		`"provider":"openai","latencyMs":`,                   // TOOL_CALL_END
		`"toolCalls":[{`, `"role":"system"`, `"role":"tool"`, // MESSAGES_SNAPSHOT
		`"outcome":{"type":"success"},"usage":[{`, // RUN_FINISHED
	} {
		if !strings.Contains(string(demoRun), want) {
			t.Errorf("the demo run lacks %s", want)
		}
	}
}

// demoRow matches a row of the demo's table: #, type, JSON, frame.
var demoRowRE = regexp.MustCompile(`^ *(\d+)  ([A-Z_]+) +(\d+) +(\d+|refused)  `)

// demoTotalsRE matches the totals line.
var demoTotalsRE = regexp.MustCompile(`(?m)^(\d+) events( sent)?: SSE (\d+) bytes, binary (\d+) bytes, ratio (\d\.\d\d)`)

func TestDemo(t *testing.T) {
	evs := demoEvents(t)
	out, errOut, code := agwire(t, nil, "demo")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	t.Logf("\n%s", out)
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > demoWidth {
			t.Errorf("line %d is %d columns wide: %s", i+1, n, line)
		}
	}

	// One row per event, with its sizes.
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		if m := demoRowRE.FindStringSubmatch(line); m != nil {
			rows = append(rows, m)
		}
	}
	if len(rows) != len(evs) {
		t.Fatalf("%d rows for %d events", len(rows), len(evs))
	}
	sse, binary := 0, 0
	for i, e := range evs {
		want := []string{strconv.Itoa(i + 1), string(e.typ), strconv.Itoa(len(e.json)), strconv.Itoa(e.frame)}
		if got := rows[i][1:]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %v, want %v", got, want)
		}
		sse += len("data: ") + len(e.json) + len("\n\n")
		binary += e.frame
	}

	// The totals, recounted.
	m := demoTotalsRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no totals line in:\n%s", out)
	}
	ratio := strconv.FormatFloat(float64(binary)/float64(sse), 'f', 2, 64)
	if m[1] != strconv.Itoa(len(evs)) || m[2] != "" || m[3] != strconv.Itoa(sse) || m[4] != strconv.Itoa(binary) || m[5] != ratio {
		t.Errorf("totals %q; want %d events, SSE %d, binary %d, ratio %s", m[0], len(evs), sse, binary, ratio)
	}
	if !strings.Contains(out, "Round trip OK") {
		t.Error("no round-trip verdict")
	}
	for _, want := range []string{"finishReason", "latencyMs", `"Tomorrow in Lisbon`, "get_forecast"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summaries do not mention %s", want)
		}
	}

	// -o writes the same to a file.
	file := filepath.Join(t.TempDir(), "demo.txt")
	if o, errOut, code := agwire(t, nil, "demo", "-o", file); code != 0 || o != "" || errOut != "" {
		t.Fatalf("-o: exit %d, stdout %q, stderr %s", code, o, errOut)
	}
	if b, _ := os.ReadFile(file); string(b) != out {
		t.Error("-o wrote something else")
	}
}

func TestDemoJSON(t *testing.T) {
	evs := demoEvents(t)
	out, errOut, code := agwire(t, nil, "demo", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(evs) {
		t.Fatalf("%d lines for %d events", len(lines), len(evs))
	}
	for i, line := range lines {
		ev, err := event.Parse([]byte(line))
		if err != nil {
			t.Errorf("line %d: %v", i+1, err)
			continue
		}
		if ev.Type() != evs[i].typ || line != evs[i].json {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, line, evs[i].json)
		}
	}
	// The totals go to stderr, out of the way of the JSON.
	if !demoTotalsRE.MatchString(errOut) || !strings.Contains(errOut, "Round trip OK") {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestDemoProfilePreV1(t *testing.T) {
	evs := demoEvents(t)
	out, errOut, code := agwire(t, nil, "demo", "--profile", "pre-1.0")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	t.Logf("\n%s", out)

	// The events a pre-1.0 peer cannot read are those outside envelope
	// arms 1..18.
	var want []string
	sse, binary, sent := 0, 0, 0
	for i, e := range evs {
		later := strings.HasPrefix(string(e.typ), "SUBAGENT_") || strings.HasPrefix(string(e.typ), "ACTIVITY_") ||
			strings.HasPrefix(string(e.typ), "REASONING_") || e.typ == event.TypeToolCallResult
		if later {
			want = append(want, strconv.Itoa(i+1)+" "+string(e.typ))
			continue
		}
		sent++
		sse += len(e.json) + 8
		binary += e.frame
	}
	if len(want) == 0 {
		t.Fatal("the demo run has no event that pre-1.0 refuses")
	}
	_, list, ok := strings.Cut(out, "The pre-1.0 profile refuses "+strconv.Itoa(len(want))+" of the "+strconv.Itoa(len(evs))+" events")
	if !ok {
		t.Fatalf("no refusal list in:\n%s", out)
	}
	if !strings.Contains(list, "event is not part of the selected peer profile: pre-1.0 peers know only the first 18 envelope arms:\n") {
		t.Errorf("the list does not give the codec's error:\n%s", list)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^    (\d+) +([A-Z_]+)$`).FindAllStringSubmatch(list, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("refused %v\nwant %v", got, want)
	}
	refusedRows := 0
	for _, line := range strings.Split(out, "\n") {
		if m := demoRowRE.FindStringSubmatch(line); m != nil && m[4] == "refused" {
			refusedRows++
		}
	}
	if refusedRows != len(want) {
		t.Errorf("%d rows say refused, want %d", refusedRows, len(want))
	}
	m := demoTotalsRE.FindStringSubmatch(out)
	if m == nil || m[1] != strconv.Itoa(sent) || m[2] != " sent" || m[3] != strconv.Itoa(sse) || m[4] != strconv.Itoa(binary) {
		t.Errorf("totals %q; want %d events sent, SSE %d, binary %d", m, sent, sse, binary)
	}
}

func TestDemoInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// Another run, from a file or standard input.
	out, errOut, code := agwire(t, nil, "demo", "-i", "testdata/sample.jsonl")
	if code != 0 || errOut != "" || !strings.Contains(out, "of testdata/sample.jsonl") || !demoTotalsRE.MatchString(out) {
		t.Errorf("-i: exit %d, stderr %s, stdout:\n%s", code, errOut, out)
	}
	out, _, code = agwire(t, sample(t), "demo", "-i", "-", "--json")
	if code != 0 || len(events(out)) != len(events(string(sample(t)))) {
		t.Errorf("-i -: exit %d, stdout:\n%s", code, out)
	}

	// 1.0 is a double on the wire and comes back as 1: the round trip
	// changes the JSON, and the demo says so.
	changed := write("changed.jsonl", `{"type":"STEP_STARTED","stepName":"a"}`+"\n"+`{"type":"STATE_SNAPSHOT","snapshot":{"x":1.0}}`+"\n")
	out, errOut, code = agwire(t, nil, "demo", "-i", changed)
	if code != 1 {
		t.Errorf("changed: exit %d, want 1", code)
	}
	for _, want := range []string{
		"agwire demo: line 2 (STATE_SNAPSHOT): decodes to different JSON:\n",
		`sent     {"type":"STATE_SNAPSHOT","snapshot":{"x":1.0}}`,
		`received {"type":"STATE_SNAPSHOT","snapshot":{"x":1}}`,
		"agwire demo: round trip FAILED for 1 event of 2\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("changed: stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "ROUND TRIP FAILED") || !strings.Contains(out, "Round trip FAILED for 1 event") {
		t.Errorf("changed: stdout:\n%s", out)
	}

	// An event the codec refuses for another reason than the profile is a
	// failure.
	thinking := write("thinking.jsonl", `{"type":"THINKING_START","title":"plan"}`+"\n")
	if _, errOut, code := agwire(t, nil, "demo", "-i", thinking); code != 1 || !strings.Contains(errOut, "line 1 (THINKING_START): cannot be encoded: ") {
		t.Errorf("thinking: exit %d, stderr %s", code, errOut)
	}

	// Input that does not parse, or is not there.
	bad := write("bad.jsonl", `{"type":"STEP_STARTED","stepName":"a"}`+"\n\n"+`{"type":"NOPE"}`+"\n")
	if out, errOut, code := agwire(t, nil, "demo", "-i", bad); code != 1 || out != "" || !strings.HasPrefix(errOut, "agwire demo: line 3: ") {
		t.Errorf("bad: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if _, errOut, code := agwire(t, nil, "demo", "-i", filepath.Join(dir, "missing.jsonl")); code != 1 || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("missing: exit %d, stderr %s", code, errOut)
	}
	// An empty input is taken as the other commands take it (TestDemoEmptyInput).
	if _, errOut, code := agwire(t, nil, "demo", "-i", write("empty.jsonl", "\n\n")); code != 0 || !strings.Contains(errOut, "the input is empty: no events written") {
		t.Errorf("empty: exit %d, stderr %s", code, errOut)
	}
}

func TestDemoUsage(t *testing.T) {
	out, _, code := agwire(t, nil, "help")
	if code != 0 || !strings.Contains(out, "\tdemo ") || !strings.Contains(out, "\tinspect ") {
		t.Errorf("help: exit %d:\n%s", code, out)
	}
	out, _, code = agwire(t, nil, "demo", "--help")
	for _, want := range []string{"Usage: agwire demo", "--json", "--profile 1.0|1.1|pre-1.0", "-o FILE", "-i FILE", "Example:\n  agwire demo\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("demo --help: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
	if _, errOut, code := agwire(t, nil, "demo", "extra"); code != 2 || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("demo extra: exit %d, stderr %s", code, errOut)
	}
}
