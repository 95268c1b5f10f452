package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/assemble/assembletest"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// The conversation agwire assembles is the one @ag-ui/client@1.0.0
// assembles: for hand-written runs and for generatedRuns random valid runs,
// from JSON lines and from binary frames, agwire's messages and state equal
// the client's by value, and agwire's printed conversation is the text
// JSON.stringify gives of the client's (the same members in the same order).

const generatedRuns = 250

// assembleCorpus is every stream the comparison runs, hand-written first.
type corpusRun struct {
	name  string
	lines []string
}

func assembleCorpus(t *testing.T) []corpusRun {
	t.Helper()
	var runs []corpusRun
	for _, h := range handWritten {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(h.jsonl), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		runs = append(runs, corpusRun{h.name, lines})
	}
	runs = append(runs, corpusRun{"realistic run", assembletest.Realistic(1).Lines})
	for seed := uint64(0); seed < generatedRuns; seed++ {
		s := assembletest.Generate(rand.New(rand.NewPCG(seed, 9)))
		runs = append(runs, corpusRun{fmt.Sprintf("generated seed %d", seed), s.Lines})
	}
	return runs
}

// clientResult is one line of assemble.mjs.
type clientResult struct {
	ID       int               `json:"id"`
	OK       bool              `json:"ok"`
	Error    string            `json:"error"`
	Messages json.RawMessage   `json:"messages"`
	State    json.RawMessage   `json:"state"`
	Warnings []string          `json:"warnings"`
	Events   []json.RawMessage `json:"events"` // with clientCompact: the client's compacted stream
}

// runClient assembles every stream with the real client, in one node process.
func runClient(t *testing.T, streams [][]string) []clientResult {
	t.Helper()
	return runClientCompacting(t, streams, nil)
}

// runClientCompacting is runClient; for each stream i with clientCompact[i]
// the client first compacts it with its own compactEvents.
func runClientCompacting(t *testing.T, streams [][]string, clientCompact []bool) []clientResult {
	t.Helper()
	dir := sourceDir()
	nodePath, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: %s (CI is set, so this fails instead of skipping)", err, InstallHint)
		}
		t.Skipf("%v: %s", err, InstallHint)
	}
	var in bytes.Buffer
	for i, s := range streams {
		fmt.Fprintf(&in, `{"id":%d,"clientCompact":%v,"events":[%s]}`+"\n", i, i < len(clientCompact) && clientCompact[i], strings.Join(s, ","))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, "assemble.mjs")
	cmd.Dir = dir
	cmd.Env = nodeEnv()
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node assemble.mjs: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	var results []clientResult
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r clientResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("assemble.mjs output: %v: %s", err, sc.Bytes())
		}
		results = append(results, r)
	}
	if len(results) != len(streams) {
		t.Fatalf("assemble.mjs answered %d of %d streams\nstderr:\n%s", len(results), len(streams), stderr.Bytes())
	}
	return results
}

// sequenceError applies the events with sequence checking on and returns
// the first event it refuses (a failed patch is not a sequence error).
func sequenceError(lines []string) error {
	c, _ := assemble.New(assemble.Options{Check: true})
	for _, l := range lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			return err
		}
		var se *assemble.SequenceError
		if err := c.Apply(ev); errors.As(err, &se) {
			return err
		}
	}
	return nil
}

// goAssemble applies events as the client does: a failed patch is reported
// and the stream goes on (the client warns and goes on); any other error is
// returned.
func goAssemble(seq func(func(event.Event, error) bool)) (*assemble.Conversation, int, error) {
	c, err := assemble.New(assemble.Options{})
	if err != nil {
		return nil, 0, err
	}
	failedPatches := 0
	for ev, err := range seq {
		if err != nil {
			return nil, 0, err
		}
		if err := c.Apply(ev); err != nil {
			var ae *assemble.ApplyError
			if errors.As(err, &ae) {
				failedPatches++
				continue
			}
			return nil, 0, err
		}
	}
	return c, failedPatches, nil
}

func fromLines(t *testing.T, lines []string) func(func(event.Event, error) bool) {
	return func(yield func(event.Event, error) bool) {
		for _, l := range lines {
			ev, err := event.Parse([]byte(l))
			if !yield(ev, err) {
				return
			}
		}
	}
}

// toBinary frames the events with agwire's codec.
func toBinary(t *testing.T, lines []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}})
	for _, l := range lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteEvent(ev); err != nil {
			t.Fatalf("encoding %s: %v", l, err)
		}
	}
	return buf.Bytes()
}

// conversationValue is {"messages":…,"state":…} as a comparable value.
func conversationValue(t *testing.T, messages, state []byte) any {
	t.Helper()
	var v struct {
		Messages any `json:"messages"`
		State    any `json:"state"`
	}
	if err := json.Unmarshal(messages, &v.Messages); err != nil {
		t.Fatalf("messages: %v: %s", err, messages)
	}
	if err := json.Unmarshal(state, &v.State); err != nil {
		t.Fatalf("state: %v: %s", err, state)
	}
	return v
}

func goValue(t *testing.T, c *assemble.Conversation) any {
	t.Helper()
	msgs, err := assemble.MarshalMessages(c.Messages())
	if err != nil {
		t.Fatal(err)
	}
	return conversationValue(t, msgs, c.State())
}

func TestAssembleMatchesClient(t *testing.T) {
	runs := assembleCorpus(t)
	// Each stream goes to the client twice: as it is, and as agwire's
	// Compact leaves it.
	streams := make([][]string, 2*len(runs))
	compactedEvents := 0
	for i, r := range runs {
		streams[i] = r.lines
		var evs []event.Event
		for _, l := range r.lines {
			ev, err := event.Parse([]byte(l))
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		compacted, _, err := assemble.Compact(evs, assemble.Options{})
		if err != nil {
			// Only a stream with a failing patch is refused; replay it whole.
			var pe *assemble.PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: compact: %v", r.name, err)
			}
			compacted = evs
		}
		for _, ev := range compacted {
			b, err := event.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			streams[len(runs)+i] = append(streams[len(runs)+i], string(b))
		}
		compactedEvents += len(compacted)
	}
	start := time.Now()
	results := runClient(t, streams)
	t.Logf("the client assembled %d streams in %v", len(streams), time.Since(start).Round(time.Millisecond))
	for i, r := range runs {
		orig, comp := results[i], results[len(runs)+i]
		if !comp.OK {
			t.Errorf("%s: the client failed agwire's compacted stream: %s\n%s", r.name, comp.Error, strings.Join(streams[len(runs)+i], "\n"))
			continue
		}
		if err := sequenceError(streams[len(runs)+i]); err != nil {
			t.Errorf("%s: agwire's checker refuses the compacted stream the client's verifier accepts: %v", r.name, err)
		}
		if !orig.OK {
			continue // reported below
		}
		if !reflect.DeepEqual(conversationValue(t, comp.Messages, comp.State), conversationValue(t, orig.Messages, orig.State)) {
			t.Errorf("%s: the client assembles agwire's compacted stream to\n{\"messages\":%s,\"state\":%s}\nand the original to\n{\"messages\":%s,\"state\":%s}\ncompacted:\n%s",
				r.name, comp.Messages, comp.State, orig.Messages, orig.State, strings.Join(streams[len(runs)+i], "\n"))
		}
	}
	events, failedPatches, warned, identical := 0, 0, 0, 0
	types := map[event.Type]int{}
	for i, r := range runs {
		res := results[i]
		if !res.OK {
			t.Errorf("%s: the client failed the run: %s", r.name, res.Error)
			continue
		}
		if len(res.Warnings) > 0 {
			warned++
		}
		// What the client's verifier accepts, agwire's checker accepts.
		if err := sequenceError(r.lines); err != nil {
			t.Errorf("%s: agwire's sequence checking refuses what the client's verifier accepts: %v", r.name, err)
		}
		fromJSON, failed, err := goAssemble(fromLines(t, r.lines))
		if err != nil {
			t.Errorf("%s: from JSON: %v", r.name, err)
			continue
		}
		bin := toBinary(t, r.lines)
		fromBinary, _, err := goAssemble(framing.NewReader(bytes.NewReader(bin), framing.ReaderOptions{}).Events())
		if err != nil {
			t.Errorf("%s: from binary: %v", r.name, err)
			continue
		}
		want := conversationValue(t, res.Messages, res.State)
		if got := goValue(t, fromJSON); !reflect.DeepEqual(got, want) {
			gj, _ := fromJSON.MarshalJSON()
			t.Errorf("%s: from JSON lines, agwire assembles\n%s\nthe client\n{\"messages\":%s,\"state\":%s}\nevents:\n%s", r.name, gj, res.Messages, res.State, strings.Join(r.lines, "\n"))
			continue
		}
		if got := goValue(t, fromBinary); !reflect.DeepEqual(got, want) {
			gj, _ := fromBinary.MarshalJSON()
			t.Errorf("%s: from binary, agwire assembles\n%s\nthe client\n{\"messages\":%s,\"state\":%s}", r.name, gj, res.Messages, res.State)
			continue
		}
		// Equal by value is not all: agwire prints the conversation as the
		// client's JSON.stringify text, members in the client's order.
		wantText := `{"messages":` + string(res.Messages) + `,"state":` + string(res.State) + `}`
		for _, side := range []struct {
			name string
			c    *assemble.Conversation
		}{{"JSON lines", fromJSON}, {"binary", fromBinary}} {
			gj, err := side.c.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(gj) == wantText {
				identical++
			} else {
				t.Errorf("%s: from %s, agwire's text differs from the client's JSON.stringify:\n%s\nthe client\n%s", r.name, side.name, gj, wantText)
			}
		}
		events += len(r.lines)
		failedPatches += failed
		for _, l := range r.lines {
			ty, _ := event.TypeOf([]byte(l))
			types[ty]++
		}
	}
	t.Logf("%d streams (%d hand-written, 1 realistic, %d generated), %d events, %d event types; %d patches failed on both sides; %d streams drew client warnings; compacted: %d events",
		len(runs), len(handWritten), generatedRuns, events, len(types), failedPatches, warned, compactedEvents)
	t.Logf("identical text to the client's JSON.stringify: %d of %d conversations (each stream from JSON lines and from binary)", identical, 2*len(runs))
	var missing []string
	for _, ty := range event.Types() {
		if types[ty] == 0 {
			missing = append(missing, string(ty))
		}
	}
	t.Logf("event types not in the corpus: %v", missing)
}

// handWritten are the runs written for a rule each.
var handWritten = []struct{ name, jsonl string }{
	{"objects and numbers as JavaScript holds them", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STATE_SNAPSHOT","snapshot":{"b":1,"10":2,"2":3,"a":{"1":0,"x":1e2,"y":1.50,"z":-0,"w":0.0000001,"v":1e21,"u":"\u00e9\/"},"01":4,"4294967295":5,"4294967294":6}}
{"type":"STATE_DELTA","delta":[{"op":"add","path":"/7","value":[1.0,{"9":1,"8":2}]}]}
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"k":1.0,"3":"x"}}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"p","content":{"z":1,"0":2.5e0}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"metadata worked example", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"source":"openai","stage":"start"}}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hi","metadata":{"stage":"content"}}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"stage":"end","usage":{"output":340}}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"tags replaced, ag-ui replaced", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"tags":["a","b","c"],"ag-ui":{"usage":{"input":1}}}}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"tags":["z"],"ag-ui":{"x":null}}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"two tool calls, independent metadata, results placed after their owner", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"a"}
{"type":"TEXT_MESSAGE_END","messageId":"a"}
{"type":"TOOL_CALL_START","toolCallId":"t1","toolCallName":"f","parentMessageId":"a","metadata":{"provider":"anthropic"}}
{"type":"TOOL_CALL_START","toolCallId":"t2","toolCallName":"g","parentMessageId":"a","metadata":{"provider":"openai"}}
{"type":"TOOL_CALL_ARGS","toolCallId":"t2","delta":"{\"q\":","metadata":{"latencyMs":9}}
{"type":"TOOL_CALL_ARGS","toolCallId":"t1","delta":"{}","metadata":{"latencyMs":84}}
{"type":"TOOL_CALL_ARGS","toolCallId":"t2","delta":"1}"}
{"type":"TOOL_CALL_END","toolCallId":"t1"}
{"type":"TOOL_CALL_END","toolCallId":"t2","metadata":{"provider":null}}
{"type":"TEXT_MESSAGE_START","messageId":"b"}
{"type":"TEXT_MESSAGE_END","messageId":"b"}
{"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"t2","content":"two","metadata":{"cached":true}}
{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"t1","content":[{"type":"text","text":"one"}],"role":"tool"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"snapshot metadata reaches no message; snapshot inside an open stream", `
{"type":"RUN_STARTED","threadId":"t","runId":"r","metadata":{"run":1}}
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"a":1}}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"before "}
{"type":"MESSAGES_SNAPSHOT","metadata":{"snap":true},"messages":[{"id":"u","role":"user","content":"hi","metadata":{"own":1}},{"id":"m","role":"assistant","content":"snap"}]}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"after","metadata":{"b":2}}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"c":3}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","metadata":{"total":5}}`},
	{"parents created as the client creates them", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TOOL_CALL_START","toolCallId":"t0","toolCallName":"f"}
{"type":"TOOL_CALL_START","toolCallId":"t1","toolCallName":"f","parentMessageId":"p"}
{"type":"TEXT_MESSAGE_START","messageId":"p"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"x"}
{"type":"TEXT_MESSAGE_START","messageId":"u","role":"user"}
{"type":"TOOL_CALL_START","toolCallId":"t2","toolCallName":"g","parentMessageId":"u"}
{"type":"TOOL_CALL_END","toolCallId":"t0"}
{"type":"TOOL_CALL_END","toolCallId":"t1"}
{"type":"TOOL_CALL_END","toolCallId":"t2"}
{"type":"TEXT_MESSAGE_END","messageId":"p"}
{"type":"TEXT_MESSAGE_END","messageId":"u"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"chunks in lanes, with subagents", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"helper"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"He","metadata":{"a":1}}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"n","delta":"sub","subagentRunId":"s1"}
{"type":"TEXT_MESSAGE_CHUNK","delta":"llo","metadata":{"b":2}}
{"type":"TEXT_MESSAGE_CHUNK","delta":"agent","subagentRunId":"s1"}
{"type":"TOOL_CALL_CHUNK","toolCallId":"t","toolCallName":"f","parentMessageId":"m","delta":"{"}
{"type":"TOOL_CALL_CHUNK","delta":"}","metadata":{"late":true}}
{"type":"REASONING_MESSAGE_CHUNK","messageId":"r","delta":"think"}
{"type":"REASONING_MESSAGE_CHUNK","metadata":{"only":"metadata"}}
{"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}
{"type":"SUBAGENT_STARTED","subagentRunId":"s2","name":"other","parentSubagentRunId":"s1"}
{"type":"TOOL_CALL_CHUNK","toolCallId":"t2","toolCallName":"h","delta":"[]","subagentRunId":"s2"}
{"type":"SUBAGENT_ERROR","subagentRunId":"s2","message":"failed"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"q","role":"user","name":"bob"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"activity snapshots, replace and deltas", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"steps":[1]},"metadata":{"x":1}}
{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan2","patch":[{"op":"add","path":"/steps/-","value":2}],"metadata":{"y":2}}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan3","content":{"other":true},"replace":false,"metadata":{"z":3}}
{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan2","patch":[{"op":"remove","path":"/missing"}],"metadata":{"kept":"despite the failed patch"}}
{"type":"TEXT_MESSAGE_START","messageId":"b"}
{"type":"TEXT_MESSAGE_END","messageId":"b"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"q","content":{"k":1}}
{"type":"ACTIVITY_DELTA","messageId":"nope","activityType":"p","patch":[]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"messages snapshot keeps client-only activity and reasoning", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"keep","role":"user"}
{"type":"TEXT_MESSAGE_END","messageId":"keep"}
{"type":"TEXT_MESSAGE_START","messageId":"drop"}
{"type":"TEXT_MESSAGE_END","messageId":"drop"}
{"type":"REASONING_MESSAGE_START","messageId":"think","role":"reasoning"}
{"type":"REASONING_MESSAGE_END","messageId":"think"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"p","content":{}}
{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"new","role":"user","content":"n"},{"id":"keep","role":"user","content":"replaced"}]}
{"type":"ACTIVITY_SNAPSHOT","messageId":"act2","activityType":"q","content":{}}
{"type":"MESSAGES_SNAPSHOT","metadata":{"@ag-ui/client":{"authoritativeActivityTypes":["p"]}},"messages":[{"id":"keep","role":"user","content":"again"}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"state: snapshot, deltas, a failed delta left as it was", `
{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STATE_SNAPSHOT","snapshot":{"z":1.5,"list":[1,2],"a":{"b":100}},"metadata":{"s":1}}
{"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/1","value":9},{"op":"replace","path":"/z","value":2},{"op":"remove","path":"/a/b"},{"op":"add","path":"/new","value":null}]}
{"type":"STATE_DELTA","delta":[{"op":"add","path":"/ok","value":1},{"op":"test","path":"/z","value":3}]}
{"type":"STATE_DELTA","delta":[{"op":"move","from":"/list","path":"/a/moved"},{"op":"copy","from":"/a","path":"/copy"}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
	{"encrypted values, tool result without owner, run input messages", `
{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"in1","role":"user","content":"from input"}],"tools":[],"context":[]}}
{"type":"TOOL_CALL_START","toolCallId":"tc","toolCallName":"f"}
{"type":"TOOL_CALL_END","toolCallId":"tc"}
{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"tc","encryptedValue":"e1","metadata":{"stays":"on the event"}}
{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"in1","encryptedValue":"e2"}
{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"nobody","content":"orphan"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}
{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
{"type":"TEXT_MESSAGE_START","messageId":"m2"}
{"type":"RUN_ERROR","message":"boom"}`},
}

// TestAssemblePatchDivergences holds the recorded cases where agwire and the
// client treat a patch RFC 6902 (and the json-patch-tests suite) refuses
// differently. agwire refuses it with a *PatchError and leaves the state as
// it was. The client applies a leading-zero array index (its JSON Patch
// library reads "01" as 1), and fails the whole run on a pointer with a ~ not
// followed by 0 or 1 (its event schema refuses the path). The test checks
// that both still behave exactly so, and logs each as DIVERGENCE.
func TestAssemblePatchDivergences(t *testing.T) {
	cases := []struct {
		name, patch string
		clientState string // "" when the client fails the run
		clientError string
		agwire      error
	}{
		{"array index with a leading zero", `[{"op":"add","path":"/a/01","value":9}]`, `{"a":[1,9,2],"o":{}}`, "", assemble.ErrPatchPath},
		{"~ not followed by 0 or 1 in a pointer", `[{"op":"add","path":"/o/~2","value":1}]`, "", "must match pattern", assemble.ErrPatchInvalid},
	}
	var streams [][]string
	for _, c := range cases {
		streams = append(streams, []string{
			`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
			`{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2],"o":{}}}`,
			`{"type":"STATE_DELTA","delta":` + c.patch + `}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		})
	}
	results := runClient(t, streams)
	for i, c := range cases {
		res := results[i]
		client := ""
		if c.clientState != "" {
			var want, got any
			json.Unmarshal([]byte(c.clientState), &want)
			json.Unmarshal(res.State, &got)
			if !res.OK || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the client now gives %s (ok %v, %s), not %s", c.name, res.State, res.OK, res.Error, c.clientState)
			}
			client = "applies it (state " + c.clientState + ")"
		} else {
			if res.OK || !strings.Contains(res.Error, c.clientError) {
				t.Errorf("%s: the client now gives ok %v, %q", c.name, res.OK, res.Error)
			}
			client = "fails the run (its event schema refuses the path)"
		}
		conv, _ := assemble.New(assemble.Options{})
		var applyErr error
		for _, l := range streams[i] {
			ev, err := event.Parse([]byte(l))
			if err != nil {
				t.Fatal(err)
			}
			var ae *assemble.ApplyError
			if err := conv.Apply(ev); errors.As(err, &ae) {
				applyErr = err
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if !errors.Is(applyErr, c.agwire) || string(conv.State()) != `{"a":[1,2],"o":{}}` {
			t.Errorf("%s: agwire now gives %s, %v", c.name, conv.State(), applyErr)
		}
		t.Logf("DIVERGENCE: %s, %s: the client %s; agwire refuses the patch and keeps the state: %v", c.name, c.patch, client, applyErr)
	}
}

// TestSequenceErrorsMatchClient: streams the client's verifier (or its chunk
// expansion) refuses, and the typed error agwire's sequence checking gives
// for each. Both must refuse.
func TestSequenceErrorsMatchClient(t *testing.T) {
	const start = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	const finish = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	cases := []struct {
		name  string
		lines []string
		want  error
	}{
		{"first event not RUN_STARTED", []string{`{"type":"TEXT_MESSAGE_START","messageId":"m"}`}, assemble.ErrSeqFirstEvent},
		{"content never started", []string{start, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`}, assemble.ErrSeqNotActive},
		{"end never started", []string{start, `{"type":"TOOL_CALL_END","toolCallId":"t"}`}, assemble.ErrSeqNotActive},
		{"message open at RUN_FINISHED", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, finish}, assemble.ErrSeqOpenAtFinish},
		{"step open at RUN_FINISHED", []string{start, `{"type":"STEP_STARTED","stepName":"s"}`, finish}, assemble.ErrSeqOpenAtFinish},
		{"tool call open at RUN_FINISHED", []string{start, `{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f"}`, finish}, assemble.ErrSeqOpenAtFinish},
		{"reasoning open at RUN_FINISHED", []string{start, `{"type":"REASONING_START","messageId":"r"}`, finish}, assemble.ErrSeqOpenAtFinish},
		{"event after RUN_FINISHED", []string{start, finish, `{"type":"CUSTOM","name":"x","value":1}`}, assemble.ErrSeqAfterFinish},
		{"event after RUN_ERROR", []string{start, `{"type":"RUN_ERROR","message":"boom"}`, `{"type":"CUSTOM","name":"x","value":1}`}, assemble.ErrSeqAfterError},
		{"RUN_STARTED while a run is active", []string{start, start}, assemble.ErrSeqRunActive},
		{"message started twice", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`}, assemble.ErrSeqAlreadyActive},
		{"step finished never started", []string{start, `{"type":"STEP_FINISHED","stepName":"s"}`}, assemble.ErrSeqNotActive},
		{"subagent finished never started", []string{start, `{"type":"SUBAGENT_FINISHED","subagentRunId":"s"}`}, assemble.ErrSeqNotActive},
		{"subagent id reused", []string{start, `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`, `{"type":"SUBAGENT_FINISHED","subagentRunId":"s"}`, `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`}, assemble.ErrSeqSubagentReused},
		{"content from another subagent", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"b"}`}, assemble.ErrSeqWrongAgent},
		{"tool call under another agent's message", []string{start, `{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}`, `{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f","parentMessageId":"m","subagentRunId":"b"}`}, assemble.ErrSeqWrongAgent},
		{"first text chunk without messageId", []string{start, `{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}`}, assemble.ErrChunkNoID},
		{"first tool chunk without name", []string{start, `{"type":"TOOL_CALL_CHUNK","toolCallId":"t","delta":"x"}`}, assemble.ErrChunkNoName},
		{"chunk changes the role", []string{start, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}`, `{"type":"TEXT_MESSAGE_CHUNK","role":"user","delta":"y"}`}, assemble.ErrChunkMismatch},
		{"chunk for two lanes' streams", []string{start, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x","subagentRunId":"a"}`, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"n","delta":"x","subagentRunId":"b"}`, `{"type":"TEXT_MESSAGE_CHUNK","delta":"?"}`}, assemble.ErrChunkAmbiguous},
	}
	var streams [][]string
	for _, c := range cases {
		streams = append(streams, c.lines)
	}
	results := runClient(t, streams)
	for i, c := range cases {
		if results[i].OK {
			t.Errorf("%s: the client accepts it", c.name)
		}
		err := sequenceError(c.lines)
		var se *assemble.SequenceError
		if !errors.Is(err, c.want) || !errors.As(err, &se) || se.Index != len(c.lines)-1 {
			t.Errorf("%s: agwire gives %v, want %v at event %d", c.name, err, c.want, len(c.lines)-1)
		}
	}
}

// TestCompactWhereTheClientsIsNot: a MESSAGES_SNAPSHOT inside an open
// stream. The client's own compactEvents moves the snapshot after the
// stream's end, so replaying its result loses what the stream added after
// the snapshot; agwire's Compact compacts each side of the snapshot and
// replays to the original conversation.
func TestCompactWhereTheClientsIsNot(t *testing.T) {
	lines := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"a":1}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"before "}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"assistant","content":"snapshot "}]}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"after","metadata":{"b":2}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	}
	var evs []event.Event
	for _, l := range lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	compacted, rep, err := assemble.Compact(evs, assemble.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, ev := range compacted {
		b, _ := event.Marshal(ev)
		ours = append(ours, string(b))
	}
	plain := runClientCompacting(t, [][]string{lines, ours, lines}, []bool{false, false, true})
	theirs := plain[2]
	original := conversationValue(t, plain[0].Messages, plain[0].State)
	if !reflect.DeepEqual(conversationValue(t, plain[1].Messages, plain[1].State), original) {
		t.Errorf("the client replays agwire's compacted stream to %s, the original to %s", plain[1].Messages, plain[0].Messages)
	}
	if rep.Splits != 1 {
		t.Errorf("splits %d, want 1 (the stream open at the snapshot)", rep.Splits)
	}
	if reflect.DeepEqual(conversationValue(t, theirs.Messages, theirs.State), original) {
		t.Errorf("the client's compactEvents is now replay-equivalent here: %s", theirs.Messages)
	}
	t.Logf("original: %s; client's compactEvents replays to %s; agwire's Compact (%d -> %d events) to %s",
		plain[0].Messages, theirs.Messages, rep.EventsIn, rep.EventsOut, plain[1].Messages)
}
