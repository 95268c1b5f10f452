package cli

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Follow's usage line names its operands.
func TestFollowUsageOperands(t *testing.T) {
	out, _, code := agwire(t, nil, "follow", "--help")
	if first, _, _ := strings.Cut(out, "\n"); code != exitOK || first != "Usage: agwire follow [flags] URL RUN_ID" {
		t.Errorf("exit %d, usage line %q", code, first)
	}
}

// A --from that is neither a cursor nor a number says both are accepted.
func TestFollowFromMessage(t *testing.T) {
	for _, from := range []string{"abc", "-3", "r1/", "r1/x"} {
		_, errText, code := agwire(t, nil, "follow", "http://127.0.0.1:1/", "r1", "--from", from)
		if code != exitUsage || !strings.Contains(errText, "RUN_ID/INC/SEQ") || !strings.Contains(errText, "bare sequence number SEQ") {
			t.Errorf("--from %q: exit %d, %q", from, code, errText)
		}
	}
}

// -i DIR is refused as a directory by every command that reads a file,
// before reading.
func TestInputDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"encode"}, {"decode"}, {"convert", "--to", "jsonl"}, {"inspect"}, {"assemble"}, {"compact"}, {"demo"},
	} {
		_, errText, code := agwire(t, nil, append(args, "-i", dir)...)
		if code != exitFail || !strings.Contains(errText, "agwire "+args[0]+": -i "+dir+" is a directory, not a file") {
			t.Errorf("%v -i DIR: exit %d, %q", args, code, errText)
		}
	}
	if _, err := openInputFile(dir); !errors.Is(err, errDirectory) {
		t.Errorf("openInputFile(DIR) = %v, want errDirectory", err)
	}
}

// Only a line that looks like part of a pretty-printed event gets the
// "pretty-printed" hint; random bytes, prose and an event with trailing
// bytes do not.
func TestPrettyPrintedHint(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var random []string
	for range 50 {
		b := make([]byte, 1+rng.IntN(40))
		for i := range b {
			b[i] = byte(0x20 + rng.IntN(0x5f)) // printable, so it reads as text
		}
		random = append(random, strings.TrimLeft(string(b), `{}[]" `)) // not a bracket or a member's start
	}
	not := append(random, "hello world", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}x`, "12 34", "null")
	for _, line := range not {
		if line == "" {
			continue
		}
		_, errText, code := agwire(t, []byte(line+"\n"), "encode")
		if code != exitFail || strings.Contains(errText, "pretty-printed") {
			t.Errorf("%q: exit %d, %q", line, code, errText)
		}
	}
	for _, line := range []string{"{", "{\n  \"type\": \"RUN_STARTED\",", "  \"threadId\": \"t\",", "}", "},", "[", "]"} {
		// The second line of a pretty-printed run, after a good event.
		in := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" + line + "\n"
		_, errText, code := agwire(t, []byte(in), "encode")
		if code != exitFail || !strings.Contains(errText, "pretty-printed") {
			t.Errorf("%q: exit %d, %q; want the pretty-printed hint", line, code, errText)
		}
	}
}

// "demo -i -" on an empty input does what the other commands do: a note,
// exit 0, and an empty (complete) output.
func TestDemoEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n  \n"} {
		_, encodeErr, encodeCode := agwire(t, []byte(in), "encode")
		out, errText, code := agwire(t, []byte(in), "demo", "-i", "-")
		if code != encodeCode || code != exitOK || out != "" || strings.TrimPrefix(errText, "agwire demo") != strings.TrimPrefix(encodeErr, "agwire encode") {
			t.Errorf("%q: demo exit %d, %q, %q; encode exit %d, %q", in, code, out, errText, encodeCode, encodeErr)
		}
	}
	name := filepath.Join(t.TempDir(), "out")
	if _, errText, code := agwire(t, nil, "demo", "-i", "-", "-o", name); code != exitOK {
		t.Fatalf("-o: exit %d, %s", code, errText)
	}
	if b, err := os.ReadFile(name); err != nil || len(b) != 0 {
		t.Errorf("-o: %q, %v; want an empty file", b, err)
	}
}

// Compact names the record of the event it stops at, as assemble does.
func TestCompactErrorsNameRecord(t *testing.T) {
	run := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" + `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}` + "\n"
	for _, tc := range []struct {
		to, at string
	}{{"jsonl", "line 2: "}, {"binary", "frame 1 (stream byte 16): "}, {"sse", "event 2 (line 3): "}} {
		in := convert(t, []byte(run), "--from", "jsonl", "--to", tc.to)
		for _, cmd := range []string{"assemble", "compact"} {
			_, errText, code := agwire(t, in, cmd)
			want := "agwire " + cmd + ": " + tc.at + "event 1 (TEXT_MESSAGE_CONTENT): not in progress"
			if code != exitFail || !strings.HasPrefix(errText, want) {
				t.Errorf("%s of %s: exit %d, %q; want %q", cmd, tc.to, code, errText, want)
			}
		}
	}
}

// An -o in a directory that does not exist is named as the user wrote it,
// with its directory; the temporary file the output goes through first is
// not mentioned.
func TestOutputMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	target := filepath.Join(dir, "x.bin")
	for _, args := range [][]string{{"encode"}, {"convert", "--from", "jsonl", "--to", "sse"}, {"assemble"}} {
		_, errText, code := agwire(t, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`+"\n"), append(args, "-o", target)...)
		want := "agwire " + args[0] + ": -o " + target + ": the directory " + dir + " does not exist"
		if code != exitFail || !strings.Contains(errText, want) || strings.Contains(errText, ".agwire-") {
			t.Errorf("%v: exit %d, %q, want %q", args, code, errText, want)
		}
	}
}

// JSON or SSE given to decode (or to convert --from binary) is named as
// such before the frame error that reading it as frames gives.
func TestWrongFormatSaidFirst(t *testing.T) {
	for in, looks := range map[string]string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n": "the input looks like JSON events",
		"data: {\"type\":\"RUN_STARTED\"}\n\n":                     "the input looks like Server-Sent Events",
	} {
		for _, args := range [][]string{{"decode"}, {"convert", "--from", "binary", "--to", "jsonl"}} {
			_, errText, code := agwire(t, []byte(in), args...)
			if first, _, _ := strings.Cut(errText, "\n"); code != exitFail || !strings.HasPrefix(first, "agwire "+args[0]+": "+looks) {
				t.Errorf("%v on %q: exit %d, first line %q", args, in, code, first)
			}
		}
	}
}
