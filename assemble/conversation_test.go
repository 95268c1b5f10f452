package assemble

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// parseEvents reads one JSON event per non-empty line.
func parseEvents(t testing.TB, lines string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range strings.Split(lines, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out = append(out, ev)
	}
	return out
}

func assembleJSON(t testing.TB, opts Options, lines string) (*Conversation, string) {
	t.Helper()
	c, err := fromEvents(parseEvents(t, lines), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return c, string(b)
}

// sameJSON compares two JSON texts as values (member order ignored).
func sameJSON(t testing.TB, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

const runStart = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
const runEnd = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`

// The protocol page's worked example: source survives from START, stage
// ends as END wrote it, usage arrives only at END.
func TestMetadataLastWriteWins(t *testing.T) {
	_, got := assembleJSON(t, Options{Check: true}, runStart+`
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"source":"openai","stage":"start"}}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hi","metadata":{"stage":"content"}}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"stage":"end","usage":{"output":340}}}
`+runEnd)
	sameJSON(t, got, `{"messages":[{"id":"m","role":"assistant","content":"Hi","metadata":{"source":"openai","stage":"end","usage":{"output":340}}}],"state":{}}`)
}

// Values are replaced, never blended: tags ["a","b","c"] then ["z"] is ["z"],
// and the same holds under "ag-ui".
func TestMetadataNeverRecursive(t *testing.T) {
	_, got := assembleJSON(t, Options{}, runStart+`
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"tags":["a","b","c"],"ag-ui":{"usage":{"input":1},"x":1}}}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"tags":["z"],"ag-ui":{"usage":{"output":2}}}}
`+runEnd)
	sameJSON(t, got, `{"messages":[{"id":"m","role":"assistant","content":"","metadata":{"tags":["z"],"ag-ui":{"usage":{"output":2}}}}],"state":{}}`)
}

// Two tool calls in one parent keep independent metadata; none reaches the
// parent message; TOOL_CALL_RESULT's reaches its tool message.
func TestMetadataToolCalls(t *testing.T) {
	_, got := assembleJSON(t, Options{Check: true}, runStart+`
{"type":"TEXT_MESSAGE_START","messageId":"a","metadata":{"m":1}}
{"type":"TEXT_MESSAGE_END","messageId":"a"}
{"type":"TOOL_CALL_START","toolCallId":"t1","toolCallName":"f","parentMessageId":"a","metadata":{"provider":"anthropic"}}
{"type":"TOOL_CALL_START","toolCallId":"t2","toolCallName":"g","parentMessageId":"a","metadata":{"provider":"openai"}}
{"type":"TOOL_CALL_ARGS","toolCallId":"t2","delta":"{\"q\":","metadata":{"latencyMs":9}}
{"type":"TOOL_CALL_ARGS","toolCallId":"t1","delta":"{}","metadata":{"latencyMs":84}}
{"type":"TOOL_CALL_ARGS","toolCallId":"t2","delta":"1}"}
{"type":"TOOL_CALL_END","toolCallId":"t1"}
{"type":"TOOL_CALL_END","toolCallId":"t2","metadata":{"provider":null}}
{"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"t2","content":"two","metadata":{"cached":true}}
{"type":"TEXT_MESSAGE_START","messageId":"b"}
{"type":"TEXT_MESSAGE_END","messageId":"b"}
{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"t1","content":"one"}
`+runEnd)
	sameJSON(t, got, `{"messages":[
{"id":"a","role":"assistant","content":"","metadata":{"m":1},"toolCalls":[
 {"id":"t1","type":"function","function":{"name":"f","arguments":"{}"},"metadata":{"provider":"anthropic","latencyMs":84}},
 {"id":"t2","type":"function","function":{"name":"g","arguments":"{\"q\":1}"},"metadata":{"provider":null,"latencyMs":9}}]},
{"id":"r2","role":"tool","toolCallId":"t2","content":"two","metadata":{"cached":true}},
{"id":"r1","role":"tool","toolCallId":"t1","content":"one"},
{"id":"b","role":"assistant","content":""}],"state":{}}`)
}

// A snapshot's own metadata reaches no message; its messages keep theirs.
// Run, step and state metadata stay on the events (run metadata in Runs).
func TestMetadataSnapshotAndEventLevel(t *testing.T) {
	c, got := assembleJSON(t, Options{Check: true}, `{"type":"RUN_STARTED","threadId":"t","runId":"r","metadata":{"run":1}}
{"type":"STEP_STARTED","stepName":"s","metadata":{"step":1}}
{"type":"MESSAGES_SNAPSHOT","metadata":{"snap":1},"messages":[{"id":"u","role":"user","content":"hi","metadata":{"own":1}},{"id":"v","role":"user","content":"yo"}]}
{"type":"STATE_SNAPSHOT","snapshot":{"a":1},"metadata":{"state":1}}
{"type":"STEP_FINISHED","stepName":"s"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","metadata":{"usage":5}}`)
	sameJSON(t, got, `{"messages":[{"id":"u","role":"user","content":"hi","metadata":{"own":1}},{"id":"v","role":"user","content":"yo"}],"state":{"a":1}}`)
	runs := c.Runs()
	if len(runs) != 1 || runs[0].Status != RunFinished || string(runs[0].Metadata) != `{"run":1,"usage":5}` {
		t.Errorf("runs: %+v", runs)
	}
	if len(runs[0].Steps) != 1 || !runs[0].Steps[0].Finished {
		t.Errorf("steps: %+v", runs[0].Steps)
	}
}

func TestMergeMetadata(t *testing.T) {
	for _, tc := range []struct{ existing, incoming, want string }{
		{"", "", ""},
		{`{"a":1}`, "", `{"a":1}`},
		{"", `{}`, `{}`},
		{`{"a":1}`, `{}`, `{"a":1}`},
		{"", `{"a":1}`, `{"a":1}`},
		{`{"a":1,"b":2}`, `{"b":null,"c":[3]}`, `{"a":1,"b":null,"c":[3]}`},
		{`{"a":{"x":1}}`, `{"a":{"y":2}}`, `{"a":{"y":2}}`},
		{`{"ag-ui":{"usage":1},"k":"v"}`, `{"ag-ui":{}}`, `{"ag-ui":{},"k":"v"}`},
		{`{"n":1.50}`, `{"m":1e3}`, `{"n":1.50,"m":1e3}`},
	} {
		obj := func(s string) event.Object {
			if s == "" {
				return nil
			}
			return event.Object(s)
		}
		ex, in := obj(tc.existing), obj(tc.incoming)
		exCopy, inCopy := string(ex), string(in)
		got := MergeMetadata(ex, in)
		if string(got) != tc.want || (tc.want == "") != (got == nil) {
			t.Errorf("MergeMetadata(%s, %s) = %s, want %s", tc.existing, tc.incoming, got, tc.want)
		}
		if string(ex) != exCopy || string(in) != inCopy {
			t.Errorf("inputs modified")
		}
		if len(got) > 0 && len(ex) > 0 && &got[0] == &ex[0] {
			t.Errorf("result aliases existing")
		}
	}
}

func TestToolCallParents(t *testing.T) {
	_, got := assembleJSON(t, Options{}, runStart+`
{"type":"TOOL_CALL_START","toolCallId":"t0","toolCallName":"f"}
{"type":"TOOL_CALL_START","toolCallId":"t1","toolCallName":"f","parentMessageId":"p"}
{"type":"TEXT_MESSAGE_START","messageId":"p"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"x"}
{"type":"TEXT_MESSAGE_START","messageId":"u","role":"user"}
{"type":"TOOL_CALL_START","toolCallId":"t2","toolCallName":"g","parentMessageId":"u","subagentRunId":"s"}
`)
	sameJSON(t, got, `{"messages":[
{"id":"t0","role":"assistant","toolCalls":[{"id":"t0","type":"function","function":{"name":"f","arguments":""}}]},
{"id":"p","role":"assistant","content":"x","toolCalls":[{"id":"t1","type":"function","function":{"name":"f","arguments":""}}]},
{"id":"u","role":"user","content":""},
{"id":"t2","role":"assistant","subagentRunId":"s","toolCalls":[{"id":"t2","type":"function","function":{"name":"g","arguments":""}}]}],"state":{}}`)
}

func TestChunks(t *testing.T) {
	_, got := assembleJSON(t, Options{Check: true}, runStart+`
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"He","metadata":{"a":1}}
{"type":"TEXT_MESSAGE_CHUNK","delta":"llo","metadata":{"b":2}}
{"type":"TOOL_CALL_CHUNK","toolCallId":"t","toolCallName":"f","parentMessageId":"m","delta":"{"}
{"type":"TOOL_CALL_CHUNK","delta":"}"}
{"type":"REASONING_MESSAGE_CHUNK","messageId":"r","delta":"think"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"n","role":"user","delta":"q"}
`+runEnd)
	sameJSON(t, got, `{"messages":[
{"id":"m","role":"assistant","content":"Hello","metadata":{"a":1,"b":2},"toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"id":"r","role":"reasoning","content":"think"},
{"id":"n","role":"user","content":"q"}],"state":{}}`)

	c, _ := New(Options{})
	for _, tc := range []struct {
		line string
		want error
	}{
		{`{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}`, ErrChunkNoID},
		{`{"type":"TOOL_CALL_CHUNK","toolCallId":"t","delta":"x"}`, ErrChunkNoName},
	} {
		err := c.Apply(parseEvents(t, tc.line)[0])
		var se *SequenceError
		if !errors.Is(err, tc.want) || !errors.As(err, &se) {
			t.Errorf("%s: %v, want %v", tc.line, err, tc.want)
		}
	}
	c, _ = New(Options{})
	evs := parseEvents(t, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}
{"type":"TEXT_MESSAGE_CHUNK","role":"user","delta":"y"}`)
	if err := c.Apply(evs[0]); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(evs[1]); !errors.Is(err, ErrChunkMismatch) {
		t.Errorf("role change mid-stream: %v", err)
	}
}

func TestStatePatch(t *testing.T) {
	c, got := assembleJSON(t, Options{}, runStart+`
{"type":"STATE_SNAPSHOT","snapshot":{"z":1.50,"list":[1,2],"a":{"b":1e2}}}
{"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/1","value":9},{"op":"replace","path":"/z","value":2.0},{"op":"remove","path":"/a/b"},{"op":"add","path":"/new","value":null}]}
`)
	if string(c.State()) != `{"z":2.0,"list":[1,9,2],"a":{},"new":null}` {
		t.Errorf("state text %s", c.State())
	}
	_ = got
	before := string(c.State())
	err := c.Apply(parseEvents(t, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/ok","value":1},{"op":"test","path":"/z","value":3}]}`)[0])
	var ae *ApplyError
	var pe *PatchError
	if !errors.As(err, &ae) || !errors.As(err, &pe) || !errors.Is(err, ErrPatchTest) || pe.Index != 1 || pe.Op != "test" || pe.Path != "/z" {
		t.Fatalf("failed test op: %v", err)
	}
	if string(c.State()) != before {
		t.Errorf("failed patch changed the state: %s", c.State())
	}
	if !strings.Contains(err.Error(), `patch operation 1 (test "/z")`) {
		t.Errorf("message does not name the op: %v", err)
	}
	for _, tc := range []struct {
		patch string
		want  error
	}{
		{`[{"op":"remove","path":"/nope"}]`, ErrPatchPath},
		{`[{"op":"add","path":"/list/9","value":1}]`, ErrPatchPath},
		{`[{"op":"add","path":"/list/01","value":1}]`, ErrPatchPath},
		{`[{"op":"add","path":"x","value":1}]`, ErrPatchInvalid},
		{`[{"op":"add","path":"/x"}]`, ErrPatchInvalid},
		{`[{"op":"move","from":"/a","path":"/a/b"}]`, ErrPatchInvalid},
		{`[{"op":"copy","path":"/x"}]`, ErrPatchInvalid},
		{`[{"op":"add","path":"/a/~2","value":1}]`, ErrPatchInvalid},
	} {
		err := c.Apply(parseEvents(t, `{"type":"STATE_DELTA","delta":`+tc.patch+`}`)[0])
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.patch, err, tc.want)
		}
	}
	// An op no parser lets through can still be built in Go.
	err = c.Apply(&event.StateDelta{Delta: []event.PatchOp{{Op: "frobnicate", Path: "/x"}}})
	if !errors.Is(err, ErrPatchInvalid) {
		t.Errorf("Go-built unknown op: %v, want ErrPatchInvalid", err)
	}
}

// A patch that would cost more than its budget stops and is undone: no
// patch can be made to do unbounded work.
func TestPatchWorkBounded(t *testing.T) {
	var big bytes.Buffer
	big.WriteString(`{"type":"STATE_SNAPSHOT","snapshot":{"a":[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			big.WriteByte(',')
		}
		big.WriteString("0")
	}
	big.WriteString(`]}}`)
	inserts := func(n int) string {
		var ops bytes.Buffer
		ops.WriteString(`{"type":"STATE_DELTA","delta":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				ops.WriteByte(',')
			}
			ops.WriteString(`{"op":"add","path":"/a/0","value":1}`)
		}
		ops.WriteString(`]}`)
		return ops.String()
	}
	c, _ := New(Options{MaxPatchWork: 1 << 20})
	if err := c.Apply(parseEvents(t, big.String())[0]); err != nil {
		t.Fatal(err)
	}
	before := c.State()
	// 2,000 inserts at the front of 20,000 elements: about 40 million units.
	err := c.Apply(parseEvents(t, inserts(2000))[0])
	var pe *PatchError
	if !errors.Is(err, ErrPatchTooCostly) || !errors.As(err, &pe) || pe.Index < 50 {
		t.Fatalf("got %v", err)
	}
	if !bytes.Equal(c.State(), before) {
		t.Error("a patch over budget changed the state")
	}
	// 500 of them (about 10 million units) fit the default budget.
	c2, _ := New(Options{})
	_ = c2.Apply(parseEvents(t, big.String())[0])
	if err := c2.Apply(parseEvents(t, inserts(500))[0]); err != nil {
		t.Fatal(err)
	}
}

func TestActivity(t *testing.T) {
	c, got := assembleJSON(t, Options{}, runStart+`
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"steps":[1]},"metadata":{"x":1}}
{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan2","patch":[{"op":"add","path":"/steps/-","value":2}],"metadata":{"y":2}}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan3","content":{"other":true},"replace":false}
{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"p","content":{}}
{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"q","content":{"k":1},"metadata":{"z":3}}
{"type":"ACTIVITY_DELTA","messageId":"nope","activityType":"p","patch":[]}
`)
	sameJSON(t, got, `{"messages":[
{"id":"a","role":"activity","activityType":"plan2","content":{"steps":[1,2]},"metadata":{"x":1,"y":2}},
{"id":"b","role":"activity","activityType":"q","content":{"k":1},"metadata":{"z":3}}],"state":{}}`)
	if c.Stats().Ignored != 1 {
		t.Errorf("stats %+v", c.Stats())
	}
	// A failing delta still merges its metadata, and reports the patch error.
	err := c.Apply(parseEvents(t, `{"type":"ACTIVITY_DELTA","messageId":"b","activityType":"q","patch":[{"op":"remove","path":"/none"}],"metadata":{"w":4}}`)[0])
	if !errors.Is(err, ErrPatchPath) {
		t.Fatal(err)
	}
	if m := c.Messages()[1]; string(m.Metadata) != `{"z":3,"w":4}` || string(m.ActivityContent) != `{"k":1}` {
		t.Errorf("%s %s", m.Metadata, m.ActivityContent)
	}
}

func TestMessagesSnapshotMerge(t *testing.T) {
	_, got := assembleJSON(t, Options{}, runStart+`
{"type":"TEXT_MESSAGE_START","messageId":"keep","role":"user"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"keep","delta":"old"}
{"type":"TEXT_MESSAGE_END","messageId":"keep"}
{"type":"TEXT_MESSAGE_START","messageId":"drop"}
{"type":"TEXT_MESSAGE_END","messageId":"drop"}
{"type":"REASONING_MESSAGE_START","messageId":"think","role":"reasoning"}
{"type":"REASONING_MESSAGE_END","messageId":"think"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"p","content":{}}
{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"new","role":"user","content":"n"},{"id":"keep","role":"user","content":"replaced"}]}
`)
	sameJSON(t, got, `{"messages":[{"id":"keep","role":"user","content":"replaced"},{"id":"think","role":"reasoning","content":""},
{"id":"act","role":"activity","activityType":"p","content":{}},{"id":"new","role":"user","content":"n"}],"state":{}}`)

	// With activity in the snapshot, local activity it leaves out is dropped;
	// a declaration of owned types limits that to those types.
	_, got = assembleJSON(t, Options{}, runStart+`
{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"p","content":{}}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a2","activityType":"q","content":{}}
{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a3","role":"activity","activityType":"p","content":{}}]}
`)
	sameJSON(t, got, `{"messages":[{"id":"a3","role":"activity","activityType":"p","content":{}}],"state":{}}`)
	_, got = assembleJSON(t, Options{}, runStart+`
{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"p","content":{}}
{"type":"ACTIVITY_SNAPSHOT","messageId":"a2","activityType":"q","content":{}}
{"type":"MESSAGES_SNAPSHOT","metadata":{"@ag-ui/client":{"authoritativeActivityTypes":["p"]}},"messages":[]}
`)
	sameJSON(t, got, `{"messages":[{"id":"a2","role":"activity","activityType":"q","content":{}}],"state":{}}`)
}

func TestSequenceChecking(t *testing.T) {
	for _, tc := range []struct {
		lines string
		want  error
		index int
	}{
		{`{"type":"TEXT_MESSAGE_START","messageId":"m"}`, ErrSeqFirstEvent, 0},
		{runStart + "\n" + `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`, ErrSeqNotActive, 1},
		{runStart + "\n" + `{"type":"TEXT_MESSAGE_START","messageId":"m"}` + "\n" + runEnd, ErrSeqOpenAtFinish, 2},
		{runStart + "\n" + `{"type":"STEP_STARTED","stepName":"s"}` + "\n" + runEnd, ErrSeqOpenAtFinish, 2},
		{runStart + "\n" + runEnd + "\n" + `{"type":"CUSTOM","name":"x","value":1}`, ErrSeqAfterFinish, 2},
		{runStart + "\n" + `{"type":"RUN_ERROR","message":"boom"}` + "\n" + `{"type":"CUSTOM","name":"x","value":1}`, ErrSeqAfterError, 2},
		{runStart + "\n" + runStart, ErrSeqRunActive, 1},
		{runStart + "\n" + `{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f"}` + "\n" + `{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f"}`, ErrSeqAlreadyActive, 2},
		{runStart + "\n" + `{"type":"SUBAGENT_FINISHED","subagentRunId":"s"}`, ErrSeqNotActive, 1},
		{runStart + "\n" + `{"type":"REASONING_END","messageId":"r"}`, ErrSeqNotActive, 1},
	} {
		c, err := fromEvents(parseEvents(t, tc.lines), Options{Check: true})
		var se *SequenceError
		if !errors.Is(err, tc.want) || !errors.As(err, &se) || se.Index != tc.index {
			t.Errorf("%q: got %v, want %v at %d", tc.lines, err, tc.want, tc.index)
		}
		if c == nil {
			t.Fatal("no conversation")
		}
	}
	// Without checking the same streams apply as the client would.
	if _, err := fromEvents(parseEvents(t, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`), Options{}); err != nil {
		t.Error(err)
	}
}

func TestUnknownSkipped(t *testing.T) {
	c, got := assembleJSON(t, Options{Check: true}, `{"type":"THINKING_START"}
`+runStart+`
{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x"}
`+runEnd)
	sameJSON(t, got, `{"messages":[],"state":{}}`)
	if s := c.Stats(); s.Unknown != 2 || s.Events != 4 {
		t.Errorf("stats %+v", s)
	}
}

func TestToolResultParts(t *testing.T) {
	_, got := assembleJSON(t, Options{}, runStart+`
{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"nobody","content":[{"type":"text","text":"hi"}],"role":"tool"}
{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"r","encryptedValue":"xyz"}
`)
	sameJSON(t, got, `{"messages":[{"id":"r","role":"tool","toolCallId":"nobody","content":[{"type":"text","text":"hi"}],"encryptedValue":"xyz"}],"state":{}}`)
}

func TestIncrementalReadsAreSnapshots(t *testing.T) {
	c, _ := New(Options{})
	evs := parseEvents(t, runStart+`
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}`)
	for _, ev := range evs[:3] {
		if err := c.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	first := c.Messages()
	if err := c.Apply(evs[3]); err != nil {
		t.Fatal(err)
	}
	if *first[0].Content != "a" || *c.Messages()[0].Content != "ab" {
		t.Errorf("%q %q", *first[0].Content, *c.Messages()[0].Content)
	}
}

// A patch that leaves activity content something other than an object is
// refused and undone, earlier operations included.
func TestActivityMustStayObject(t *testing.T) {
	c, _ := assembleJSON(t, Options{}, runStart+`
{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"p","content":{"k":1}}
{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"p","patch":[{"op":"add","path":"/j","value":2}]}`)
	err := c.Apply(parseEvents(t, `{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"p","patch":[{"op":"add","path":"/x","value":1},{"op":"replace","path":"","value":5}]}`)[0])
	if !errors.Is(err, ErrActivityNotObject) {
		t.Fatal(err)
	}
	if got := string(c.Messages()[0].ActivityContent); got != `{"k":1,"j":2}` {
		t.Errorf("content %s", got)
	}
}

// Copy is the one operation that makes values no event carried: a stream of
// small deltas doubling the state runs out of the conversation's copy budget
// instead of memory.
func TestCopyBudget(t *testing.T) {
	c, _ := New(Options{}) // the default: CopyFloor nodes plus one per byte applied
	if err := c.Apply(parseEvents(t, `{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2,3,4,5,6,7]}}`)[0]); err != nil {
		t.Fatal(err)
	}
	doubling := parseEvents(t, `{"type":"STATE_DELTA","delta":[{"op":"copy","from":"/a","path":"/a/-"}]}`)[0]
	var err error
	n := 0
	for ; n < 64 && err == nil; n++ {
		err = c.Apply(doubling)
	}
	var pe *PatchError
	if !errors.Is(err, ErrCopyBudget) || !errors.As(err, &pe) {
		t.Fatalf("after %d doublings: %v", n, err)
	}
	if n > 16 {
		t.Errorf("%d doublings of an 8-node value fit the default copy budget (%d nodes plus one per byte)", n, CopyFloor)
	}
	// A failed patch spends nothing: a small copy still fits.
	if err := c.Apply(parseEvents(t, `{"type":"STATE_DELTA","delta":[{"op":"copy","from":"/a/0","path":"/b"}]}`)[0]); err != nil {
		t.Error(err)
	}
}

// Events addressing a message, tool call or reasoning message must come from
// the agent that opened it (when they name one).
func TestSequenceWrongAgent(t *testing.T) {
	for _, tc := range []struct{ name, lines string }{
		{"content from another subagent", `{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"b"}`},
		{"content from the parent for a subagent's message", `{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}
{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":"a"}
{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"b"}`},
		{"tool call under another agent's message", `{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}
{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f","parentMessageId":"m","subagentRunId":"b"}`},
		{"tool call args from another agent", `{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f"}
{"type":"TOOL_CALL_ARGS","toolCallId":"t","delta":"{}","subagentRunId":"b"}`},
		{"reasoning from another agent", `{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning","subagentRunId":"a"}
{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"x","subagentRunId":"b"}`},
		{"snapshot owners", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"assistant","content":"x","subagentRunId":"a","toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":""}}]}]}
{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"t","encryptedValue":"e","subagentRunId":"b"}`},
	} {
		_, err := fromEvents(parseEvents(t, runStart+"\n"+tc.lines), Options{Check: true})
		if !errors.Is(err, ErrSeqWrongAgent) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// The owner itself, or an event naming no agent, is fine.
	if _, err := fromEvents(parseEvents(t, runStart+`
{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"a"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"a"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}`), Options{Check: true}); err != nil {
		t.Error(err)
	}
}
