// Package event is the Go model of AG-UI 1.0 events: the 31 event types,
// messages of all seven roles, tool calls, content parts, interrupts, usage
// and the RunAgentInput request body, with their exact AG-UI JSON form (the
// form an SSE stream carries).
//
// Dynamic values — state, rawEvent, custom values, results, payloads and
// metadata — are kept as their exact JSON text (RawValue, Object), so key
// order and number spelling survive until they must become protobuf, and a
// server can pass JSON through untouched.
//
// Parsing is strict by default: a "metadata": null, an unknown "type", an
// unknown field or a duplicate field is an error that says where it is
// (a *PathError with the field path and byte offset); the sentinel errors
// are tested with errors.Is. JSON null on any other optional field reads as
// absent, as in the other SDKs.
//
// A client reads with Parser.Consume instead: the consumer stage of AG-UI
// 1.0's processing model, which removes what no schema describes (and drops
// events of unknown types) with a Warning naming its JSON Pointer, and
// refuses malformed values exactly as @ag-ui/client 1.0.0 does.
//
// # Where the JSON code lives
//
// There is one JSON implementation, in this package, on two paths that
// give the same results. The compiled path, json_gen.go (written by
// internal/codecgen from the field tables, `go generate ./codec`), holds a
// straight-line parser and writer per event type of the wire: Parse,
// Marshal and AppendJSON take it first (and so do package codec's
// AppendFromJSON and AppendJSONFromWire). It reads only the canonical form
// ("type" first, each member known and once, no null) and reports nothing:
// on anything else — a null, an unknown or repeated member, a merge, a
// failed check, any error — the interpreter (parse.go and marshal.go, which
// walk the same tables at run time) reads or writes the event again from
// the start and reports what is wrong. The interpreter alone serves
// Parser.Consume, RunAgentInput, the parts of an event (Message, ToolCall,
// ContentPart...), *Thinking and AgentCapabilities. Differential tests and FuzzCompiledParse
// hold the compiled path to the interpreter event for event, byte for byte
// and error for error.
//
// The pre-1.0 THINKING_* events parse into *Thinking, which keeps its JSON
// text so an SSE stream can still forward it; package codec refuses it,
// since it never had a protobuf form.
package event
