package schema

// The two doors package event opens to package codec onto its compiled
// JSON path (set by event's init; codec imports event, so they are set
// before codec runs). Internal to the module: not API.
var (
	// ParseAliasing reads a JSON event with event's compiled parsers; the
	// event aliases data, which must not change while it is in use (codec
	// encodes it and drops it). ok is false when the compiled parsers give
	// up: event.Parser then reads the text and reports what is wrong.
	ParseAliasing func(maxDepth int, data []byte) (ev any, ok bool)
	// AppendTrustedJSON writes the JSON of an event codec's decoder
	// produced with event's compiled writers, without their checks: every
	// string of it was checked for UTF-8 and every dynamic value written by
	// the decoder itself. ok is false when the event has no compiled
	// writer or breaks a rule.
	AppendTrustedJSON func(dst []byte, ev any) (out []byte, ok bool)
)
