package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agwire/agwire/event"
)

// dateCases are expiresAt spellings with what Date.parse returns for them
// in Node (V8) with TZ=America/New_York: the milliseconds since the epoch,
// or nan. interop/expires_test.go checks every one against node itself,
// and the expiry decision they lead to.
var dateCases = []struct {
	s   string
	ms  int64
	nan bool
}{
	{s: "2020-01-01T00:00:00", ms: 1577854800000}, // naive: local time
	{s: "2020-01-01T00:00:00Z", ms: 1577836800000},
	{s: "2020-01-01T00:00Z", ms: 1577836800000},
	{s: "2020-01-01t00:00:00z", ms: 1577836800000},
	{s: "2020-01-01T00:00:00z", ms: 1577836800000},
	{s: "2020", ms: 1577836800000}, // date only: UTC
	{s: "2020-06", ms: 1590969600000},
	{s: "2020-06-15", ms: 1592179200000},
	{s: "+002020-01-01T00:00:00Z", ms: 1577836800000},
	{s: "-000001-01-01T00:00:00Z", ms: -62198755200000},
	{s: "-000000-01-01T00:00:00Z", nan: true},
	{s: "2020-01-01T24:00:00Z", ms: 1577923200000}, // the next day
	{s: "2020-01-01T24:00:01Z", nan: true},
	{s: "2020-01-01T24:00", ms: 1577941200000},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT", ms: 1577836800000},
	{s: "Wed, 01 Jan 2020 00:00:00", ms: 1577854800000},
	{s: "Thu, 01 Jan 2020 00:00:00 GMT", ms: 1577836800000}, // the weekday is not checked
	{s: "01 Jan 2020 00:00:00 GMT", ms: 1577836800000},
	{s: "wed, 01 jan 2020 00:00:00 gmt", ms: 1577836800000},
	{s: "Wed, 01 Jan 2020 00:00:00 +0100", ms: 1577833200000},
	{s: "Wed, 01 Jan 2020 00:00 GMT", ms: 1577836800000},
	{s: "2020-01-01T00:00:00,5Z", nan: true},
	{s: "2020-01-01T00:00:00,123Z", nan: true},
	{s: "2020-01-01T00:00:00.5Z", ms: 1577836800500},
	{s: "2020-01-01T00:00:00.123456Z", ms: 1577836800123},
	{s: "2020-01-01T00:00:00.5", ms: 1577854800500},
	{s: "2020-01-01T00:00:00.Z", nan: true},
	{s: "2020-01-01T00:00:00+24:00", nan: true},
	{s: "2020-01-01T00:00:00+23:59", ms: 1577750460000},
	{s: "2020-01-01T00:00:00+05:30", ms: 1577817000000},
	{s: "2020-01-01T00:00:00-0500", ms: 1577854800000},
	{s: "2020-01-01T00:00:00+05", nan: true},
	{s: "2020-01-01T00:00:00+01:00Z", nan: true},
	{s: "2020-02-30", ms: 1583020800000}, // rolls over, as in V8
	{s: "2020-02-32", nan: true},
	{s: "2020-13-01", nan: true},
	{s: "2020-01-01T00:60:00Z", nan: true},
	{s: "2020-01-01T25:00:00Z", nan: true},
	{s: "2020-01-01T00:00:60Z", nan: true},
	{s: "2020-01-01T0:00:00Z", nan: true},
	{s: "2020-01-01T00Z", nan: true},
	{s: "2020-01-01 00:00:00Z", ms: 1577836800000},
	{s: "2020-01-01 00:00:00", ms: 1577854800000},
	{s: "2020-01-01 00:00:00 +01:00", ms: 1577833200000},
	{s: " 2020-01-01T00:00:00Z", nan: true},
	{s: "2020-01-01T00:00:00Z ", nan: true},
	{s: "20200101", nan: true},
	{s: "+275760-09-13T00:00:00Z", ms: 8640000000000000},
	{s: "+275760-09-13T00:00:00.001Z", nan: true},
	{s: "2020-01-01T00:00:00UTC", nan: true},
	{s: "garbage", nan: true},
	{s: "", nan: true},
	// An ECMAScript date, whitespace, then V8's fallback time and zone.
	{s: "+002020-01-01 00:00:00Z", ms: 1577836800000},
	{s: "2020-01 00:00", ms: 1577854800000},
	{s: "2020 00:00", ms: 1577854800000},
	{s: "2020-01-01 00:00:00.5", ms: 1577854800500},
	{s: "2020-01-01 24:00", ms: 1577941200000},
	{s: "2020-01-01  00:00:00Z", ms: 1577836800000},
	{s: "2020-01-01T00:00:00 Z", nan: true},
	{s: "2020-01-01 00:00:00 Z", ms: 1577836800000},
	{s: "2020-01-01 00:00:00 +0100", ms: 1577833200000},
	{s: "2020-01-01 00:00:00 GMT", ms: 1577836800000},
	{s: "2020-01-01 00:00:00 UTC", ms: 1577836800000},
	{s: "2020-01-01 00:00:00 PST", ms: 1577865600000},
	{s: "2020-01-01 12:00 PM", ms: 1577898000000},
	{s: "2020-01-01t00:00:00+01:00", ms: 1577833200000},
	// V8's fallback forms: RFC 1123 and 2822, Date.prototype.toString,
	// "Month DD, YYYY".
	{s: "Wed Jan 01 2020 00:00:00 GMT+0000 (Coordinated Universal Time)", ms: 1577836800000},
	{s: "Tue Dec 31 2019 19:00:00 GMT-0500 (Eastern Standard Time)", ms: 1577836800000},
	{s: "Wed Jan 01 2020 00:00:00", ms: 1577854800000},
	{s: "Wed Jan 01 2020", ms: 1577854800000},
	{s: "Wed, 01 Jan 2020", ms: 1577854800000},
	{s: "Wednesday, 01 Jan 2020 00:00:00 GMT", ms: 1577836800000},
	{s: "Wed, 01 January 2020 00:00:00 GMT", ms: 1577836800000},
	{s: "Wed, 01 Jan 2020 00:00:00 PST", ms: 1577865600000},
	{s: "Wed, 01 Jan 2020 00:00:00 CET", nan: true},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT+01:00", ms: 1577833200000},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT+1", ms: 1577833200000},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT+123", ms: 1577831820000},
	{s: "Wed, 01-Jan-2020 00:00:00 GMT", ms: 1577836800000},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT extra", nan: true},
	{s: "Wed, 01 Jan 2020 12:00:00 PM", ms: 1577898000000},
	{s: "Wed, 01 Jan 2020 12:30 am GMT", ms: 1577838600000},
	{s: "Wed, 01 Jan 2020 13:00 PM GMT", nan: true},
	{s: "Wed, 01 Jan 2020 00:00:00.1234 GMT", ms: 1577836800123},
	{s: "01 Jan 99 00:00:00 GMT", ms: 915148800000},
	{s: "01 Jan 49 00:00:00 GMT", ms: 2493072000000},
	{s: "Jan 2020", ms: 1577854800000},
	{s: "2020 Jan 01 00:00:00 GMT", ms: 1577836800000},
	{s: "December 25, 2019", ms: 1577250000000},
	{s: "Dec 25, 2019 10:00 PM", ms: 1577329200000},
	{s: "Wed, 32 Jan 2020 00:00:00 GMT", nan: true},
	{s: "Wed, 31 Feb 2020 00:00:00 GMT", ms: 1583107200000},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT (unclosed", ms: 1577836800000},
	{s: " Wed, 01 Jan 2020 00:00:00 GMT", ms: 1577836800000},
	{s: "Wed, 01 Jan 2020 24:00:00 GMT", ms: 1577923200000},
	{s: "Wed, 01 Jan 2020 24:00:01 GMT", nan: true},
	{s: "Wed, 01 Ja 2020 00:00:00 GMT", nan: true},
	{s: "Wed, 01 Jan 2020 00:00:00 -0130", ms: 1577842200000},
	{s: "Wed, 01 Jan 2020 00:00:00 +12345", nan: true},
	{s: "Wed, 01 Jan 2020 00:00:00 GMT + 0100", nan: true},
	{s: "Wed Jan 01 2020 00:00:00 UTC+0100", ms: 1577833200000},
	// The rest of V8's legacy parser: slashes, dots and spaces between
	// fields, unpadded fields, leading white space (U+3000 is; U+2028 is
	// not), ordinal-looking and bare numbers (missing fields are 1, the
	// year 2001), words and comments, offsets of any size (wrapping past
	// 2^31 seconds), and local times around New York's changes of clock.
	{s: "1/2/2026", ms: 1767330000000},
	{s: "2026/1/2", ms: 1767330000000},
	{s: "1.2.2026", ms: 1767330000000},
	{s: "2026.1.2 10:30", ms: 1767367800000},
	{s: "1 2 2026", ms: 1767330000000},
	{s: "12", ms: 1007182800000},
	{s: "1", ms: 978325200000},
	{s: "0", ms: 946702800000},
	{s: "99", ms: 915166800000},
	{s: "100", ms: -59011441438000},
	{s: "32", ms: 1956546000000},
	{s: "2026-001", ms: 1767243600000},
	{s: "2026-338", nan: true},
	{s: "2026-1-2", ms: 1767330000000},
	{s: "2026-01-01 ", ms: 1767243600000},
	{s: "\t2026-01-01 10:00", ms: 1767279600000},
	{s: "\u00a02026-01-01", ms: 1767243600000},
	{s: "\ufeff2026-01-01", ms: 1767243600000},
	{s: "\u30002026-01-01T00:00:00Z", nan: true},
	{s: "2026-01-01\u2028", nan: true},
	{s: "Jan 1", ms: 978325200000},
	{s: "March 7", ms: 983941200000},
	{s: "1/2", ms: 978411600000},
	{s: "Jan 2026 1", ms: 1767243600000},
	{s: "Jan 31 32", ms: 1959138000000},
	{s: "32 Jan 2026", nan: true},
	{s: "x 2026/1/1", ms: 1767243600000},
	{s: "x2026/1/1", nan: true},
	{s: "2026/1/1 x", nan: true},
	{s: "(c) 2026/1/1", ms: 1767243600000},
	{s: "2026/1/1)", nan: true},
	{s: "-1/1/2026", ms: 1767243600000},
	{s: "1/1/-5", nan: true},
	{s: "2026/1/1 10:00 +123", ms: 1767256620000},
	{s: "2026/1/1 10:00.5", nan: true},
	{s: "10:20:30:40 1/1/2026", ms: 1767280830040},
	{s: "1/1/2026 GMT+99", ms: 1766869200000},
	{s: "1/1/2026 10:00 GMT+1193047:00", ms: 1767259696000},
	{s: "1/1/2026 10:00:00Z+01", ms: 1767258000000},
	{s: "1/1/2026 10:00 UTC -5", ms: 1767279600000},
	{s: "2026-01-01 +0100", nan: true},
	{s: "1/1/2026 10:00 +05:5", ms: 1767243300000},
	{s: "01-Jan-2026", ms: 1767243600000},
	{s: "2026-Jan-01", ms: 1767243600000},
	{s: "+02026-01-01", ms: 1767243600000},
	{s: "2027-03-14 02:30", ms: 1805009400000},
	{s: "2026-11-01 01:30", ms: 1793511000000},
	{s: "100 10:00", ms: -59011405438000},
}

func TestParseDate(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	for _, c := range dateCases {
		ms, ok := parseDate(c.s, loc)
		switch {
		case c.nan && ok:
			t.Errorf("%q: %d, want NaN", c.s, ms)
		case !c.nan && !ok:
			t.Errorf("%q: NaN, want %d", c.s, c.ms)
		case !c.nan && ms != c.ms:
			t.Errorf("%q: %d, want %d", c.s, ms, c.ms)
		}
	}
}

// TestExpiredNaive: a date-time without an offset is local time, so in New
// York "2020-01-01T00:00:00" has not passed at 03:00 UTC; the old RFC 3339
// reading refused it and never expired it, nor a date-only value in a
// legacy form.
func TestExpired(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	saved := time.Local
	time.Local = loc
	defer func() { time.Local = saved }()
	at := func(s string) event.Interrupt { return event.Interrupt{ID: "i", Reason: "r", ExpiresAt: &s} }
	now := time.Date(2020, 1, 1, 4, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"2020-01-01T00:00:00", false}, // 05:00 UTC, after now
		{"2020-01-01T00:00:00Z", true}, // before now
		{"2020-01-01t00:00:00z", true}, // lower case
		{"Wed, 01 Jan 2020 00:00:00 GMT", true},
		{"2020-01-01T04:00:00.000Z", true}, // equal: expired
		{"2020-01-01T04:00:00.001Z", false},
		{"2020-01-01T00:00:00,5Z", false}, // not a date: never expires
		{"", false},
	} {
		if got := expired(at(c.s), now); got != c.want {
			t.Errorf("expired(%q) at %v = %v, want %v", c.s, now, got, c.want)
		}
	}
}

// TestResumeStatusRefusedEarly: a wrong status is refused by CheckResume
// (so Run sends nothing) with a typed error naming the entry, even when no
// interrupt is pending.
func TestResumeStatusRefusedEarly(t *testing.T) {
	var sent []*event.RunAgentInput
	th := New(Script(&sent), Options{ThreadID: "t"})
	_, err := th.Run(t.Context(), RunParams{Resume: []event.ResumeEntry{{InterruptID: "i1", Status: "approved"}}})
	var re *ResumeError
	if !errors.Is(err, ErrResumeStatus) || !errors.As(err, &re) || re.Entry != 0 || re.Status != "approved" {
		t.Fatalf("got %v, want a *ResumeError wrapping ErrResumeStatus for resume[0]", err)
	}
	if len(sent) != 0 {
		t.Fatalf("%d inputs sent, want none", len(sent))
	}
}

// TestUnaddressedSaysWhatToDo: the error names the interrupts and the two
// statuses an entry may have.
func TestUnaddressedSaysWhatToDo(t *testing.T) {
	finish := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r1"},
		&event.RunFinished{ThreadID: "t", RunID: "r1", Outcome: &event.RunOutcome{Type: event.OutcomeInterrupt,
			Interrupts: []event.Interrupt{{ID: "i1", Reason: "a"}, {ID: "i2", Reason: "b"}}}}}
	th := New(Script(nil, finish), Options{ThreadID: "t"})
	if _, err := th.Run(t.Context(), RunParams{RunID: "r1"}); err != nil {
		t.Fatal(err)
	}
	err := th.CheckResume([]event.ResumeEntry{{InterruptID: "i1", Status: event.ResumeResolved}})
	if !errors.Is(err, ErrInterruptsNotAddressed) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"i2", `"resolved"`, `"cancelled"`, "resume entry"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %s", err, want)
		}
	}
}

// TestNoResumeKeyWithoutResume: the prepared input carries no "resume" key
// when the run resumes nothing, as the client leaves it out; an empty list
// given on purpose is sent.
func TestNoResumeKeyWithoutResume(t *testing.T) {
	th := New(nil, Options{ThreadID: "t"})
	b, err := json.Marshal(th.PrepareInput(RunParams{RunID: "r"}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"resume"`) {
		t.Errorf("%s carries resume", b)
	}
	b, err = json.Marshal(th.PrepareInput(RunParams{RunID: "r", Resume: []event.ResumeEntry{}}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"resume":[]`) {
		t.Errorf("%s carries no resume", b)
	}
}

// TestTruncatedRunIsNotASuccess: a stream that ends while its run is still
// running returns ErrRunTruncated, with what it carried applied.
func TestTruncatedRunIsNotASuccess(t *testing.T) {
	run := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r1"},
		&event.TextMessageStart{MessageID: "m"},
		&event.TextMessageContent{MessageID: "m", Delta: "half"},
		&event.TextMessageEnd{MessageID: "m"},
	}
	th := New(Script(nil, run), Options{ThreadID: "t"})
	res, err := th.Run(t.Context(), RunParams{RunID: "r1"})
	if !errors.Is(err, ErrRunTruncated) || res == nil || len(res.NewMessages) != 1 {
		t.Fatalf("got %v, %+v; want ErrRunTruncated with the message applied", err, res)
	}
	finished := append(run, &event.RunFinished{ThreadID: "t", RunID: "r1"})
	th = New(Script(nil, finished), Options{ThreadID: "t"})
	if _, err := th.Run(t.Context(), RunParams{RunID: "r1"}); err != nil {
		t.Fatalf("a finished run: %v", err)
	}
}

// TestVersionWarning: a producer's protocolVersion is read as the client
// reads it: MAJOR.MINOR, digits only; newer than 1.0 warns, the same or
// older is quiet, anything else cannot be interpreted.
func TestVersionWarning(t *testing.T) {
	for v, want := range map[string]string{
		"1.0": "", "0.9": "", "1.1": "newer", "1.10": "newer", "2.0": "newer", "01.00": "",
		"1.0.0": "interpret", "1": "interpret", "v1.1": "interpret", "1.1-beta": "interpret", "": "interpret",
		"1.99999999999999999999": "newer",
	} {
		w, ok := versionWarning(v, ProtocolVersion)
		switch {
		case want == "" && ok:
			t.Errorf("%q: warned %q", v, w)
		case want != "" && (!ok || !strings.Contains(w.Reason, want) || w.Path != "/protocolVersion"):
			t.Errorf("%q: %v %q, want a warning containing %q", v, ok, w, want)
		}
	}
}
