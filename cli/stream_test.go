package cli

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestStreamingOutput: each streaming command writes the events of an input
// that pauses before the input ends: the first part of the input is written
// to a pipe that then stays open, and its events must show on standard
// output while the command waits for the rest.
func TestStreamingOutput(t *testing.T) {
	lines := demoLines()
	head := strings.Join(lines[:3], "\n") + "\n"
	tail := strings.Join(lines[3:], "\n") + "\n"
	binHead, binTail := encode(t, head), encode(t, tail)
	sseHead := convert(t, []byte(head), "--from", "jsonl", "--to", "sse")
	for _, tc := range []struct {
		args       []string
		head, tail []byte
		shows      string // what the output holds once the head is through
	}{
		{[]string{"encode"}, []byte(head), []byte(tail), string(binHead)},
		{[]string{"decode"}, binHead, binTail, head},
		{[]string{"inspect"}, binHead, binTail, "RUN_STARTED"},
		{[]string{"inspect", "--json"}, binHead, binTail, `"frame":2`},
		{[]string{"convert", "--to", "jsonl"}, sseHead, []byte("data: " + strings.Join(lines[3:], "\n\ndata: ") + "\n\n"), head},
		{[]string{"convert", "--to", "binary", "--from", "jsonl"}, []byte(head), []byte(tail), string(binHead)},
	} {
		pr, pw := io.Pipe()
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		go func() { done <- run(tc.args, pr, &stdout, &stderr) }()
		go pw.Write(tc.head)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(stdout.String(), tc.shows) && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		shown := strings.Contains(stdout.String(), tc.shows)
		pw.Write(tc.tail)
		pw.Close()
		code := <-done
		if !shown {
			t.Errorf("%v: the first events were not written before the input ended", tc.args)
		}
		if code != exitOK {
			t.Errorf("%v: exit %d; %s", tc.args, code, stderr.String())
		}
	}
}
