package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// sampleFrames encodes the sample with framing.Writer and returns its
// frames, length prefixes included.
func sampleFrames(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, line := range events(string(sample(t))) {
		var buf bytes.Buffer
		if err := framing.NewWriter(&buf, framing.WriterOptions{Codec: codec.Codec{}}).WriteJSON([]byte(line)); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

var (
	malformedFrame = []byte{0, 0, 0, 2, 0x08, 0x01}                   // arm 1 as a varint
	futureFrame    = []byte{0, 0, 0, 5, 0x82, 0x02, 0x02, 0x08, 0x01} // field 32, a message
)

// inspectLines runs inspect and returns its lines, the header first.
func inspectLines(t *testing.T, stream []byte, args ...string) (lines []string, stderr string, code int) {
	t.Helper()
	out, errOut, code := agwire(t, stream, append([]string{"inspect"}, args...)...)
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n"), errOut, code
}

func TestInspect(t *testing.T) {
	fs := sampleFrames(t)
	all := append(append(fs[:3:3], malformedFrame, futureFrame), fs[3:]...)
	stream := bytes.Join(all, nil)
	types := []string{"RUN_STARTED", "STEP_STARTED", "REASONING_START", "", ""}
	for _, line := range events(string(sample(t)))[3:] {
		var ev struct{ Type string }
		json.Unmarshal([]byte(line), &ev)
		types = append(types, ev.Type)
	}

	lines, errOut, code := inspectLines(t, stream)
	t.Logf("\n%s", strings.Join(lines, "\n"))
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "agwire inspect: " + strconv.Itoa(len(fs)+2) + " frames read: 1 malformed, 1 event of a type this version does not know (skipped)\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if len(lines) != 1+len(types) || !strings.Contains(lines[0], "FRAME") || !strings.Contains(lines[0], "OFFSET") {
		t.Fatalf("%d lines for %d frames", len(lines), len(types))
	}
	offset := 0
	for i, line := range lines[1:] {
		f := strings.Fields(line)
		length := len(all[i]) - 4
		if len(f) < 4 || f[0] != strconv.Itoa(i) || f[1] != strconv.Itoa(offset) || f[2] != strconv.Itoa(length) {
			t.Errorf("frame %d: %q, want index %d, offset %d, length %d", i, line, i, offset, length)
		}
		switch i {
		case 3:
			if !strings.Contains(line, "  MALFORMED: envelope arm 1 (TEXT_MESSAGE_START) with wire type 0") {
				t.Errorf("frame 3 is not flagged malformed: %s", line)
			}
		case 4:
			if !strings.Contains(line, "  UNKNOWN EVENT (later protocol): skipped (envelope field 32)") {
				t.Errorf("frame 4 is not flagged unknown: %s", line)
			}
		default:
			if f[3] != types[i] || strings.Contains(line, "MALFORMED") || strings.Contains(line, "UNKNOWN") {
				t.Errorf("frame %d: %q, want type %s", i, line, types[i])
			}
		}
		offset += length + 4
	}

	// Ids and metadata keys, in order.
	for i, want := range map[int]string{
		0:  "RUN_STARTED                runId=run_a7c3e1  threadId=thread_5f1c9a  metadata: tenant, ag-ui",
		1:  "STEP_STARTED               stepName=planner  metadata: attempt",
		10: "TOOL_CALL_RESULT           messageId=msg_tool_1  toolCallId=call_Xk29fQ  metadata: durationMs",
		11: "STATE_DELTA                metadata: baseVersion",
		14: "TEXT_MESSAGE_END           messageId=msg_01JD8Y3K2V  metadata: finishReason, usage",
	} {
		if !strings.HasSuffix(lines[1+i], want) {
			t.Errorf("frame %d: %q\nwant it to end with %q", i, lines[1+i], want)
		}
	}

	// A clean stream: exit 0, nothing on stderr.
	lines, errOut, code = inspectLines(t, bytes.Join(fs, nil))
	if code != 0 || errOut != "" || len(lines) != 1+len(fs) {
		t.Errorf("clean stream: exit %d, %d lines, stderr %s", code, len(lines), errOut)
	}
	// An empty one: the header.
	if lines, errOut, code = inspectLines(t, nil); code != 0 || errOut != "agwire inspect: the input is empty: no frames\n" || len(lines) != 1 {
		t.Errorf("empty stream: exit %d, %q, stderr %s", code, lines, errOut)
	}
}

func TestInspectTruncated(t *testing.T) {
	fs := sampleFrames(t)
	stream := bytes.Join(fs, nil)
	at := len(fs[0]) + len(fs[1])
	for _, tc := range []struct {
		cut  int
		want string
	}{
		{at + 2, "the stream ends after 2 of the 4 bytes of the length prefix"},
		{at + 10, "the stream ends after 6 of the " + strconv.Itoa(len(fs[2])-4) + " bytes of the payload"},
	} {
		lines, errOut, code := inspectLines(t, stream[:tc.cut])
		if code != 1 || len(lines) != 4 {
			t.Fatalf("cut %d: exit %d, %d lines:\n%s", tc.cut, code, len(lines), strings.Join(lines, "\n"))
		}
		last := "    2 " + strings.Repeat(" ", 10-len(strconv.Itoa(at))) + strconv.Itoa(at) + "       -  STOPPED: truncated frame: " + tc.want
		if lines[3] != last {
			t.Errorf("cut %d: last line\n%q\nwant\n%q", tc.cut, lines[3], last)
		}
		wantErr := "agwire inspect: frame 2 (stream byte " + strconv.Itoa(at) + "): truncated frame: " + tc.want + "\nagwire inspect: stopped after 2 frames\n"
		if errOut != wantErr {
			t.Errorf("cut %d: stderr\n%s\nwant\n%s", tc.cut, errOut, wantErr)
		}
	}

	// A frame above --max-frame-size ends the listing too.
	lines, errOut, code := inspectLines(t, stream, "--max-frame-size", strconv.Itoa(len(fs[0])-5))
	if code != 1 || len(lines) != 2 || !strings.Contains(lines[1], "STOPPED: frame too large: declared length "+strconv.Itoa(len(fs[0])-4)) ||
		!strings.Contains(errOut, "agwire inspect: frame 0 (stream byte 0): frame too large") {
		t.Errorf("--max-frame-size: exit %d, %q, stderr %s", code, lines, errOut)
	}

	// Bad frames before the cut are counted too.
	_, errOut, _ = inspectLines(t, append(append(fs[0][:len(fs[0]):len(fs[0])], malformedFrame...), fs[1][:5]...))
	if !strings.Contains(errOut, "truncated frame") || !strings.Contains(errOut, "2 frames read: 1 malformed (skipped)") {
		t.Errorf("stderr %s", errOut)
	}
}

func TestInspectJSON(t *testing.T) {
	fs := sampleFrames(t)
	stream := bytes.Join([][]byte{fs[0], malformedFrame, futureFrame, fs[8], fs[1][:7]}, nil)
	out, errOut, code := agwire(t, stream, "inspect", "--json")
	if code != 1 || !strings.Contains(errOut, "truncated frame") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	type frame struct {
		Frame, Offset         int64
		Length                *int
		Type, Status, Error   string
		MessageID, ToolCallID string
		RunID, ThreadID       string
		MetadataKeys          []string
		Field                 int
		StepName              string
	}
	var got []frame
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var f frame
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, line)
		}
		got = append(got, f)
	}
	if len(got) != 5 {
		t.Fatalf("%d lines:\n%s", len(got), out)
	}
	off := func(i int) int64 {
		return int64(len(fs[0]) + []int{0, 0, 6, 15, 15 + len(fs[8])}[i])
	}
	for i, want := range []struct {
		typ, status string
		length      int
	}{
		{"RUN_STARTED", "ok", len(fs[0]) - 4},
		{"", "malformed", 2},
		{"", "unknown", 5},
		{"TOOL_CALL_RESULT", "ok", len(fs[8]) - 4},
		{"", "truncated", -1},
	} {
		f := got[i]
		wantOff := int64(0)
		if i > 0 {
			wantOff = off(i)
		}
		if f.Frame != int64(i) || f.Offset != wantOff || f.Type != want.typ || f.Status != want.status {
			t.Errorf("line %d: %+v, want type %q status %s offset %d", i, f, want.typ, want.status, wantOff)
		}
		if (f.Length == nil) != (want.length < 0) || f.Length != nil && *f.Length != want.length {
			t.Errorf("line %d: length %v, want %d", i, f.Length, want.length)
		}
		if (f.Status == "ok") != (f.Error == "") {
			t.Errorf("line %d: status %s, error %q", i, f.Status, f.Error)
		}
	}
	if f := got[0]; f.RunID != "run_a7c3e1" || f.ThreadID != "thread_5f1c9a" || strings.Join(f.MetadataKeys, ",") != "tenant,ag-ui" {
		t.Errorf("RUN_STARTED: %+v", f)
	}
	if f := got[3]; f.MessageID != "msg_tool_1" || f.ToolCallID != "call_Xk29fQ" || strings.Join(f.MetadataKeys, ",") != "durationMs" {
		t.Errorf("TOOL_CALL_RESULT: %+v", f)
	}
	if f := got[1]; !strings.Contains(f.Error, "malformed event") {
		t.Errorf("malformed: %+v", f)
	}
	if f := got[2]; f.Field != 32 || !strings.Contains(f.Error, "later protocol version") {
		t.Errorf("unknown: %+v", f)
	}
	if f := got[4]; !strings.Contains(f.Error, "truncated frame") {
		t.Errorf("truncated: %+v", f)
	}

	// Metadata: absent is left out, {} is [].
	stream = encode(t, `{"type":"STEP_STARTED","stepName":"a"}`+"\n"+`{"type":"STEP_STARTED","stepName":"b","metadata":{}}`+"\n")
	out, _, code = agwire(t, stream, "inspect", "--json")
	want := `{"frame":0,"offset":0,"length":` + strconv.Itoa(len(frames(t, stream)[0])-4) + `,"type":"STEP_STARTED","stepName":"a","status":"ok"}`
	if lines := strings.Split(out, "\n"); code != 0 || lines[0] != want || !strings.Contains(lines[1], `"stepName":"b","metadataKeys":[],"status":"ok"}`) {
		t.Errorf("exit %d:\n%s\nwant first line %s", code, out, want)
	}
	lines, _, _ := inspectLines(t, stream)
	if !strings.HasSuffix(lines[1], "stepName=a") || !strings.HasSuffix(lines[2], "stepName=b  metadata: {}") {
		t.Errorf("%q", lines)
	}
}

func TestInspectUsage(t *testing.T) {
	out, _, code := agwire(t, nil, "help", "inspect")
	for _, want := range []string{"Usage: agwire inspect", "--json", "--max-frame-size BYTES", "-i FILE", "Example:\n  agwire inspect"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, lacks %q:\n%s", code, want, out)
		}
	}
	if !strings.Contains(out, "-o FILE") || !strings.Contains(out, "--strict") {
		t.Errorf("help lacks -o or --strict:\n%s", out)
	}
}

// fakeTerminal makes the given writers terminals and the progress clock
// advance by step at each reading, for the duration of the test.
func fakeTerminal(t *testing.T, step time.Duration, terminals ...io.Writer) {
	t.Helper()
	oldTerm, oldClock := isTerminal, progressClock
	t.Cleanup(func() { isTerminal, progressClock = oldTerm, oldClock })
	isTerminal = func(w io.Writer) bool {
		for _, tw := range terminals {
			if w == tw {
				return true
			}
		}
		return false
	}
	now := time.Unix(1_700_000_000, 0)
	progressClock = func() time.Time {
		now = now.Add(step)
		return now
	}
}

func TestProgress(t *testing.T) {
	in := sample(t)
	stream := encode(t, string(in))
	n := len(events(string(in)))
	for _, tc := range []struct {
		cmd    string
		stdin  []byte
		unit   string
		stdout string // what the command writes, checked unchanged
	}{
		{"encode", in, "events", string(stream)},
		{"decode", stream, "events", ""},
		{"inspect", stream, "frames", ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			var out, errOut bytes.Buffer
			fakeTerminal(t, 250*time.Millisecond, &errOut)
			if code := run([]string{tc.cmd}, bytes.NewReader(tc.stdin), &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %q", code, errOut.String())
			}
			e := errOut.String()
			// 250 ms per reading: a redraw after each record.
			if !strings.HasPrefix(e, clearLine+"agwire "+tc.cmd+": 1 "+strings.TrimSuffix(tc.unit, "s")+", ") || !strings.HasSuffix(e, clearLine) ||
				!strings.Contains(e, clearLine+"agwire "+tc.cmd+": "+strconv.Itoa(n)+" "+tc.unit+", ") {
				t.Errorf("stderr %q", e)
			}
			if strings.Count(e, "\n") != 0 {
				t.Errorf("the progress line writes newlines: %q", e)
			}
			if tc.stdout != "" && out.String() != tc.stdout {
				t.Error("the output changed")
			}

			// Not when stderr is not a terminal, nor when the output goes to
			// the same terminal.
			for _, terms := range [][]io.Writer{nil, {&out, &errOut}} {
				out.Reset()
				errOut.Reset()
				fakeTerminal(t, time.Second, terms...)
				if code := run([]string{tc.cmd}, bytes.NewReader(tc.stdin), &out, &errOut); code != 0 || errOut.Len() != 0 {
					t.Errorf("terminals %d: exit %d, stderr %q", len(terms), code, errOut.String())
				}
			}
		})
	}

	// Quick runs show nothing.
	var out, errOut bytes.Buffer
	fakeTerminal(t, time.Millisecond, &errOut)
	if code := run([]string{"decode"}, bytes.NewReader(stream), &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Errorf("quick run: exit %d, stderr %q", code, errOut.String())
	}

	// An error message clears the line first.
	out.Reset()
	errOut.Reset()
	fakeTerminal(t, time.Second, &errOut)
	bad := strings.Join(events(string(in))[:3], "\n") + "\n{\"type\":\n"
	if code := run([]string{"encode"}, strings.NewReader(bad), &out, &errOut); code != 1 {
		t.Errorf("bad line: exit %d", code)
	}
	if e := errOut.String(); !strings.Contains(e, "3 events, ") || !strings.Contains(e, clearLine+"agwire encode: line 4: ") || strings.HasSuffix(e, clearLine) {
		t.Errorf("bad line: stderr %q", e)
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 48 << 20: "48.0 MiB", 3 << 40: "3.0 TiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestEventIDs: the ids read from the event structs are the id members of
// the events' JSON, in idFields order.
func TestEventIDs(t *testing.T) {
	lines := append(events(string(sample(t))), events(string(demoRun))...)
	lines = append(lines,
		`{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x","subagentRunId":"sub_1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sub_1","name":"researcher"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":""}`,
		`{"type":"THINKING_START","title":"plan"}`,
	)
	for _, line := range lines {
		ev, err := event.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		js, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, id := range idFields {
			if v, ok := event.Object(js).Get(id.json); ok {
				var s string
				if err := json.Unmarshal(v, &s); err != nil {
					t.Fatal(err)
				}
				want = append(want, id.json+"="+s)
			}
		}
		var got []string
		for _, id := range eventIDs(ev) {
			got = append(got, id.name+"="+id.value)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: ids %q, want %q", line, got, want)
		}
	}
}
