package interop

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// TestNegotiationMatchesEncoder: a table of Accept headers goes through the
// real EventEncoder.getContentType of @ag-ui/encoder 1.0.0 and through
// agwire's handler; on every row agwire answers binary exactly when the
// encoder does. Where the encoder answers SSE agwire answers SSE, or 406
// when the header accepts neither type (the encoder has no refusal). With
// WildcardSSE agwire keeps SSE for rows that admit binary by a wildcard
// only.
func TestNegotiationMatchesEncoder(t *testing.T) {
	requireNode(t, "negotiate.mjs")
	const (
		bin = transport.MediaTypeBinary
		sse = transport.MediaTypeSSE
		no  = "406"
	)
	rows := []struct {
		accept      []string // nil: no header; several: several fields
		want        string   // agwire's answer
		wildcardSSE string   // with WildcardSSE ("" = as want)
	}{
		// the rows
		{[]string{"*/*"}, bin, sse},
		{[]string{"application/vnd.ag-ui.event+proto, text/event-stream"}, bin, ""},
		{[]string{"text/event-stream;q=1, application/vnd.ag-ui.event+proto;q=0.1"}, bin, ""},
		{[]string{"application/*"}, bin, ""}, // SSE not accepted: binary still
		{[]string{"*/*;q=0.1"}, bin, sse},
		{[]string{"text/*"}, sse, ""},
		{[]string{"text/event-stream;q=0, */*"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=0, */*"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=0, text/event-stream"}, sse, ""},
		{[]string{"text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0"}, no, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=0"}, no, ""},
		// ordinary ones
		{nil, sse, ""},
		{[]string{""}, sse, ""},
		{[]string{"text/event-stream"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto, text/event-stream;q=0.5"}, bin, ""},
		{[]string{"text/event-stream", "application/vnd.ag-ui.event+proto"}, bin, ""},
		{[]string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, bin, sse},
		{[]string{"application/*, text/*"}, bin, sse},
		{[]string{"Application/VND.AG-UI.Event+Proto"}, bin, ""},
		{[]string{"application/json"}, no, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=0.2, */*;q=0.8"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto; charset=utf-8, text/event-stream;q=0.1"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;v=*, text/event-stream"}, bin, ""},
		{[]string{`application/vnd.ag-ui.event+proto; v="1,2"; q=1, text/event-stream`}, sse, ""},
		// malformed ones
		{[]string{"garbage"}, sse, ""},
		{[]string{",,,"}, sse, ""},
		{[]string{"/"}, sse, ""},
		{[]string{"*/"}, sse, ""},
		{[]string{"*/event-stream"}, sse, ""},
		{[]string{"nonsense, application/vnd.ag-ui.event+proto"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=, text/event-stream"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=abc, */*"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=abc, application/vnd.ag-ui.event+proto"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto, application/vnd.ag-ui.event+proto;q=abc"}, no, ""},
		{[]string{`application/vnd.ag-ui.event+proto;q="0.5"`}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=0.5x, text/event-stream;q=0.1"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=.5, text/event-stream;q=0.1"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=2, text/event-stream"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=-1, text/*"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=1e-3, text/event-stream"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q=0.0001, text/event-stream"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q =0.5, text/event-stream"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;q= 0.5, text/event-stream"}, bin, ""},
		{[]string{"application/vnd.ag-ui.event+proto;Q=0, text/event-stream"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto ;q=0, text/event-stream"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto q=1, text/event-stream"}, sse, ""},
		{[]string{"application/vnd.ag-ui.event+proto;;, text/event-stream"}, bin, ""},
		{[]string{`application/vnd.ag-ui.event+proto;v="`}, bin, ""},
		{[]string{`"*/*"`}, sse, ""},
		{[]string{"*/*;q=NaN, text/event-stream"}, sse, ""},
		{[]string{"*/*;q=Infinity"}, bin, sse},
		{[]string{"application/vnd.ag-ui.event+proto/x"}, sse, ""},
	}

	var headers []*string
	for _, r := range rows {
		if r.accept == nil {
			headers = append(headers, nil)
			continue
		}
		h := strings.Join(r.accept, ", ")
		headers = append(headers, &h)
	}
	arg, err := json.Marshal(headers)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runNodeScript(t, "negotiate.mjs", string(arg))
	if err != nil {
		t.Fatalf("node negotiate.mjs: %v\n%s", err, stderr)
	}
	var encoder []string
	if err := json.Unmarshal(stdout, &encoder); err != nil || len(encoder) != len(rows) {
		t.Fatalf("negotiate.mjs printed %q (%v)", stdout, err)
	}

	run := func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}
	plain := httptest.NewServer(mustHandler(transport.HandlerOptions{}, run))
	defer plain.Close()
	wildcard := httptest.NewServer(mustHandler(transport.HandlerOptions{WildcardSSE: true}, run))
	defer wildcard.Close()
	answer := func(t *testing.T, url string, accept []string) string {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for _, a := range accept {
			req.Header.Add("Accept", a)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotAcceptable {
			return no
		}
		return resp.Header.Get("Content-Type")
	}
	for i, r := range rows {
		got := answer(t, plain.URL, r.accept)
		if (got == bin) != (encoder[i] == bin) {
			t.Errorf("Accept %q: agwire answers %s, the encoder %s", r.accept, got, encoder[i])
		}
		if got != r.want {
			t.Errorf("Accept %q: agwire answers %s, want %s", r.accept, got, r.want)
		}
		want := r.wildcardSSE
		if want == "" {
			want = r.want
		}
		if got := answer(t, wildcard.URL, r.accept); got != want {
			t.Errorf("Accept %q with WildcardSSE: agwire answers %s, want %s", r.accept, got, want)
		}
	}
}
