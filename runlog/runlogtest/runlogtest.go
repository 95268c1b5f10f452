// Package runlogtest checks that a runlog.Log keeps the package's
// promises: each reader gets exactly the events after its cursor, once and
// in order, byte for byte, live or replayed; the typed errors come where
// the contract says. Every implementation's tests run it.
package runlogtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// Options tunes Run to what an implementation can afford.
type Options struct {
	// Followers of one live run in TestFollowers; 0 means 100.
	Followers int
	// Events of that run; 0 means 300.
	Events int
	// Runs written concurrently in TestConcurrentRuns; 0 means 200.
	Runs int
}

// Run runs the conformance tests as subtests of t. newLog returns a new,
// empty log for each subtest.
func Run(t *testing.T, newLog func(t *testing.T) runlog.Log, opts Options) {
	if opts.Followers == 0 {
		opts.Followers = 100
	}
	if opts.Events == 0 {
		opts.Events = 300
	}
	if opts.Runs == 0 {
		opts.Runs = 200
	}
	t.Run("ReplayAndEnd", func(t *testing.T) { testReplay(t, newLog(t)) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, newLog(t)) })
	t.Run("BlockedNextEndsWithContext", func(t *testing.T) { testCancel(t, newLog(t)) })
	t.Run("Followers", func(t *testing.T) { testFollowers(t, newLog(t), opts.Followers, opts.Events) })
	t.Run("ConcurrentRuns", func(t *testing.T) { testConcurrentRuns(t, newLog(t), opts.Runs) })
	t.Run("Incarnation", func(t *testing.T) { testIncarnation(t, newLog(t)) })
	t.Run("Abort", func(t *testing.T) { testAbort(t, newLog(t)) })
	t.Run("Presence", func(t *testing.T) { testPresence(t, newLog(t)) })
	t.Run("Owners", func(t *testing.T) { testOwners(t, newLog(t)) })
}

// testIncarnation: a Writer that names its run's incarnation stamps every
// entry with it; a cursor carrying it reads the run, one carrying another
// token gets ErrEvicted (its run is gone), one carrying none reads the run
// (the text of earlier versions). A second Start of the id is refused.
func testIncarnation(t *testing.T, log runlog.Log) {
	c := ctx(t)
	w, err := log.Start(c, "inc")
	if err != nil {
		t.Fatal(err)
	}
	inc := runlog.IncarnationOf(w)
	if inc == "" {
		t.Skip("the log's Writer does not name its incarnation")
	}
	if err := runlog.CheckInc(inc); err != nil {
		t.Fatalf("incarnation %q: %v", inc, err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := w.Append(c, Wire(t, "inc", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	rd, err := log.Read(c, runlog.Cursor{Run: "inc", Seq: 1, Inc: inc})
	if err != nil {
		t.Fatal(err)
	}
	e, err := rd.Next(c)
	if err != nil || e.Seq != 2 || e.Inc != inc || e.Cursor("inc") != (runlog.Cursor{Run: "inc", Seq: 2, Inc: inc}) {
		t.Fatalf("Next = %+v, %v; want event 2 of incarnation %s", e, err, inc)
	}
	rd.Close()
	if err := readAll(c, mustRead(t, log, runlog.Cursor{Run: "inc", Seq: 1}), "inc", 1, 3); err != nil {
		t.Fatalf("a cursor without incarnation: %v", err)
	}
	other := runlog.NewIncarnation()
	if _, err := log.Read(c, runlog.Cursor{Run: "inc", Seq: 1, Inc: other}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("a cursor of another incarnation: %v, want ErrEvicted", err)
	}
	if w2, err := log.Start(c, "inc"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("second Start: %v, %v; want ErrRunExists", w2, err)
	}
}

func mustRead(t *testing.T, log runlog.Log, from runlog.Cursor) runlog.Reader {
	t.Helper()
	rd, err := log.Read(context.Background(), from)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// testAbort: a run aborted by its Writer ends its readers, those waiting
// live and those that join later, with ErrRunAborted after its events;
// its Writer refuses more.
func testAbort(t *testing.T, log runlog.Log) {
	c := ctx(t)
	w, err := log.Start(c, "abort")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.(runlog.Aborter); !ok {
		t.Skip("the log's Writer is not an Aborter")
	}
	for i := 1; i <= 2; i++ {
		if _, err := w.Append(c, Wire(t, "abort", i)); err != nil {
			t.Fatal(err)
		}
	}
	live := mustRead(t, log, runlog.Cursor{Run: "abort"})
	defer live.Close()
	for i := 1; i <= 2; i++ {
		if e, err := live.Next(c); err != nil || e.Seq != uint64(i) {
			t.Fatalf("live reader: %d, %v", e.Seq, err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := live.Next(c) // waits for the run
		done <- err
	}()
	cause := errors.New("the model provider is down")
	if err := runlog.Abort(c, w, cause); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, runlog.ErrRunAborted) || !strings.Contains(err.Error(), cause.Error()) {
		t.Fatalf("a waiting reader: %v, want ErrRunAborted naming the cause", err)
	}
	late := mustRead(t, log, runlog.Cursor{Run: "abort", Seq: 1})
	defer late.Close()
	if e, err := late.Next(c); err != nil || e.Seq != 2 {
		t.Fatalf("a late reader: %d, %v; want event 2", e.Seq, err)
	}
	if _, err := late.Next(c); !errors.Is(err, runlog.ErrRunAborted) {
		t.Fatalf("a late reader at the end: %v, want ErrRunAborted", err)
	}
	if _, err := w.Append(c, Wire(t, "abort", 3)); !errors.Is(err, runlog.ErrRunEnded) {
		t.Fatalf("Append after Abort: %v, want ErrRunEnded", err)
	}
	if err := w.End(c); !errors.Is(err, runlog.ErrRunEnded) {
		t.Fatalf("End after Abort: %v, want ErrRunEnded", err)
	}
}

// testPresence: a Log that records presence reports a Touch of a run from
// LastSeen, and the zero time for a run never touched.
func testPresence(t *testing.T, log runlog.Log) {
	c := ctx(t)
	p, ok := log.(runlog.Presence)
	if !ok {
		t.Skip("the log does not record presence")
	}
	if _, err := log.Start(c, "seen"); err != nil {
		t.Fatal(err)
	}
	if _, err := log.Start(c, "unseen"); err != nil {
		t.Fatal(err)
	}
	if at, err := p.LastSeen(c, "seen"); err != nil || !at.IsZero() {
		t.Fatalf("LastSeen before any Touch = %v, %v; want the zero time", at, err)
	}
	before := time.Now()
	if err := p.Touch(c, "seen"); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	at, err := p.LastSeen(c, "seen")
	// The log's clock may be a server's: a second of slack either way.
	if err != nil || at.Before(before.Add(-time.Second)) || at.After(after.Add(time.Second)) {
		t.Fatalf("LastSeen = %v, %v; want the Touch, between %v and %v", at, err, before, after)
	}
	if at, err := p.LastSeen(c, "unseen"); err != nil || !at.IsZero() {
		t.Fatalf("LastSeen of another run = %v, %v; want the zero time", at, err)
	}
}

// testOwners: a Log that keeps owners returns the owner a run was started
// with, byte for byte, through its events, its end and its abort; a run
// started by Start has none. A refused start records nothing: a second
// start of a held id leaves its owner, and a start with an owner that
// CheckOwner refuses (ErrBadOwner) starts nothing, so the id stays free.
func testOwners(t *testing.T, log runlog.Log) {
	c := ctx(t)
	o, ok := log.(runlog.Owners)
	if !ok {
		t.Skip("the log does not keep owners")
	}
	owner := func(run string) string {
		t.Helper()
		got, err := o.Owner(c, run)
		if err != nil {
			t.Fatalf("Owner(%q): %v", run, err)
		}
		return got
	}
	// The longest owner, with a space and multi-byte characters: a log
	// that stores it in text keeps it whole.
	alice := "alice é " + strings.Repeat("x", runlog.MaxOwnerLen-len("alice é "))
	w, err := o.StartOwned(c, "owned", alice)
	if err != nil {
		t.Fatal(err)
	}
	if got := owner("owned"); got != alice {
		t.Fatalf("Owner = %q; want %q", got, alice)
	}
	if _, err := w.Append(c, Wire(t, "owned", 1)); err != nil {
		t.Fatal(err)
	}
	if w2, err := o.StartOwned(c, "owned", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("StartOwned of a held run by another owner: %v, %v; want ErrRunExists", w2, err)
	}
	if w2, err := log.Start(c, "owned"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("Start of a held run: %v, %v; want ErrRunExists", w2, err)
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	if got := owner("owned"); got != alice {
		t.Fatalf("Owner after refused starts and End = %q; want %q", got, alice)
	}
	if err := readAll(c, mustRead(t, log, runlog.Cursor{Run: "owned"}), "owned", 0, 1); err != nil {
		t.Fatal(err)
	}

	ab, err := o.StartOwned(c, "aborted", "bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := runlog.Abort(c, ab, errors.New("gave up")); err != nil {
		t.Fatal(err)
	}
	if got := owner("aborted"); got != "bob" {
		t.Fatalf("Owner of an aborted run = %q; want %q", got, "bob")
	}

	if _, err := log.Start(c, "plain"); err != nil {
		t.Fatal(err)
	}
	if got := owner("plain"); got != "" {
		t.Fatalf("Owner of a run started by Start = %q; want none", got)
	}
	if got, err := o.Owner(c, "nosuch"); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("Owner of a run never started = %q, %v; want ErrUnknownRun", got, err)
	}

	for _, bad := range []string{"", strings.Repeat("x", runlog.MaxOwnerLen+1), "line\nbreak", "tab\t", "\xff"} {
		if w, err := o.StartOwned(c, "refused", bad); !errors.Is(err, runlog.ErrBadOwner) {
			t.Fatalf("StartOwned with owner %q: %v, %v; want ErrBadOwner", bad, w, err)
		}
		if err := runlog.CheckOwner(bad); !errors.Is(err, runlog.ErrBadOwner) {
			t.Fatalf("CheckOwner(%q) = %v; want ErrBadOwner", bad, err)
		}
	}
	if got, err := o.Owner(c, "refused"); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("Owner of a run whose starts were refused = %q, %v; want ErrUnknownRun", got, err)
	}
	if _, err := o.StartOwned(c, "refused", "carol"); err != nil {
		t.Fatalf("a run whose starts were refused cannot start: %v", err)
	}
	if got := owner("refused"); got != "carol" {
		t.Fatalf("Owner = %q; want %q", got, "carol")
	}
}

// Wire returns the wire bytes of event i of a test run: a
// TEXT_MESSAGE_CONTENT whose delta names run and i, so that an event
// delivered to the wrong reader or out of place is seen.
func Wire(t testing.TB, run string, i int) []byte {
	t.Helper()
	b, err := codec.Codec{}.Append(nil, &event.TextMessageContent{MessageID: "m-" + run, Delta: fmt.Sprintf("%s event %d ", run, i)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// readAll reads rd to io.EOF and checks it got exactly events from+1..n of run.
func readAll(c context.Context, rd runlog.Reader, run string, from, n int) error {
	defer rd.Close()
	want := from + 1
	for {
		e, err := rd.Next(c)
		if err == io.EOF {
			if want != n+1 {
				return fmt.Errorf("run %s from %d: EOF after event %d, want %d events", run, from, want-1, n)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("run %s from %d: after event %d: %w", run, from, want-1, err)
		}
		if e.Seq != uint64(want) {
			return fmt.Errorf("run %s from %d: got seq %d, want %d", run, from, e.Seq, want)
		}
		if !bytes.Equal(e.Wire, wire(run, want)) {
			return fmt.Errorf("run %s from %d: event %d has the wrong bytes", run, from, want)
		}
		want++
	}
}

func wire(run string, i int) []byte {
	b, _ := codec.Codec{}.Append(nil, &event.TextMessageContent{MessageID: "m-" + run, Delta: fmt.Sprintf("%s event %d ", run, i)})
	return b
}

func testReplay(t *testing.T, l runlog.Log) {
	c := ctx(t)
	w, err := l.Start(c, "replay")
	if err != nil {
		t.Fatal(err)
	}
	if w.Run() != "replay" {
		t.Fatalf("Run() = %q", w.Run())
	}
	const n = 20
	for i := 1; i <= n; i++ {
		seq, err := w.Append(c, Wire(t, "replay", i))
		if err != nil {
			t.Fatal(err)
		}
		if seq != uint64(i) {
			t.Fatalf("Append #%d returned seq %d", i, seq)
		}
	}
	// Before the end: a reader gets what is there and then waits.
	rd, err := l.Read(c, runlog.Cursor{Run: "replay", Seq: n - 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := n - 1; i <= n; i++ {
		e, err := rd.Next(c)
		if err != nil || e.Seq != uint64(i) {
			t.Fatalf("Next = %d, %v; want %d", e.Seq, err, i)
		}
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(c); err != io.EOF {
		t.Fatalf("Next after the end = %v, want io.EOF", err)
	}
	for _, from := range []int{0, 1, n / 2, n - 1, n} {
		rd, err := l.Read(c, runlog.Cursor{Run: "replay", Seq: uint64(from)})
		if err != nil {
			t.Fatalf("Read from %d: %v", from, err)
		}
		if err := readAll(c, rd, "replay", from, n); err != nil {
			t.Fatal(err)
		}
	}
	// A run with no events.
	w, err = l.Start(c, "empty")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	rd, err = l.Read(c, runlog.Cursor{Run: "empty"})
	if err != nil {
		t.Fatal(err)
	}
	if err := readAll(c, rd, "empty", 0, 0); err != nil {
		t.Fatal(err)
	}
	// Closed reader.
	rd, err = l.Read(c, runlog.Cursor{Run: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	rd.Close()
	if _, err := rd.Next(c); !errors.Is(err, runlog.ErrClosed) {
		t.Fatalf("Next after Close = %v, want ErrClosed", err)
	}
}

func testErrors(t *testing.T, l runlog.Log) {
	c := ctx(t)
	w, err := l.Start(c, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Start(c, "r1"); !errors.Is(err, runlog.ErrRunExists) {
		t.Errorf("second Start = %v, want ErrRunExists", err)
	}
	for _, run := range []string{"", string(make([]byte, runlog.MaxRunIDLen+1)), "\xff"} {
		if _, err := l.Start(c, run); !errors.Is(err, runlog.ErrBadCursor) {
			t.Errorf("Start(%q) = %v, want ErrBadCursor", run, err)
		}
		if _, err := l.Read(c, runlog.Cursor{Run: run}); !errors.Is(err, runlog.ErrBadCursor) {
			t.Errorf("Read(%q) = %v, want ErrBadCursor", run, err)
		}
	}
	if _, err := l.Read(c, runlog.Cursor{Run: "nope"}); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Errorf("Read of an unknown run = %v, want ErrUnknownRun", err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := w.Append(c, Wire(t, "r1", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Read(c, runlog.Cursor{Run: "r1", Seq: 4}); !errors.Is(err, runlog.ErrBadCursor) {
		t.Errorf("Read past the last event = %v, want ErrBadCursor", err)
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(c, Wire(t, "r1", 4)); !errors.Is(err, runlog.ErrRunEnded) {
		t.Errorf("Append after End = %v, want ErrRunEnded", err)
	}
	if err := w.End(c); !errors.Is(err, runlog.ErrRunEnded) {
		t.Errorf("End after End = %v, want ErrRunEnded", err)
	}
	if _, err := l.Start(c, "r1"); !errors.Is(err, runlog.ErrRunExists) {
		t.Errorf("Start of an ended run = %v, want ErrRunExists", err)
	}
	if _, err := l.Read(c, runlog.Cursor{Run: "r1", Seq: 4}); !errors.Is(err, runlog.ErrBadCursor) {
		t.Errorf("Read past the end of an ended run = %v, want ErrBadCursor", err)
	}
	rd, err := l.Read(c, runlog.Cursor{Run: "r1", Seq: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(c); err != io.EOF {
		t.Errorf("Next at the end = %v, want io.EOF", err)
	}
}

func testCancel(t *testing.T, l runlog.Log) {
	c := ctx(t)
	w, err := l.Start(c, "idle")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := l.Read(c, runlog.Cursor{Run: "idle"})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	c2, cancel := context.WithCancel(c)
	done := make(chan error, 1)
	go func() { _, err := rd.Next(c2); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked Next after cancel = %v, want context.Canceled", err)
	}
	w.End(c)
}

// testFollowers: one live run of n events; k followers, each joining at a
// random cursor c (0..n) at a random moment after event c was appended
// (some after the end), each must get exactly events c+1..n.
func testFollowers(t *testing.T, l runlog.Log, k, n int) {
	c := ctx(t)
	rng := rand.New(rand.NewPCG(12, 34))
	const run = "followed"
	joinAt := make([][]int, n+2) // after append j (n+1: after End): cursors joining then
	for range k {
		cur := rng.IntN(n + 1)
		j := cur + rng.IntN(n+2-cur)
		joinAt[j] = append(joinAt[j], cur)
	}
	w, err := l.Start(c, run)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, k)
	join := func(cur int) {
		rd, err := l.Read(c, runlog.Cursor{Run: run, Seq: uint64(cur)})
		if err != nil {
			errs <- fmt.Errorf("join at %d: %w", cur, err)
			return
		}
		wg.Go(func() {
			if err := readAll(c, rd, run, cur, n); err != nil {
				errs <- err
			}
		})
	}
	for j := 0; j <= n+1; j++ {
		switch {
		case j >= 1 && j <= n:
			if _, err := w.Append(c, Wire(t, run, j)); err != nil {
				t.Fatal(err)
			}
		case j == n+1:
			if err := w.End(c); err != nil {
				t.Fatal(err)
			}
		}
		for _, cur := range joinAt[j] {
			join(cur)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testConcurrentRuns: runs written concurrently, each read by a follower
// from the start while it is written.
func testConcurrentRuns(t *testing.T, l runlog.Log, runs int) {
	c := ctx(t)
	const n = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*runs)
	for r := range runs {
		run := fmt.Sprintf("run-%d", r)
		w, err := l.Start(c, run)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := l.Read(c, runlog.Cursor{Run: run})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if err := readAll(c, rd, run, 0, n); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			for i := 1; i <= n; i++ {
				if _, err := w.Append(c, wire(run, i)); err != nil {
					errs <- err
					return
				}
			}
			if err := w.End(c); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
