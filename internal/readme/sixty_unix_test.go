//go:build unix

package readme_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sixtySeconds is the shell block of README.md's "In 60 seconds".
var sixtySeconds = regexp.MustCompile("(?s)## In 60 seconds\n.*?```sh\n(.*?)```")

// TestSixtySeconds runs README.md's "In 60 seconds" block as a newcomer
// pastes it, as one block, on a free port instead of 8080: the server
// must be listening before the first request (both commands print the
// run), and the block's kill must stop the server itself.
func TestSixtySeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs a server")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := sixtySeconds.FindSubmatch(readme)
	if m == nil {
		t.Fatal(`README.md has no "In 60 seconds" sh block`)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	script := string(m[1])
	for _, want := range []string{"127.0.0.1:8080", "serve &"} {
		if !strings.Contains(script, want) {
			t.Fatalf("the block no longer contains %q, which this test replaces:\n%s", want, script)
		}
	}
	script = strings.ReplaceAll(script, "127.0.0.1:8080", addr)
	script = strings.ReplaceAll(script, "/tmp/agwire", filepath.Join(t.TempDir(), "agwire")) // the binary it builds
	script = strings.ReplaceAll(script, "serve &", "serve --addr "+addr+" &")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = "../.."
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 10 * time.Second // a server left running holds stdout open
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) // whatever the block left running
	err = cmd.Wait()
	out := stdout.String()
	if err != nil || !strings.Contains(out, `{"type":"RUN_STARTED","threadId":"t","runId":"r"`) || !strings.Contains(out, `{"messages":[`) {
		t.Fatalf("the block: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	// The block's kill stopped the server: nothing listens any more.
	var c net.Conn
	for range 50 {
		if c, err = net.Dial("tcp", addr); err != nil {
			break
		}
		c.Close()
		time.Sleep(20 * time.Millisecond)
	}
	if err == nil {
		t.Errorf("after the block, %s still answers: its kill did not stop the server", addr)
	}
}
