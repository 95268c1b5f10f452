package transport_test

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// limitedBody returns a run request whose RUN_STARTED echo (the input in
// its input field) is size bytes on the wire.
func limitedBody(t *testing.T, run string, size int) string {
	t.Helper()
	for n := max(0, size-400); n <= size; n++ {
		body := fmt.Sprintf(`{"threadId":"t","runId":%q,"messages":[{"id":"u","role":"user","content":%q}]}`, run, strings.Repeat("x", n))
		in, err := event.Parser{}.ParseRunAgentInput([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := (codec.Codec{}).Servable(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID, Input: in}); err == nil && got == size {
			return body
		}
	}
	t.Fatalf("no input of %d bytes", size)
	return ""
}

// A resumable run whose RUN_STARTED echo of its input is larger than the
// log's largest event (runlog.EventLimiter: here MemoryOptions.MaxEventBytes)
// is refused at the start, 422 naming the limit, and never runs; one of
// exactly the limit is served to its end, on both carriers. (It was
// answered 200, then a RUN_ERROR: the log refused the first event.)
func TestRunStartedOverLogLimit(t *testing.T) {
	const limit = 2000
	for name, accept := range carriers() {
		t.Run(name, func(t *testing.T) {
			mem := runlog.NewMemory(runlog.MemoryOptions{MaxEventBytes: limit})
			t.Cleanup(func() { mem.Close() })
			if got := mem.MaxEventBytes(); got != limit {
				t.Fatalf("MaxEventBytes = %d, want %d", got, limit)
			}
			var called atomic.Int32
			srv, _ := guardServer(t, true, transport.HandlerOptions{Log: mem}, echoRun(&called))
			resp := post(t, noCompressionClient(), srv.URL, limitedBody(t, "over", limit+1), map[string]string{"Accept": accept})
			code, text := status(t, resp)
			if code != http.StatusUnprocessableEntity || !strings.Contains(text, strconv.Itoa(limit)+" bytes") || !strings.Contains(text, "RUN_STARTED") {
				t.Fatalf("a RUN_STARTED of %d bytes: %d %q; want 422 naming RUN_STARTED and the limit", limit+1, code, text)
			}
			if n := called.Load(); n != 0 {
				t.Errorf("the run function ran %d times", n)
			}
			if _, err := mem.Read(testCtx(t), runlog.Cursor{Run: "over"}); !errors.Is(err, runlog.ErrUnknownRun) {
				t.Errorf("the refused run in the log: %v; want ErrUnknownRun", err)
			}

			resp = post(t, noCompressionClient(), srv.URL, limitedBody(t, "under", limit), map[string]string{"Accept": accept})
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("a RUN_STARTED of %d bytes: %d", limit, resp.StatusCode)
			}
			var types []event.Type
			if name == "sse" {
				er := transport.NewSSEReader(resp.Body, 0)
				for {
					data, err := er.Next()
					if err != nil {
						break
					}
					ev, err := event.Parse([]byte(data.Data))
					if err != nil {
						t.Fatal(err)
					}
					types = append(types, ev.Type())
				}
			} else {
				fr := framing.NewReader(resp.Body, framing.ReaderOptions{})
				for {
					ev, err := fr.ReadEvent()
					if err != nil {
						break
					}
					types = append(types, ev.Type())
				}
			}
			if len(types) != 2 || types[0] != event.TypeRunStarted || types[1] != event.TypeRunFinished {
				t.Fatalf("the run at the limit: %v; want RUN_STARTED, RUN_FINISHED", types)
			}
		})
	}
}
