// Package protoconv converts between agwire's events and the generated
// protobuf types of package aguipb, for programs that want protobuf messages
// (gRPC services, storage in protobuf form).
//
// It is a package of its own so that codec, framing and transport link no
// generated code and register no descriptors: a program that imports them
// can also link another Go build of the AG-UI schema without the protobuf
// runtime's "already registered" conflict. Importing protoconv registers
// ag_ui/*.proto.
package protoconv

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

// ToProto converts ev to the generated aguipb.Event. It encodes with c and
// parses the bytes with the protobuf runtime, so the message holds exactly
// what the wire holds. Errors are the codec's.
func ToProto(c codec.Codec, ev event.Event) (*aguipb.Event, error) {
	b, err := c.Append(nil, ev)
	if err != nil {
		return nil, err
	}
	m := new(aguipb.Event)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, &codec.Error{Op: "encode", Type: ev.Type(), Offset: -1, Err: fmt.Errorf("%w: %w", codec.ErrMalformed, err)}
	}
	return m, nil
}

// FromProto converts a generated aguipb.Event to an event, applying the
// same rules as c.Unmarshal.
func FromProto(c codec.Codec, m *aguipb.Event) (event.Event, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, &codec.Error{Op: "decode", Offset: -1, Err: fmt.Errorf("%w: %w", codec.ErrMalformed, err)}
	}
	return c.Unmarshal(b)
}
