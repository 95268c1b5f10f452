// Package codec maps AG-UI events to the protobuf wire of AG-UI 1.0 and
// back: one event is one serialized ag_ui.Event message, the payload of one
// frame of the binary transport (application/vnd.ag-ui.event+proto).
//
// The mapping is stated once, in package event's field tables (the struct
// tags and rules.go). internal/codecgen compiles the tables into a coder per
// type over protowire (coders_gen.go, written by `go generate ./codec`),
// and a table-driven reference decoder in this package reads the same
// tables: the generated decoders must agree with it event for event and
// error for error, and it reads what they leave (any frame not in canonical
// shape). The generated encoders are held to an independent oracle built
// on protobuf-go's generated types. This package has no JSON code of its
// own: AppendFromJSON is package event's parser (its compiled path first,
// reading the input in place into memory it recycles) followed by the
// encoder, AppendJSONFromWire the decoder followed by event's compiled
// writers, trusting what the decoder checked (internal/schema's
// ParseTransient and AppendTrustedJSON are the doors). The mapping follows
// the published TypeScript codec, @ag-ui/proto@1.0.0, byte for byte: an
// event whose dynamic objects have no integer-like keys encodes to exactly
// the bytes that codec writes. Its entry points:
//
//   - Append / Unmarshal: event.Event ⇄ wire bytes;
//   - AppendFromJSON / AppendJSONFromWire: AG-UI JSON event ⇄ wire bytes, for servers
//     that already produce JSON events and do not want agwire's types;
//   - package codec/protoconv: event.Event ⇄ the generated aguipb.Event.
//
// # What agwire does that the other peers do not
//
// Nothing is lost silently. An event with no protobuf form (THINKING_*, an
// unknown type, or an event outside the selected Profile) is refused with
// event.ErrUnsupportedEvent or ErrNotInProfile instead of being written as an empty
// payload. A JSON number that a double cannot hold exactly is refused with
// ErrLossyNumber unless Codec.LossyNumbers is set. A decoded NaN or ±Inf is
// refused with ErrNonFinite unless Codec.NonFiniteAsNull is set.
//
// # Numbers
//
// Inside google.protobuf.Value every number is an IEEE-754 double. A JSON
// number is lossless when the nearest double, printed in its shortest
// round-trip form, is the same decimal number: 0.1, 1.5e300, 1e21 and
// 9007199254740991 are; 9007199254740993, 0.12345678901234567891, 1e400
// (overflow to infinity) and 1e-400 (underflow to zero) are not. Negative
// zero keeps its sign both ways: "-0" encodes to the double -0, and -0 decodes
// to "-0" (JavaScript's JSON.stringify would print 0). Decoded numbers are
// written in JavaScript's Number#toString spelling (1e+21, 1e-7).
//
// Integer fields (timestamp, usage counts) are int64 on the wire, not
// doubles: every int64 is exact.
//
// # Metadata
//
// Metadata is a google.protobuf.Struct: absent stays absent, {} stays {}
// (present and empty), null under a key stays a null Value, and key order is
// kept. JavaScript orders integer-like keys ("10", "2") first in its objects,
// so for such keys the TypeScript peer's bytes list entries in a different
// order than agwire's; both decode to the same object.
//
// # Decoding
//
// Unmarshal accepts what protobuf accepts (unknown fields are skipped,
// repeated singular messages merge) and refuses what AG-UI forbids: no arm
// or two arms, a base_event.type that disagrees with the arm, content
// carriers that contradict a message's role, both string and part content on
// a tool result, a content part or source with two arms, field number 0, bad
// wire types, truncation, invalid UTF-8, nesting beyond Codec.MaxDepth. Each
// is an ErrMalformed naming the field path and byte offset. An envelope that
// carries only an arm from a later protocol is ErrUnknownEvent instead, so a
// stream reader can skip that frame and go on.
package codec
