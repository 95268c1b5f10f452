package codec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// later is what a profile without the 1.1 fields does with an event that
// sets one. An event from JSON (fromJSON) holds a field its type does not
// declare in that version: event.ErrUnknownField, or dropped with
// DropUnknownFields, as any undeclared field; an event built in Go asks for
// what the peer cannot read: ErrNotInProfile.
func (c Codec) later(ev event.Event, fromJSON bool) error {
	if c.Profile == V11 {
		// The rules of the fields: a type is never sent without its value.
		return laterRules("encode", ErrInvalid, ev)
	}
	var first, since string
	event.Later(ev, func(pointer, v string) {
		if first == "" {
			first, since = pointer, v
		}
	})
	switch {
	case first == "":
		return nil
	case fromJSON && c.DropUnknownFields:
		event.ClearLater(ev)
		return nil
	case fromJSON:
		key := first[strings.LastIndexByte(first, '/')+1:]
		return &Error{Op: "encode", Type: ev.Type(), Path: event.PointerPath(first), Offset: -1, Err: fmt.Errorf("%w %s", event.ErrUnknownField, jsonx.Quote(key))}
	}
	return &Error{Op: "encode", Type: ev.Type(), Path: event.PointerPath(first), Offset: -1,
		Err: fmt.Errorf("%w: the field is AG-UI %s, and the %s profile does not carry it (Codec.Profile V11 does)", ErrNotInProfile, since, c.Profile)}
}

// afterDecode removes, after a decode with a profile without the 1.1
// fields, the ones the frame carried: such a reader does not know them, and
// protobuf skips a field it does not know (and so the fields' rules). A 1.1
// reader holds them to their rules.
func (c Codec) afterDecode(ev event.Event) error {
	switch {
	case !event.MayHoldLater(ev):
	case c.Profile == V11:
		return laterRules("decode", ErrMalformed, ev)
	default:
		for _, p := range event.ClearLater(ev) {
			if c.Skipped != nil {
				c.Skipped(ev.Type(), p)
			}
		}
	}
	return nil
}

// laterRules is event.CheckLater as the codec's *Error.
func laterRules(op string, sentinel error, ev event.Event) error {
	err := event.CheckLater(ev)
	if err == nil {
		return nil
	}
	out := &Error{Op: op, Type: ev.Type(), Offset: -1, Err: fmt.Errorf("%w: %w", sentinel, err)}
	var pe *event.PathError
	if errors.As(err, &pe) {
		out.Path, out.Err = pe.Path, fmt.Errorf("%w: %w", sentinel, pe.Err)
	}
	return out
}

// protocol is the version of the JSON the profile reads: the 1.1 fields
// are declared only in V11's.
func (p Profile) protocol() string {
	if p == V11 {
		return event.Protocol11
	}
	return event.Protocol10
}

// ProtocolVersion is the AG-UI version a producer writing this profile
// declares, in RUN_STARTED's protocolVersion (and a client in its input's):
// "1.0" for V1, "1.1" for V11, and "" for PreV1, whose peers predate the
// field.
func (p Profile) ProtocolVersion() string {
	switch p {
	case V1:
		return event.Protocol10
	case V11:
		return event.Protocol11
	}
	return ""
}
