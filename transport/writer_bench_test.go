package transport_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// BenchmarkWriter is the cost of one event through an EventWriter, on the
// plain and the logged path and on both carriers: a run function writes
// b.N text deltas through NewHandler, and the response (served from the
// log on the logged path) goes to a recorder.
func BenchmarkWriter(b *testing.B) {
	ev := &event.TextMessageContent{MessageID: "msg-1", Delta: "It is 18.5 °C and clear in Paris. "}
	body := `{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`
	for _, path := range []string{"plain", "logged"} {
		for _, accept := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
			name := path + "/" + map[string]string{transport.MediaTypeSSE: "sse", transport.MediaTypeBinary: "binary"}[accept]
			b.Run(name, func(b *testing.B) {
				opts := transport.HandlerOptions{}
				if path == "logged" {
					opts.Log = runlog.NewMemory(runlog.MemoryOptions{})
				}
				n := b.N
				h, err := transport.NewHandler(func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
					for range n {
						if err := w.WriteEvent(ev); err != nil {
							return err
						}
					}
					return nil
				}, opts)
				if err != nil {
					b.Fatal(err)
				}
				req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", accept)
				rec := httptest.NewRecorder()
				b.ReportAllocs()
				b.ResetTimer()
				h.ServeHTTP(rec, req)
				b.StopTimer()
				if rec.Code != 200 || rec.Body.Len() < n*20 {
					b.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
				}
			})
		}
	}
}
