package interop

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJSONDiff: the comparison the interop tests rely on sees what it must
// and ignores what it must.
func TestJSONDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[true,null,"x"]}`, `{"b":[true,null,"x"],"a":1}`, true},
		{`{"a":1e21}`, `{"a":1000000000000000000000}`, true},
		{`{"a":9007199254740993}`, `{"a":9007199254740992}`, true}, // the same double
		{`{"a":0.1}`, `{"a":0.10000000000000001}`, true},
		{`{"a":-0}`, `{"a":0}`, false},
		{`{"a":1}`, `{"a":1.5}`, false},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":null}`, `{}`, false},
		{`{"a":{}}`, `{}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[1]`, `[1,1]`, false},
		{`{"a":"é"}`, `{"a":"\u00e9"}`, true},
	} {
		d := jsonDiff([]byte(tc.a), []byte(tc.b))
		if (d == "") != tc.same {
			t.Errorf("jsonDiff(%s, %s) = %q, want same=%v", tc.a, tc.b, d, tc.same)
		}
	}
}

// TestStartUnavailable: without node or the installed packages, Start says
// ErrUnavailable, which the tests turn into a skip (or, under CI, a failure).
func TestStartUnavailable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "peer.mjs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Options{Dir: dir}); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "npm ci") {
		t.Errorf("no node_modules: %v, want ErrUnavailable with the npm ci hint", err)
	}
	if _, err := Start(Options{Dir: dir, Node: "agwire-no-such-node"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("no node: %v, want ErrUnavailable", err)
	}
}

// TestPeerTimeout: a peer that never answers fails the request after the
// timeout, and is killed, instead of hanging the test binary.
func TestPeerTimeout(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node not found: %v; %s", err, InstallHint)
		}
		t.Skipf("node not found: %v", err)
	}
	dir := t.TempDir()
	// A stand-in for peer.mjs that reads requests and never answers.
	script := "process.stdin.resume(); setInterval(() => {}, 1000);\n"
	if err := os.WriteFile(filepath.Join(dir, "peer.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"proto", "core", "encoder", "client"} {
		p := filepath.Join(dir, "node_modules", "@ag-ui", pkg)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "package.json"), []byte(`{"version":"1.0.0"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	begin := time.Now()
	p, err := Start(Options{Dir: dir, Node: node, Timeout: 300 * time.Millisecond, StartTimeout: 300 * time.Millisecond})
	if err == nil {
		p.Close()
		t.Fatal("Start succeeded against a peer that does not answer")
	}
	if !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("error %v does not say the peer did not answer", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("Start took %v to give up", d)
	}
}
