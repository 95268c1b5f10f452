package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// TestCapabilitiesParseWithSchema: the capabilities agwire's handler
// serves, with every category and keys of a later version at each level,
// parse with the real AgentCapabilitiesSchema of @ag-ui/core 1.0.0, which
// keeps everything agwire sent: the same JSON comes back. The transport
// flags are the handler's own: streaming and httpBinary, and resumable
// with a Log only.
func TestCapabilitiesParseWithSchema(t *testing.T) {
	requireNode(t, "capabilities.mjs")
	doc := `{"identity":{"name":"weather","type":"assistant","description":"Weather","version":"1.2","provider":"geo","documentationUrl":"https://example.com","metadata":{"team":"geo"},"x-id":1},
		"transport":{"websocket":false,"pushNotifications":false,"future":1},
		"tools":{"supported":true,"items":[{"name":"get_weather","description":"Weather","parameters":{"type":"object"},"metadata":{"k":"v"},"x":[1]}],"parallelCalls":true,"clientProvided":true},
		"output":{"structuredOutput":true,"supportedMimeTypes":["application/json"]},
		"state":{"snapshots":true,"deltas":true,"memory":false,"persistentState":false},
		"multiAgent":{"supported":true,"delegation":true,"handoffs":false,"subagents":[{"name":"a","description":"d","y":true}]},
		"reasoning":{"supported":true,"streaming":true,"encrypted":false},
		"multimodal":{"input":{"image":true,"audio":false,"video":false,"pdf":true,"file":true,"z":0},"output":{"image":false,"audio":false}},
		"execution":{"codeExecution":false,"sandboxed":true,"maxIterations":10,"maxExecutionTime":9007199254740991},
		"humanInTheLoop":{"supported":true,"approvals":true,"interventions":false,"feedback":true,"interrupts":true,"approveWithEdits":false},
		"custom":{"anything":["goes"]},
		"later":{"category":true}}`
	var caps event.AgentCapabilities
	if err := json.Unmarshal([]byte(doc), &caps); err != nil {
		t.Fatal(err)
	}
	plain := httptest.NewServer(mustHandler(transport.HandlerOptions{Capabilities: &caps}, noRun))
	defer plain.Close()
	resumable := httptest.NewServer(mustHandler(transport.HandlerOptions{Capabilities: &caps, Log: runlog.NewMemory(runlog.MemoryOptions{})}, noRun))
	defer resumable.Close()
	bare := httptest.NewServer(mustHandler(transport.HandlerOptions{}, noRun))
	defer bare.Close()

	stdout, stderr, err := runNodeScript(t, "capabilities.mjs", plain.URL, resumable.URL, bare.URL)
	if err != nil {
		t.Fatalf("node capabilities.mjs: %v\n%s", err, stderr)
	}
	lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("capabilities.mjs printed %q", stdout)
	}
	for i, url := range []string{plain.URL, resumable.URL, bare.URL} {
		var out struct {
			Status      int             `json:"status"`
			ContentType string          `json:"contentType"`
			OK          bool            `json:"ok"`
			Parsed      json.RawMessage `json:"parsed"`
			Issues      json.RawMessage `json:"issues"`
		}
		if err := json.Unmarshal(lines[i], &out); err != nil {
			t.Fatal(err)
		}
		if out.Status != 200 || out.ContentType != "application/json" || !out.OK {
			t.Fatalf("%s: %d %s, schema: %v %s", url, out.Status, out.ContentType, out.OK, out.Issues)
		}
		c, err := transport.NewClient(url, transport.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		served, err := c.Capabilities(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(served)
		if d := jsonDiff(out.Parsed, want); d != "" {
			t.Errorf("%s: the schema's parse differs from what agwire served: %s", url, d)
		}
		tr := served.Transport
		if tr == nil || !*tr.Streaming || !*tr.HTTPBinary || *tr.Resumable != (i == 1) {
			t.Errorf("%s: transport %s", url, want)
		}
	}
}

// noRun is a run that writes nothing.
var noRun transport.RunFunc = func(_ context.Context, _ *http.Request, _ *event.RunAgentInput, _ transport.EventWriter) error {
	return nil
}
