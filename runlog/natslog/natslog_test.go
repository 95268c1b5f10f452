package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
	"github.com/agwire/agwire/runlog/runlogtest"
)

// startServer starts an embedded NATS server with JetStream, in process,
// on a loopback port; it is shut down when the test ends.
func startServer(t testing.TB) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      server.RANDOM_PORT,
		JetStream: true,
		StoreDir:  t.TempDir(),
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

func connect(t testing.TB, ns *server.Server) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

var streams atomic.Int64

// newLog returns a log on a stream of its own.
func newLog(t testing.TB, js jetstream.JetStream, opts natslog.Options) *natslog.Log {
	t.Helper()
	if opts.Stream == "" {
		n := streams.Add(1)
		opts.Stream = fmt.Sprint("RUNS_", n)
		opts.Subject = fmt.Sprint("runs", n)
	}
	l, err := natslog.New(context.Background(), js, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestConformance(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	runlogtest.Run(t, func(t *testing.T) runlog.Log {
		return newLog(t, js, natslog.Options{Storage: jetstream.MemoryStorage})
	}, runlogtest.Options{})
}

func TestFileStorage(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	runlogtest.Run(t, func(t *testing.T) runlog.Log {
		return newLog(t, js, natslog.Options{})
	}, runlogtest.Options{Followers: 20, Events: 50, Runs: 20})
}

func appendN(t *testing.T, w runlog.Writer, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		if _, err := w.Append(context.Background(), runlogtest.Wire(t, w.Run(), i)); err != nil {
			t.Fatal(err)
		}
	}
}

// Cursors land on their event when other runs' messages interleave, so
// that the stream's sequence numbers are far from the runs'.
func TestCursorSearchInterleaved(t *testing.T) {
	c := context.Background()
	js := connect(t, startServer(t))
	l := newLog(t, js, natslog.Options{Storage: jetstream.MemoryStorage})
	const runs, n = 5, 40
	ws := make([]runlog.Writer, runs)
	for r := range ws {
		w, err := l.Start(c, fmt.Sprint("r", r))
		if err != nil {
			t.Fatal(err)
		}
		ws[r] = w
	}
	for i := 1; i <= n; i++ {
		for r, w := range ws {
			if (i+r)%3 == 0 { // uneven interleaving
				appendN(t, w, i, i)
				appendN(t, w, i+n, i+n)
			}
		}
	}
	for r, w := range ws {
		_ = r
		w.End(c)
	}
	for r := range ws {
		run := fmt.Sprint("r", r)
		rd, _ := l.Read(c, runlog.Cursor{Run: run})
		var all []uint64
		for {
			e, err := rd.Next(c)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, e.Seq)
		}
		for from := 0; from <= len(all); from++ {
			rd, err := l.Read(c, runlog.Cursor{Run: run, Seq: uint64(from)})
			if err != nil {
				t.Fatal(err)
			}
			e, err := rd.Next(c)
			switch {
			case from == len(all) && err != io.EOF:
				t.Fatalf("%s from the end: %v, want io.EOF", run, err)
			case from < len(all) && (err != nil || e.Seq != uint64(from+1)):
				t.Fatalf("%s from %d: %d, %v", run, from, e.Seq, err)
			}
			rd.Close()
		}
	}
}

// Retention drops the oldest messages of the stream: cursors into what was
// dropped, and readers that fall behind, get ErrEvicted.
func TestRetention(t *testing.T) {
	c := context.Background()
	js := connect(t, startServer(t))
	l := newLog(t, js, natslog.Options{Storage: jetstream.MemoryStorage, MaxBytes: 4096})
	w, _ := l.Start(c, "big")
	slow, err := l.Read(c, runlog.Cursor{Run: "big"})
	if err != nil {
		t.Fatal(err)
	}
	// More events than a reader's consumer holds ahead of it (500
	// messages, JetStream's default batch), so that retention drops some
	// before the slow reader's consumer receives them.
	const n = 1200
	appendN(t, w, 1, n)
	w.End(c)
	if _, err := l.Read(c, runlog.Cursor{Run: "big"}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read from 0 after retention: %v, want ErrEvicted", err)
	}
	// The slow reader may have buffered some events; then a gap.
	var err2 error
	for got := 0; got <= n; got++ {
		if _, err2 = slow.Next(c); err2 != nil {
			break
		}
	}
	if !errors.Is(err2, runlog.ErrEvicted) {
		t.Fatalf("a reader behind retention: %v, want ErrEvicted", err2)
	}
	// From the newest cursors the run reads to its end.
	rd, err := l.Read(c, runlog.Cursor{Run: "big", Seq: n - 5})
	if err != nil {
		t.Fatal(err)
	}
	for want := uint64(n - 4); ; want++ {
		e, err := rd.Next(c)
		if err == io.EOF && want == n+1 {
			break
		}
		if err != nil || e.Seq != want {
			t.Fatalf("Next = %d, %v; want %d", e.Seq, err, want)
		}
	}
	// A run dropped entirely is remembered: cursors of it are evicted, and
	// its id is never started again.
	st, _ := js.Stream(c, l.StreamName())
	if err := st.Purge(c, jetstream.WithPurgeSubject(l.SubjectOf("big"))); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Read(c, runlog.Cursor{Run: "big"}); !errors.Is(err, runlog.ErrEvicted) {
		t.Fatalf("Read of a purged run: %v, want ErrEvicted", err)
	}
	if _, err := l.Start(c, "big"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("Start of a purged run: %v, want ErrRunExists", err)
	}
	if _, err := l.Read(c, runlog.Cursor{Run: "never"}); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("Read of a run never started: %v, want ErrUnknownRun", err)
	}
}

// Two server replicas share a stream through two connections. A run
// started on A cannot be started again on B; B's readers see A's events
// exactly once. When A's connection dies mid-run, the run has no end
// marker: B's reader gets every acknowledged event, then waits.
func TestReplicas(t *testing.T) {
	c := context.Background()
	ns := startServer(t)
	jsA, jsB := connect(t, ns), connect(t, ns)
	a := newLog(t, jsA, natslog.Options{Stream: "SHARED", Subject: "shared", Storage: jetstream.MemoryStorage})
	b := newLog(t, jsB, natslog.Options{Stream: "SHARED", Subject: "shared", Storage: jetstream.MemoryStorage})
	w, err := a.Start(c, "run")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Start(c, "run"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("Start on B of A's run: %v, want ErrRunExists", err)
	}
	appendN(t, w, 1, 10)
	rd, err := b.Read(c, runlog.Cursor{Run: "run", Seq: 4})
	if err != nil {
		t.Fatal(err)
	}
	for want := uint64(5); want <= 10; want++ {
		if e, err := rd.Next(c); err != nil || e.Seq != want {
			t.Fatalf("B reads %d, %v; want %d", e.Seq, err, want)
		}
	}
	jsA.Conn().Close() // A dies without ending the run
	if _, err := w.Append(c, runlogtest.Wire(t, "run", 11)); err == nil {
		t.Fatal("Append on a closed connection succeeded")
	}
	ctx, cancel := context.WithTimeout(c, 100*time.Millisecond)
	defer cancel()
	if e, err := rd.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after A died, B's reader got %d, %v; want to wait until its context ends", e.Seq, err)
	}
	// From a new reader on B, the run holds exactly events 1-10.
	rd2, err := b.Read(c, runlog.Cursor{Run: "run", Seq: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(c, runlog.Cursor{Run: "run", Seq: 11}); !errors.Is(err, runlog.ErrBadCursor) {
		t.Fatalf("cursor 11: %v, want ErrBadCursor", err)
	}
	rd2.Close()
}

// A message on a run's subject that its Writer did not publish makes the
// Writer's next append a conflict, never an interleaving.
func TestConflict(t *testing.T) {
	c := context.Background()
	js := connect(t, startServer(t))
	l := newLog(t, js, natslog.Options{Storage: jetstream.MemoryStorage})
	w, err := l.Start(c, "run")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 2)
	if _, err := js.Publish(c, l.SubjectOf("run"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(c, runlogtest.Wire(t, "run", 3)); !errors.Is(err, runlog.ErrConflict) {
		t.Fatalf("Append after a foreign message: %v, want ErrConflict", err)
	}
	if err := w.End(c); !errors.Is(err, runlog.ErrConflict) {
		t.Fatalf("End after a foreign message: %v, want ErrConflict", err)
	}
}

func TestBadConfig(t *testing.T) {
	js := connect(t, startServer(t))
	if _, err := natslog.New(context.Background(), js, natslog.Options{Stream: "NOPE", NoCreate: true}); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("NoCreate on a missing stream: %v", err)
	}
	l := newLog(t, js, natslog.Options{MaxEventBytes: 10, Storage: jetstream.MemoryStorage})
	w, _ := l.Start(context.Background(), "r")
	if _, err := w.Append(context.Background(), make([]byte, 11)); !errors.Is(err, runlog.ErrTooLarge) {
		t.Fatalf("Append of 11 bytes: %v", err)
	}
}
