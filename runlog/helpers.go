package runlog

import (
	"context"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// AppendEvent encodes ev with c and appends the wire bytes to w. An event
// the codec refuses is not appended; the error is the codec's.
func AppendEvent(ctx context.Context, w Writer, c codec.Codec, ev event.Event) (uint64, error) {
	b, err := c.Append(nil, ev)
	if err != nil {
		return 0, err
	}
	return w.Append(ctx, b)
}

// Decode decodes the entry's wire bytes with c.
func (e Entry) Decode(c codec.Codec) (event.Event, error) { return c.Unmarshal(e.Wire) }
