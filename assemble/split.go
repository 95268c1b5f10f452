package assemble

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// ErrEventTooLarge: Compact cannot write an event within
// Options.MaxEventSize (an event that carries no joined text, such as a
// start with all its metadata, is larger than the limit).
var ErrEventTooLarge = errors.New("event larger than the output limit")

// eventSize is an event's size as a binary frame's payload.
func eventSize(ev event.Event) (int, error) {
	b, err := codec.Codec{}.Append(nil, ev)
	return len(b), err
}

// deltaMargin covers the delta field's own tag and length in a frame.
const deltaMargin = 1 + 5

// splitDelta cuts d into pieces that fit, with overhead bytes of event
// around them, in limit bytes; no limit (0) is one piece. Pieces end on
// UTF-8 boundaries (a protobuf string must be valid UTF-8), so each holds at
// least one character.
func splitDelta(d string, limit, overhead int) ([]string, error) {
	if limit <= 0 || overhead+deltaMargin+len(d) <= limit {
		return []string{d}, nil
	}
	room := limit - overhead - deltaMargin
	if room < utf8.UTFMax {
		return nil, fmt.Errorf("%w: an event around a piece of text takes %d bytes of the %d allowed", ErrEventTooLarge, overhead+deltaMargin, limit)
	}
	var pieces []string
	for len(d) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
		pieces = append(pieces, d[:cut])
		d = d[cut:]
	}
	return append(pieces, d), nil
}
