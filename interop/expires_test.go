package interop

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/event"
)

// expiresAtSpellings are the expiresAt values TestExpiresAtAsTheClient
// decides both ways.
var expiresAtSpellings = []string{
	"2020-01-01T00:00:00", // no offset: local time
	"2020-01-01T00:00:00Z", "2020-01-01T00:00Z", "2020-01-01t00:00:00z", "2020-01-01T00:00:00z",
	"2020", "2020-06", "2020-01-01", "+002020-01-01T00:00:00Z", "-000001-01-01T00:00:00Z", "-000000-01-01T00:00:00Z",
	"2019-12-31T24:00:00Z", "2020-01-01T24:00:01Z", "2019-12-31T24:00",
	"Wed, 01 Jan 2020 00:00:00 GMT", "Wed, 01 Jan 2020 00:00:00", "Thu, 01 Jan 2020 00:00:00 GMT", "01 Jan 2020 00:00:00 GMT",
	"wed, 01 jan 2020 00:00:00 gmt", "Wed, 01 Jan 2020 04:00:00 +0100", "Wed, 01 Jan 2020 04:00 GMT",
	"2020-01-01T00:00:00,5Z", "2020-01-01T03:59:59.999Z", "2020-01-01T04:00:00.000Z", "2020-01-01T04:00:00.001Z",
	"2020-01-01T04:00:00.0009Z", "2020-01-01T00:00:00.Z", "2020-01-01T00:00:00+24:00", "2020-01-01T03:30:00+23:59",
	"2020-01-01T09:30:00+05:30", "2019-12-31T23:00:00-0500", "2019-12-31T23:00:00-05", "2020-01-01T00:00:00+01:00Z",
	"2019-12-30", "2019-02-30", "2020-02-32", "2020-13-01", "2020-01-01T00:60:00Z", "2020-01-01T25:00:00Z",
	"2020-01-01 00:00:00Z", "2020-01-01 00:00:00", "2020-01-01 04:30:00 +01:00", " 2020-01-01T00:00:00Z",
	"2020-01-01T00:00:00Z ", "20200101", "+275760-09-13T00:00:00Z", "-271821-04-20T00:00:00Z", "-271821-04-19T23:59:59.999Z",
	"2020-01-01T00:00:00UTC", "garbage", "",
	"Wed Jan 01 2020 00:00:00 GMT+0000 (Coordinated Universal Time)", "Tue Dec 31 2019 19:00:00 GMT-0500 (Eastern Standard Time)", "Wed Jan 01 2020 00:00:00", "Wed Jan 01 2020", "Wed, 01 Jan 2020", "Wednesday, 01 Jan 2020 00:00:00 GMT",
	"Wed, 01 January 2020 00:00:00 GMT", "Wed, 01 Jan 2020 00:00:00 PST", "Wed, 01 Jan 2020 00:00:00 CET", "Wed, 01 Jan 2020 00:00:00 GMT+01:00", "Wed, 01 Jan 2020 00:00:00 GMT+1", "Wed, 01 Jan 2020 00:00:00 GMT+123", "Wed, 01-Jan-2020 00:00:00 GMT", "Wed, 01 Jan 2020 00:00:00 GMT extra",
	"Wed, 01 Jan 2020 12:00:00 PM", "Wed, 01 Jan 2020 12:30 am GMT", "Wed, 01 Jan 2020 13:00 PM GMT", "Wed, 01 Jan 2020 00:00:00.1234 GMT", "01 Jan 99 00:00:00 GMT", "01 Jan 49 00:00:00 GMT", "Jan 2020", "2020 Jan 01 00:00:00 GMT",
	"December 25, 2019", "Dec 25, 2019 10:00 PM", "Wed, 32 Jan 2020 00:00:00 GMT", "Wed, 31 Feb 2020 00:00:00 GMT", "Wed, 01 Jan 2020 00:00:00 GMT (unclosed", " Wed, 01 Jan 2020 00:00:00 GMT", "Wed, 01 Jan 2020 24:00:00 GMT", "Wed, 01 Jan 2020 24:00:01 GMT",
	"Wed, 01 Ja 2020 00:00:00 GMT", "Wed, 01 Jan 2020 00:00:00 -0130", "Wed, 01 Jan 2020 00:00:00 +12345", "Wed, 01 Jan 2020 00:00:00 GMT + 0100", "Wed Jan 01 2020 00:00:00 UTC+0100", "Wed, 01 Jan 2020 00:00:00 GMT +0100", "Jan 1 2020",
	"+002020-01-01 00:00:00Z", "2020-01 00:00", "2020 00:00", "2020-01-01 00:00:00.5", "2020-01-01 24:00", "2020-01-01  00:00:00Z", "2020-01-01T00:00:00 Z",
	"2020-01-01 00:00:00 Z", "2020-01-01 00:00:00 +0100", "2020-01-01 00:00:00 GMT", "2020-01-01 00:00:00 UTC", "2020-01-01 00:00:00 PST", "2020-01-01 12:00 PM", "2020-01-01t00:00:00+01:00",
}

// TestExpiresAtAsTheClient decides every spelling as @ag-ui/client 1.0.0
// does (new Date(expiresAt) <= now, in node with TZ=America/New_York) and
// as agwire does (a Thread refusing to resolve an expired interrupt, with
// time.Local in the same zone), at a fixed now where local and UTC
// midnight fall on different sides.
func TestExpiresAtAsTheClient(t *testing.T) {
	nodePath, dir := requireNode(t, "expires.mjs")
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	saved := time.Local
	time.Local = loc
	defer func() { time.Local = saved }()
	now := time.Date(2020, 1, 1, 4, 0, 0, 0, time.UTC)

	in, _ := json.Marshal(map[string]any{"now": now.UnixMilli(), "cases": expiresAtSpellings})
	ctx, cancel := context.WithTimeout(context.Background(), nodeScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, "expires.mjs")
	cmd.Dir, cmd.Env = dir, append(nodeEnv(), "TZ=America/New_York")
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node expires.mjs: %v", err)
	}
	var js []struct {
		MS      *int64
		Expired bool
	}
	if err := json.Unmarshal(out, &js); err != nil || len(js) != len(expiresAtSpellings) {
		t.Fatalf("node answered %s (%v)", out, err)
	}
	expired := 0
	for i, s := range expiresAtSpellings {
		got := agwireExpired(t, s, now)
		if got != js[i].Expired {
			t.Errorf("expiresAt %q: agwire expired=%v, @ag-ui/client expired=%v (Date.parse: %v)", s, got, js[i].Expired, js[i].MS)
		}
		if js[i].Expired {
			expired++
		}
	}
	if expired == 0 || expired == len(js) {
		t.Fatalf("%d of %d spellings expired: the cases decide nothing", expired, len(js))
	}
	// The instant itself: expired at the very millisecond Date.parse gives,
	// not one millisecond before; never, for a string that is not a date.
	for i, s := range expiresAtSpellings {
		if js[i].MS == nil {
			if agwireExpired(t, s, time.UnixMilli(8.64e15)) {
				t.Errorf("expiresAt %q is not a date to the client, but agwire expires it", s)
			}
			continue
		}
		at := time.UnixMilli(*js[i].MS)
		if !agwireExpired(t, s, at) || agwireExpired(t, s, at.Add(-time.Millisecond)) {
			t.Errorf("expiresAt %q: agwire does not expire it exactly at %d ms, where the client does", s, *js[i].MS)
		}
	}
}

// agwireExpired reports whether a Thread refuses to resolve an interrupt
// with this expiresAt at now.
func agwireExpired(t *testing.T, expiresAt string, now time.Time) bool {
	finish := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r1"},
		&event.RunFinished{ThreadID: "t", RunID: "r1", Outcome: &event.RunOutcome{Type: event.OutcomeInterrupt,
			Interrupts: []event.Interrupt{{ID: "i1", Reason: "approval", ExpiresAt: &expiresAt}}}},
	}
	th := agent.New(agent.Script(nil, finish), agent.Options{ThreadID: "t", Now: func() time.Time { return now }})
	if _, err := th.Run(context.Background(), agent.RunParams{RunID: "r1"}); err != nil {
		t.Fatal(err)
	}
	err := th.CheckResume([]event.ResumeEntry{{InterruptID: "i1", Status: "resolved"}})
	if err != nil && !errors.Is(err, agent.ErrInterruptExpired) {
		t.Fatal(err)
	}
	return err != nil
}
