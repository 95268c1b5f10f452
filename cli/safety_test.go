package cli

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leftovers lists the files of dir other than those named.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
outer:
	for _, e := range ents {
		for _, k := range keep {
			if e.Name() == k {
				continue outer
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// TestOutputIsInput: -o naming the input, directly, through a symbolic link
// or a hard link, or standard input redirected from it, is refused and the
// input is left intact.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.jsonl")
	data := sample(t)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.jsonl")
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Symlink(in, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"same name", []string{"convert", "--to", "jsonl", "-i", in, "-o", in}},
		{"symbolic link", []string{"convert", "--to", "jsonl", "-i", in, "-o", sym}},
		{"symbolic link as input", []string{"encode", "-i", sym, "-o", in}},
		{"hard link", []string{"encode", "-i", in, "-o", hard}},
		{"relative spelling", []string{"convert", "--to", "sse", "-i", in, "-o", filepath.Join(dir, ".", "run.jsonl")}},
	} {
		_, errOut, code := agwire(t, nil, tc.args...)
		if code != exitFail || !strings.Contains(errOut, "the output is the input file") {
			t.Errorf("%s: exit %d, stderr %s", tc.name, code, errOut)
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
			t.Fatalf("%s: the input changed: %d bytes, want %d", tc.name, len(got), len(data))
		}
	}

	// Standard input redirected from the output file.
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errOut bytes.Buffer
	if code := run([]string{"convert", "--to", "jsonl", "-o", in}, f, &out, &errOut); code != exitFail || !strings.Contains(errOut.String(), "the output is the input file") {
		t.Errorf("stdin from the output: exit %d, stderr %s", code, errOut.String())
	}
	if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
		t.Fatalf("stdin from the output: the input changed")
	}
	if extra := leftovers(t, dir, "run.jsonl", "sym.jsonl", "hard.jsonl"); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}
	if !errors.Is(errSameFile, errSameFile) {
		t.Fatal("unreachable")
	}
}

// TestOutputAtomic: a run that fails leaves an existing output file as it
// was and no partial file; one that succeeds replaces it; a symbolic link
// as the output stays a link; a device is written in place.
func TestOutputAtomic(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	out := filepath.Join(dir, "out.bin")
	data := sample(t)
	lines := events(string(data))
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(lines[0]+"\n"+lines[1]+"\n{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := []byte("previous contents")
	if err := os.WriteFile(out, old, 0o600); err != nil {
		t.Fatal(err)
	}

	_, errOut, code := agwire(t, nil, "encode", "-i", bad, "-o", out)
	if code != exitFail || !strings.Contains(errOut, "stopped after writing 2 events ("+out+" not written)") {
		t.Errorf("failed run: exit %d, stderr %s", code, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, old) {
		t.Errorf("a failed run changed the output file: %q", got)
	}
	newFile := filepath.Join(dir, "new.bin")
	if _, _, code := agwire(t, nil, "encode", "-i", bad, "-o", newFile); code != exitFail {
		t.Errorf("failed run to a new file: exit %d", code)
	}
	if _, err := os.Stat(newFile); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s: %v", newFile, err)
	}
	if extra := leftovers(t, dir, "good.jsonl", "bad.jsonl", "out.bin"); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}

	// --keep-going reads to the end: the output is kept.
	if _, _, code := agwire(t, nil, "encode", "--keep-going", "-i", bad, "-o", out); code != exitFail {
		t.Errorf("--keep-going: exit %d", code)
	}
	if got, _ := os.ReadFile(out); len(frames(t, got)) != 2 {
		t.Errorf("--keep-going: output has %d frames, want 2", len(frames(t, got)))
	}

	// Success replaces the file, keeping its mode.
	if _, errOut, code := agwire(t, nil, "encode", "-i", good, "-o", out); code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	got, _ := os.ReadFile(out)
	if len(frames(t, got)) != len(lines) {
		t.Errorf("output has %d frames, want %d", len(frames(t, got)), len(lines))
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", fi.Mode().Perm())
	}

	// A symbolic link as the output: its target is written, the link stays.
	link := filepath.Join(dir, "link.bin")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := agwire(t, nil, "encode", "-i", good, "-o", link); code != 0 {
		t.Fatalf("via link: exit %d, %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}

	// A device: written in place, not replaced.
	if _, errOut, code := agwire(t, nil, "encode", "-i", good, "-o", os.DevNull); code != 0 {
		t.Fatalf("-o %s: exit %d, %s", os.DevNull, code, errOut)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
	}

	// Inspect writes -o too.
	listing := filepath.Join(dir, "listing.txt")
	if _, errOut, code := agwire(t, nil, "inspect", "-i", out, "-o", listing); code != 0 {
		t.Fatalf("inspect -o: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(listing); !strings.HasPrefix(string(b), "FRAME") || strings.Count(string(b), "\n") != len(lines)+1 {
		t.Errorf("inspect -o wrote %q", b)
	}
}

// TestWrongFormat: input of another format is named, with the command that
// reads it, instead of a misleading frame error.
func TestWrongFormat(t *testing.T) {
	data := sample(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(encode(t, string(data)))
	zw.Close()
	zstdStream := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x00, 0x01, 0x00, 0x00}
	sse := []byte("data: " + events(string(data))[0] + "\n\n")

	for _, tc := range []struct {
		cmd  []string
		in   []byte
		want string
	}{
		{[]string{"decode"}, data, "looks like JSON events, not a binary stream: 'agwire encode'"},
		{[]string{"decode"}, []byte(`  [{"type":"RUN_STARTED"}]`), "looks like JSON events"},
		{[]string{"decode"}, gz.Bytes(), "the input is gzip-compressed: decompress it first"},
		{[]string{"decode"}, zstdStream, "the input is zstd-compressed"},
		{[]string{"decode"}, sse, "looks like Server-Sent Events, not a binary stream: read it with 'agwire convert --from sse"},
		{[]string{"inspect"}, data, "looks like JSON events"},
		{[]string{"convert", "--from", "binary", "--to", "jsonl"}, sse, "looks like Server-Sent Events"},
		{[]string{"convert", "--to", "jsonl"}, gz.Bytes(), "the input is gzip-compressed"},
		{[]string{"convert", "--to", "jsonl"}, zstdStream, "the input is zstd-compressed"},
		{[]string{"encode"}, encode(t, string(data)), "looks like a binary stream, not JSON lines: 'agwire decode'"},
		{[]string{"encode"}, sse, "looks like Server-Sent Events, not JSON lines: read it with 'agwire convert --from sse"},
		{[]string{"encode"}, gz.Bytes(), "gzip-compressed"},
		{[]string{"encode"}, []byte("{\n  \"type\": \"RUN_STARTED\",\n  \"threadId\": \"t\"\n}\n"), "one JSON event per line"},
		{[]string{"convert", "--from", "jsonl", "--to", "binary"}, []byte("{\n  \"type\": \"RUN_STARTED\"\n}\n"), "one JSON event per line"},
	} {
		_, errOut, code := agwire(t, tc.in, tc.cmd...)
		if code != exitFail || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.cmd, code, tc.want, errOut)
		}
	}
	// A real binary stream gets no such hint when it is cut short.
	stream := encode(t, string(data))
	_, errOut, _ := agwire(t, stream[:2], "decode")
	if strings.Contains(errOut, "looks like") {
		t.Errorf("a cut binary stream is called something else: %s", errOut)
	}
}

// TestEncodeMaxFrameSize: encode refuses an event whose frame decode would
// refuse, naming the flag; raising the flag on both sides carries it.
func TestEncodeMaxFrameSize(t *testing.T) {
	big := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 200) + `"}` + "\n"
	small := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}` + "\n"
	out, errOut, code := agwire(t, []byte(small+big+small), "encode", "--max-frame-size", "100")
	if code != exitFail || len(frames(t, []byte(out))) != 1 || !strings.Contains(errOut, "agwire encode: line 2: frame too large: payload of ") || !strings.Contains(errOut, "--max-frame-size") {
		t.Errorf("exit %d, %d frames, stderr %s", code, len(frames(t, []byte(out))), errOut)
	}
	stream := encode(t, small+big, "--max-frame-size", "300")
	if _, _, code := agwire(t, stream, "decode", "--max-frame-size", "100"); code != exitFail {
		t.Errorf("decode with a lower limit: exit %d", code)
	}
	if out, _, code := agwire(t, stream, "decode", "--max-frame-size", "300"); code != 0 || len(events(out)) != 2 {
		t.Errorf("decode with the same limit: exit %d", code)
	}
	// convert --to binary applies the limit too.
	if _, errOut, code := agwire(t, []byte(big), "convert", "--to", "binary", "--max-frame-size", "100"); code != exitFail || !strings.Contains(errOut, "frame too large") {
		t.Errorf("convert: exit %d, %s", code, errOut)
	}
}

// TestOnePrefix: every line on stderr carries the command's prefix once,
// and no library prefix.
func TestOnePrefix(t *testing.T) {
	data := sample(t)
	stream := encode(t, string(data))
	for _, tc := range []struct {
		cmd []string
		in  []byte
	}{
		{[]string{"encode"}, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a","metadata":null}` + "\n")},
		{[]string{"encode"}, []byte(`{"type":"THINKING_START"}` + "\n")},
		{[]string{"encode", "--keep-going"}, []byte(`{"type":"STATE_SNAPSHOT","snapshot":{"n":9007199254740993}}` + "\n{}\n")},
		{[]string{"decode"}, append(append([]byte{}, stream[:20]...), 0, 0, 0, 2, 0xff, 0xff)},
		{[]string{"decode", "--keep-going"}, append([]byte{0, 0, 0, 2, 0x0a, 0x05}, stream...)},
		{[]string{"convert", "--to", "binary"}, []byte(`{"type":"THINKING_START"}` + "\n")},
		{[]string{"convert", "--from", "binary", "--to", "sse"}, []byte{0, 0, 0, 3, 0x0a, 0x01, 0xff}},
		{[]string{"inspect"}, []byte{0, 0, 0, 3, 0x0a, 0x01, 0xff}},
	} {
		_, errOut, code := agwire(t, tc.in, tc.cmd...)
		if code == 0 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", tc.cmd, code, errOut)
			continue
		}
		prefix := "agwire " + tc.cmd[0] + ": "
		for _, line := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
			rest, ok := strings.CutPrefix(line, prefix)
			if !ok || strings.Contains(rest, "agwire:") || strings.Contains(rest, "framing:") || strings.Contains(rest, "agwire "+tc.cmd[0]+":") {
				t.Errorf("%v: line %q", tc.cmd, line)
			}
		}
	}
}

// TestEmptyInput: an empty input is said to be empty, and is no failure.
func TestEmptyInput(t *testing.T) {
	for _, cmd := range [][]string{{"encode"}, {"decode"}, {"convert", "--to", "sse"}} {
		out, errOut, code := agwire(t, nil, cmd...)
		if code != 0 || out != "" || errOut != "agwire "+cmd[0]+": the input is empty: no events written\n" {
			t.Errorf("%v: exit %d, out %q, stderr %q", cmd, code, out, errOut)
		}
	}
}

// TestLaterFramesConvertInspect: convert skips frames from a later
// protocol version with a warning; inspect lists them and exits 0 unless
// --strict.
func TestLaterFramesConvertInspect(t *testing.T) {
	stream := encode(t, `{"type":"STEP_STARTED","stepName":"a"}`+"\n")
	future := []byte{0, 0, 0, 5, 0x82, 0x02, 0x02, 0x08, 0x01}
	in := append(append([]byte{}, future...), stream...)

	out, errOut, code := agwire(t, in, "convert", "--to", "jsonl")
	if code != 0 || len(events(out)) != 1 || !strings.Contains(errOut, "agwire convert: warning: frame 0 (stream byte 0): skipped") {
		t.Errorf("convert: exit %d, %q, %s", code, out, errOut)
	}
	if _, errOut, code := agwire(t, in, "convert", "--to", "jsonl", "--strict"); code != exitFail || !strings.Contains(errOut, "an event of a type this version does not know: a frame from a later protocol version") {
		t.Errorf("convert --strict: exit %d, %s", code, errOut)
	}
	out, errOut, code = agwire(t, in, "inspect")
	if code != 0 || !strings.Contains(out, "UNKNOWN EVENT") || !strings.Contains(errOut, "warning: 2 frames read: 1 event of a type this version does not know") {
		t.Errorf("inspect: exit %d, %s", code, errOut)
	}
	if _, _, code := agwire(t, in, "inspect", "--strict"); code != exitFail {
		t.Errorf("inspect --strict: exit %d", code)
	}
}

// TestTerminalDetection: a character device that is not a terminal, such
// as /dev/null, gets no progress line; nor does a regular file.
func TestTerminalDetection(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if fi, _ := null.Stat(); fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip(os.DevNull + " is not a character device here")
	}
	if isTerminal(null) {
		t.Errorf("%s counts as a terminal", os.DevNull)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&bytes.Buffer{}) {
		t.Error("a file or a buffer counts as a terminal")
	}
}

// TestFlagErrors: flag errors spell the flag as the help does.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--to=xml"}, `agwire convert: invalid value "xml" for --to: unknown format "xml"`},
		{[]string{"convert", "--to"}, "agwire convert: --to needs an argument\n"},
		{[]string{"convert", "--tox", "sse"}, "agwire convert: unknown flag --tox\n"},
		{[]string{"decode", "--keep-going=maybe"}, `agwire decode: invalid value "maybe" for --keep-going`},
		{[]string{"decode", "-x"}, "agwire decode: unknown flag -x\n"},
		{[]string{"encode", "-i"}, "agwire encode: -i needs an argument\n"},
	} {
		_, errOut, code := agwire(t, nil, tc.args...)
		if code != exitUsage || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to start with %q", tc.args, code, errOut, tc.want)
		}
	}
}
