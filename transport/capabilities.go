package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/agwire/agwire/event"
)

// capabilitiesOf returns the handler's capabilities: the caller's, with
// the transport flags this handler decides set from its options — it
// streams (SSE), speaks the binary stream, and resumes runs when it has a
// Log. A caller's flag that says otherwise is an error.
func capabilitiesOf(opts *HandlerOptions) (*event.AgentCapabilities, error) {
	var c event.AgentCapabilities
	if opts.Capabilities != nil {
		// A deep copy, through JSON, so that the caller's value may change.
		b, err := json.Marshal(opts.Capabilities)
		if err != nil {
			return nil, fmt.Errorf("transport: HandlerOptions.Capabilities: %w", err)
		}
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("transport: HandlerOptions.Capabilities: %w", err)
		}
	}
	if c.Transport == nil {
		c.Transport = &event.TransportCapabilities{}
	}
	for _, f := range []struct {
		name  string
		field **bool
		truth bool
	}{
		{"streaming", &c.Transport.Streaming, true},
		{"httpBinary", &c.Transport.HTTPBinary, true},
		{"resumable", &c.Transport.Resumable, opts.Log != nil},
	} {
		if *f.field != nil && **f.field != f.truth {
			return nil, fmt.Errorf("transport: HandlerOptions.Capabilities claims transport.%s %v, but the handler's is %v", f.name, **f.field, f.truth)
		}
		*f.field = &f.truth
	}
	return &c, nil
}

// serveCapabilities answers a GET of the handler's route with its
// capabilities as JSON.
func serveCapabilities(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	// Add, not set: a CORS response already varies by Origin, and a cache
	// that lost that would serve one origin's Access-Control-Allow-Origin
	// to another.
	addVary(w.Header(), "Accept")
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// Capabilities reads the agent's capabilities: it GETs the client's URL,
// which a handler of NewHandler answers with its HandlerOptions.Capabilities
// and its transport flags (see NewHandler). A status other than 2xx gives a
// *StatusError; a body that is not AgentCapabilities JSON, an error saying
// so.
func (c *Client) Capabilities(ctx context.Context) (*event.AgentCapabilities, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	c.header(req)
	req.Header.Set("Accept", "application/json")
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, Body: snippet}
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, fmt.Errorf("%w: capabilities as Content-Type %q, not application/json", ErrUnsupportedMediaType, resp.Header.Get("Content-Type"))
	}
	var caps event.AgentCapabilities
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&caps); err != nil {
		return nil, fmt.Errorf("transport: the server's capabilities: %w", err)
	}
	return &caps, nil
}
