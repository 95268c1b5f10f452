package codec

import (
	"fmt"
	"sync"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// Support for the generated decoders (coders_gen.go). They read only the
// canonical shape of a frame and give up on anything else; see
// decodeGenerated and the reference decoder, decode.go.

// envelopeArm returns the one field of an Event envelope when it is an arm
// of AG-UI 1.0 carrying a message, and nothing else is in the envelope.
func envelopeArm(b []byte) (protowire.Number, []byte, bool) {
	num, typ, n := consumeTag(b)
	if n < 0 || typ != protowire.BytesType || num < 1 || num > maxArm {
		return 0, nil, false
	}
	body, m := protowire.ConsumeBytes(b[n:])
	if m < 0 || n+m != len(b) {
		return 0, nil, false
	}
	return num, body, true
}

// consumeTag is protowire.ConsumeTag with a one-byte fast path, refusing
// field numbers protobuf does not allow (n < 0).
func consumeTag(b []byte) (protowire.Number, protowire.Type, int) {
	if len(b) > 0 && b[0] < 0x80 && b[0] >= 0x08 {
		return protowire.Number(b[0] >> 3), protowire.Type(b[0] & 7), 1
	}
	num, typ, n := protowire.ConsumeTag(b)
	if n > 0 && num > protowire.MaxValidNumber {
		return 0, 0, -1
	}
	return num, typ, n
}

// fastStr returns the string b holds (b lies in d.data, the decoder's own
// copy of the frame), false when it is not valid UTF-8.
func (d *decoder) fastStr(b []byte) (string, bool) {
	if len(b) == 0 {
		return "", true
	}
	if !utf8.Valid(b) {
		return "", false
	}
	return unsafe.String(&b[0], len(b)), true
}

// jsonKey writes a JSON key (with its colon), after a comma if one is due.
func jsonKey(b []byte, comma bool, key string) []byte {
	if comma {
		b = append(b, ',')
	}
	return append(b, key...)
}

// noJSONWriter is the message of the panic for an event Unmarshal cannot
// return: every type it decodes has a generated JSON writer.
func noJSONWriter(ev event.Event) string {
	return fmt.Sprintf("codec: no generated JSON writer for %T, which Unmarshal does not return", ev)
}

// jsonPart writes a decoded content part with package event's own
// writer, where the JSON form of parts is stated.
func jsonPart(b []byte, cp *event.ContentPart) []byte {
	out, err := cp.MarshalJSON()
	if err != nil {
		// A decoded part passed its rule already; its JSON cannot fail.
		panic("codec: a decoded content part does not marshal: " + err.Error())
	}
	return append(b, out...)
}

// scanners recycles the generated parsers' scanners.
var scanners = sync.Pool{New: func() any { return new(jsonx.Scanner) }}

// parseFast reads data with the generated parsers; the event aliases data.
func parseFast(maxDepth int, data []byte) (event.Event, bool) {
	s := scanners.Get().(*jsonx.Scanner)
	s.MaxDepth = maxDepth
	s.AliasStrings = true
	s.Reset(data)
	ev, ok := parseJSONGenerated(s)
	s.Reset(nil)
	scanners.Put(s)
	return ev, ok
}
