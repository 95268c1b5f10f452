package codec

import (
	"unsafe"

	"github.com/agwire/agwire/internal/jsonx"
	"google.golang.org/protobuf/encoding/protowire"
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
	if !jsonx.ValidUTF8(b) {
		return "", false
	}
	return unsafe.String(&b[0], len(b)), true
}
