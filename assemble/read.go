package assemble

import (
	"errors"
	"fmt"
	"iter"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// FromSeq applies every event of a stream in order: seq is the Events of a
// *framing.Reader or a *transport.EventReader, or any iterator of events
// and read errors. A frame from a later protocol (codec.ErrUnknownEvent)
// is skipped and counted in Stats().Unknown, as the TypeScript client skips
// it. Any other read error, and the first event that cannot be applied,
// stops it: the Conversation holds everything applied before, and the error
// says which event. Under Options.Strict a stream that ends while its run is
// running is an error too (End).
//
// FromSeq is New and Apply with the stream's errors handled; events already
// in hand (a slice) are applied with New and Apply.
func FromSeq(seq iter.Seq2[event.Event, error], opts Options) (*Conversation, error) {
	c, err := New(opts)
	if err != nil {
		return nil, err
	}
	for ev, err := range seq {
		if err != nil {
			if errors.Is(err, codec.ErrUnknownEvent) {
				c.index++
				c.stats.Events++
				c.stats.Unknown++
				continue
			}
			return c, fmt.Errorf("assemble: reading event %d: %w", c.index, err)
		}
		if err := c.Apply(ev); err != nil {
			return c, err
		}
	}
	return c, c.End()
}

// fromEvents applies the events of a slice in order.
func fromEvents(events []event.Event, opts Options) (*Conversation, error) {
	c, err := New(opts)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		if err := c.Apply(ev); err != nil {
			return c, err
		}
	}
	return c, nil
}

// MarshalMessages writes messages as a JSON array in their AG-UI form.
func MarshalMessages(msgs []event.Message) ([]byte, error) {
	if msgs == nil {
		msgs = []event.Message{}
	}
	b, err := event.Marshal(&event.MessagesSnapshot{Messages: msgs})
	if err != nil {
		return nil, err
	}
	// The snapshot's JSON is {"type":"MESSAGES_SNAPSHOT","messages":[…]}:
	// take the array's text out of it.
	var sc jsonx.Scanner
	sc.Reset(b)
	var arr []byte
	err = sc.Object(func(key string) error {
		v, err := sc.Raw()
		if key == "messages" {
			arr = v
		}
		return err
	})
	if err != nil || arr == nil {
		return nil, errors.New("assemble: unexpected MESSAGES_SNAPSHOT form")
	}
	return arr, nil
}

// marshalBatch is how many messages MarshalJSON materialises and writes at a
// time, so writing a long conversation does not hold a second copy of it.
const marshalBatch = 256

// MarshalJSON writes the conversation as {"messages":[…],"state":…}, the
// text JSON.stringify gives of @ag-ui/client's messages and state: each
// message's members in the order the client has them, and every object and
// number as JavaScript holds it (see order.go). (State returns the state's
// text as it arrived.)
func (c *Conversation) MarshalJSON() ([]byte, error) {
	out := append(make([]byte, 0, 64), `{"messages":[`...)
	batch := make([]event.Message, 0, marshalBatch)
	for i := 0; i < len(c.msgs); i += marshalBatch {
		batch = batch[:0]
		for _, m := range c.msgs[i:min(i+marshalBatch, len(c.msgs))] {
			batch = append(batch, m.message())
		}
		arr, err := MarshalMessages(batch)
		if err != nil {
			return nil, err
		}
		// Each message's members in the order the client has them.
		var sc jsonx.Scanner
		sc.Reset(arr)
		err = sc.Array(func(j int) error {
			obj, err := sc.Raw()
			if err != nil {
				return err
			}
			if i+j > 0 {
				out = append(out, ',')
			}
			out, err = c.msgs[i+j].appendOrdered(out, obj)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("assemble: writing the messages: %w", err)
		}
	}
	out = append(out, `],"state":`...)
	out = append(out, c.State()...)
	out = append(out, '}')
	// The values as JavaScript holds them: array-index keys first, numbers
	// in its spelling.
	var sc jsonx.Scanner
	sc.Reset(out)
	js, err := appendJS(make([]byte, 0, len(out)), &sc)
	if err != nil {
		return nil, fmt.Errorf("assemble: writing the conversation: %w", err)
	}
	return js, nil
}
