package codec

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

// ToProto converts ev to the generated aguipb.Event, for programs that want
// protobuf messages (gRPC, storage). It encodes with c and parses the bytes
// with the protobuf runtime, so the message holds exactly what the wire
// holds.
func (c Codec) ToProto(ev event.Event) (*aguipb.Event, error) {
	b, err := c.Append(nil, ev)
	if err != nil {
		return nil, err
	}
	m := new(aguipb.Event)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, &Error{Op: "encode", Type: ev.Type(), Offset: -1, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
	}
	return m, nil
}

// FromProto converts a generated aguipb.Event to an event, applying the
// same rules as Unmarshal.
func (c Codec) FromProto(m *aguipb.Event) (event.Event, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, &Error{Op: "decode", Offset: -1, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
	}
	return c.Unmarshal(b)
}

// ToProto converts ev with the default Codec.
func ToProto(ev event.Event) (*aguipb.Event, error) { return Codec{}.ToProto(ev) }

// FromProto converts m with the default Codec.
func FromProto(m *aguipb.Event) (event.Event, error) { return Codec{}.FromProto(m) }
