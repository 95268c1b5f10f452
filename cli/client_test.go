package cli

import (
	"context"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// startRun starts a run through a transport.Client built for it: client
// nil means http.DefaultClient.
func startRun(ctx context.Context, client transport.Doer, url string, in *event.RunAgentInput, opts transport.ClientOptions) (*transport.EventReader, error) {
	if client != nil {
		opts.HTTPClient = client
	}
	c, err := transport.NewClient(url, opts)
	if err != nil {
		return nil, err
	}
	return c.Run(ctx, in)
}

// prefer is PreferSSEOnly when sse, else PreferBinary.
func prefer(sse bool) transport.Prefer {
	if sse {
		return transport.PreferSSEOnly
	}
	return transport.PreferBinary
}

// allCodings asks for both codings.
var allCodings = transport.Compression{transport.EncodingZstd, transport.EncodingGzip}
