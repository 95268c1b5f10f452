// Assembles AG-UI event streams with the real @ag-ui/client@1.0.0 and
// prints what it builds, for the Go tests of interop/assemble_test.go.
//
//   node assemble.mjs < requests.jsonl
//
// Each stdin line is {"id":…,"events":[…AG-UI JSON events…]}, with
// "clientCompact":true to run the client's own compactEvents() on the events
// first (the response then carries the compacted list as "events"). For each,
// in order, a fresh agent whose run() emits exactly those events is run with
// runAgent() — the client's own pipeline: validation, chunk expansion,
// verification and its default event application — and one stdout line is
// printed:
//
//   {"id":…,"ok":true,"messages":[…],"state":…,"warnings":[…]}
//   {"id":…,"ok":false,"error":"…","warnings":[…]}
//
// "warnings" lists what the client passed to console.warn during that run.

import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { AbstractAgent, compactEvents } from "@ag-ui/client";
// rxjs is @ag-ui/client's own dependency (exactly 7.8.1, locked in
// package-lock.json); run() must return one of its Observables.
import { from } from "rxjs";

const require = createRequire(import.meta.url);
const version = require("@ag-ui/client/package.json").version;
if (version !== "1.0.0") {
  console.error(`assemble.mjs: @ag-ui/client is ${version}, not the pinned 1.0.0`);
  process.exit(2);
}
if (process.env.SUPPRESS_TRANSFORMATION_WARNINGS) {
  console.error("assemble.mjs: unset SUPPRESS_TRANSFORMATION_WARNINGS; warnings are recorded");
  process.exit(2);
}

class Replay extends AbstractAgent {
  constructor(events) {
    super({ threadId: "t" });
    this.events = events;
  }
  run() {
    return from(this.events);
  }
}

let warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(" "));
// The client reports a failed run on console.error too; keep stdout clean.
console.error = (...args) => warnings.push("error: " + args.map(String).join(" "));

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const req = JSON.parse(line);
  warnings = [];
  const events = req.clientCompact ? compactEvents(req.events) : req.events;
  const agent = new Replay(events);
  let out;
  try {
    await agent.runAgent();
    out = { id: req.id, ok: true, messages: agent.messages, state: agent.state, warnings };
    if (req.clientCompact) out.events = events;
  } catch (err) {
    out = { id: req.id, ok: false, error: String(err?.message ?? err), warnings };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
