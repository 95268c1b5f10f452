package natslog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
)

// proxy forwards TCP connections to a NATS server. Armed with a marker, it
// acts on the first client bytes that hold it: with forward set, it
// forwards them and stops forwarding what the server sends back (so the
// publish lands and its acknowledgement is lost), otherwise it drops them;
// then it cuts every connection and refuses new ones (the server is
// unreachable) until up is called. Frozen (freeze), it keeps every
// connection open and accepts new ones but forwards nothing either way
// until thaw, as a server stopped with SIGSTOP does.
type proxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu      sync.Mutex
	marker  []byte
	forward bool
	down    bool
	conns   []net.Conn
	hit     chan struct{}
	thawed  chan struct{} // non-nil while frozen; closed by thaw
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target}
	t.Cleanup(func() {
		p.thaw()
		ln.Close()
		p.cut()
	})
	go p.serve()
	return p
}

func (p *proxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *proxy) arm(marker []byte, forward bool) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker, p.forward, p.hit = marker, forward, make(chan struct{})
	return p.hit
}

// freeze stops forwarding: what either side sends waits in the proxy.
func (p *proxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thawed == nil {
		p.thawed = make(chan struct{})
	}
}

// thaw forwards again, what waited first.
func (p *proxy) thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thawed != nil {
		close(p.thawed)
		p.thawed = nil
	}
}

// wait returns once the proxy is not frozen.
func (p *proxy) wait() {
	p.mu.Lock()
	ch := p.thawed
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func (p *proxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		var mute sync.Mutex // held while server → client is muted
		muted := false
		go func() { // server → client
			buf := make([]byte, 64<<10)
			for {
				n, err := s.Read(buf)
				if err != nil {
					c.Close()
					return
				}
				p.wait()
				mute.Lock()
				m := muted
				mute.Unlock()
				if m {
					continue
				}
				if _, err := c.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
		go func() { // client → server
			buf := make([]byte, 64<<10)
			for {
				n, err := c.Read(buf)
				if err != nil {
					s.Close()
					return
				}
				p.mu.Lock()
				marker, forward, hit := p.marker, p.forward, p.hit
				if marker != nil && bytes.Contains(buf[:n], marker) {
					p.marker = nil
				} else {
					marker = nil
				}
				p.mu.Unlock()
				if marker == nil {
					p.wait()
					if _, err := s.Write(buf[:n]); err != nil {
						return
					}
					continue
				}
				mute.Lock()
				muted = true
				mute.Unlock()
				if forward {
					s.Write(buf[:n])
					time.Sleep(100 * time.Millisecond) // the server stores it and acknowledges, to no one
				}
				p.cut()
				close(hit)
				return
			}
		}()
	}
}

// An append whose publish lands but whose acknowledgement is lost, while
// the server stays unreachable past the writer's look at the run's tail,
// fails with ErrUnacknowledged; retried once the server is back, it
// succeeds without a second copy, the run goes on and ends, and readers
// get exactly the events, once each. The same when the publish itself is
// lost (the retry then appends it).
func TestLostAcknowledgement(t *testing.T) {
	for _, forward := range []bool{true, false} {
		name := "ack lost"
		if !forward {
			name = "publish lost"
		}
		t.Run(name, func(t *testing.T) {
			c := context.Background()
			ns := startServer(t)
			direct := connect(t, ns)
			px := newProxy(t, ns.Addr().String())
			nc, err := nats.Connect(px.url(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond), nats.ReconnectJitter(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			js, err := jetstream.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			opts := natslog.Options{Stream: "ACK", Subject: "ack", Storage: jetstream.MemoryStorage, AckTimeout: 300 * time.Millisecond}
			l := newLog(t, js, opts)
			w, err := l.Start(c, "run")
			if err != nil {
				t.Fatal(err)
			}
			ev := func(i int) []byte { return []byte(fmt.Sprintf("event %d of run", i)) }
			for i := 1; i <= 5; i++ {
				if _, err := w.Append(c, ev(i)); err != nil {
					t.Fatal(err)
				}
			}
			hit := px.arm([]byte("event 6 of run"), forward)
			_, err = w.Append(c, ev(6))
			<-hit
			if !errors.Is(err, runlog.ErrUnacknowledged) {
				t.Fatalf("Append with its acknowledgement lost: %v, want ErrUnacknowledged", err)
			}
			st, err := direct.Stream(c, "ACK")
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Info(c)
			if err != nil {
				t.Fatal(err)
			}
			if want := uint64(6 + 1); forward && info.State.Msgs != want || !forward && info.State.Msgs != want-1 {
				t.Fatalf("the stream holds %d messages; forward=%v", info.State.Msgs, forward)
			}
			// Still unreachable: a retry fails the same way, and changes nothing.
			if _, err := w.Append(c, ev(6)); !errors.Is(err, runlog.ErrUnacknowledged) {
				t.Fatalf("retry while unreachable: %v, want ErrUnacknowledged", err)
			}
			px.up()
			deadline := time.Now().Add(10 * time.Second)
			for !nc.IsConnected() {
				if time.Now().After(deadline) {
					t.Fatal("no reconnection")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if seq, err := w.Append(c, ev(6)); err != nil || seq != 6 {
				t.Fatalf("retried Append = %d, %v; want 6, nil", seq, err)
			}
			for i := 7; i <= 10; i++ {
				if seq, err := w.Append(c, ev(i)); err != nil || seq != uint64(i) {
					t.Fatalf("Append %d = %d, %v", i, seq, err)
				}
			}
			if err := w.End(c); err != nil {
				t.Fatalf("End: %v", err)
			}
			// A reader on another connection gets exactly events 1 to 10.
			rl := newLog(t, direct, opts)
			rd, err := rl.Read(c, runlog.Cursor{Run: "run"})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			ctx, cancel := context.WithTimeout(c, 10*time.Second)
			defer cancel()
			for i := 1; ; i++ {
				e, err := rd.Next(ctx)
				if i == 11 {
					if err != io.EOF {
						t.Fatalf("after event 10: %v, want io.EOF", err)
					}
					break
				}
				if err != nil || e.Seq != uint64(i) || !bytes.Equal(e.Wire, ev(i)) {
					t.Fatalf("event %d: %d %q, %v", i, e.Seq, e.Wire, err)
				}
			}
		})
	}
}

// lossy is a writer whose connection goes through a proxy, and a log on
// a direct connection to read what landed.
type lossy struct {
	px     *proxy
	nc     *nats.Conn
	w      runlog.Writer
	reader *natslog.Log
}

func newLossy(t *testing.T, run string) *lossy {
	ns := startServer(t)
	px := newProxy(t, ns.Addr().String())
	nc, err := nats.Connect(px.url(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	opts := natslog.Options{Stream: "LOSSY", Subject: "lossy", Storage: jetstream.MemoryStorage, AckTimeout: 300 * time.Millisecond}
	w, err := newLog(t, js, opts).Start(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return &lossy{px: px, nc: nc, w: w, reader: newLog(t, connect(t, ns), opts)}
}

// back makes the server reachable again and waits for the reconnection.
func (l *lossy) back(t *testing.T) {
	l.px.up()
	deadline := time.Now().Add(10 * time.Second)
	for !l.nc.IsConnected() {
		if time.Now().After(deadline) {
			t.Fatal("no reconnection")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readRun checks that the run holds exactly want, then its end.
func (l *lossy) readRun(t *testing.T, run string, want [][]byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rd, err := l.reader.Read(ctx, runlog.Cursor{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i := 0; ; i++ {
		e, err := rd.Next(ctx)
		if i == len(want) {
			if err != io.EOF {
				t.Fatalf("after event %d: %v, want io.EOF", i, err)
			}
			return
		}
		if err != nil || e.Seq != uint64(i+1) || !bytes.Equal(e.Wire, want[i]) {
			t.Fatalf("event %d: %d %q, %v; want %q", i+1, e.Seq, e.Wire, err, want[i])
		}
	}
}

// The end marker's acknowledgement lost: End fails with
// ErrUnacknowledged while the server is unreachable; End again once it is
// back succeeds, the run has one end, and a third End is ErrRunEnded.
func TestLostEndAcknowledgement(t *testing.T) {
	c := context.Background()
	l := newLossy(t, "run")
	evs := [][]byte{[]byte("payload one"), []byte("payload two")}
	for _, e := range evs {
		if _, err := l.w.Append(c, e); err != nil {
			t.Fatal(err)
		}
	}
	hit := l.px.arm([]byte("Agwire-Mark: end"), true)
	err := l.w.End(c)
	<-hit
	if !errors.Is(err, runlog.ErrUnacknowledged) {
		t.Fatalf("End with its acknowledgement lost: %v, want ErrUnacknowledged", err)
	}
	l.back(t)
	if err := l.w.End(c); err != nil {
		t.Fatalf("End again: %v", err)
	}
	if err := l.w.End(c); !errors.Is(err, runlog.ErrRunEnded) {
		t.Fatalf("a third End: %v, want ErrRunEnded", err)
	}
	l.readRun(t, "run", evs)
}

// After an append whose acknowledgement was lost, the writer may go on
// with another event instead of retrying: the lost one, which landed,
// keeps its place and the new one follows it.
func TestLostAcknowledgementThenAnotherEvent(t *testing.T) {
	c := context.Background()
	l := newLossy(t, "run")
	if _, err := l.w.Append(c, []byte("payload one")); err != nil {
		t.Fatal(err)
	}
	hit := l.px.arm([]byte("payload two"), true)
	_, err := l.w.Append(c, []byte("payload two"))
	<-hit
	if !errors.Is(err, runlog.ErrUnacknowledged) {
		t.Fatalf("Append with its acknowledgement lost: %v, want ErrUnacknowledged", err)
	}
	l.back(t)
	if seq, err := l.w.Append(c, []byte("payload three")); err != nil || seq != 3 {
		t.Fatalf("the next event = %d, %v; want 3, nil", seq, err)
	}
	if err := l.w.End(c); err != nil {
		t.Fatal(err)
	}
	l.readRun(t, "run", [][]byte{[]byte("payload one"), []byte("payload two"), []byte("payload three")})
}
