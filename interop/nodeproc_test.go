package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Helpers that run the repository's own node scripts (httpagent.mjs,
// encoder-server.mjs) next to the pinned packages, with the conventions of
// Start and peer(t): without node or interop/node_modules a test skips with
// the install hint, or fails when CI is set; a process that outlives its
// timeout is killed and fails the test; every process is gone when the test
// ends.

// nodeScriptTimeout bounds one run of a script that runs to completion, and
// the wait for a server script's first line. Loading @ag-ui/client takes
// well under a second on an idle machine, and the longest script (the real
// HttpAgent reading two 10 MiB events) a few seconds; the margin is for a
// loaded two-core machine running the race-detector build beside it. It
// guards against a hang and bounds nothing that a test asserts.
const nodeScriptTimeout = 3 * time.Minute

// requireNode returns the node executable and the interop directory, or
// skips (fails under CI) when node or the pinned packages are missing.
func requireNode(t testing.TB, script string) (nodePath, dir string) {
	t.Helper()
	nodePath, dir, err := findNode(script)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			if os.Getenv("CI") != "" {
				t.Fatalf("%v\n(CI is set, so the interop tests fail instead of skipping)", err)
			}
			t.Skipf("%v (skipping; set CI=1 to make this a failure)", err)
		}
		t.Fatal(err)
	}
	return nodePath, dir
}

// findNode makes the checks Start makes, for any script of this directory.
func findNode(script string) (nodePath, dir string, err error) {
	dir = sourceDir()
	nodePath, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("%w: node not found (%v); %s", ErrUnavailable, err, InstallHint)
	}
	if _, err := os.Stat(filepath.Join(dir, script)); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for _, pkg := range []string{"proto", "core", "encoder", "client"} {
		manifest := filepath.Join(dir, "node_modules", "@ag-ui", pkg, "package.json")
		if _, err := os.Stat(manifest); err != nil {
			return "", "", fmt.Errorf("%w: @ag-ui/%s is not installed in %s; %s", ErrUnavailable, pkg, filepath.Join(dir, "node_modules"), InstallHint)
		}
	}
	return nodePath, dir, nil
}

// nodeEnv is the environment without SUPPRESS_TRANSFORMATION_WARNINGS, which
// the scripts refuse: the packages' warnings are part of what is checked.
func nodeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SUPPRESS_TRANSFORMATION_WARNINGS=") {
			env = append(env, kv)
		}
	}
	return env
}

// runNodeScript runs `node <script> <args...>` to completion and returns its
// stdout and stderr. A non-zero exit is returned as an *exec.ExitError; a run
// over nodeScriptTimeout is killed and fails the test.
func runNodeScript(t testing.TB, script string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	nodePath, dir := requireNode(t, script)
	ctx, cancel := context.WithTimeout(context.Background(), nodeScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = nodeEnv()
	cmd.WaitDelay = 2 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("node %s %s: killed after %v\nstderr:\n%s", script, strings.Join(args, " "), nodeScriptTimeout, errOut.Bytes())
	}
	return out.Bytes(), errOut.Bytes(), err
}

// nodeServer is a running server script: its first stdout line has been
// read; later lines arrive on Lines.
type nodeServer struct {
	First  json.RawMessage
	Lines  chan []byte
	stderr *tailBuffer
}

// Stderr returns the tail of what the script printed on stderr.
func (s *nodeServer) Stderr() string { return s.stderr.String() }

// NextLine waits up to timeout for the next stdout line.
func (s *nodeServer) NextLine(t testing.TB, timeout time.Duration) []byte {
	t.Helper()
	select {
	case line, ok := <-s.Lines:
		if !ok {
			t.Fatalf("server script closed stdout\nstderr:\n%s", s.Stderr())
		}
		return line
	case <-time.After(timeout):
		t.Fatalf("server script printed no line within %v\nstderr:\n%s", timeout, s.Stderr())
	}
	return nil
}

// startNodeServer starts `node <script> <args...>`, waits for its first
// stdout line and returns. When the test ends the script's stdin is closed,
// which the server scripts take as the signal to exit; one that has not
// exited 5 s later is killed.
func startNodeServer(t testing.TB, script string, args ...string) *nodeServer {
	t.Helper()
	nodePath, dir := requireNode(t, script)
	cmd := exec.Command(nodePath, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = nodeEnv()
	s := &nodeServer{Lines: make(chan []byte, 64), stderr: &tailBuffer{max: 64 << 10}}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node %s: %v", script, err)
	}
	exited := make(chan error, 1)
	done := make(chan struct{}) // closed when the test ends: stop delivering lines
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 && err == nil {
				select {
				case s.Lines <- bytes.TrimSuffix(line, []byte("\n")):
				case <-done:
				}
			}
			if err != nil {
				break
			}
		}
		close(s.Lines)
		exited <- cmd.Wait() // only after stdout is drained: Wait closes the pipe
	}()
	t.Cleanup(func() {
		close(done)
		stdin.Close()
		select {
		case err := <-exited:
			if err != nil {
				t.Logf("node %s exited: %v\nstderr:\n%s", script, err, s.Stderr())
			}
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("node %s did not exit within 5 s of its stdin closing; killed it", script)
			<-exited
		}
	})

	select {
	case line, ok := <-s.Lines:
		if !ok {
			t.Fatalf("node %s exited before printing its first line\nstderr:\n%s", script, s.Stderr())
		}
		s.First = line
	case <-time.After(nodeScriptTimeout):
		_ = cmd.Process.Kill()
		t.Fatalf("node %s printed nothing within %v; killed it\nstderr:\n%s", script, nodeScriptTimeout, s.Stderr())
	}
	return s
}
