package webagent

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// run posts one run and returns its events.
func run(t *testing.T, h http.Handler, body string) []event.Event {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", transport.MediaTypeBinary)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var evs []event.Event
	for ev, err := range framing.NewReader(bytes.NewReader(rec.Body.Bytes()), framing.ReaderOptions{}).Events() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestRunShape(t *testing.T) {
	h, release, err := Handler(Options{Resumable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, tc := range []struct {
		body   string
		events int
		custom bool
	}{
		{`{"threadId":"t","runId":"r1","messages":[]}`, MinEvents, false},
		{`{"threadId":"t","runId":"r2","messages":[],"forwardedProps":{"agwireTest":{"events":100}}}`, 100, false},
		{`{"threadId":"t","runId":"r3","messages":[],"forwardedProps":{"agwireTest":{"events":40,"custom":1}}}`, 40, true},
	} {
		evs := run(t, h, tc.body)
		if len(evs) != tc.events {
			t.Fatalf("%s: %d events, want %d", tc.body, len(evs), tc.events)
		}
		if evs[0].Type() != event.TypeRunStarted || evs[len(evs)-1].Type() != event.TypeRunFinished {
			t.Errorf("%s: starts %s, ends %s", tc.body, evs[0].Type(), evs[len(evs)-1].Type())
		}
		customs := 0
		for _, ev := range evs {
			if ev.Type() == event.TypeCustom {
				customs++
			}
		}
		if want := map[bool]int{false: 0, true: tc.events - MinEvents + 1}[tc.custom]; customs != want {
			t.Errorf("%s: %d CUSTOM events, want %d", tc.body, customs, want)
		}
	}
}

func TestParamsRefused(t *testing.T) {
	for _, fp := range []string{`{"agwireTest":{"events":-1,"pauseMs":-5}}`, `{"agwireTest":{"events":3000000}}`, `{"agwireTest":"x"}`} {
		in := &event.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: event.RawValue(fp)}
		if _, err := ParamsOf(in); !errors.Is(err, ErrParams) {
			t.Errorf("%s: %v, want ErrParams", fp, err)
		}
		if err := Run(context.Background(), nil, in, nil); !errors.Is(err, ErrParams) {
			t.Errorf("%s: Run accepted it", fp)
		}
	}
}
