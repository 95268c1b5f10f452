package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// agwire runs the command in-process.
func agwire(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, bytes.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func sample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// events returns the non-blank lines of a JSONL text.
func events(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("invalid JSON %s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

// encode encodes JSONL text, which must succeed.
func encode(t *testing.T, jsonl string, args ...string) []byte {
	t.Helper()
	out, errOut, code := agwire(t, []byte(jsonl), append([]string{"encode"}, args...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("encode: exit %d, stderr %s", code, errOut)
	}
	return []byte(out)
}

// frames splits a framed stream into its frames, prefixes included.
func frames(t *testing.T, stream []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(stream) > 0 {
		n := 4 + int(binary.BigEndian.Uint32(stream))
		out = append(out, stream[:n])
		stream = stream[n:]
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	in := sample(t)
	want := events(string(in))
	if len(want) < 10 {
		t.Fatalf("sample has %d events", len(want))
	}
	stream := encode(t, string(in))
	if n := len(frames(t, stream)); n != len(want) {
		t.Fatalf("%d frames for %d events", n, len(want))
	}
	out, errOut, code := agwire(t, stream, "decode")
	if code != 0 || errOut != "" {
		t.Fatalf("decode: exit %d, stderr %s", code, errOut)
	}
	got := events(out)
	if len(got) != len(want) || !strings.HasSuffix(out, "\n") {
		t.Fatalf("decoded %d events, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if !sameJSON(t, got[i], want[i]) {
			t.Errorf("event %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}

	// The same through -i and -o files; "-" means the standard streams.
	dir := t.TempDir()
	bin, jsonl := filepath.Join(dir, "s.bin"), filepath.Join(dir, "s.jsonl")
	if _, errOut, code := agwire(t, nil, "encode", "-i", "testdata/sample.jsonl", "-o", bin); code != 0 {
		t.Fatalf("encode -i -o: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(bin); !bytes.Equal(b, stream) {
		t.Fatal("encode -o wrote a different stream")
	}
	if _, errOut, code := agwire(t, nil, "decode", "-i", bin, "-o", jsonl); code != 0 {
		t.Fatalf("decode -i -o: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(jsonl); string(b) != out {
		t.Fatal("decode -o wrote different JSON")
	}
	if out2, _, code := agwire(t, stream, "decode", "-i", "-", "-o", "-"); code != 0 || out2 != out {
		t.Fatalf("decode -i - -o -: exit %d", code)
	}
}

// TestLongLine: a line far above bufio's default sizes, CRLF line ends and
// no newline at the end of the input.
func TestLongLine(t *testing.T) {
	delta := strings.Repeat("long line ", 100_000) // 1 MB
	in := `{"type":"TEXT_MESSAGE_START","messageId":"m1"}` + "\r\n\r\n" +
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"` + delta + `"}` + "\r\n" +
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`
	out, errOut, code := agwire(t, encode(t, in), "decode")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := events(out)
	if len(got) != 3 || !strings.Contains(got[1], delta) || !sameJSON(t, got[2], `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`) {
		t.Fatalf("got %d events", len(got))
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		stdout   []string
		stderr   []string
		noStdout bool
	}{
		{args: nil, code: 2, stderr: []string{"encode", "decode", "agwire <command>"}, noStdout: true},
		{args: []string{"help"}, code: 0, stdout: []string{"encode", "decode", "agwire <command>"}},
		{args: []string{"--help"}, code: 0, stdout: []string{"encode", "decode"}},
		{args: []string{"help", "decode"}, code: 0, stdout: []string{"Usage: agwire decode", "--max-frame-size BYTES", "Example:"}},
		{args: []string{"help", "nope"}, code: 2, stderr: []string{`unknown command "nope"`}},
		{args: []string{"nope"}, code: 2, stderr: []string{`agwire: unknown command "nope"`, "encode"}, noStdout: true},
		{args: []string{"encode", "--help"}, code: 0, stdout: []string{"Usage: agwire encode", "--profile 1.0|1.1|pre-1.0", "--lossy-numbers", "--drop-unknown-fields", "--keep-going", "-i FILE", "-o FILE", "Example:\n  agwire encode"}},
		{args: []string{"decode", "-h"}, code: 0, stdout: []string{"Usage: agwire decode", "--nonfinite-null", "--keep-going", "Example:\n  agwire decode"}},
		{args: []string{"encode", "--bogus"}, code: 2, stderr: []string{"agwire encode: unknown flag --bogus\n", "agwire encode --help"}, noStdout: true},
		{args: []string{"encode", "--profile", "2.0"}, code: 2, stderr: []string{`unknown profile "2.0"`}, noStdout: true},
		{args: []string{"encode", "extra.jsonl"}, code: 2, stderr: []string{`unexpected argument "extra.jsonl"`}, noStdout: true},
		{args: []string{"decode", "--max-frame-size", "0"}, code: 2, stderr: []string{"max-frame-size"}, noStdout: true},
		{args: []string{"decode", "--max-frame-size", "4294967296"}, code: 2, stderr: []string{"4294967295"}, noStdout: true},
		{args: []string{"inspect", "--profile", "1.0"}, code: 2, stderr: []string{"agwire inspect: unknown flag --profile\n"}, noStdout: true},
		{args: []string{"decode", "-i", filepath.Join(t.TempDir(), "missing.bin")}, code: 1, stderr: []string{"agwire decode: open ", "missing.bin"}, noStdout: true},
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
			if tc.noStdout && out != "" {
				t.Errorf("stdout: %s", out)
			}
		})
	}
}

// TestEncodeBadLine: the run stops at the bad line; every earlier event is
// written in full and decodes, nothing after it is written.
func TestEncodeBadLine(t *testing.T) {
	lines := events(string(sample(t)))
	bad := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}` // no delta
	in := strings.Join(lines[:4], "\n") + "\n\n" + bad + "\n" + strings.Join(lines[4:], "\n") + "\n"

	out, errOut, code := agwire(t, []byte(in), "encode")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantErr := "agwire encode: line 6: TEXT_MESSAGE_CONTENT: delta: missing required field\nagwire encode: stopped after writing 4 events\n"
	if errOut != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, wantErr)
	}
	dec, decErr, code := agwire(t, []byte(out), "decode")
	if code != 0 {
		t.Fatalf("the partial output does not decode: %s", decErr)
	}
	got := events(dec)
	if len(got) != 4 {
		t.Fatalf("%d events written, want 4", len(got))
	}
	for i := range got {
		if !sameJSON(t, got[i], lines[i]) {
			t.Errorf("event %d: %s", i, got[i])
		}
	}

	// --keep-going reports every bad line and encodes the rest.
	in = strings.Join(lines[:2], "\n") + "\n" + bad + "\n" + lines[2] + "\n{\"type\":\n" + lines[3] + "\n"
	out, errOut, code = agwire(t, []byte(in), "encode", "--keep-going")
	if code != 1 {
		t.Fatalf("--keep-going: exit %d, want 1", code)
	}
	for _, s := range []string{"agwire encode: line 3: ", "agwire encode: line 5: ", "agwire encode: wrote 4 events; skipped 2 bad lines\n"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("--keep-going: stderr lacks %q:\n%s", s, errOut)
		}
	}
	if dec, _, _ := agwire(t, []byte(out), "decode"); len(events(dec)) != 4 {
		t.Errorf("--keep-going: %d events written, want 4", len(events(dec)))
	}
}

func TestEncodeRefusals(t *testing.T) {
	start := `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}` + "\n"
	for _, tc := range []struct {
		name   string
		line   string
		args   []string
		stderr []string // empty: the line is accepted
	}{
		{name: "thinking", line: `{"type":"THINKING_START","title":"planning"}`,
			stderr: []string{"agwire encode: line 2: THINKING_START: unsupported event type", "stopped after writing 1 event\n"}},
		{name: "reasoning in 1.0", line: `{"type":"REASONING_START","messageId":"rsn_1"}`},
		{name: "reasoning in pre-1.0", line: `{"type":"REASONING_START","messageId":"rsn_1"}`, args: []string{"--profile", "pre-1.0"},
			stderr: []string{"agwire encode: line 2: REASONING_START: event is not part of the selected peer profile: pre-1.0 peers"}},
		{name: "chunk in pre-1.0", line: `{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}`, args: []string{"--profile=pre-1.0"}},
		{name: "lossy number", line: `{"type":"STATE_SNAPSHOT","snapshot":{"id":9007199254740993}}`,
			stderr: []string{"agwire encode: line 2: STATE_SNAPSHOT: snapshot.id", "number cannot be represented exactly as a double: 9007199254740993 would become"}},
		{name: "lossy number accepted", line: `{"type":"STATE_SNAPSHOT","snapshot":{"id":9007199254740993}}`, args: []string{"--lossy-numbers"}},
		{name: "unknown field", line: `{"type":"STEP_STARTED","stepName":"plan","color":"red"}`,
			stderr: []string{"agwire encode: line 2: STEP_STARTED: color", "unknown field"}},
		{name: "unknown field dropped", line: `{"type":"STEP_STARTED","stepName":"plan","color":"red"}`, args: []string{"--drop-unknown-fields"}},
		{name: "not JSON", line: `{"type":"STEP_STARTED","stepName":"plan"`, stderr: []string{"agwire encode: line 2: ", "invalid JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := agwire(t, []byte(start+tc.line+"\n"), append([]string{"encode"}, tc.args...)...)
			n := len(frames(t, []byte(out)))
			if len(tc.stderr) == 0 {
				if code != 0 || errOut != "" || n != 2 {
					t.Fatalf("exit %d, %d frames, stderr %s", code, n, errOut)
				}
				return
			}
			if code != 1 || n != 1 {
				t.Errorf("exit %d, %d frames; want 1, 1", code, n)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}

	// The lossy number, accepted, travels rounded.
	stream := encode(t, `{"type":"STATE_SNAPSHOT","snapshot":{"id":9007199254740993}}`, "--lossy-numbers")
	if out, _, _ := agwire(t, stream, "decode"); out != `{"type":"STATE_SNAPSHOT","snapshot":{"id":9007199254740992}}`+"\n" {
		t.Errorf("decoded %s", out)
	}
}

// TestDecodeTruncated: the events before the cut are written, then the
// error names the frame that was cut.
func TestDecodeTruncated(t *testing.T) {
	in := sample(t)
	stream := encode(t, string(in))
	fs := frames(t, stream)
	want := events(string(in))
	at := len(fs[0]) + len(fs[1]) + len(fs[2])
	for _, cut := range []int{at + 2, at + 10, len(stream) - 1} {
		out, errOut, code := agwire(t, stream[:cut], "decode", "--keep-going")
		k := 0
		for off := 0; off+len(fs[k]) <= cut; k++ {
			off += len(fs[k])
		}
		start := 0
		for _, f := range fs[:k] {
			start += len(f)
		}
		if code != 1 {
			t.Errorf("cut %d: exit %d, want 1", cut, code)
		}
		got := events(out)
		if len(got) != k {
			t.Fatalf("cut %d: %d events written, want %d", cut, len(got), k)
		}
		for i := range got {
			if !sameJSON(t, got[i], want[i]) {
				t.Errorf("cut %d: event %d: %s", cut, i, got[i])
			}
		}
		wantErr := "agwire decode: frame " + strconv.Itoa(k) + " (stream byte " + strconv.Itoa(start) + "): truncated frame: the stream ends after "
		if !strings.HasPrefix(errOut, wantErr) || !strings.HasSuffix(errOut, "agwire decode: stopped after writing "+strconv.Itoa(k)+" events\n") {
			t.Errorf("cut %d: stderr:\n%s\nwant it to start with %q", cut, errOut, wantErr)
		}
	}
}

// TestDecodeBadFrames: a frame from a later protocol version, and a
// malformed one, stop the run, or are skipped with --keep-going.
func TestDecodeBadFrames(t *testing.T) {
	stream := encode(t, `{"type":"STEP_STARTED","stepName":"a"}`+"\n"+`{"type":"STEP_FINISHED","stepName":"a"}`+"\n")
	fs := frames(t, stream)
	future := []byte{0, 0, 0, 5, 0x82, 0x02, 0x02, 0x08, 0x01} // field 32, length 2, payload 08 01
	garbage := []byte{0, 0, 0, 1, 0xff}
	bad := bytes.Join([][]byte{fs[0], future, fs[1], garbage, fs[0]}, nil)
	futureAt, garbageAt := len(fs[0]), len(fs[0])+len(future)+len(fs[1])

	// By default the frame from a later protocol version is skipped with a
	// warning; the malformed one stops the run.
	out, errOut, code := agwire(t, bad, "decode")
	if code != 1 || len(events(out)) != 2 {
		t.Errorf("exit %d, %d events; want 1, 2", code, len(events(out)))
	}
	warning := "agwire decode: warning: frame 1 (stream byte " + strconv.Itoa(futureAt) + "): skipped an event of a type this version does not know: a frame from a later protocol version (--strict makes this an error)\n"
	garbageErr := "agwire decode: frame 3 (stream byte " + strconv.Itoa(garbageAt) + "): byte 0 of the frame payload: malformed event"
	if !strings.HasPrefix(errOut, warning+garbageErr) || !strings.HasSuffix(errOut, "stopped after writing 2 events\n") {
		t.Errorf("stderr:\n%s\nwant it to start with %q", errOut, warning+garbageErr)
	}

	// Only frames from a later version: exit 0, with the warnings.
	out, errOut, code = agwire(t, bytes.Join([][]byte{fs[0], future, fs[1]}, nil), "decode")
	if code != 0 || len(events(out)) != 2 || errOut != warning+"agwire decode: warning: skipped 1 event of a type this version does not know\n" {
		t.Errorf("later frame only: exit %d, %d events, stderr %q", code, len(events(out)), errOut)
	}

	// --strict: the later frame is a bad frame.
	out, errOut, code = agwire(t, bad, "decode", "--strict")
	if code != 1 || len(events(out)) != 1 {
		t.Errorf("--strict: exit %d, %d events; want 1, 1", code, len(events(out)))
	}
	wantErr := "agwire decode: frame 1 (stream byte " + strconv.Itoa(futureAt) + "): an event of a type this version does not know: a frame from a later protocol version"
	if !strings.HasPrefix(errOut, wantErr) || !strings.HasSuffix(errOut, "stopped after writing 1 event\n") {
		t.Errorf("--strict: stderr:\n%s\nwant it to start with %q", errOut, wantErr)
	}

	out, errOut, code = agwire(t, bad, "decode", "--keep-going", "--strict")
	if code != 1 {
		t.Errorf("--keep-going: exit %d, want 1", code)
	}
	if got := events(out); len(got) != 3 || !sameJSON(t, got[1], `{"type":"STEP_FINISHED","stepName":"a"}`) {
		t.Errorf("--keep-going: wrote %q", got)
	}
	for _, s := range []string{
		wantErr,
		garbageErr,
		"agwire decode: wrote 3 events; skipped 2 bad frames\n",
	} {
		if !strings.Contains(errOut, s) {
			t.Errorf("--keep-going: stderr lacks %q:\n%s", s, errOut)
		}
	}
}

func TestDecodeOptions(t *testing.T) {
	// 1e400 overflows to +Inf, which JSON cannot spell.
	inf := encode(t, `{"type":"STATE_SNAPSHOT","snapshot":{"x":1e400}}`, "--lossy-numbers")
	_, errOut, code := agwire(t, inf, "decode")
	if code != 1 || !strings.Contains(errOut, "agwire decode: frame 0 (stream byte 0): ") || !strings.Contains(errOut, "NaN or infinite") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	out, errOut, code := agwire(t, inf, "decode", "--nonfinite-null")
	if code != 0 || out != `{"type":"STATE_SNAPSHOT","snapshot":{"x":null}}`+"\n" {
		t.Errorf("--nonfinite-null: exit %d, out %s, stderr %s", code, out, errOut)
	}

	stream := encode(t, string(sample(t)))
	first := len(frames(t, stream)[0]) - 4
	_, errOut, code = agwire(t, stream, "decode", "--max-frame-size", strconv.Itoa(first-1))
	want := "agwire decode: frame 0 (stream byte 0): frame too large: declared length " + strconv.Itoa(first) + " bytes exceeds the limit of " + strconv.Itoa(first-1)
	if code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("--max-frame-size: exit %d, stderr %s\nwant %s", code, errOut, want)
	}
}

// failWriter fails every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestOutputError(t *testing.T) {
	var errOut bytes.Buffer
	if code := run([]string{"encode"}, bytes.NewReader(sample(t)), failWriter{}, &errOut); code != 1 || !strings.Contains(errOut.String(), "agwire encode: writing output: disk full") {
		t.Errorf("encode: exit %d, stderr %s", code, errOut.String())
	}
	errOut.Reset()
	stream := encode(t, string(sample(t)))
	if code := run([]string{"decode"}, bytes.NewReader(stream), failWriter{}, &errOut); code != 1 || !strings.Contains(errOut.String(), "agwire decode: writing output: disk full") {
		t.Errorf("decode: exit %d, stderr %s", code, errOut.String())
	}
}
