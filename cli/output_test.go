package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// TestMain lets a test run this test binary as the agwire command (see
// agwireProcess), to send it a real signal.
func TestMain(m *testing.M) {
	if os.Getenv("AGWIRE_TEST_AS_COMMAND") == "1" {
		if os.Getenv("AGWIRE_TEST_IGNORE_SIGINT") == "1" {
			signal.Ignore(os.Interrupt) // as a shell starts a background job
		}
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// agwireProcess starts this test binary as "agwire args...".
func agwireProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "AGWIRE_TEST_AS_COMMAND=1")
	return cmd
}

// finishedRun serves the demo run r1, already run to its end, for follow.
func finishedRun(t *testing.T) string {
	t.Helper()
	log := runlog.NewMemory(runlog.MemoryOptions{})
	t.Cleanup(func() { log.Close() })
	h, err := newServeHandler(serveOptions{runLog: log, detach: true, heartbeat: time.Second, runs: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := startRun(ctx, nil, srv.URL+"/", &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range r.Events() {
		if err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	return srv.URL
}

// TestEveryOutputFile: every command that has -o writes, with -o FILE, a
// complete file holding exactly what it writes to standard output, and
// leaves no temporary file. A command with -o missing from the cases fails
// the test.
func TestEveryOutputFile(t *testing.T) {
	dir := t.TempDir()
	run1 := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(run1, demoRun, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "run.bin")
	if err := os.WriteFile(bin, encode(t, string(demoRun)), 0o644); err != nil {
		t.Fatal(err)
	}
	url := finishedRun(t)
	cases := []struct {
		name string
		args []string
	}{
		{"encode", []string{"encode", "-i", run1}},
		{"decode", []string{"decode", "-i", bin}},
		{"convert", []string{"convert", "--to", "sse", "-i", run1}},
		{"inspect", []string{"inspect", "-i", bin}},
		{"demo", []string{"demo"}},
		{"follow", []string{"follow", url, "r1"}},
		{"assemble", []string{"assemble", "-i", run1}},
		{"compact", []string{"compact", "-i", run1}},
		{"compact --to binary", []string{"compact", "--to", "binary", "-i", run1}},
		{"compact binary", []string{"compact", "-i", bin}},
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.args[0]] = true
		t.Run(tc.name, func(t *testing.T) {
			want, errText, code := agwire(t, nil, tc.args...)
			if code != exitOK || len(want) == 0 {
				t.Fatalf("to stdout: exit %d, %d bytes; %s", code, len(want), errText)
			}
			sub := t.TempDir()
			name := filepath.Join(sub, "out")
			out, errText, code := agwire(t, nil, append(tc.args, "-o", name)...)
			if code != exitOK || out != "" {
				t.Fatalf("-o: exit %d, stdout %q; %s", code, out, errText)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("-o: %v; stderr %s", err, errText)
			}
			if string(got) != want {
				t.Fatalf("-o wrote %d bytes, not the %d written to stdout", len(got), len(want))
			}
			if left := leftovers(t, sub, "out"); len(left) > 0 {
				t.Fatalf("-o left %v", left)
			}
		})
	}
	for _, c := range commands {
		var help bytes.Buffer
		c.call(Options{}, []string{"--help"}, strings.NewReader(""), &help, &help)
		if strings.Contains(help.String(), "\n  -o FILE\n") && !covered[c.name] {
			t.Errorf("%s has -o but no case here", c.name)
		}
	}
}

// TestOutputFileFailure: a run that fails on its input leaves neither the
// output file nor a temporary one. (Inspect is not here: its listing of a
// bad stream is complete, up to where the stream breaks.)
func TestOutputFileFailure(t *testing.T) {
	for _, args := range [][]string{
		{"encode"}, {"decode"}, {"convert", "--to", "jsonl", "--from", "jsonl"},
		{"assemble"}, {"compact"},
	} {
		dir := t.TempDir()
		name := filepath.Join(dir, "out")
		bad := []byte("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":1}\n")
		if args[0] == "decode" {
			bad = []byte{0, 0, 0, 9, 1}
		}
		_, errText, code := agwire(t, bad, append(args, "-o", name)...)
		if code != exitFail {
			t.Errorf("%v: exit %d; %s", args, code, errText)
		}
		if left := leftovers(t, dir); len(left) > 0 {
			t.Errorf("%v: a failed run left %v", args, left)
		}
	}
}

// TestInterruptedOutputFile: SIGINT or SIGTERM to "agwire encode -o FILE"
// reading a pipe that has not ended removes the temporary file, and the
// signal still ends the process.
func TestInterruptedOutputFile(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd := agwireProcess(t, "encode", "-o", filepath.Join(dir, "events.bin"))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdin.Write([]byte(events(string(demoRun))[0] + "\n"))
		// Wait for the temporary file, then signal.
		deadline := time.Now().Add(20 * time.Second)
		for len(leftovers(t, dir)) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if len(leftovers(t, dir)) == 0 {
			cmd.Process.Kill()
			t.Fatalf("no temporary file appeared")
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		stdin.Close()
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%v: the command ended with %v; stderr %s", sig, err, stderr.String())
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
			t.Errorf("%v: the command ended with %v, not by the signal", sig, err)
		}
		if left := leftovers(t, dir); len(left) > 0 {
			t.Errorf("%v: the interrupted run left %v", sig, left)
		}
	}
}

// TestIgnoredInterrupt: a command started with SIGINT ignored (a background
// job) keeps ignoring it: the run goes on and its -o file is written.
func TestIgnoredInterrupt(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "events.bin")
	cmd := agwireProcess(t, "encode", "-o", name)
	cmd.Env = append(cmd.Env, "AGWIRE_TEST_IGNORE_SIGINT=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := events(string(demoRun))
	stdin.Write([]byte(lines[0] + "\n"))
	deadline := time.Now().Add(20 * time.Second)
	for len(leftovers(t, dir)) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond) // time for a handler, if there were one, to act
	stdin.Write([]byte(strings.Join(lines[1:], "\n") + "\n"))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the command ended with %v; stderr %s", err, stderr.String())
	}
	got, err := os.ReadFile(name)
	if want := encode(t, string(demoRun)); err != nil || !bytes.Equal(got, want) {
		t.Errorf("-o holds %d bytes (%v), want the %d of the whole run", len(got), err, len(want))
	}
}
