package schema

// The two doors package event opens to package codec onto its compiled
// JSON path (set by event's init; codec imports event, so they are set
// before codec runs). Internal to the module: not API.
var (
	// ParseTransient reads a JSON event with event's compiled parsers into
	// memory the parse owns and recycles: the event aliases data, which must
	// not change while it is in use, and is valid until t.Release (codec
	// encodes it, then releases it). ok is false (and there is nothing to
	// release) when the compiled parsers give up: event.Parser then reads
	// the text and reports what is wrong.
	ParseTransient func(maxDepth int, data []byte) (ev any, t Transient, ok bool)
	// AppendTrustedJSON writes the JSON of an event codec's decoder
	// produced with event's compiled writers, without their checks: every
	// string of it was checked for UTF-8 and every dynamic value written by
	// the decoder itself. ok is false when the event has no compiled
	// writer or breaks a rule.
	AppendTrustedJSON func(dst []byte, ev any) (out []byte, ok bool)
)

// Transient is the state of a parse whose event lives until Release.
type Transient interface{ Release() }
