package runlog_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/runlogtest"
)

func TestMemoryConformance(t *testing.T) {
	runlogtest.Run(t, func(t *testing.T) runlog.Log {
		m := runlog.NewMemory(runlog.MemoryOptions{})
		t.Cleanup(func() { m.Close() })
		return m
	}, runlogtest.Options{Runs: 1000})
}

// clock is a settable clock for age retention.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func appendN(t *testing.T, w runlog.Writer, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		if _, err := w.Append(context.Background(), runlogtest.Wire(t, w.Run(), i)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMemoryRetentionBySize(t *testing.T) {
	c := context.Background()
	ev := len(runlogtest.Wire(t, "big", 1))
	// Room for about 10 events of one run.
	limit := int64(10*(ev+72) + 320 + 3)
	m := runlog.NewMemory(runlog.MemoryOptions{MaxBytes: limit, MaxAge: -1})
	w, err := m.Start(c, "big")
	if err != nil {
		t.Fatal(err)
	}
	slow, err := m.Read(c, runlog.Cursor{Run: "big"})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 100)
	w.End(c)
	st := m.Stats()
	if st.Bytes > limit {
		t.Fatalf("the log holds %d bytes, over its limit of %d", st.Bytes, limit)
	}
	if st.Events == 0 || int64(st.Events*(ev+72)) > limit {
		t.Fatalf("the log holds %d events of at least %d bytes, want 1 to what %d bytes hold", st.Events, ev, limit)
	}
	first := 100 - st.Events + 1
	// A reader that fell behind gets ErrEvicted, not a gap.
	if _, err := slow.Next(c); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("a reader behind retention: %v, want ErrEvicted", err)
	}
	// A cursor whose next event is gone: ErrEvicted; one at the edge works.
	if _, err := m.Read(c, runlog.Cursor{Run: "big", Seq: uint64(first - 2)}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read behind retention: %v, want ErrEvicted", err)
	}
	rd, err := m.Read(c, runlog.Cursor{Run: "big", Seq: uint64(first - 1)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		e, err := rd.Next(c)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Seq != uint64(first+n) {
			t.Fatalf("seq %d, want %d", e.Seq, first+n)
		}
		n++
	}
	if n != st.Events {
		t.Fatalf("read %d events, want %d", n, st.Events)
	}
	// Other runs push the ended run out entirely; it is remembered.
	for r := range 20 {
		w, err := m.Start(c, fmt.Sprint("other-", r))
		if err != nil {
			t.Fatal(err)
		}
		appendN(t, w, 1, 5)
		w.End(c)
	}
	if _, err := m.Read(c, runlog.Cursor{Run: "big"}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read of a dropped run: %v, want ErrEvicted", err)
	}
	if _, err := m.Start(c, "big"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("Start of a dropped run: %v, want ErrRunExists", err)
	}
	if st := m.Stats(); st.Bytes > limit {
		t.Fatalf("the log holds %d bytes, over its limit of %d", st.Bytes, limit)
	}
}

func TestMemoryRetentionByAge(t *testing.T) {
	c := context.Background()
	clk := &clock{now: time.Unix(1000, 0)}
	m := runlog.NewMemory(runlog.MemoryOptions{MaxAge: time.Minute, MaxTombstones: 1, Now: clk.Now})
	defer m.Close()
	w, err := m.Start(c, "old")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 3)
	clk.Add(40 * time.Second)
	appendN(t, w, 4, 6)
	w.End(c)
	rd, err := m.Read(c, runlog.Cursor{Run: "old"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(30 * time.Second) // events 1-3 are 70 s old, 4-6 30 s
	if _, err := rd.Next(c); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Next after events 1-3 expired: %v, want ErrEvicted", err)
	}
	if _, err := m.Read(c, runlog.Cursor{Run: "old", Seq: 2}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read from 2: %v, want ErrEvicted", err)
	}
	rd, err = m.Read(c, runlog.Cursor{Run: "old", Seq: 3})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := rd.Next(c); err != nil || e.Seq != 4 {
		t.Fatalf("Next from 3 = %d, %v; want 4", e.Seq, err)
	}
	clk.Add(time.Minute)
	if _, err := m.Read(c, runlog.Cursor{Run: "old", Seq: 6}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read of an expired run: %v, want ErrEvicted", err)
	}
	if st := m.Stats(); st != (runlog.MemoryStats{Tombstones: 1}) {
		t.Fatalf("an expired log holds %+v", st)
	}
	// MaxTombstones is 1: a second dropped run pushes the first out of memory.
	w, _ = m.Start(c, "newer")
	w.End(c)
	clk.Add(2 * time.Minute)
	if _, err := m.Read(c, runlog.Cursor{Run: "old"}); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("Read of a forgotten run: %v, want ErrUnknownRun", err)
	}
	if _, err := m.Read(c, runlog.Cursor{Run: "newer"}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read of the remembered run: %v, want ErrEvicted", err)
	}
}

// An idle log shrinks: the expiry timer drops old runs with no call to the
// log. (No time is asserted: the test waits until the log is empty.)
func TestMemoryIdleExpiry(t *testing.T) {
	c := context.Background()
	m := runlog.NewMemory(runlog.MemoryOptions{MaxAge: time.Millisecond})
	defer m.Close()
	w, _ := m.Start(c, "r")
	appendN(t, w, 1, 3)
	w.End(c)
	for m.Stats().Runs != 0 {
		time.Sleep(time.Millisecond)
	}
	if st := m.Stats(); st != (runlog.MemoryStats{Tombstones: 1}) {
		t.Fatalf("after expiry the log holds %+v", st)
	}
}

func TestMemoryLimits(t *testing.T) {
	c := context.Background()
	m := runlog.NewMemory(runlog.MemoryOptions{MaxEventBytes: 10})
	defer m.Close()
	w, _ := m.Start(c, "r")
	if _, err := w.Append(c, make([]byte, 11)); !errors.Is(err, runlog.ErrTooLarge) {
		t.Fatalf("Append of 11 bytes: %v, want ErrTooLarge", err)
	}
	if seq, err := w.Append(c, make([]byte, 10)); err != nil || seq != 1 {
		t.Fatalf("Append of 10 bytes: %d, %v", seq, err)
	}
	// The log keeps its own copy.
	b := []byte("abc")
	w.Append(c, b)
	b[0] = 'x'
	rd, _ := m.Read(c, runlog.Cursor{Run: "r", Seq: 1})
	if e, _ := rd.Next(c); string(e.Wire) != "abc" {
		t.Fatalf("stored %q, want the bytes as appended", e.Wire)
	}
	m.Close()
	if _, err := m.Start(c, "s"); !errors.Is(err, runlog.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if _, err := w.Append(c, b); !errors.Is(err, runlog.ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
}

// A run id is never started again, however many runs were dropped after
// it (the old log forgot it after 10,000, and a cursor of the old run then
// read the new run's events).
func TestMemoryRunIDNeverReused(t *testing.T) {
	c := context.Background()
	clk := &clock{now: time.Unix(1e9, 0)}
	m := runlog.NewMemory(runlog.MemoryOptions{MaxAge: time.Minute, Now: clk.Now})
	defer m.Close()
	w, _ := m.Start(c, "first")
	appendN(t, w, 1, 3)
	w.End(c)
	old := runlog.Cursor{Run: "first", Seq: 1}
	clk.Add(2 * time.Minute)
	for i := 0; i < 10001; i++ {
		w, err := m.Start(c, fmt.Sprint("later-", i))
		if err != nil {
			t.Fatal(err)
		}
		w.End(c)
	}
	clk.Add(2 * time.Minute)
	if _, err := m.Start(c, "first"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("Start of a run dropped 10,001 runs ago: %v, want ErrRunExists", err)
	}
	if st := m.Stats(); st.Runs != 0 || st.Tombstones != 10002 {
		t.Fatalf("the log holds %+v; want no run and 10,002 tombstones", st)
	}
	if _, err := m.Read(c, old); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("a cursor of the dropped run: %v, want ErrEvicted", err)
	}
}

// A cursor reads the run it was given by, never another run of the same
// id: one from a log that is gone (a restarted process), or one whose
// tombstone a bounded MaxTombstones let go.
func TestMemoryCursorBoundToIncarnation(t *testing.T) {
	c := context.Background()
	clk := &clock{now: time.Unix(1e9, 0)}
	m := runlog.NewMemory(runlog.MemoryOptions{MaxAge: time.Minute, MaxTombstones: 1, Now: clk.Now})
	defer m.Close()
	w, _ := m.Start(c, "r")
	appendN(t, w, 1, 3)
	w.End(c)
	rd, _ := m.Read(c, runlog.Cursor{Run: "r"})
	e, err := rd.Next(c)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := runlog.ParseCursor(e.Cursor("r").String()) // as a client keeps it
	if err != nil || cur.Inc == "" {
		t.Fatalf("the cursor of event 1: %+v, %v", cur, err)
	}
	clk.Add(2 * time.Minute)
	w2, _ := m.Start(c, "other")
	w2.End(c)
	clk.Add(2 * time.Minute) // "r"'s tombstone is pushed out
	w3, err := m.Start(c, "r")
	if err != nil {
		t.Fatalf("Start of a forgotten id with MaxTombstones 1: %v", err)
	}
	appendN(t, w3, 1, 3)
	if _, err := m.Read(c, cur); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("the old run's cursor on the new run: %v, want ErrEvicted", err)
	}
	// Another log (the process restarted) holding a run of the same id.
	m2 := runlog.NewMemory(runlog.MemoryOptions{})
	defer m2.Close()
	w4, _ := m2.Start(c, "r")
	appendN(t, w4, 1, 3)
	if _, err := m2.Read(c, cur); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("the cursor on a restarted log's run: %v, want ErrEvicted", err)
	}
}

// BenchmarkMemoryTombstones measures the heap a dropped run's tombstone
// keeps: a log that dropped b.N runs.
func BenchmarkMemoryTombstones(b *testing.B) {
	c := context.Background()
	clk := &clock{now: time.Unix(1e9, 0)}
	m := runlog.NewMemory(runlog.MemoryOptions{MaxAge: time.Minute, Now: clk.Now})
	defer m.Close()
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("run-%08d", i)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for _, id := range ids {
		w, err := m.Start(c, id)
		if err != nil {
			b.Fatal(err)
		}
		w.End(c)
		clk.Add(time.Minute / 1000)
	}
	clk.Add(2 * time.Minute)
	if _, err := m.Start(c, "last"); err != nil { // applies retention
		b.Fatal(err)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if st := m.Stats(); st.Tombstones != b.N {
		b.Fatalf("%d tombstones for %d dropped runs", st.Tombstones, b.N)
	}
	runtime.KeepAlive(ids)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/tombstone")
}

// A run's owner is kept with the run for as long as the log holds it,
// however many runs are started meanwhile: a victim's run, held while
// 100,001 other runs are started (and dropped by retention), still names
// its owner, and a start of its id by someone else is refused without
// taking it. An owner kept in a bounded table beside the log, forgetting
// the oldest, handed the run to whoever started its id next. Once
// retention drops the run its owner goes with it, and its id stays
// unusable (a tombstone), so nobody can claim it then either.
func TestMemoryOwnerKeptWhileHeld(t *testing.T) {
	c := context.Background()
	m := runlog.NewMemory(runlog.MemoryOptions{MaxBytes: 64 << 10, MaxAge: -1})
	defer m.Close()
	w, err := m.StartOwned(c, "victim", "alice")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 1)
	const others = 100_001
	for i := range others {
		o, err := m.StartOwned(c, fmt.Sprintf("r%d", i), "mallory")
		if err != nil {
			t.Fatal(err)
		}
		if err := o.End(c); err != nil {
			t.Fatal(err)
		}
	}
	if s := m.Stats(); s.Tombstones < others-1000 {
		t.Fatalf("%d runs dropped; the test needs retention to drop nearly all of the %d", s.Tombstones, others)
	}
	if _, err := m.StartOwned(c, "victim", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("mallory's start of the victim's id: %v; want ErrRunExists", err)
	}
	if got, err := m.Owner(c, "victim"); err != nil || got != "alice" {
		t.Fatalf("Owner(victim) = %q, %v; want alice", got, err)
	}
	// Dropped: the owner goes with the run, and the id cannot be claimed.
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		o, err := m.StartOwned(c, fmt.Sprintf("s%d", i), "mallory")
		if err != nil {
			t.Fatal(err)
		}
		o.End(c)
	}
	if got, err := m.Owner(c, "victim"); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Owner of the dropped run = %q, %v; want ErrEvicted", got, err)
	}
	if _, err := m.StartOwned(c, "victim", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("mallory's start of the dropped run's id: %v; want ErrRunExists", err)
	}
}

// The owner is counted against MaxBytes with its run.
func TestMemoryOwnerCounted(t *testing.T) {
	c := context.Background()
	m := runlog.NewMemory(runlog.MemoryOptions{MaxAge: -1})
	defer m.Close()
	if _, err := m.Start(c, "a"); err != nil {
		t.Fatal(err)
	}
	plain := m.Stats().Bytes
	if _, err := m.StartOwned(c, "b", "0123456789"); err != nil {
		t.Fatal(err)
	}
	if got := m.Stats().Bytes - plain; got != plain+10 {
		t.Fatalf("a run with a 10-byte owner counts %d bytes; want %d", got, plain+10)
	}
}
