package assemble

import "github.com/agwire/agwire/event"

// Expander expands chunk events into start, content and end events the way
// a Conversation (and the TypeScript client, before its middlewares and its
// event application) expands them, for code that transforms a stream and
// wants to see every stream's start: a tool-call filter must see the
// TOOL_CALL_START a TOOL_CALL_CHUNK stands for. The zero value is ready; one
// Expander serves one run.
type Expander struct{ l lanes }

// Expand returns the events ev stands for: the ends of the chunk streams it
// closes, then ev itself, or, for a chunk, its expansion. An event of a type
// this version does not apply is returned as it is. A chunk that cannot be
// expanded is an error wrapping one of the ErrChunk* errors.
func (x *Expander) Expand(ev event.Event) ([]event.Event, error) {
	if !known(ev) {
		return []event.Event{ev}, nil
	}
	return x.l.expand(ev)
}
