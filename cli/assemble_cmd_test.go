package cli

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

const assembleRun = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{"source":"openai","stage":"start"}}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hel","metadata":{"stage":"content"}}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"lo"}
{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"stage":"end","usage":{"output":340}}}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}
{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`

const assembleWant = `{"messages":[{"id":"m","role":"assistant","content":"Hello","metadata":{"source":"openai","stage":"end","usage":{"output":340}}}],"state":{"n":2}}`

func sameValue(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// The same conversation from JSON lines, SSE and binary, format detected.
func TestAssembleCommand(t *testing.T) {
	for _, to := range []string{"jsonl", "sse", "binary"} {
		in := convert(t, []byte(assembleRun), "--to", to)
		out, errOut, code := agwire(t, in, "assemble")
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d: %s", to, code, errOut)
		}
		sameValue(t, out, assembleWant)
	}
}

func TestAssembleCommandErrors(t *testing.T) {
	bad := strings.Replace(assembleRun, `{"type":"TEXT_MESSAGE_START","messageId":"m",`, `{"type":"TEXT_MESSAGE_START","messageId":"other",`, 1)
	out, errOut, code := agwire(t, []byte(bad), "assemble")
	if code != 1 || out != "" || !strings.Contains(errOut, "line 3: event 2 (TEXT_MESSAGE_CONTENT): not in progress") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Without checking, the client's behaviour: content for no message is dropped.
	out, errOut, code = agwire(t, []byte(bad), "assemble", "--no-check")
	if code != 0 || errOut != "" || !strings.Contains(out, `"id":"other"`) {
		t.Errorf("--no-check: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A failed patch is named; --keep-going skips it and prints the rest.
	badPatch := strings.Replace(assembleRun, `"path":"/n"`, `"path":"/missing"`, 1)
	_, errOut, code = agwire(t, []byte(badPatch), "assemble")
	if code != 1 || !strings.Contains(errOut, `line 7: event 6 (STATE_DELTA): patch operation 0 (replace "/missing"): path does not exist`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out, errOut, code = agwire(t, []byte(badPatch), "assemble", "--keep-going")
	if code != 1 || !strings.Contains(errOut, "skipped 1 bad event") {
		t.Errorf("--keep-going: exit %d, stderr %q", code, errOut)
	}
	sameValue(t, out, strings.Replace(assembleWant, `{"n":2}`, `{"n":1}`, 1))
	// An event type from a later protocol is skipped and counted.
	future := strings.Replace(assembleRun, `{"type":"STATE_SNAPSHOT"`, `{"type":"FUTURE_THING","x":1}`+"\n"+`{"type":"STATE_SNAPSHOT"`, 1)
	out, errOut, code = agwire(t, []byte(future), "assemble")
	if code != 0 || !strings.Contains(errOut, "skipped 1 event of a type this version does not apply") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	sameValue(t, out, assembleWant)
}

// Compact writes a shorter stream, in the input's format unless --to says,
// that assembles to the same conversation, and reports the reduction.
func TestCompactCommand(t *testing.T) {
	run, err := os.ReadFile("../assemble/testdata/realistic-run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, _, code := agwire(t, run, "assemble")
	if code != 0 {
		t.Fatal("assemble failed")
	}
	for _, tc := range []struct{ in, to string }{{"jsonl", ""}, {"sse", ""}, {"binary", ""}, {"jsonl", "binary"}, {"binary", "sse"}} {
		in := convert(t, run, "--to", tc.in)
		args := []string{"compact"}
		if tc.to != "" {
			args = append(args, "--to", tc.to)
		}
		out, errOut, code := agwire(t, in, args...)
		if code != 0 || !strings.Contains(errOut, "925 events") || !strings.Contains(errOut, "-> 30 events") {
			t.Fatalf("%+v: exit %d, stderr %q", tc, code, errOut)
		}
		outFormat := tc.to
		if outFormat == "" {
			outFormat = tc.in
		}
		if back := string(convert(t, []byte(out), "--to", outFormat)); back != out {
			t.Errorf("%+v: the output is not %s", tc, outFormat)
		}
		got, errOut, code := agwire(t, []byte(out), "assemble")
		if code != 0 {
			t.Fatalf("%+v: assembling the compacted stream: %s", tc, errOut)
		}
		if got != want {
			t.Errorf("%+v: the compacted stream assembles to something else", tc)
		}
	}
	_, errOut, code := agwire(t, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`), "compact")
	if code != 1 || !strings.Contains(errOut, "the first event must be RUN_STARTED") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestAssembleHelp(t *testing.T) {
	for _, cmd := range []string{"assemble", "compact"} {
		out, _, code := agwire(t, nil, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Usage: agwire "+cmd) || !strings.Contains(out, "Example:") {
			t.Errorf("%s --help: %d %q", cmd, code, out)
		}
	}
}

// TestAssembleRefusesWhatTheClientRefuses: five malformed known values the
// strict parser used to accept, each refused by @ag-ui/client 1.0.0's
// schemas, make assemble fail naming the field; an unknown property is
// removed with a warning naming its path, and the stream assembles.
func TestAssembleRefusesWhatTheClientRefuses(t *testing.T) {
	const start = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n"
	for _, c := range []struct{ line, field string }{
		{`{"type":"CUSTOM","name":"x"}`, "value"},
		{`{"type":"RAW"}`, "event"},
		{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`, "outcome.interrupts"},
		{`{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-1}]}`, "usage[0].inputTokens"},
		{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"tool","content":"x"}]}`, "messages[0].toolCallId"},
	} {
		out, errOut, code := agwire(t, []byte(start+c.line+"\n"), "assemble")
		if code == 0 || out != "" || !strings.Contains(errOut, c.field) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a failure naming %s", c.line, code, out, errOut, c.field)
		}
	}
	in := start + `{"type":"TEXT_MESSAGE_START","messageId":"m","futureProp":1}` + "\n" +
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}` + "\n"
	out, errOut, code := agwire(t, []byte(in), "assemble")
	if code != 0 || !strings.Contains(out, `"id":"m"`) || !strings.Contains(errOut, "/futureProp") {
		t.Errorf("unknown property: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
