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
// been connected for the grace.
type presence struct {
	mu      sync.Mutex
	clients int
	grace   time.Duration
	timer   *time.Timer
	expire  func() // ends the run
	ended   bool
}

// attach counts a client in; the grace, if running, stops.
func (p *presence) attach() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients++
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
		p.timer = time.AfterFunc(p.grace, p.expire)
	}
}

// end marks the run over: no grace runs any more.
func (p *presence) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
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
// it); cancel ends the run with ErrNoClient after the grace.
func startPresence(key liveKey, grace time.Duration, cancel context.CancelCauseFunc) *presence {
	p := &presence{clients: 1, grace: grace, expire: func() { cancel(ErrNoClient) }}
	live.Store(key, p)
	return p
}

// attachPresence counts a client in to run if it is live here, and
// returns the function counting it out.
func attachPresence(key liveKey) func() {
	v, ok := live.Load(key)
	if !ok {
		return func() {}
	}
	p := v.(*presence)
	p.attach()
	return p.detach
}

// endPresence unregisters a run that ended.
func endPresence(key liveKey, p *presence) {
	p.end()
	live.CompareAndDelete(key, p)
}
