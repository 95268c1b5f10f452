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
	// A failed patch is what the client warns about: named in a warning,
	// not applied, the state kept and the conversation printed, exit 0.
	badPatch := strings.Replace(assembleRun, `"path":"/n"`, `"path":"/missing"`, 1)
	out, errOut, code = agwire(t, []byte(badPatch), "assemble")
	if code != 0 || !strings.Contains(errOut, `warning: line 7: event 6 (STATE_DELTA): patch operation 0 (replace "/missing"): path does not exist`) ||
		!strings.Contains(errOut, "1 event not applied") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	sameValue(t, out, strings.Replace(assembleWant, `{"n":2}`, `{"n":1}`, 1))
	// --strict makes it a bad event: no conversation, exit 1; with
	// --keep-going the rest is printed, exit 1.
	out, errOut, code = agwire(t, []byte(badPatch), "assemble", "--strict")
	if code != exitFail || out != "" || !strings.Contains(errOut, `line 7: event 6 (STATE_DELTA): patch operation 0 (replace "/missing"): path does not exist`) ||
		strings.Contains(errOut, "warning:") {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = agwire(t, []byte(badPatch), "assemble", "--strict", "--keep-going")
	if code != exitFail || !strings.Contains(errOut, "skipped 1 bad event") {
		t.Errorf("--strict --keep-going: exit %d, stderr %q", code, errOut)
	}
	sameValue(t, out, strings.Replace(assembleWant, `{"n":2}`, `{"n":1}`, 1))
	// An event type from a later protocol is skipped and counted.
	future := strings.Replace(assembleRun, `{"type":"STATE_SNAPSHOT"`, `{"type":"FUTURE_THING","x":1}`+"\n"+`{"type":"STATE_SNAPSHOT"`, 1)
	out, errOut, code = agwire(t, []byte(future), "assemble")
	if code != 0 || !strings.Contains(errOut, "skipped 1 event of a type this version does not know") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	sameValue(t, out, assembleWant)
	// --strict makes it a bad event: named with its record, no
	// conversation printed; with --keep-going the rest is printed, exit 1.
	out, errOut, code = agwire(t, []byte(future), "assemble", "--strict")
	if code != exitFail || out != "" || !strings.Contains(errOut, `agwire assemble: line 6: an event of a type this version does not know: "FUTURE_THING"`) {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = agwire(t, []byte(future), "assemble", "--strict", "--keep-going")
	if code != exitFail || !strings.Contains(errOut, "skipped 1 bad event") {
		t.Errorf("--strict --keep-going: exit %d, stderr %q", code, errOut)
	}
	sameValue(t, out, assembleWant)
}

// TestUnknownTypeWording: every command words an event of a type this
// version does not know the same way, whether it refuses it, warns that it
// skipped it or counts it — over JSON lines, SSE and binary.
func TestUnknownTypeWording(t *testing.T) {
	jsonl := []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"FUTURE_THING","x":1}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`)
	sse := []byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"FUTURE_THING\",\"x\":1}\n\n")
	first := encode(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n")
	binary := append(first, 0, 0, 0, 5, 0x9a, 0x06, 0x02, 0x08, 0x01) // envelope field 99: a later protocol's event
	for _, tc := range []struct {
		in   []byte
		args []string
	}{
		{jsonl, []string{"encode"}},
		{jsonl, []string{"convert", "--from", "jsonl", "--to", "sse"}},
		{sse, []string{"convert", "--from", "sse", "--to", "jsonl"}},
		{jsonl, []string{"assemble"}},
		{jsonl, []string{"assemble", "--strict"}},
		{sse, []string{"assemble"}},
		{jsonl, []string{"compact"}},
		{binary, []string{"decode"}},
		{binary, []string{"decode", "--strict"}},
		{binary, []string{"inspect"}},
		{binary, []string{"convert", "--from", "binary", "--to", "jsonl"}},
		{binary, []string{"assemble"}},
		{binary, []string{"compact"}},
	} {
		_, errOut, _ := agwire(t, tc.in, tc.args...)
		if !strings.Contains(errOut, "event of a type this version does not know") {
			t.Errorf("agwire %s: %q", strings.Join(tc.args, " "), errOut)
		}
		for _, other := range []string{"unsupported event type", "unknown event type", "does not apply", "holds only an event"} {
			if strings.Contains(errOut, other) {
				t.Errorf("agwire %s says %q: %q", strings.Join(tc.args, " "), other, errOut)
			}
		}
	}
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

// TestAssembleStrictDraftRules: --strict applies the draft specification's
// fatal rules; without it the same streams assemble, as the client
// assembles them.
func TestAssembleStrictDraftRules(t *testing.T) {
	for _, tc := range []struct{ name, in, err string }{
		{"truncated", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
`, `after event 2, the end of the stream: the stream ended without a terminal event (RUN_FINISHED or RUN_ERROR): the run has no outcome: run "r"`},
		{"run id", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"other"}
`, `line 2: event 1 (RUN_FINISHED): RUN_STARTED and RUN_FINISHED must agree on their runId: RUN_FINISHED names run "other", RUN_STARTED "r"`},
		{"finish thread", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"u","runId":"r"}
`, `RUN_STARTED and RUN_FINISHED must carry the input's threadId`},
		{"second thread", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
{"type":"RUN_STARTED","threadId":"u","runId":"r2"}
{"type":"RUN_FINISHED","threadId":"u","runId":"r2"}
`, `line 3: event 2 (RUN_STARTED): every RUN_STARTED of a stream carries the input's threadId`},
		{"duplicate interrupt", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"a"},{"id":"i","reason":"b"}]}}
`, `two interrupts carrying the id 'i' (outcome.interrupts[1])`},
	} {
		out, errOut, code := agwire(t, []byte(tc.in), "assemble", "--strict")
		if code != exitFail || out != "" || !strings.Contains(errOut, tc.err) {
			t.Errorf("%s: --strict: exit %d, stdout %q, stderr %q, want %q", tc.name, code, out, errOut, tc.err)
		}
		out, errOut, code = agwire(t, []byte(tc.in), "assemble")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, `{"messages":`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, out, errOut)
		}
	}
}

// TestProfile11: --profile 1.1 reads and writes AG-UI 1.1's
// encryptedValueType; 1.0 (the default) refuses it in JSON to encode, skips
// it in frames, and, reading as a client, removes it with a warning.
func TestProfile11(t *testing.T) {
	const run = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"e","encryptedValueType":"sig"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`
	_, errOut, code := agwire(t, []byte(run), "encode")
	if code != exitFail || !strings.Contains(errOut, `line 4: REASONING_ENCRYPTED_VALUE: encryptedValueType`) || !strings.Contains(errOut, `unknown field "encryptedValueType"`) {
		t.Errorf("encode as 1.0: exit %d, stderr %q", code, errOut)
	}
	bin, errOut, code := agwire(t, []byte(run), "encode", "--profile", "1.1")
	if code != 0 {
		t.Fatalf("encode --profile 1.1: exit %d, stderr %q", code, errOut)
	}
	out, errOut, code := agwire(t, []byte(bin), "decode", "--profile", "1.1")
	if code != 0 || out != run {
		t.Errorf("decode --profile 1.1: exit %d, stderr %q\n%s", code, errOut, out)
	}
	out, _, code = agwire(t, []byte(bin), "decode")
	if code != 0 || out != strings.Replace(run, `,"encryptedValueType":"sig"`, "", 1) {
		t.Errorf("decode as 1.0: exit %d\n%s", code, out)
	}
	out, errOut, code = agwire(t, []byte(run), "assemble", "--profile", "1.1")
	if code != 0 || errOut != "" || !strings.Contains(out, `"encryptedValue":"e","encryptedValueType":"sig"`) {
		t.Errorf("assemble --profile 1.1: exit %d, stderr %q\n%s", code, errOut, out)
	}
	out, errOut, code = agwire(t, []byte(run), "assemble")
	if code != 0 || strings.Contains(out, "encryptedValueType") ||
		!strings.Contains(errOut, "warning: REASONING_ENCRYPTED_VALUE /encryptedValueType: removed an unrecognised property") {
		t.Errorf("assemble as 1.0: exit %d, stderr %q\n%s", code, errOut, out)
	}
	out, errOut, code = agwire(t, []byte(bin), "assemble")
	if code != 0 || strings.Contains(out, "encryptedValueType") ||
		!strings.Contains(errOut, "warning: REASONING_ENCRYPTED_VALUE /encryptedValueType: removed an unrecognised property") {
		t.Errorf("assemble as 1.0 from binary: exit %d, stderr %q\n%s", code, errOut, out)
	}
	out, errOut, code = agwire(t, []byte(bin), "assemble", "--profile", "1.1")
	if code != 0 || !strings.Contains(out, `"encryptedValueType":"sig"`) {
		t.Errorf("assemble --profile 1.1 from binary: exit %d, stderr %q\n%s", code, errOut, out)
	}
	// The demo's round trip, by a 1.1 peer.
	out, errOut, code = agwire(t, []byte(run), "demo", "--profile", "1.1", "-i", "-", "--json")
	if code != 0 || out != run || !strings.Contains(errOut, "Round trip OK") {
		t.Errorf("demo --profile 1.1: exit %d, stderr %q\n%s", code, errOut, out)
	}
}
