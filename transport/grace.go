package transport

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/agwire/agwire/runlog"
)

// DefaultReconnectGrace is HandlerOptions.ReconnectGrace's default.
const DefaultReconnectGrace = 30 * time.Second

// ErrNoClient is the cause of a resumable run's context ending because no
// client (the one that started it, one resuming it, a follower) was
// connected for HandlerOptions.ReconnectGrace; with no grace (a negative
// ReconnectGrace), because the client that started it left.
var ErrNoClient = errors.New("transport: no client came back within the reconnect grace")

// errNoGrace ends a resumable run with no reconnect grace (a negative
// HandlerOptions.ReconnectGrace) when its client leaves.
var errNoGrace = &textError{"transport: the run's client left, and the run has no reconnect grace (HandlerOptions.ReconnectGrace is negative)", []error{ErrNoClient, context.Canceled}}

// clientGone is the cause of a run's end when its request's context ended:
// errNoGrace when the client went away, the request's own cause otherwise.
func clientGone(req context.Context) error {
	if cause := context.Cause(req); cause != nil && cause != context.Canceled {
		return cause
	}
	return errNoGrace
}

// presence counts the clients of one live run — the response that started
// it, responses resuming it, followers — and ends the run when none has
// been connected for the grace. With a log shared by several processes
// (one that implements runlog.Presence), a reader connected to another
// process counts too: it touches the run's presence in the log, and when
// the grace passes here the run goes on while the log says a reader was
// seen within the grace.
type presence struct {
	mu      sync.Mutex
	clients int
	grace   time.Duration
	timer   *time.Timer
	gen     uint64 // of the timer armed last: a timer of another is stale
	expire  func() // ends the run
	ended   bool
	shared  runlog.Presence // nil: only this process's clients count
	run     string
}

// presenceCheckTimeout bounds asking a shared log when a reader was last
// seen.
const presenceCheckTimeout = 5 * time.Second

// attach counts a client in; the grace, if running, stops.
func (p *presence) attach() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients++
	p.stopLocked()
}

func (p *presence) stopLocked() {
	p.gen++
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// detach counts a client out; when it was the last, the grace starts.
func (p *presence) detach() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients--
	if p.clients == 0 && !p.ended {
		p.armLocked(p.grace)
	}
}

// armLocked starts (again) the wait of d for a client.
func (p *presence) armLocked(d time.Duration) {
	p.stopLocked()
	gen := p.gen
	p.timer = time.AfterFunc(d, func() { p.fire(gen) })
}

// fire is the end of a grace: the run ends, unless a client came back here
// meanwhile, or the shared log saw a reader within the grace (then the
// wait goes on until the grace after that reader was seen).
func (p *presence) fire(gen uint64) {
	if p.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), presenceCheckTimeout)
		last, err := p.shared.LastSeen(ctx, p.run)
		cancel()
		if since := time.Since(last); err == nil && !last.IsZero() && since < p.grace {
			p.mu.Lock()
			if p.gen == gen && p.clients == 0 && !p.ended {
				p.armLocked(max(p.grace-since, p.grace/10))
			}
			p.mu.Unlock()
			return
		}
	}
	p.mu.Lock()
	stale := p.gen != gen || p.clients > 0 || p.ended
	p.mu.Unlock()
	if !stale {
		p.expire()
	}
}

// end marks the run over: no grace runs any more.
func (p *presence) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	p.stopLocked()
}

// The live runs of this process by log and run id, so that a resuming
// request and a follower (NewFollowHandler, given the same Log) count as
// clients of a run whatever handler serves them. A Log whose dynamic type
// is not comparable is keyed by the handler instead (its followers do not
// count).
var live sync.Map // liveKey → *presence

type liveKey struct {
	log any
	run string
}

func keyOf(log runlog.Log, owner any, run string) liveKey {
	if log != nil && reflect.TypeOf(log).Comparable() {
		return liveKey{log, run}
	}
	return liveKey{owner, run}
}

// startPresence registers run as live, with one client (the one starting
// it); cancel ends the run with ErrNoClient after the grace, unless log
// (when it implements runlog.Presence) saw a reader of run within it.
func startPresence(key liveKey, grace time.Duration, cancel context.CancelCauseFunc, log runlog.Log, run string) *presence {
	p := &presence{clients: 1, grace: grace, expire: func() { cancel(ErrNoClient) }, run: run}
	p.shared, _ = log.(runlog.Presence)
	live.Store(key, p)
	return p
}

// attachPresence counts a client in to run: in this process if the run is
// live here, and in log if it implements runlog.Presence (touched now and
// every grace/3 while the client is connected, for the process running
// the run, wherever it is). It returns the function counting it out.
func attachPresence(key liveKey, log runlog.Log, run string, grace time.Duration) func() {
	detach := func() {}
	if v, ok := live.Load(key); ok {
		p := v.(*presence)
		p.attach()
		detach = p.detach
	}
	shared, ok := log.(runlog.Presence)
	if !ok || grace <= 0 {
		return detach
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(grace/3, time.Millisecond))
		defer t.Stop()
		for {
			tctx, cancel := context.WithTimeout(ctx, presenceCheckTimeout)
			_ = shared.Touch(tctx, run) // best effort: a run that ended is not held
			cancel()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		stop()
		<-done
		detach()
	}
}

// endPresence unregisters a run that ended.
func endPresence(key liveKey, p *presence) {
	p.end()
	live.CompareAndDelete(key, p)
}
