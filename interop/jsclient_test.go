package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestJSCompanion runs the node tests of the JavaScript companion
// (clients/js, @agwire/fetch): the stock HttpAgent of @ag-ui/client 1.0.0
// with the companion, against the Go handler through proxies that cut
// connections, plus the re-chunking unit tests. They need node and
// `cd clients/js && npm ci`; without them the test skips (fails under CI).
func TestJSCompanion(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the companion's node tests start Go servers and take several seconds")
	}
	dir := filepath.Join(sourceDir(), "..", "clients", "js")
	nodePath, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not on PATH"
	default:
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client", "package.json")); err != nil {
			missing = "clients/js/node_modules is not installed"
		}
	}
	if missing != "" {
		const hint = "install with `cd clients/js && npm ci` (Node 20+ on PATH)"
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; %s (CI is set, so this fails instead of skipping)", missing, hint)
		}
		t.Skipf("%s; %s (skipping; set CI=1 to make this a failure)", missing, hint)
	}
	files, err := filepath.Glob(filepath.Join(dir, "test", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s: %v", filepath.Join(dir, "test"), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, append([]string{"--test", "--test-reporter=tap"}, files...)...)
	cmd.Dir = dir
	cmd.Env = nodeEnv()
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("node --test: killed after 4 minutes\n%s", out)
	}
	if err != nil {
		t.Fatalf("node --test failed: %v\n%s", err, out)
	}
	pass := regexp.MustCompile(`(?m)^# pass (\d+)$`).FindSubmatch(out)
	fail := regexp.MustCompile(`(?m)^# fail (\d+)$`).FindSubmatch(out)
	if pass == nil || fail == nil || string(fail[1]) != "0" || string(pass[1]) == "0" {
		t.Fatalf("node --test: no passing summary\n%s", out)
	}
	if regexp.MustCompile(`(?m)^# skipped [1-9]`).Match(out) {
		t.Fatalf("node --test skipped tests\n%s", out)
	}
	t.Logf("node --test clients/js/test: %s tests passed", pass[1])
}
