package natslog

import (
	"testing"
	"time"
)

// With the default options, a reader whose store stops answering ends
// within 40 s of its last answer (an event, or a check that found the
// writer alive), whatever its checks take: following the schedule of
// reader.due, each check unanswered after any time up to the longest
// (AckTimeout), the check that gives up ends at most WriterTimeout +
// AckTimeout = 35 s after that answer, and not before WriterTimeout.
// (Checks every WriterTimeout/3 alone ended it up to 45 s after.)
func TestDefaultsEndReadersWithin40s(t *testing.T) {
	o := Options{}.timing()
	var worst time.Duration
	for last := time.Duration(0); last <= o.AckTimeout; last += o.AckTimeout / 4 { // how long the last answered check took
		for took := time.Duration(0); took <= o.AckTimeout; took += 10 * time.Millisecond { // how long each unanswered check takes
			r := &reader{l: &Log{heartbeat: o.Heartbeat, writerTO: o.WriterTimeout, ackTimeout: o.AckTimeout}}
			answered := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			r.quiet, r.alive, r.checked = answered, answered, answered.Add(last)
			now := r.checked
			for checks := 1; ; checks++ {
				start := now
				if d := r.due(); d.After(now) {
					start = d
				}
				now = start.Add(took)
				r.checked = now
				if now.Sub(r.alive) >= o.WriterTimeout || checks > 1000 {
					break // checkWriter gives up here with ErrNoAnswer
				}
			}
			end := now.Sub(answered)
			if end < o.WriterTimeout {
				t.Fatalf("a reader whose checks take %v gave up %v after its last answer, before WriterTimeout (%v)", took, end, o.WriterTimeout)
			}
			worst = max(worst, end)
		}
	}
	if worst > 40*time.Second {
		t.Fatalf("with the defaults (Heartbeat %v, WriterTimeout %v, AckTimeout %v) a reader gives up as late as %v after its last answer; want at most 40 s",
			o.Heartbeat, o.WriterTimeout, o.AckTimeout, worst)
	}
	t.Logf("with the defaults a reader gives up at most %v after its last answer", worst)
}
