package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	saved := readBuildInfo
	t.Cleanup(func() { readBuildInfo = saved })
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/agwire/agwire", Version: "v0.1.0"}}, true
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		out, errOut, code := agwire(t, nil, args...)
		if code != 0 || errOut != "" || out != "agwire v0.1.0 (go1.26.8)\n" {
			t.Errorf("agwire %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/agwire/agwire", Version: "(devel)"}}, true
	}
	if out, _, _ := agwire(t, nil, "version"); out != "agwire (devel) (go1.26.8)\n" {
		t.Errorf("devel build: %q", out)
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	if out, _, code := agwire(t, nil, "version"); code != 0 || !strings.Contains(out, "unknown version") {
		t.Errorf("no build info: exit %d, %q", code, out)
	}
	if _, errOut, code := agwire(t, nil, "version", "extra"); code != exitUsage || !strings.Contains(errOut, "unexpected argument") {
		t.Errorf("version extra: exit %d, %q", code, errOut)
	}
	if out, _, _ := agwire(t, nil, "help"); !strings.Contains(out, "version") {
		t.Errorf("help does not list version:\n%s", out)
	}
}

// TestVersionReal checks the real build information of the test binary.
func TestVersionReal(t *testing.T) {
	out, _, code := agwire(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "agwire ") || !strings.Contains(out, "(go1.") {
		t.Errorf("exit %d, %q", code, out)
	}
}
