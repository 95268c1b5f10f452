package codec

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/schema"
)

// Profile selects the set of events a peer can read.
type Profile uint8

const (
	// V1 is the AG-UI 1.0 wire: all 31 event types. The default.
	V1 Profile = iota
	// PreV1 is the wire of peers built before 1.0 (such as the .NET
	// AGUI.Protobuf codec of mid-2026): the 18 envelope arms RUN_STARTED …
	// CUSTOM plus TEXT_MESSAGE_CHUNK and TOOL_CALL_CHUNK. Encoding any other
	// event fails with ErrNotInProfile before a byte is written. The profile
	// does not restrict decoding: a 1.0 decoder reads every pre-1.0 frame.
	PreV1
	// V11 is the AG-UI 1.1 wire: the 1.0 wire and the three fields 1.1
	// adds (encryptedValueType of a message, a tool call and
	// REASONING_ENCRYPTED_VALUE). The other profiles do not carry them: an
	// event that sets one is refused with ErrNotInProfile (from JSON, the
	// field is one the event type does not declare: event.ErrUnknownField,
	// or dropped with DropUnknownFields), and decoding skips them, as
	// protobuf skips a field it does not know.
	V11
)

func (p Profile) String() string {
	switch p {
	case V1:
		return "1.0"
	case PreV1:
		return "pre-1.0"
	case V11:
		return "1.1"
	}
	return "Profile(" + strconv.Itoa(int(p)) + ")"
}

// DefaultMaxDepth is the nesting limit for dynamic values (state, metadata,
// results, ...) when Codec.MaxDepth is 0, on encode and on decode.
const DefaultMaxDepth = 256

// Codec converts events to and from the protobuf wire. The zero value is the
// strict AG-UI 1.0 codec; set fields to relax it. A Codec is a plain value:
// safe to copy and to use from many goroutines.
type Codec struct {
	// Profile is the peer's wire: V1 (default), V11 or PreV1.
	Profile Profile
	// LossyNumbers accepts JSON numbers that a double cannot hold exactly
	// (9007199254740993, 0.12345678901234567891, 1e400, 1e-400) and rounds
	// them to the nearest double, overflowing to ±Inf, as the other peers
	// do silently. By default they are refused with ErrLossyNumber.
	LossyNumbers bool
	// NonFiniteAsNull decodes a NaN or ±Inf double, which JSON cannot
	// spell, as null. By default decoding fails with ErrNonFinite.
	NonFiniteAsNull bool
	// MaxDepth limits the nesting of JSON and protobuf values; 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// DropUnknownFields makes the JSON entry point skip fields an event
	// type does not declare instead of failing with event.ErrUnknownField.
	DropUnknownFields bool
	// UnsafeIntegers lets int64 fields (timestamp, token counts) carry
	// values beyond ±(2^53−1), on encode and on decode. The wire holds any
	// int64, but JavaScript peers fail to decode such a frame
	// (@ag-ui/proto throws, and its stream reader stops), and the AG-UI
	// schema bounds these fields to the safe range; so by default they are
	// refused with ErrUnsafeInteger, both ways, as the peer refuses them.
	UnsafeIntegers bool
	// MemoryBudget bounds the memory that decoding one frame may allocate
	// for the event it returns: MemoryBudget times the frame's size, plus
	// 1 MiB for small frames. 0 means DefaultMemoryBudget; a negative value
	// removes the bound. Past it, Unmarshal fails with ErrBudget before
	// allocating. Typical events use 1–4 times their size; a budget is
	// exceeded by frames built to amplify, such as a million empty
	// messages, each two bytes on the wire and a 192-byte struct in Go.
	MemoryBudget int
	// Skipped, when set, is told of each field a later protocol version
	// added that a decode with a profile without it skipped (typ, and the
	// field's JSON Pointer), so that a consumer can warn as AG-UI's
	// processing model asks ("removed an unrecognised property").
	Skipped func(typ event.Type, pointer string)
}

// DefaultMemoryBudget is the decode memory bound, as a multiple of the frame
// size, when Codec.MemoryBudget is 0.
const DefaultMemoryBudget = 32

// budgetFloor is the budget every frame has, whatever its size.
const budgetFloor = 1 << 20

// budget returns the bytes decoding an n-byte frame may allocate.
func (c *Codec) budget(n int) int64 {
	switch {
	case c.MemoryBudget < 0:
		return math.MaxInt64
	case c.MemoryBudget == 0:
		return int64(n)*DefaultMemoryBudget + budgetFloor
	}
	return int64(n)*int64(c.MemoryBudget) + budgetFloor
}

// Errors. Each failure is an *Error wrapping one of these, or one of
// package event's that names the same failure on every path: an event
// with no protobuf form (the pre-1.0 THINKING_* events, a type this build
// does not know, a type defined outside package event) is
// event.ErrUnsupportedEvent — the other peers encode such an event to an
// empty payload that every decoder then rejects, agwire refuses it
// instead — and nesting beyond Codec.MaxDepth is event.ErrTooDeep. Test
// with errors.Is.
var (
	// ErrNotInProfile: the event exists in AG-UI 1.0 but not in the wire
	// of the selected profile (PreV1).
	ErrNotInProfile = errors.New("event is not part of the selected peer profile")
	// ErrInvalid: a value cannot be put on the wire as it is: metadata that
	// is not an object, invalid JSON in a dynamic value, a content part or
	// source with no wire form, an unknown JSON Patch op, invalid UTF-8.
	ErrInvalid = errors.New("invalid event")
	// ErrLossyNumber: a JSON number that a double cannot hold exactly (see
	// Codec.LossyNumbers).
	ErrLossyNumber = errors.New("number cannot be represented exactly as a double")
	// ErrUnsafeInteger: an int64 field beyond ±(2^53−1), which JavaScript
	// peers cannot decode (see Codec.UnsafeIntegers).
	ErrUnsafeInteger = errors.New("integer beyond ±(2^53-1), which JavaScript peers cannot decode")
	// ErrNonFinite: a decoded double is NaN or ±Inf, which JSON cannot
	// spell (see Codec.NonFiniteAsNull).
	ErrNonFinite = errors.New("number is NaN or infinite")
	// ErrMalformed: the bytes are not a well-formed AG-UI 1.0 Event.
	ErrMalformed = errors.New("malformed event")
	// ErrUnknownEvent: the envelope carries only an event from a later
	// protocol version. The frame is well-formed; a reader can skip it and
	// go on, as an SSE reader drops an event type it does not know.
	ErrUnknownEvent = errors.New("event from a later protocol version")
	// ErrBudget: decoding the frame would allocate more than
	// Codec.MemoryBudget allows.
	ErrBudget = errors.New("decoded event would exceed the memory budget")
)

// Error is a codec failure with its place: the event type when known, the
// field path inside the event (protobuf field names on decode of a
// structural error, JSON names otherwise) and the byte offset (-1 when not
// known).
type Error struct {
	Op     string     // "encode" or "decode"
	Type   event.Type // event type, when known
	Path   string     // field path, such as "messages[2].toolCalls[0].metadata.tags"
	Offset int        // byte offset into the input, or -1
	Err    error      // one of the sentinel errors above, possibly wrapped
}

func (e *Error) Error() string {
	s := "agwire: " + e.Op
	if e.Type != "" {
		s += " " + string(e.Type)
	}
	if e.Path != "" {
		s += ": " + e.Path
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf(" (byte %d)", e.Offset)
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func (c *Codec) maxDepth() int {
	if c.MaxDepth > 0 {
		return c.MaxDepth
	}
	return DefaultMaxDepth
}

// Append appends the protobuf encoding of ev (one Event message, without a
// length prefix) to dst and returns the extended buffer. On error dst is
// returned unchanged in content (its length is restored).
func Append(dst []byte, ev event.Event) ([]byte, error) { return Codec{}.Append(dst, ev) }

// Unmarshal decodes one Event message with the default Codec.
func Unmarshal(b []byte) (event.Event, error) { return Codec{}.Unmarshal(b) }

// AppendFromJSON converts one AG-UI JSON event (the object an SSE data line
// carries) to its protobuf encoding, appended to dst, with the default Codec.
func AppendFromJSON(dst, jsonEvent []byte) ([]byte, error) {
	return Codec{}.AppendFromJSON(dst, jsonEvent)
}

// AppendJSONFromWire converts one protobuf Event to its AG-UI JSON form, appended to
// dst, with the default Codec.
func AppendJSONFromWire(dst, wire []byte) ([]byte, error) {
	return Codec{}.AppendJSONFromWire(dst, wire)
}

// AppendFromJSON converts one AG-UI JSON event to its protobuf encoding.
func (c Codec) AppendFromJSON(dst, jsonEvent []byte) ([]byte, error) {
	// Package event's compiled parsers read the canonical form of an event;
	// any other text, and any error, is its interpreter's. The event lives
	// only for this call, so it may alias the input, and the reader checked
	// every string's UTF-8: the encoder does not again.
	if ev, t, ok := schema.ParseTransient(c.MaxDepth, jsonEvent); ok {
		out, err := c.appendEvent(dst, ev.(event.Event), true)
		t.Release()
		return out, err
	}
	parsed, err := event.Parser{MaxDepth: c.MaxDepth, DropUnknownFields: c.DropUnknownFields, Protocol: c.Profile.protocol()}.Parse(jsonEvent)
	if err != nil {
		var pe *event.PathError
		t, _ := event.TypeOf(jsonEvent)
		if !t.Known() && !t.IsThinking() {
			t = ""
		}
		out := &Error{Op: "encode", Type: t, Offset: -1, Err: err}
		if errors.As(err, &pe) {
			out.Path, out.Offset, out.Err = pe.Path, pe.Offset, pe.Err
		}
		if errors.Is(err, event.ErrUnknownType) {
			// No protobuf form, like THINKING_*: both sentinels match.
			out.Err = fmt.Errorf("%w: %w", event.ErrUnsupportedEvent, out.Err)
		} else if errors.Is(err, event.ErrInvalidField) {
			out.Err = fmt.Errorf("%w: %w", ErrInvalid, out.Err)
		}
		return dst, out
	}
	// The reader checked every string's UTF-8: not again.
	return c.appendEvent(dst, parsed, true)
}

// AppendJSONFromWire converts one protobuf Event to its AG-UI JSON form.
func (c Codec) AppendJSONFromWire(dst, wire []byte) ([]byte, error) {
	// The event lives only for this call: it reads wire in place and is
	// one of the decoder's recycled slots.
	ev, d, err := c.unmarshalTransient(wire)
	if err != nil {
		return dst, err
	}
	defer d.release()
	// The decoder checked every string and wrote every dynamic value
	// itself: package event's compiled writers lay the event out without
	// checking them again. (Any event they do not write, the checked
	// writer writes.)
	if out, ok := schema.AppendTrustedJSON(dst, ev); ok {
		return out, nil
	}
	return event.AppendJSON(dst, ev)
}
