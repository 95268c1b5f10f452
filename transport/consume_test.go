package transport

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// TestConsumeOption: with ClientOptions.Consume the SSE reader removes an
// unknown property and skips an unknown event, reporting both to Warn, and
// still refuses a malformed known value.
func TestConsumeOption(t *testing.T) {
	body := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"futureProp\":1}\n\n" +
		"data: {\"type\":\"FUTURE_EVENT\"}\n\n" +
		"data: {\"type\":\"CUSTOM\",\"name\":\"x\"}\n\n"
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {MediaTypeSSE}}, Body: io.NopCloser(strings.NewReader(body))}
	var warnings []string
	r, err := NewEventReader(resp, ClientOptions{Consume: true, Warn: func(w event.Warning) { warnings = append(warnings, w.String()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []event.Type
	var errs []error
	for ev, err := range r.Events() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, ev.Type())
	}
	if len(got) != 1 || got[0] != event.TypeRunStarted {
		t.Errorf("events %v, want [RUN_STARTED]", got)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "value") {
		t.Errorf("errors %v, want one naming CUSTOM's missing value", errs)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "/futureProp") || !strings.Contains(warnings[1], "FUTURE_EVENT") {
		t.Errorf("warnings %q", warnings)
	}
}
