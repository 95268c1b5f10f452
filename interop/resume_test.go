package interop

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// TestHTTPAgentResumableRun: the real HttpAgent of @ag-ui/client 1.0.0
// assembles the same conversation from a resumable run — each SSE event
// preceded by its cursor as an "id:" line, every event rendered from the
// run log's wire bytes — as from a plain one, on both transports.
func TestHTTPAgentResumableRun(t *testing.T) {
	requireNode(t, "httpagent.mjs")
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	s := newGoAgentServer(t, transport.HandlerOptions{Log: log})

	// What the SSE stream of a resumable run looks like: an id line
	// before each data line.
	resp, err := http.Post(s.URL, "application/json", strings.NewReader(`{"threadId":"thread-e2e","runId":"run-ids","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The ids are cursors bound to the run's incarnation: run-ids/INC/N.
	inc, _, _ := bytes.Cut(bytes.TrimPrefix(body, []byte("id: run-ids/")), []byte("/"))
	if ids, datas := bytes.Count(body, []byte("\nid: run-ids/"+string(inc)+"/")), bytes.Count(body, []byte("\ndata: ")); len(inc) == 0 || !bytes.HasPrefix(body, []byte("id: run-ids/"+string(inc)+"/1\ndata: ")) || ids+1 != datas || datas < 10 {
		t.Fatalf("the resumable SSE stream has %d id lines for %d data lines:\n%s", ids+1, datas, short(body))
	}

	outputs := runHTTPAgent(t, s.URL, "sse", s.URL, "binary")
	for i, c := range []struct{ mode, wantType string }{
		{"sse", transport.MediaTypeSSE},
		{"binary", transport.MediaTypeBinary},
	} {
		t.Run(c.mode, func(t *testing.T) {
			out := outputs[i]
			if out.RunError != "" {
				t.Fatalf("HttpAgent.runAgent threw: %s", out.RunError)
			}
			rec := s.run(t, "run-"+c.mode)
			if rec == nil {
				t.Fatalf("the Go server recorded no run %q", "run-"+c.mode)
			}
			checkHTTPAgentRun(t, out, rec, c.wantType, c.wantType, "")
		})
	}
}
