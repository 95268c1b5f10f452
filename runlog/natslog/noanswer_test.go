package natslog_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
	"github.com/agwire/agwire/runlog/runlogtest"
)

// hangGuard bounds a wait that must end on its own: far above what the
// options of these tests need (about WriterTimeout + AckTimeout), so that
// only a reader that waits for the server fails it, however loaded the
// machine.
const hangGuard = 40 * time.Second

// silent are options under which a reader gives up on a store that does
// not answer within about WriterTimeout + AckTimeout, 2.3 s.
var silent = natslog.Options{Stream: "SILENT", Subject: "silent", Storage: jetstream.MemoryStorage,
	Heartbeat: 100 * time.Millisecond, WriterTimeout: 2 * time.Second, AckTimeout: 300 * time.Millisecond}

// viaProxy connects to ns through px, reconnecting for ever (as the
// command's build does).
func viaProxy(t *testing.T, px *proxy) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(px.url(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
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

// replicaPair is two replicas' logs whose connections to one embedded
// server go through a proxy, a run started on A with events 1 to 3, and a
// reader on each replica that has read them.
type replicaPair struct {
	ns      *server.Server
	px      *proxy
	a, b    *natslog.Log
	w       runlog.Writer
	readers map[string]runlog.Reader
	// before is a moment before the readers' last events arrived: no
	// reader can have given up before before + WriterTimeout.
	before time.Time
}

func newReplicaPair(t *testing.T, opts natslog.Options) *replicaPair {
	c := context.Background()
	ns := startServer(t)
	px := newProxy(t, ns.Addr().String())
	p := &replicaPair{ns: ns, px: px, a: newLog(t, viaProxy(t, px), opts), b: newLog(t, viaProxy(t, px), opts)}
	w, err := p.a.Start(c, "run")
	if err != nil {
		t.Fatal(err)
	}
	p.w = w
	p.readers = map[string]runlog.Reader{}
	for name, l := range map[string]*natslog.Log{"writer's replica": p.a, "other replica": p.b} {
		rd, err := l.Read(c, runlog.Cursor{Run: "run"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rd.Close() })
		p.readers[name] = rd
	}
	appendN(t, w, 1, 2)
	for name, rd := range p.readers {
		for want := uint64(1); want <= 2; want++ {
			if e, err := rd.Next(c); err != nil || e.Seq != want {
				t.Fatalf("%s: %d, %v; want event %d", name, e.Seq, err, want)
			}
		}
	}
	p.before = time.Now()
	appendN(t, w, 3, 3)
	for name, rd := range p.readers {
		if e, err := rd.Next(c); err != nil || e.Seq != 3 {
			t.Fatalf("%s: %d, %v; want event 3", name, e.Seq, err)
		}
	}
	return p
}

// endsWithNoAnswer checks that each reader ends, within the hang guard,
// with ErrNoAnswer (and so runlog.ErrRunAborted), and not before
// WriterTimeout has passed since its last event.
func (p *replicaPair) endsWithNoAnswer(t *testing.T, writerTimeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	done := make(chan error, len(p.readers))
	for name, rd := range p.readers {
		go func() {
			e, err := rd.Next(ctx)
			switch {
			case !errors.Is(err, natslog.ErrNoAnswer) || !errors.Is(err, runlog.ErrRunAborted):
				t.Errorf("%s: %d, %v; want ErrNoAnswer, an ErrRunAborted", name, e.Seq, err)
			case time.Since(p.before) < writerTimeout:
				t.Errorf("%s gave up %v after its last event, before WriterTimeout (%v): %v", name, time.Since(p.before), writerTimeout, err)
			case !contains(err, `run "run" after event 3`) || !contains(err, "did not answer"):
				t.Errorf("%s: %v; want the run, its last event and why", name, err)
			}
			done <- err
		}()
	}
	for range p.readers {
		select {
		case <-done:
		case <-time.After(hangGuard + 10*time.Second):
			t.Fatal("a reader's Next did not return when its context ended")
		}
	}
}

// A NATS server that stops answering (SIGSTOP: its connections stay open,
// nothing comes back) while a run's writer is silent: a reader on the
// writer's replica and one on another replica each end with ErrNoAnswer,
// an ErrRunAborted, about WriterTimeout after they last heard of the run
// (they waited for the server for as long as it was away). When the
// server answers again, the run goes on and a new reader gets every event
// exactly once. A Read while the server is away fails in bounded time.
//
// The readers check every 1.5 s (WriterTimeout/3): longer than their
// consumers take to miss two heartbeats (every 500 ms, the shortest) and
// start recreating themselves, which lasts as long as the server is away
// and heeds no context. (A reader waiting inside its consumer waited
// that long too.)
func TestStoppedServerEndsReaders(t *testing.T) {
	t.Parallel() // mostly waiting: alongside the others
	c := context.Background()
	opts := silent
	opts.WriterTimeout = 4500 * time.Millisecond
	p := newReplicaPair(t, opts)
	p.px.freeze()
	p.endsWithNoAnswer(t, opts.WriterTimeout)
	// A reader joining while the server is away fails (a follower gets
	// 503), each request waiting at most AckTimeout, not until its
	// context's deadline.
	rctx, rcancel := context.WithTimeout(c, hangGuard)
	defer rcancel()
	if rd, err := p.b.Read(rctx, runlog.Cursor{Run: "run", Seq: 3}); err == nil || rctx.Err() != nil {
		if rd != nil {
			rd.Close()
		}
		t.Fatalf("Read while the server does not answer: %v (its context: %v); want an error before the context ends", err, rctx.Err())
	}
	p.px.thaw()
	// The writer's connection stayed open: it goes on where it was.
	ctx, cancel := context.WithTimeout(c, hangGuard)
	defer cancel()
	var err error
	for ctx.Err() == nil {
		if _, err = p.w.Append(ctx, runlogtest.Wire(t, "run", 4)); !errors.Is(err, runlog.ErrUnacknowledged) {
			break
		}
	}
	if err != nil {
		t.Fatalf("Append after the server came back: %v", err)
	}
	if err := p.w.End(ctx); err != nil {
		t.Fatalf("End after the server came back: %v", err)
	}
	rd, err := p.b.Read(ctx, runlog.Cursor{Run: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for want := uint64(1); ; want++ {
		e, err := rd.Next(ctx)
		if want == 5 {
			if err != io.EOF {
				t.Fatalf("after event 4: %v, want io.EOF", err)
			}
			break
		}
		if err != nil || e.Seq != want {
			t.Fatalf("a reader after the server came back: %d, %v; want event %d", e.Seq, err, want)
		}
	}
}

// A NATS server shut down (its connections closed; the clients try to
// reconnect for ever): the readers end with ErrNoAnswer too.
func TestShutDownServerEndsReaders(t *testing.T) {
	t.Parallel() // mostly waiting: alongside the others
	p := newReplicaPair(t, silent)
	p.ns.Shutdown()
	p.endsWithNoAnswer(t, silent.WriterTimeout)
}

// A server that does not answer for less than WriterTimeout costs nothing:
// checks of the writer go unanswered while it is away, but the readers
// wait on, and get the next event when the server is back.
func TestBriefSilenceKeepsReaders(t *testing.T) {
	t.Parallel() // mostly waiting: alongside the others
	opts := silent
	opts.WriterTimeout = 6 * time.Second // checks every 2 s
	p := newReplicaPair(t, opts)
	p.px.freeze()
	time.Sleep(2500 * time.Millisecond) // one check of each reader goes unanswered
	p.px.thaw()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var err error
	for ctx.Err() == nil {
		if _, err = p.w.Append(ctx, runlogtest.Wire(t, "run", 4)); !errors.Is(err, runlog.ErrUnacknowledged) {
			break
		}
	}
	if err != nil {
		t.Fatalf("Append after the server came back: %v", err)
	}
	for name, rd := range p.readers {
		if e, err := rd.Next(ctx); err != nil || e.Seq != 4 {
			t.Fatalf("%s after a brief silence: %d, %v; want event 4", name, e.Seq, err)
		}
	}
	if err := p.w.End(ctx); err != nil {
		t.Fatal(err)
	}
}

// A reader whose caller does not call Next for longer than WriterTimeout
// (busy writing to a slow client) and then finds the server not answering
// for a moment waits on: the time it was not waiting, when nothing asked
// the server, is not time the server did not answer. It gets the next
// event when the server is back.
func TestReaderAwayThenBriefSilence(t *testing.T) {
	t.Parallel() // mostly waiting: alongside the others
	opts := silent
	opts.WriterTimeout = 4 * time.Second
	p := newReplicaPair(t, opts)
	time.Sleep(opts.WriterTimeout + time.Second) // away; the writer, alive, beats
	p.px.freeze()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	type next struct {
		seq uint64
		err error
	}
	got := make(chan next, len(p.readers))
	for _, rd := range p.readers {
		go func() {
			e, err := rd.Next(ctx)
			got <- next{e.Seq, err}
		}()
	}
	time.Sleep(time.Second) // its first checks go unanswered
	p.px.thaw()
	var err error
	for ctx.Err() == nil {
		if _, err = p.w.Append(ctx, runlogtest.Wire(t, "run", 4)); !errors.Is(err, runlog.ErrUnacknowledged) {
			break
		}
	}
	if err != nil {
		t.Fatalf("Append after the server came back: %v", err)
	}
	for range p.readers {
		if n := <-got; n.err != nil || n.seq != 4 {
			t.Fatalf("a reader back after WriterTimeout, then a brief silence: %d, %v; want event 4", n.seq, n.err)
		}
	}
	if err := p.w.End(ctx); err != nil {
		t.Fatal(err)
	}
}
