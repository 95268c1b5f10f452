// Package assemble builds the conversation an AG-UI event stream describes —
// its messages, its state and its runs — exactly as the TypeScript client
// @ag-ui/client 1.0.0 builds it when it applies a run's events (HttpAgent's
// default event application), and compacts recorded streams without changing
// what they assemble to.
//
// # Applying events
//
// There are two ways in, for two purposes. A Conversation made by New
// applies events one at a time (Apply) and can be read at any point
// (Messages, State, Runs, Stats), which is what a UI or a proxy needs, and
// what events already in hand (a slice) take. FromSeq reads a whole stream
// — the Events of a framing.Reader or a transport.EventReader — with its
// read errors: it skips and counts frames from a later protocol, as the
// client does, and stops at any other read error.
//
//   - TEXT_MESSAGE_START/CONTENT/END build text messages (role "assistant"
//     unless the start names another); REASONING_MESSAGE_* build reasoning
//     messages.
//   - TOOL_CALL_START/ARGS/END build a tool call inside its parent assistant
//     message. A parentMessageId naming no message creates an assistant
//     message with that id; no parentMessageId, or one naming a message that
//     is not an assistant's, creates one keyed by the tool call id.
//   - TOOL_CALL_RESULT creates a tool message, placed right after the
//     assistant message that made the call (after any tool messages already
//     there), or at the end when there is none.
//   - ACTIVITY_SNAPSHOT creates or (replace, the default) replaces an
//     activity message; ACTIVITY_DELTA patches its content.
//   - MESSAGES_SNAPSHOT merges as the 1.0 client merges: messages it names
//     are replaced in place, messages it does not name are dropped — except
//     activity messages when the snapshot carries none (or its
//     "@ag-ui/client" metadata declares which activity types it owns) and
//     reasoning messages when it carries none — and its new messages are
//     appended.
//   - STATE_SNAPSHOT replaces the state; STATE_DELTA applies an RFC 6902 JSON
//     Patch atomically. A failed patch is an *ApplyError wrapping a
//     *PatchError that names the operation; the state is left as it was.
//   - TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and REASONING_MESSAGE_CHUNK are
//     expanded into start/content/end events as the client expands them.
//   - RUN_*, STEP_* are tracked in Runs; events of a type this version does
//     not apply (THINKING_*, frames from a later protocol) are skipped and
//     counted in Stats.
//
// Cost: an event is applied in time proportional to its own size plus
// map lookups, except the ones that reorder or rebuild the list —
// TOOL_CALL_RESULT (it is inserted after its owner), MESSAGES_SNAPSHOT and
// RUN_STARTED with input messages — which cost O(number of messages), as they
// do in the client; JSON Patch cost is bounded as described below.
//
// # Metadata
//
// Each event's metadata merges into what the event builds with
// MergeMetadata: key by key, last write wins, never recursive. Text,
// reasoning and activity events merge into their message; TOOL_CALL_START,
// _ARGS and _END into the tool call, not its parent message;
// TOOL_CALL_RESULT into the tool message it creates. The metadata of RUN_*,
// STEP_*, STATE_*, RAW, CUSTOM, REASONING_START/END and
// REASONING_ENCRYPTED_VALUE stays on the event (run-level metadata is kept in
// Run.Metadata); MESSAGES_SNAPSHOT's own metadata reaches no message (its
// messages carry their own).
//
// # Reading JSON as a client
//
// A Conversation applies typed events. JSON events from a producer should
// reach it through the consumer stage of AG-UI 1.0's processing model,
// event.Parser{Consume: true} (or transport.ClientOptions.Consume): what no
// schema describes is removed with a warning, events of unknown types are
// dropped, malformed values are refused, as @ag-ui/client 1.0.0 does before
// it applies an event. `agwire assemble` reads JSON that way.
//
// # Sequence checking
//
// With Options.Check, an event that breaks the lifecycle the client's
// verifier enforces (content for a message never started, RUN_FINISHED with
// work still open, events after RUN_FINISHED, ...) is refused with a
// *SequenceError that names the event's index and wraps one of the ErrSeq*
// errors.
//
// # Compaction
//
// Compact turns a recorded stream into a much shorter one that assembles to
// the same conversation, in agwire and in the TypeScript client: each stream
// becomes start (with all its metadata, merged in order), joined content and
// end where it started; an activity message's snapshot and deltas become one
// snapshot; all state events become one STATE_SNAPSHOT; chunks are expanded.
// It never moves a stream's events across a MESSAGES_SNAPSHOT, a RUN_STARTED
// or an event naming the same message (it compacts each side instead), so it
// stays replay-equivalent where the client's compactEvents is not. It is
// never longer than its input, per stream (a stream that came as chunks
// stays chunks), and with Options.MaxEventSize it splits a joined text into
// several content events so that every event fits the output's frame limit.
//
// # JSON values
//
// The JSON values a Conversation reads — the state, patch values, activity
// content, and the metadata of events, messages, tool calls and content
// parts — are read as agwire's encoder reads them (internal/jsonx's value
// tree): no byte order mark, no key twice in an object (ErrDuplicateKey),
// no number a double does not hold exactly (ErrInexactNumber), so
// assembling accepts
// exactly the values `agwire encode` accepts; an event carrying another is
// an *ApplyError naming it. Strings are written back as JSON.stringify
// writes them; numbers keep their spelling.
//
// # JSON Patch
//
// The patch code is this package's own (patch.go, on the value tree of
// json.go) rather than a library, because the state needs all of: to live in
// memory between deltas (no parse and serialisation of the whole state per
// delta), member order and number spelling kept as agwire's exact-text
// values keep them, atomic failure reported as an error naming the
// operation, and a hard bound on the work of one patch. It passes the RFC 6902
// json-patch-tests suite (testdata/json-patch-tests, TestJSONPatchSuite).
//
// A patch is atomic: on the first failing operation everything it did is
// undone and a *PatchError names the operation. Every operation is charged
// one unit per path segment, object member scanned, array element shifted,
// and node copied or compared; a patch over its own budget
// (Options.MaxPatchWork, default DefaultMaxPatchWork = 2^24 units) fails with
// ErrPatchTooCostly.
//
// # Budgets: cost linear in the input
//
// No stream can make a Conversation work or hold more than a fixed multiple
// of its own size. Each event adds its size to the bytes applied, and three
// budgets grow with them (Options.WorkBudget, CopyBudget, MemoryBudget; a
// negative value removes one):
//
//   - the work of all patches together, of the events that walk or reorder
//     the message list and of metadata merges is at most DefaultWorkBudget =
//     64 units per byte plus WorkFloor (2^24): a stream of front inserts into
//     a big array stops with ErrWorkBudget instead of growing with the
//     square of its size;
//   - copy operations, the one way to make values no event carried, create
//     at most DefaultCopyBudget = 1 node per byte plus CopyFloor (2^16)
//     nodes, ErrCopyBudget beyond;
//   - the memory the messages and state are built with is at most
//     DefaultMemoryBudget = 64 bytes per byte plus MemoryFloor (16 MiB), as
//     the decoder bounds a frame (ErrMemoryBudget).
//
// An event past a budget is refused, with an *ApplyError naming it, before
// it changes anything.
package assemble
