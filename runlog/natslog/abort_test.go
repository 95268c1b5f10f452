package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
)

// quick are options that make a dead writer noticed within a second.
var quick = natslog.Options{Storage: jetstream.MemoryStorage, Heartbeat: 100 * time.Millisecond, WriterTimeout: 600 * time.Millisecond}

// A stream that refuses appends (its MaxBytes reached, DiscardNew): the
// Append fails with ErrStoreFull, the run is aborted, and its followers —
// one waiting live, one joining later — end with ErrRunAborted after the
// events that were stored, instead of waiting for ever.
func TestStoreFull(t *testing.T) {
	c := context.Background()
	js := connect(t, startServer(t))
	opts := quick
	opts.MaxBytes, opts.Discard = 4096, jetstream.DiscardNew
	l := newLog(t, js, opts)
	w, err := l.Start(c, "full")
	if err != nil {
		t.Fatal(err)
	}
	live, err := l.Read(c, runlog.Cursor{Run: "full"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	var stored int
	var appendErr error
	for i := 1; i <= 1000; i++ {
		if _, appendErr = w.Append(c, []byte(fmt.Sprintf("event %d %0100d", i, 0))); appendErr != nil {
			break
		}
		stored = i
	}
	if !errors.Is(appendErr, runlog.ErrStoreFull) || stored == 0 {
		t.Fatalf("after %d events: Append = %v, want ErrStoreFull", stored, appendErr)
	}
	if _, err := w.Append(c, []byte("more")); !errors.Is(err, runlog.ErrRunAborted) || !errors.Is(err, runlog.ErrRunEnded) {
		t.Fatalf("Append after the abort: %v, want ErrRunEnded and ErrRunAborted", err)
	}
	if err := w.End(c); !errors.Is(err, runlog.ErrRunEnded) {
		t.Fatalf("End after the abort: %v, want ErrRunEnded", err)
	}
	ctx, cancel := context.WithTimeout(c, 30*time.Second)
	defer cancel()
	late, err := l.Read(ctx, runlog.Cursor{Run: "full", Seq: uint64(stored - 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	for name, rd := range map[string]runlog.Reader{"live": live, "late": late} {
		for {
			e, err := rd.Next(ctx)
			if err == nil && e.Seq <= uint64(stored) {
				continue
			}
			if !errors.Is(err, runlog.ErrRunAborted) || !errors.Is(err, runlog.ErrStoreFull) && !contains(err, "maximum bytes") {
				t.Fatalf("%s reader at the end of a run aborted by a full stream: %d, %v; want ErrRunAborted naming the cause", name, e.Seq, err)
			}
			break
		}
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// A writer that dies without ending its run (its connection closed, its
// heartbeats stop): a reader waiting at the run's end ends with
// ErrRunAborted once WriterTimeout has passed without a heartbeat, and so
// does one that joins afterwards.
func TestWriterDied(t *testing.T) {
	c := context.Background()
	ns := startServer(t)
	jsW, jsR := connect(t, ns), connect(t, ns)
	opts := quick
	opts.Stream, opts.Subject = "DIED", "died"
	lw, lr := newLog(t, jsW, opts), newLog(t, jsR, opts)
	w, err := lw.Start(c, "dies")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 3)
	rd, err := lr.Read(c, runlog.Cursor{Run: "dies", Seq: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	jsW.Conn().Close() // the writer's process dies: no End, no heartbeat
	ctx, cancel := context.WithTimeout(c, 30*time.Second)
	defer cancel()
	if _, err := rd.Next(ctx); !errors.Is(err, runlog.ErrRunAborted) {
		t.Fatalf("a reader of a run whose writer died: %v, want ErrRunAborted", err)
	}
	late, err := lr.Read(ctx, runlog.Cursor{Run: "dies"})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	for want := uint64(1); ; want++ {
		e, err := late.Next(ctx)
		if want <= 3 && (err != nil || e.Seq != want) {
			t.Fatalf("late reader: %d, %v; want %d", e.Seq, err, want)
		}
		if want == 4 {
			if !errors.Is(err, runlog.ErrRunAborted) {
				t.Fatalf("late reader at the end: %v, want ErrRunAborted", err)
			}
			break
		}
	}
}

// Presence is shared by every replica: a Touch through one connection is
// seen through another.
func TestPresenceAcrossReplicas(t *testing.T) {
	c := context.Background()
	ns := startServer(t)
	opts := natslog.Options{Stream: "PRES", Subject: "pres", Storage: jetstream.MemoryStorage}
	a, b := newLog(t, connect(t, ns), opts), newLog(t, connect(t, ns), opts)
	if _, err := a.Start(c, "r"); err != nil {
		t.Fatal(err)
	}
	if at, err := a.LastSeen(c, "r"); err != nil || !at.IsZero() {
		t.Fatalf("LastSeen before any reader: %v, %v", at, err)
	}
	before := time.Now()
	if err := b.Touch(c, "r"); err != nil {
		t.Fatal(err)
	}
	at, err := a.LastSeen(c, "r")
	if err != nil || at.Before(before.Add(-time.Second)) {
		t.Fatalf("LastSeen on A after a Touch on B: %v, %v; want about %v", at, err, before)
	}
}

// A writer that is alive but silent (a model thinking) keeps its readers:
// its heartbeats go on, so a reader waiting longer than WriterTimeout
// still waits, and gets the next event when it comes.
func TestSilentWriterKeepsReaders(t *testing.T) {
	c := context.Background()
	js := connect(t, startServer(t))
	opts := natslog.Options{Storage: jetstream.MemoryStorage, Heartbeat: 100 * time.Millisecond, WriterTimeout: time.Second}
	l := newLog(t, js, opts)
	w, err := l.Start(c, "slow")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := l.Read(c, runlog.Cursor{Run: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ctx, cancel := context.WithTimeout(c, 2500*time.Millisecond) // WriterTimeout, 2.5 times over
	defer cancel()
	if e, err := rd.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a reader of a silent, living writer: %d, %v; want to wait until its context ends", e.Seq, err)
	}
	appendN(t, w, 1, 1)
	if e, err := rd.Next(c); err != nil || e.Seq != 1 {
		t.Fatalf("after the wait: %d, %v; want event 1", e.Seq, err)
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
}
