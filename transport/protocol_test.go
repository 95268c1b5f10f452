package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// TestProducerDeclaresProtocol: a handler writing the 1.1 profile declares
// protocolVersion "1.1" in a RUN_STARTED that names none (written as a Go
// event or as JSON text), on both carriers, and keeps one that names a
// version; it carries a 1.1 field a 1.0 handler refuses. A 1.0 handler
// declares nothing.
func TestProducerDeclaresProtocol(t *testing.T) {
	later := `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m1","encryptedValue":"e","encryptedValueType":"blob"}`
	for _, tc := range []struct {
		profile codec.Profile
		want    string // RUN_STARTED's protocolVersion, "" for none
	}{{codec.V1, ""}, {codec.V11, event.Protocol11}} {
		var laterErr error
		h, err := NewHandler(func(ctx context.Context, r *http.Request, in *event.RunAgentInput, w EventWriter) error {
			if strings.HasSuffix(in.RunID, "json") {
				if err := w.WriteJSON([]byte(`{"type":"RUN_STARTED","threadId":"` + in.ThreadID + `","runId":"` + in.RunID + `"}`)); err != nil {
					return err
				}
			} else if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}); err != nil {
				return err
			}
			laterErr = w.WriteJSON([]byte(later))
			if err := w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID + "-b", ProtocolVersion: event.Ptr("1.0")}); err != nil {
				return err
			}
			return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}, HandlerOptions{Codec: codec.Codec{Profile: tc.profile}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		for _, prefer := range []Prefer{PreferBinary, PreferSSEOnly} {
			for _, run := range []string{"r-go", "r-json"} {
				c, err := NewClient(srv.URL, ClientOptions{Prefer: prefer, Codec: codec.Codec{Profile: tc.profile}})
				if err != nil {
					t.Fatal(err)
				}
				rd, err := c.Run(context.Background(), &event.RunAgentInput{ThreadID: "t", RunID: run})
				if err != nil {
					t.Fatal(err)
				}
				var starts []*event.RunStarted
				var types []event.Type
				for ev, err := range rd.Events() {
					if err != nil {
						t.Fatalf("%v %v %s: %v", tc.profile, prefer, run, err)
					}
					types = append(types, ev.Type())
					if rs, ok := ev.(*event.RunStarted); ok {
						starts = append(starts, rs)
					}
				}
				rd.Close()
				if len(starts) != 2 {
					t.Fatalf("%v %v %s: events %v", tc.profile, prefer, run, types)
				}
				got := ""
				if v := starts[0].ProtocolVersion; v != nil {
					got = *v
				}
				if got != tc.want {
					t.Errorf("%v %v %s: RUN_STARTED declares %q, want %q", tc.profile, prefer, run, got, tc.want)
				}
				if v := starts[1].ProtocolVersion; v == nil || *v != "1.0" {
					t.Errorf("%v %v %s: a RUN_STARTED naming 1.0 was sent as %v", tc.profile, prefer, run, v)
				}
				if tc.profile == codec.V11 && laterErr != nil {
					t.Errorf("%v: the 1.1 field was refused: %v", tc.profile, laterErr)
				}
				if tc.profile == codec.V1 && !errors.Is(laterErr, event.ErrUnknownField) {
					t.Errorf("%v: the 1.1 field gave %v, want event.ErrUnknownField", tc.profile, laterErr)
				}
			}
		}
		srv.Close()
	}
}
