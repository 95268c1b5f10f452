// Package agent runs an AG-UI agent from Go as the TypeScript client
// @ag-ui/client 1.0.0 runs one (AbstractAgent.runAgent, HttpAgent): a Thread
// keeps the conversation (messages and state, built by package assemble),
// prepares each run's RunAgentInput from it, sends it through a Runner,
// applies the events the run streams back, and keeps the interrupts a run
// finished with.
//
// # A run
//
// Thread.Run prepares the input (PrepareInput): the thread id, the run id
// (given, or a random one), the thread's messages without its activity
// messages (which are the client's own, as HttpAgent leaves them out), its
// state, and the tools, context, forwarded properties and resume entries of
// the RunParams. It then runs it: the Runner's events pass through the
// thread's middleware (the last first, Middleware[0] last, after chunk
// events are expanded, as the client expands them before its middlewares)
// and are applied to the conversation,
// with sequence checking as the client's verifier checks. A sequence error,
// or a stream that fails, ends the run with an error; what was applied stays.
// An event that cannot be applied (a JSON Patch that fails) is skipped and
// reported in Result.Warnings, as the client warns and goes on.
//
// # Interrupts
//
// A RUN_FINISHED with an "interrupt" outcome leaves its interrupts pending
// (PendingInterrupts); any other RUN_FINISHED clears them. While some are
// pending, the next run must address every one of them in its resume entries
// (by interruptId), or Run refuses it before sending anything with a
// *ResumeError wrapping ErrInterruptsNotAddressed; and a pending interrupt
// whose expiresAt has passed may only be cancelled (status "cancelled"), or
// the run is refused with ErrInterruptExpired. Resume entries are not checked
// against the pending interrupts when nothing is pending, as in the client;
// an entry whose status is neither event.ResumeResolved nor
// event.ResumeCancelled is always refused first (ErrResumeStatus). The
// input carries no "resume" key when RunParams.Resume is nil.
//
// An expiresAt has passed as the client decides it, new Date(expiresAt) <=
// now: the string is read as ECMAScript's Date.parse reads it in V8 — the
// date-time string format (a date alone is UTC, a date-time without an
// offset is local time, T24:00 is the next midnight), lower-case t and z,
// a space for the T, RFC 1123 as toUTCString writes it — and a string that
// is not a date never expires (NaN <= now is false).
//
// # Consuming events
//
// The events a Runner yields are applied as they are. A client reading JSON
// should read it through the consumer stage of AG-UI 1.0's processing model
// (event.Parser.Consume; transport.ClientOptions.Consume for HTTP, as in
// HTTP(url, nil, transport.ClientOptions{Consume: true, Warn: ...})), which
// removes what it does not recognise with a warning and refuses malformed
// values as @ag-ui/client does. Options.Warn hears the thread's own
// warnings: a producer declaring a newer protocol version, or one this
// client cannot read.
//
// # Runners
//
// A Runner is anything that runs an input and yields its events. Adapt
// makes one of any function returning a stream: an agent over HTTP is
// agent.Adapt(c.Run), c a transport.Client (transport.NewClient: binary
// with SSE fallback, its HTTP client in ClientOptions.HTTPClient).
// RunnerFunc makes one of a function returning a Stream, and a test can
// script one (Script).
//
// # Middleware
//
// A Middleware transforms the events of one run: Func makes one of a
// function from an event to the events that replace it (none drops it), and
// FilterToolCalls drops the tool calls whose names are not allowed (or are
// disallowed), their arguments, ends and results, as the TypeScript
// FilterToolCallsMiddleware does.
package agent
