package fuzz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agwire/agwire/cli"
)

// cliCommands are the command lines FuzzCLI drives: every command that
// reads an event stream, in each of its modes.
var cliCommands = [][]string{
	{"encode"},
	{"encode", "--keep-going", "--lossy-numbers", "--drop-unknown-fields"},
	{"encode", "--profile", "pre-1.0", "--max-frame-size", "64"},
	{"decode"},
	{"decode", "--keep-going", "--nonfinite-null"},
	{"decode", "--strict", "--max-frame-size", "64"},
	{"convert", "--to", "jsonl"},
	{"convert", "--to", "sse", "--keep-going"},
	{"convert", "--to", "binary"},
	{"convert", "--from", "sse", "--to", "jsonl"},
	{"convert", "--from", "jsonl", "--to", "binary", "--max-frame-size", "64"},
	{"convert", "--from", "binary", "--to", "sse", "--keep-going"},
	{"inspect"},
	{"inspect", "--json", "--strict"},
	{"assemble"},
	{"assemble", "--no-check", "--keep-going"},
	{"assemble", "--from", "binary"},
	{"assemble", "--from", "sse", "--max-frame-size", "64"},
	{"compact"},
	{"compact", "--to", "binary"},
	{"compact", "--from", "jsonl", "--to", "sse", "--no-check"},
	{"demo", "-i", "-"},
	{"demo", "-i", "-", "--json"},
}

// FuzzCLI runs an agwire command in-process on arbitrary input. It must
// end with status 0 or 1, never panic; status 1 comes with a message on
// standard error in the command's name; and what a successful command
// writes is well formed: one JSON value per line from decode and
// "convert --to jsonl", one JSON object from assemble.
func FuzzCLI(f *testing.F) {
	run, err := os.ReadFile("../cli/testdata/demo-run.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	var bin bytes.Buffer
	if code := cli.Main([]string{"encode"}, bytes.NewReader(run), &bin, new(bytes.Buffer)); code != 0 {
		f.Fatal("encoding the demo run failed")
	}
	started := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n"
	seeds := [][]byte{
		nil, []byte("\n"), run, bin.Bytes(), bin.Bytes()[:bin.Len()/2],
		[]byte(`{"type":"NOPE"}` + "\n"),                // an unknown type on line 1
		[]byte("\x00\x00\x00\x05\x12"),                  // a truncated first frame
		[]byte("\xff\xff\xff\xff\x12"),                  // a declared 4 GiB first frame
		[]byte(strings.TrimSuffix(started, "\n") + "x"), // trailing bytes on line 1
		[]byte("data: " + started + "\n"),
		[]byte("\xEF\xBB\xBF" + started),
		[]byte("\x1f\x8b\x08\x00"), []byte("\x28\xb5\x2f\xfd"),
		[]byte(started + `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a/-","value":1}]}` + "\n"),
	}
	for _, s := range seeds {
		for i := range cliCommands {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, input []byte) {
		args := cliCommands[int(which)%len(cliCommands)]
		var stdout, stderr bytes.Buffer
		code := cli.Main(args, bytes.NewReader(input), &stdout, &stderr)
		switch code {
		case 0:
		case 1:
			if !strings.HasPrefix(stderr.String(), "agwire "+args[0]+": ") {
				t.Fatalf("%v: exit 1 without a message: stderr %q", args, stderr.String())
			}
			return
		default:
			t.Fatalf("%v: exit %d; stderr %q", args, code, stderr.String())
		}
		switch {
		case args[0] == "decode", args[0] == "convert" && args[len(args)-1] == "jsonl":
			sc := bufio.NewScanner(&stdout)
			sc.Buffer(nil, 1<<30)
			for sc.Scan() {
				if !json.Valid(sc.Bytes()) {
					t.Fatalf("%v: exit 0 with a line that is not JSON: %q", args, sc.Bytes())
				}
			}
		case args[0] == "assemble":
			var conv map[string]json.RawMessage
			if err := json.Unmarshal(stdout.Bytes(), &conv); err != nil || conv["messages"] == nil {
				t.Fatalf("%v: exit 0 with %q (%v)", args, stdout.String(), err)
			}
		}
	})
}
