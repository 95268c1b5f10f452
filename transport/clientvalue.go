package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// ErrIdleTimeout: no byte of a response arrived for ClientOptions.IdleTimeout.
var ErrIdleTimeout = errors.New("transport: the response was idle too long")

// Client is an AG-UI agent endpoint, built once and used for any number of
// runs, from any number of goroutines, like an *http.Client:
//
//	c, err := transport.NewClient("https://agent.example/agent", transport.ClientOptions{})
//	...
//	r, err := c.Run(ctx, in)
//	...
//	defer r.Close()
//	for ev, err := range r.Events() { ... }
type Client struct {
	url  string
	opts ClientOptions
	doer Doer

	autoOnce sync.Once
	auto     atomic.Bool // PreferAuto: the server speaks binary
}

// NewClient returns a Client of the agent endpoint at url. Options that
// are not valid (a negative MaxEventSize or IdleTimeout, an unknown coding
// in Compression, a url that is not absolute http or https) give an error
// naming the ClientOptions field.
func NewClient(url string, opts ClientOptions) (*Client, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("transport: NewClient: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("transport: NewClient: %q is not an absolute http or https URL", url)
	}
	switch {
	case opts.MaxEventSize < 0:
		return nil, fmt.Errorf("transport: ClientOptions.MaxEventSize is negative (%d)", opts.MaxEventSize)
	case opts.IdleTimeout < 0:
		return nil, fmt.Errorf("transport: ClientOptions.IdleTimeout is negative (%v)", opts.IdleTimeout)
	case opts.Prefer < PreferBinary || opts.Prefer > PreferAuto:
		return nil, fmt.Errorf("transport: ClientOptions.Prefer is not a Prefer value (%d)", opts.Prefer)
	}
	if err := opts.Compression.check("ClientOptions.Compression"); err != nil {
		return nil, err
	}
	doer := opts.HTTPClient
	if c, ok := doer.(*http.Client); doer == nil || ok && c == nil {
		doer = http.DefaultClient
	}
	return &Client{url: url, opts: opts, doer: doer}, nil
}

// Run starts a run: it POSTs in as JSON to the client's URL and returns a
// reader of the response's events. The request carries ctx; cancelling it
// ends the stream.
//
// The request asks for the transport ClientOptions.Prefer says, and for
// the codings ClientOptions.Compression lists. Errors
// are those of the HTTP client and of NewEventReader. The caller must
// Close the reader.
//
// With ClientOptions.Reconnect, a request cut before its response's header
// is complete is resumed from the run's start (see ReconnectOptions): the
// reader returned reads the run from its first event, and the server runs
// the agent once.
func (c *Client) Run(ctx context.Context, in *event.RunAgentInput) (*EventReader, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("transport: encoding the RunAgentInput: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	c.header(req)
	req.Header.Set("Content-Type", "application/json")
	c.accept(ctx, req)
	// A request cut before its response's header names the run's cursor
	// is resumed from the run's start: the run id is the input's, and the
	// cursor at 0 without an incarnation reads whichever run holds the id.
	var early *runlog.Cursor
	if runlog.CheckRunID(in.RunID) == nil {
		early = &runlog.Cursor{Run: in.RunID}
	}
	return c.start(ctx, req, body, early, true)
}

// Follow follows run through the server's follower route
// (ClientOptions.FollowURL; NewFollowHandler serves it): it GETs the route,
// with Last-Event-ID when from names a cursor of run, and returns a reader
// of the run's events after from (from the start for a zero from), as Run
// does; ClientOptions.Reconnect applies too. The caller must Close the
// reader.
func (c *Client) Follow(ctx context.Context, run string, from runlog.Cursor) (*EventReader, error) {
	if from.Run != "" && from.Run != run {
		return nil, fmt.Errorf("transport: Follow: cursor %s is not of run %q", from, run)
	}
	route := c.opts.FollowURL
	if route == "" {
		route = strings.TrimSuffix(c.url, "/") + "/runs/{run}"
	}
	return c.follow(ctx, strings.ReplaceAll(route, "{run}", neturl.PathEscape(run)), run, from)
}

func (c *Client) follow(ctx context.Context, url, run string, from runlog.Cursor) (*EventReader, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	c.header(req)
	c.accept(ctx, req)
	if from.Run != "" {
		req.Header.Set(HeaderLastEventID, from.String())
	}
	var early *runlog.Cursor
	if runlog.CheckRunID(run) == nil {
		from.Run = run
		early = &from
	}
	return c.start(ctx, req, nil, early, false)
}

func (c *Client) header(req *http.Request) {
	for k, v := range c.opts.Header {
		req.Header[k] = append([]string(nil), v...)
	}
}

// accept sets the Accept and Accept-Encoding headers.
func (c *Client) accept(ctx context.Context, req *http.Request) {
	opts := c.opts
	if opts.Prefer == PreferAuto {
		c.autoOnce.Do(func() {
			caps, err := c.Capabilities(ctx)
			c.auto.Store(err == nil && caps.Transport != nil && caps.Transport.HTTPBinary != nil && *caps.Transport.HTTPBinary)
		})
		if !c.auto.Load() {
			opts.Prefer = PreferSSEOnly
		}
	}
	setAccept(req, opts)
}

// start sends req and returns the reader of its response.
//
// With Reconnect, a request that fails without a response — cut before
// or inside the response's header, so that the reader never learnt the
// run's cursor — is resumed from early, the cursor the request would
// have started at (nil: none, the error is returned). A run request
// (restart) whose resumption the server answers 404 is sent again: the
// run was never started.
func (c *Client) start(ctx context.Context, req *http.Request, body []byte, early *runlog.Cursor, restart bool) (*EventReader, error) {
	r, err := newEventReader(c.opts.reader())
	if err != nil {
		return nil, err
	}
	if c.opts.Reconnect != nil {
		r.re = newReconnector(ctx, c.doer, req, body, c.opts.Reconnect)
	}
	resp, err := c.doer.Do(req)
	if err != nil {
		if r.re == nil || early == nil || ctx.Err() != nil || notSent(err) {
			r.stop()
			return nil, err
		}
		r.re.early, r.re.restart = true, restart
		r.cursor = *early
		if err := r.reconnect(err); err != nil {
			r.stop()
			return nil, err
		}
		return r, nil
	}
	if err := r.attach(resp); err != nil {
		r.stop()
		return nil, err
	}
	return r, nil
}

// notSent reports whether a request's error says that it never left: no
// connection was made, so the server cannot have started a run.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// idleBody closes a response body when no byte arrived for d, so that a
// read blocked on it returns; the read then reports ErrIdleTimeout.
type idleBody struct {
	rc    io.ReadCloser
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
}

func newIdleBody(rc io.ReadCloser, d time.Duration) *idleBody {
	b := &idleBody{rc: rc, d: d}
	b.t = time.AfterFunc(d, func() {
		b.fired.Store(true)
		rc.Close()
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.fired.Load() {
		return n, b.idle()
	}
	if n > 0 {
		b.t.Reset(b.d)
	}
	return n, err
}

func (b *idleBody) idle() error {
	return fmt.Errorf("%w: no byte for %v (ClientOptions.IdleTimeout)", ErrIdleTimeout, b.d)
}

func (b *idleBody) Close() error {
	b.t.Stop()
	return b.rc.Close()
}

// idleReader is the decompressed body of an idleBody: a read that fails
// because the idle timer closed the body reports ErrIdleTimeout, whatever
// the decompressor made of the close.
type idleReader struct {
	r io.Reader
	b *idleBody
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.b.fired.Load() {
		return n, r.b.idle()
	}
	return n, err
}
