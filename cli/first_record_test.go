package cli

import (
	"strings"
	"testing"
)

// TestFirstRecordErrors: a bad first record (an unknown type, a truncated
// frame, a frame declaring 4 GiB, JSON with trailing bytes) is reported as
// the same record is when it comes second, naming line 1 or frame 0, by
// every command that reads events; it used to be a nil-pointer panic in
// the input sources' hints (assemble, compact).
func TestFirstRecordErrors(t *testing.T) {
	started := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n"
	startedBin := string(encode(t, started))
	for _, in := range []struct {
		name        string
		bad, before string // the bad record, a good record to put before it
		args        []string
		first, next string // how the message names it in each place
	}{
		{"unknown type", `{"type":"NOPE"}` + "\n", started, nil, "line 1", "line 2"},
		{"truncated frame", "\x00\x00\x00\x05\x12", startedBin, nil, "frame 0", "frame 1"},
		{"4 GiB frame", "\xff\xff\xff\xff\x12", startedBin, []string{"--from", "binary"}, "frame 0", "frame 1"},
		{"trailing bytes", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}x` + "\n", started, nil, "line 1", "line 2"},
	} {
		for _, cmd := range [][]string{{"assemble"}, {"compact"}, {"convert", "--to", "jsonl"}} {
			args := append(append([]string{}, cmd...), in.args...)
			if cmd[0] == "convert" && len(in.args) == 0 && strings.HasPrefix(in.bad, "{") {
				args = append(args, "--from", "jsonl")
			}
			_, first, code1 := agwire(t, []byte(in.bad), args...)
			_, next, code2 := agwire(t, []byte(in.before+in.bad), args...)
			if code1 != code2 || code1 > exitFail {
				t.Errorf("%s, %v: exit %d first, %d second; %q, %q", in.name, args, code1, code2, first, next)
			}
			if code1 == exitFail && (!strings.Contains(first, in.first) || !strings.Contains(next, in.next)) {
				t.Errorf("%s, %v: first %q, second %q; want them naming %s and %s", in.name, args, first, next, in.first, in.next)
			}
		}
	}
}
