package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/transport"
)

// convert runs "agwire convert" with args, which must succeed.
func convert(t *testing.T, in []byte, args ...string) []byte {
	t.Helper()
	out, errOut, code := agwire(t, in, append([]string{"convert"}, args...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("convert %s: exit %d, stderr %s", strings.Join(args, " "), code, errOut)
	}
	return []byte(out)
}

// sseData returns the data of each event of an SSE stream, checking that
// it is written as convert writes it: one "data: " line, then a blank line.
func sseData(t *testing.T, stream []byte) []string {
	t.Helper()
	var out []string
	r := transport.NewSSEReader(bytes.NewReader(stream), 0)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SSE output does not parse: %v", err)
		}
		out = append(out, ev.Data)
	}
	blocks := strings.Split(strings.TrimSuffix(string(stream), "\n\n"), "\n\n")
	if len(stream) > 0 && len(blocks) != len(out) {
		t.Fatalf("%d SSE blocks for %d events", len(blocks), len(out))
	}
	for i, b := range blocks {
		if len(stream) > 0 && (!strings.HasPrefix(b, "data: {") || strings.ContainsAny(b, "\r\n")) {
			t.Fatalf("SSE block %d is not one data line: %q", i, b)
		}
	}
	return out
}

// demoLines is the built-in run, one canonical JSON event per line.
func demoLines() []string { return events(string(demoRun)) }

// TestConvertRoundTrip: JSON lines to binary to SSE and back to JSON lines
// gives the events it started with, and so does every other pair of
// formats, with --from given or told from the input.
func TestConvertRoundTrip(t *testing.T) {
	want := demoLines()
	bin := convert(t, demoRun, "--from", "jsonl", "--to", "binary")
	if n := len(frames(t, bin)); n != len(want) {
		t.Fatalf("%d frames for %d events", n, len(want))
	}
	if enc := encode(t, string(demoRun)); !bytes.Equal(bin, enc) {
		t.Error("convert --to binary wrote a different stream than encode")
	}
	sse := convert(t, bin, "--from", "binary", "--to", "sse")
	data := sseData(t, sse)
	jsonl := convert(t, sse, "--from", "sse", "--to", "jsonl")
	got := events(string(jsonl))
	if len(data) != len(want) || len(got) != len(want) {
		t.Fatalf("%d SSE events, %d JSON lines; want %d", len(data), len(got), len(want))
	}
	for i := range want {
		if !sameJSON(t, got[i], want[i]) || !sameJSON(t, data[i], want[i]) {
			t.Errorf("event %d:\n got %s\n     %s\nwant %s", i, got[i], data[i], want[i])
		}
		if got[i] != want[i] { // the demo run is canonical, and so is the output
			t.Errorf("event %d is not byte for byte the input:\n got %s\nwant %s", i, got[i], want[i])
		}
	}

	inputs := map[streamFormat][]byte{formatJSONL: demoRun, formatBinary: bin, formatSSE: sse}
	for _, from := range []streamFormat{formatJSONL, formatSSE, formatBinary} {
		for _, to := range []streamFormat{formatJSONL, formatSSE, formatBinary} {
			for _, detect := range []bool{false, true} {
				args := []string{"--to", string(to)}
				if !detect {
					args = append(args, "--from", string(from))
				}
				out := convert(t, inputs[from], args...)
				if !bytes.Equal(out, inputs[to]) {
					t.Errorf("%s to %s (detected: %v): the output differs from the %s form", from, to, detect, to)
				}
			}
		}
	}

	// Files, and "-" for the standard streams.
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.sse"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(in, sse, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := agwire(t, nil, "convert", "--to", "binary", "-i", in, "-o", out); code != 0 {
		t.Fatalf("-i -o: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, bin) {
		t.Error("-o wrote a different stream")
	}
	if b := convert(t, bin, "--to", "jsonl", "-i", "-", "-o", "-"); !bytes.Equal(b, demoRun) {
		t.Error("-i - -o - wrote different JSON")
	}
}

// TestConvertLineBreaks: line breaks inside a JSON event (an SSE event's
// data on several lines, a dynamic value pretty-printed) are folded, so
// that each event stays one SSE data line or one JSON line.
func TestConvertLineBreaks(t *testing.T) {
	sse := "data: {\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\r\n" +
		"data:   \"a\": [1,\r" +
		"data:     2],\n" +
		"data:   \"b\": \"x\\ny\"\n" +
		"data: }}\n\n" +
		"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n"
	want := []string{`{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2],"b":"x\ny"}}`, `{"type":"STEP_STARTED","stepName":"s"}`}
	for _, to := range []string{"sse", "jsonl"} {
		out := convert(t, []byte(sse), "--to", to)
		got := events(string(out))
		if to == "sse" {
			got = sseData(t, out)
		}
		if len(got) != 2 {
			t.Fatalf("--to %s: %d events: %q", to, len(got), out)
		}
		for i := range want {
			if strings.ContainsAny(got[i], "\r\n") || !sameJSON(t, got[i], want[i]) {
				t.Errorf("--to %s: event %d: %q", to, i, got[i])
			}
		}
	}
	// The escaped \n inside the string is kept: only raw line breaks fold.
	if out := convert(t, []byte(sse), "--to", "jsonl"); !strings.Contains(string(out), `"x\ny"`) {
		t.Errorf("the string's escaped line break is lost: %s", out)
	}
}

// TestConvertDetect: the input's format is told from its first bytes.
func TestConvertDetect(t *testing.T) {
	step := `{"type":"STEP_STARTED","stepName":"s"}`
	bin := encode(t, step)
	for _, tc := range []struct {
		name, in string
	}{
		{"jsonl", step + "\n"},
		{"jsonl after blank lines and a BOM", "\xEF\xBB\xBF\n \r\n\t" + step},
		{"sse data", "data: " + step + "\n\n"},
		{"sse data without space", "data:" + step + "\r\n\r\n"},
		{"sse comment", ": keep-alive\n\ndata: " + step + "\n\n"},
		{"sse event", "event: message\ndata: " + step + "\n\n"},
		{"sse id", "id: 1\ndata: " + step + "\n\n"},
		{"sse retry", "retry: 1000\ndata: " + step + "\n\n"},
		{"sse after a BOM and blank lines", "\xEF\xBB\xBF\n\ndata: " + step + "\n\n"},
		{"binary", string(bin)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := convert(t, []byte(tc.in), "--to", "jsonl")
			if got := events(string(out)); len(got) != 1 || got[0] != step {
				t.Errorf("got %q", out)
			}
		})
	}

	// A frame of 16 MiB or more starts with a byte from 1 up: still binary.
	big := []byte{0x02, 0, 0, 0}
	_, errOut, code := agwire(t, big, "convert", "--to", "jsonl")
	if code != 1 || !strings.Contains(errOut, "agwire convert: frame 0 (stream byte 0): frame too large") {
		t.Errorf("a large first frame: exit %d, stderr %s", code, errOut)
	}

	// Nothing at all, or white space: no events, in any format.
	for _, in := range []string{"", "\n\n  \n"} {
		if out, errOut, code := agwire(t, []byte(in), "convert", "--to", "sse"); code != 0 || out != "" || errOut != "agwire convert: the input is empty: no events written\n" {
			t.Errorf("input %q: exit %d, out %q, stderr %s", in, code, out, errOut)
		}
	}

	// Anything else needs --from.
	for _, in := range []string{"hello\n", "[1,2]", `"data: x"`, "Data: {}\n\n"} {
		out, errOut, code := agwire(t, []byte(in), "convert", "--to", "jsonl")
		if code != 1 || out != "" || !strings.Contains(errOut, "agwire convert: cannot tell the input's format from its first bytes") || !strings.Contains(errOut, "--from") {
			t.Errorf("input %q: exit %d, stderr %s", in, code, errOut)
		}
	}
}

// TestConvertDetectStreaming: telling the format reads no more than it
// needs, so a live stream is not held back until a buffer fills.
func TestConvertDetectStreaming(t *testing.T) {
	for _, first := range []string{"data: {", ":", "{", "\x00"} {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(first)) // then block: the writer says no more yet
		}()
		br := bufio.NewReader(pr)
		f, err := detectFormat(br)
		if err != nil || f == "" {
			t.Errorf("%q: %q, %v", first, f, err)
		}
		pr.Close()
	}
}

// TestConvertBadJSONLine: the run stops at the bad line, which is named;
// the events before it are written; --keep-going skips every bad line.
func TestConvertBadJSONLine(t *testing.T) {
	lines := demoLines()
	bad := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}` // no delta
	in := strings.Join(lines[:4], "\n") + "\n\n" + bad + "\n" + strings.Join(lines[4:], "\n") + "\n"
	for _, to := range []string{"jsonl", "sse", "binary"} {
		out, errOut, code := agwire(t, []byte(in), "convert", "--to", to)
		want := "agwire convert: line 6: TEXT_MESSAGE_CONTENT: delta: missing required field\nagwire convert: stopped after writing 4 events\n"
		if code != 1 || errOut != want {
			t.Errorf("--to %s: exit %d, stderr:\n%s\nwant:\n%s", to, code, errOut, want)
		}
		if got := events(string(convert(t, []byte(out), "--from", to, "--to", "jsonl"))); strings.Join(got, "\n") != strings.Join(lines[:4], "\n") {
			t.Errorf("--to %s: wrote %q", to, got)
		}
	}

	in = strings.Join(lines[:2], "\n") + "\n" + bad + "\n" + lines[2] + "\n{\"type\":\n" + lines[3] + "\n"
	out, errOut, code := agwire(t, []byte(in), "convert", "--from", "jsonl", "--to", "jsonl", "--keep-going")
	if code != 1 {
		t.Errorf("--keep-going: exit %d, want 1", code)
	}
	for _, s := range []string{"agwire convert: line 3: TEXT_MESSAGE_CONTENT: delta", "agwire convert: line 5: ", "invalid JSON", "agwire convert: wrote 4 events; skipped 2 bad lines\n"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("--keep-going: stderr lacks %q:\n%s", s, errOut)
		}
	}
	if got := events(out); strings.Join(got, "\n") != strings.Join(lines[:4], "\n") {
		t.Errorf("--keep-going: wrote %q", got)
	}
}

// TestConvertBadSSEEvent: the bad event is named by its number and lines.
func TestConvertBadSSEEvent(t *testing.T) {
	in := "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n" + // 1
		"\n" + // 2
		": a comment\n" + // 3
		"\n" + // 4
		"data: {\"type\":\"STEP_FINISHED\",\n" + // 5: event 2
		"data:  \"stepNam\":\"a\"}\n" + // 6
		"\r\n" + // 7
		"event: x\r" + // 8
		"data: {\"type\":\"STEP_FINISHED\",\"stepName\":\"a\"}\r" + // 9: event 3
		"\r" + // 10
		"data: {\"type\":\"THINKING_START\"}\n" + // 11: event 4
		"\n" + // 12
		"data: not json\n" + // 13: event 5
		"\n" + // 14
		"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"b\"}\n\n" // 15: event 6

	out, errOut, code := agwire(t, []byte(in), "convert", "--to", "jsonl")
	want := "agwire convert: event 2 (lines 5-6): STEP_FINISHED: stepNam (byte 36 of the event's data): unknown field \"stepNam\"\nagwire convert: stopped after writing 1 event\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	if out != `{"type":"STEP_STARTED","stepName":"a"}`+"\n" {
		t.Errorf("wrote %q", out)
	}

	// THINKING_START is fine as JSON but has no binary form.
	out, errOut, code = agwire(t, []byte(in), "convert", "--to", "binary", "--keep-going", "--drop-unknown-fields")
	if code != 1 {
		t.Errorf("--keep-going: exit %d", code)
	}
	for _, s := range []string{
		"agwire convert: event 2 (lines 5-6): STEP_FINISHED: stepName: missing required field\n",
		"agwire convert: event 4 (line 11): THINKING_START: unsupported event type",
		"agwire convert: event 5 (line 13): ",
		"agwire convert: wrote 3 events; skipped 3 bad events\n",
	} {
		if !strings.Contains(errOut, s) {
			t.Errorf("--keep-going: stderr lacks %q:\n%s", s, errOut)
		}
	}
	if got := events(string(convert(t, []byte(out), "--to", "jsonl"))); len(got) != 3 || got[2] != `{"type":"STEP_STARTED","stepName":"b"}` {
		t.Errorf("--keep-going: wrote %q", got)
	}

	// A stream cut inside an event ends the run, even with --keep-going.
	cut := "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n\ndata: {\"type\":\"STEP_FINISHED\",\"stepName\":\"a\"}\n"
	out, errOut, code = agwire(t, []byte(cut), "convert", "--to", "jsonl", "--keep-going")
	if code != 1 || len(events(out)) != 1 || !strings.HasPrefix(errOut, "agwire convert: line 3: stream ends inside an event (SSE: unexpected EOF)") ||
		!strings.HasSuffix(errOut, "stopped after writing 1 event\n") {
		t.Errorf("cut: exit %d, out %q, stderr %s", code, out, errOut)
	}

	// --max-frame-size bounds SSE events too.
	_, errOut, code = agwire(t, []byte(cut), "convert", "--to", "jsonl", "--max-frame-size", "20")
	if code != 1 || !strings.Contains(errOut, "agwire convert: line 1: event too large") {
		t.Errorf("--max-frame-size: exit %d, stderr %s", code, errOut)
	}
}

// TestConvertBadFrame: the bad frame is named by its index and offset.
func TestConvertBadFrame(t *testing.T) {
	lines := demoLines()
	fs := frames(t, encode(t, string(demoRun)))
	garbage := []byte{0, 0, 0, 1, 0xff}
	at := len(fs[0]) + len(fs[1]) + len(fs[2])
	in := bytes.Join(append(append(fs[:3:3], garbage), fs[3:]...), nil)

	out, errOut, code := agwire(t, in, "convert", "--to", "sse")
	want := "agwire convert: frame 3 (stream byte " + strconv.Itoa(at) + "): byte 0 of the frame payload: malformed event"
	if code != 1 || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, "agwire convert: stopped after writing 3 events\n") {
		t.Errorf("exit %d, stderr:\n%s\nwant it to start with %q", code, errOut, want)
	}
	if got := sseData(t, []byte(out)); strings.Join(got, "\n") != strings.Join(lines[:3], "\n") {
		t.Errorf("wrote %q", got)
	}

	out, errOut, code = agwire(t, in, "convert", "--to", "jsonl", "--keep-going")
	if code != 1 || !strings.Contains(errOut, want) || !strings.HasSuffix(errOut, "agwire convert: wrote 27 events; skipped 1 bad frame\n") {
		t.Errorf("--keep-going: exit %d, stderr %s", code, errOut)
	}
	if out != string(demoRun) {
		t.Error("--keep-going: the other events were not all written")
	}

	// A truncated stream always ends the run.
	in = bytes.Join(fs, nil)
	cut := at + 10
	out, errOut, code = agwire(t, in[:cut], "convert", "--to", "jsonl", "--keep-going")
	want = "agwire convert: frame 3 (stream byte " + strconv.Itoa(at) + "): truncated frame"
	if code != 1 || len(events(out)) != 3 || !strings.HasPrefix(errOut, want) {
		t.Errorf("truncated: exit %d, %d events, stderr %s", code, len(events(out)), errOut)
	}
}

func TestConvertOptions(t *testing.T) {
	// --nonfinite-null: 1e400 overflows to +Inf on the wire.
	inf := encode(t, `{"type":"STATE_SNAPSHOT","snapshot":{"x":1e400}}`, "--lossy-numbers")
	_, errOut, code := agwire(t, inf, "convert", "--to", "sse")
	if code != 1 || !strings.Contains(errOut, "agwire convert: frame 0 (stream byte 0): ") || !strings.Contains(errOut, "NaN or infinite") {
		t.Errorf("infinity: exit %d, stderr %s", code, errOut)
	}
	if out := convert(t, inf, "--to", "sse", "--nonfinite-null"); string(out) != `data: {"type":"STATE_SNAPSHOT","snapshot":{"x":null}}`+"\n\n" {
		t.Errorf("--nonfinite-null: %q", out)
	}

	// --lossy-numbers and --profile, writing binary.
	lossy := `{"type":"STATE_SNAPSHOT","snapshot":{"id":9007199254740993}}` + "\n"
	if out := convert(t, []byte(lossy), "--to", "jsonl"); string(out) != lossy {
		t.Errorf("JSON to JSON keeps the number: %s", out)
	}
	_, errOut, code = agwire(t, []byte(lossy), "convert", "--to", "binary")
	if code != 1 || !strings.Contains(errOut, "agwire convert: line 1: STATE_SNAPSHOT: snapshot.id") {
		t.Errorf("lossy number: exit %d, stderr %s", code, errOut)
	}
	bin := convert(t, []byte(lossy), "--to", "binary", "--lossy-numbers")
	if out := convert(t, bin, "--to", "jsonl"); string(out) != `{"type":"STATE_SNAPSHOT","snapshot":{"id":9007199254740992}}`+"\n" {
		t.Errorf("--lossy-numbers: %s", out)
	}
	reasoning := "data: " + `{"type":"REASONING_START","messageId":"r1"}` + "\n\n"
	_, errOut, code = agwire(t, []byte(reasoning), "convert", "--to", "binary", "--profile", "pre-1.0")
	if code != 1 || !strings.Contains(errOut, "agwire convert: event 1 (line 1): REASONING_START: event is not part of the selected peer profile") {
		t.Errorf("--profile pre-1.0: exit %d, stderr %s", code, errOut)
	}

	// --drop-unknown-fields.
	extra := `{"type":"STEP_STARTED","stepName":"plan","color":"red"}`
	if _, errOut, code := agwire(t, []byte(extra), "convert", "--to", "sse"); code != 1 || !strings.Contains(errOut, "line 1: STEP_STARTED: color") {
		t.Errorf("unknown field: exit %d, stderr %s", code, errOut)
	}
	if out := convert(t, []byte(extra), "--to", "jsonl", "--drop-unknown-fields"); string(out) != `{"type":"STEP_STARTED","stepName":"plan"}`+"\n" {
		t.Errorf("--drop-unknown-fields: %s", out)
	}

	// --max-frame-size on binary input.
	fs := frames(t, encode(t, string(demoRun)))
	_, errOut, code = agwire(t, fs[0], "convert", "--to", "jsonl", "--max-frame-size", strconv.Itoa(len(fs[0])-5))
	if code != 1 || !strings.Contains(errOut, "agwire convert: frame 0 (stream byte 0): frame too large") {
		t.Errorf("--max-frame-size: exit %d, stderr %s", code, errOut)
	}
}

func TestConvertUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{args: []string{"help", "convert"}, stdout: []string{"Usage: agwire convert", "--from sse|jsonl|binary", "--to sse|jsonl|binary", "--keep-going", "--max-frame-size BYTES", "--profile", "--nonfinite-null", "Example:\n  agwire convert"}},
		{args: []string{"help"}, stdout: []string{"convert", "serve"}},
		{args: []string{"convert"}, code: 2, stderr: []string{"agwire convert: --to is required", "agwire convert --help"}},
		{args: []string{"convert", "--to", "xml"}, code: 2, stderr: []string{`unknown format "xml": want sse, jsonl or binary`}},
		{args: []string{"convert", "--to", "sse", "--profile", "pre-1.0"}, code: 2, stderr: []string{"--profile concerns encoding to binary"}},
		{args: []string{"convert", "--to", "jsonl", "--lossy-numbers"}, code: 2, stderr: []string{"--lossy-numbers concerns encoding to binary"}},
		{args: []string{"convert", "--from", "sse", "--to", "binary", "--nonfinite-null"}, code: 2, stderr: []string{"--nonfinite-null concerns decoding binary"}},
		{args: []string{"convert", "--from", "binary", "--to", "sse", "--drop-unknown-fields"}, code: 2, stderr: []string{"--drop-unknown-fields concerns JSON input"}},
		{args: []string{"convert", "--to", "sse", "x.sse"}, code: 2, stderr: []string{`unexpected argument "x.sse" (use -i FILE`}},
		{args: []string{"convert", "--to", "sse", "-i", filepath.Join(t.TempDir(), "missing")}, code: 1, stderr: []string{"agwire convert: open "}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := agwire(t, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, errOut)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

func TestConvertOutputError(t *testing.T) {
	var errOut bytes.Buffer
	if code := run([]string{"convert", "--to", "sse"}, bytes.NewReader(demoRun), failWriter{}, &errOut); code != 1 || !strings.Contains(errOut.String(), "agwire convert: writing output: disk full") {
		t.Errorf("exit %d, stderr %s", code, errOut.String())
	}
}

// TestLineReader: the lines of each dispatched event are counted as the
// SSE rules count lines (CR, LF, CRLF), whatever the read sizes.
func TestLineReader(t *testing.T) {
	in := "\xEF\xBB\xBFdata: a\r\n\r\n:c\rdata: b\rdata: c\r\r\n\n\ndata: d\n\n"
	// lines: 1 "data: a", 2 "", 3 ":c", 4 "data: b", 5 "data: c", 6 "", 7 "", 8 "", 9 "data: d", 10 ""
	want := []struct {
		data        string
		first, last int64
	}{{"a", 1, 1}, {"b\nc", 3, 5}, {"d", 9, 9}}
	for _, chunk := range []int{1, 2, 3, 7, 1 << 10} {
		lr := &lineReader{br: bufio.NewReaderSize(iotestReader(in, chunk), 16)}
		r := transport.NewSSEReader(lr, 0)
		for i, w := range want {
			ev, err := r.Next()
			if err != nil {
				t.Fatalf("chunk %d: event %d: %v", chunk, i, err)
			}
			if ev.Data != w.data || lr.eventFirst != w.first || lr.eventLast != w.last {
				t.Errorf("chunk %d: event %d: %q, lines %d-%d; want %q, %d-%d", chunk, i, ev.Data, lr.eventFirst, lr.eventLast, w.data, w.first, w.last)
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("chunk %d: at the end: %v", chunk, err)
		}
	}
}

// iotestReader reads s at most n bytes at a time.
func iotestReader(s string, n int) io.Reader {
	return &chunkReader{s: s, n: n}
}

type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

func TestConvertProgress(t *testing.T) {
	n := len(demoLines())
	var out, errOut bytes.Buffer
	fakeTerminal(t, 250*time.Millisecond, &errOut)
	if code := run([]string{"convert", "--to", "sse"}, bytes.NewReader(demoRun), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %q", code, errOut.String())
	}
	e := errOut.String()
	if !strings.HasPrefix(e, clearLine+"agwire convert: 1 event, ") || !strings.HasSuffix(e, clearLine) ||
		!strings.Contains(e, clearLine+"agwire convert: "+strconv.Itoa(n)+" events, ") || !strings.Contains(e, " read, ") ||
		strings.Contains(e, "\n") {
		t.Errorf("stderr %q", e)
	}
	if len(sseData(t, out.Bytes())) != n {
		t.Error("the output changed")
	}

	// An error clears the line first.
	out.Reset()
	errOut.Reset()
	fakeTerminal(t, time.Second, &errOut)
	bad := strings.Join(demoLines()[:3], "\n") + "\n{\"type\":\n"
	if code := run([]string{"convert", "--to", "jsonl"}, strings.NewReader(bad), &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), clearLine+"agwire convert: line 4: ") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// TestWritersKeepToThePeerLimit: encode and convert --to binary refuse by
// default an event whose frame the stock TypeScript client would refuse
// (more than 10 MiB with its prefix), and write it when --max-frame-size
// raises the limit.
func TestWritersKeepToThePeerLimit(t *testing.T) {
	big := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 10<<20) + `"}` + "\n")
	for _, args := range [][]string{{"encode"}, {"convert", "--from", "jsonl", "--to", "binary"}} {
		_, errOut, code := agwire(t, big, args...)
		if code == 0 || !strings.Contains(errOut, "10485760") {
			t.Errorf("%v: exit %d, stderr %.300s", args, code, errOut)
		}
		out, errOut, code := agwire(t, big, append(args, "--max-frame-size", "11000000")...)
		if code != 0 || len(out) < 10<<20 {
			t.Errorf("%v --max-frame-size: exit %d, %d bytes, stderr %.300s", args, code, len(out), errOut)
		}
	}
}

// --max-frame-size applies to the SSE output as it does to the input: an
// event whose data line is longer is refused (a bad record, named), never
// written for "convert --from sse" with the same limit to refuse; one that
// fits, exactly at the limit, is written and read back. From every input
// format (SSE input is converted event by event, the others in parallel).
func TestConvertSSEOutputLimit(t *testing.T) {
	small := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}`
	big := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 500) + `"}`
	limit := len("data: ") + len(big) - 1 // one byte short for big
	jsonl := small + "\n" + big + "\n" + small + "\n"
	// The SSE input carries big's JSON on two data lines, each within the
	// limit, joined by a line break: its data fits where its one-line
	// output does not.
	i := strings.Index(big, `"delta"`)
	sse := "data: " + small + "\n\ndata: " + big[:i] + "\ndata: " + big[i:] + "\n\ndata: " + small + "\n\n"
	inputs := map[string][]byte{
		"jsonl":  []byte(jsonl),
		"sse":    []byte(sse),
		"binary": convert(t, []byte(jsonl), "--to", "binary"),
	}
	for from, in := range inputs {
		out, errOut, code := agwire(t, in, "convert", "--from", from, "--to", "sse", "--max-frame-size", strconv.Itoa(limit))
		if code != 1 || !strings.Contains(errOut, "above --max-frame-size "+strconv.Itoa(limit)) || !strings.Contains(errOut, "event too large") {
			t.Errorf("from %s: exit %d, stderr %s", from, code, errOut)
		}
		if got := sseData(t, []byte(out)); len(got) != 1 || got[0] != small {
			t.Errorf("from %s: wrote %q before stopping; want the first event only", from, got)
		}
		// --keep-going skips it; what is written reads back at the same limit.
		out, _, code = agwire(t, in, "convert", "--from", from, "--to", "sse", "--keep-going", "--max-frame-size", strconv.Itoa(limit))
		if code != 1 {
			t.Errorf("from %s --keep-going: exit %d", from, code)
		}
		back := convert(t, []byte(out), "--from", "sse", "--to", "jsonl", "--max-frame-size", strconv.Itoa(limit))
		if string(back) != small+"\n"+small+"\n" {
			t.Errorf("from %s --keep-going: read back %q", from, back)
		}
		// At the limit exactly: written, and read back.
		out2 := convert(t, in, "--from", from, "--to", "sse", "--max-frame-size", strconv.Itoa(limit+1))
		if back := convert(t, out2, "--from", "sse", "--to", "jsonl", "--max-frame-size", strconv.Itoa(limit+1)); string(back) != jsonl {
			t.Errorf("from %s at the limit: read back %q", from, back)
		}
	}
}
