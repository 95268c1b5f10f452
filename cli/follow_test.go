package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// "agwire serve --resumable --detach" and "agwire follow": a run started
// by one client is followed by another, from the start or a cursor.
func TestServeResumableFollow(t *testing.T) {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	h, err := newServeHandler(serveOptions{runLog: log, detach: true, heartbeat: time.Second, runs: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := startRun(ctx, nil, srv.URL+"/", &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}, transport.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.Events() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	r.Close()
	// The cursor names the run's incarnation (a random token).
	if cur, ok := r.Cursor(); !ok || cur.Run != "r1" || cur.Seq != uint64(n) || cur.Inc == "" {
		t.Fatalf("client's cursor %v %v after %d events", cur, ok, n)
	}

	follow := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"follow"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, c := range []struct {
		args  []string
		lines int
	}{
		{[]string{srv.URL, "r1"}, n},
		{[]string{srv.URL + "/", "r1", "--from", "5"}, n - 5},
		{[]string{"--sse", srv.URL, "r1", "--from", "r1/7"}, n - 7},
		{[]string{srv.URL, "r1", "--from", "r1/" + strings.Repeat("9", 1) + "0000"}, -1},
	} {
		code, out, errText := follow(c.args...)
		got := strings.Count(out, "\n")
		if c.lines < 0 {
			if code != exitFail || !strings.Contains(errText, "400") {
				t.Errorf("follow %v: exit %d, %q; want 1 naming the 400", c.args, code, errText)
			}
			continue
		}
		if code != exitOK || got != c.lines || !strings.Contains(out, `"type":"RUN_FINISHED"`) {
			t.Errorf("follow %v: exit %d, %d lines (want %d); stderr %q", c.args, code, got, c.lines, errText)
		}
	}
	if code, _, errText := follow(srv.URL, "nope"); code != exitFail || !strings.Contains(errText, "404") {
		t.Errorf("follow of an unknown run: exit %d, %q", code, errText)
	}
	if code, _, errText := follow(srv.URL, "r1", "--from", "r2/3"); code != exitUsage || !strings.Contains(errText, `of run "r2"`) {
		t.Errorf("follow with another run's cursor: exit %d, %q", code, errText)
	}
	if code, _, _ := follow(srv.URL); code != exitUsage {
		t.Errorf("follow without RUN_ID: exit %d", code)
	}
}

// The flags of resumable serving: --detach and --nats need --resumable, and
// this build has no NATS.
func TestServeResumableFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--detach"}, exitUsage, "need --resumable"},
		{[]string{"--nats", "nats://127.0.0.1:4222"}, exitUsage, "need --resumable"},
		{[]string{"--resumable", "--nats", "nats://127.0.0.1:4222"}, exitFail, "no NATS support"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"serve", "--addr", "127.0.0.1:0"}, c.args...), strings.NewReader(""), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("serve %v: exit %d, %q; want %d naming %q", c.args, code, stderr.String(), c.code, c.says)
		}
	}
}

// A build's Options reach serve: --nats calls its OpenNATS with the URL and
// reports its error; the zero Options (the main module's build) has none.
func TestOptionsOpenNATS(t *testing.T) {
	var got string
	o := Options{OpenNATS: func(_ context.Context, url string) (runlog.Log, error) {
		got = url
		return nil, errors.New("no server there")
	}}
	var stdout, stderr bytes.Buffer
	code := o.Main([]string{"serve", "--addr", "127.0.0.1:0", "--resumable", "--nats", "nats://127.0.0.1:1"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFail || got != "nats://127.0.0.1:1" || !strings.Contains(stderr.String(), "--nats nats://127.0.0.1:1: no server there") {
		t.Fatalf("exit %d, OpenNATS(%q), %q", code, got, stderr.String())
	}
	stderr.Reset()
	if code := Main([]string{"serve", "--addr", "127.0.0.1:0", "--resumable", "--nats", "nats://127.0.0.1:1"}, strings.NewReader(""), &stdout, &stderr); code != exitFail || !strings.Contains(stderr.String(), "no NATS support") {
		t.Fatalf("Main: exit %d, %q", code, stderr.String())
	}
}
