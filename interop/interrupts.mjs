// Runs a thread of several runs with the real @ag-ui/client@1.0.0
// (AbstractAgent.runAgent, the loop HttpAgent inherits) and prints what it
// sent and kept, for the Go tests of interop/interrupts_test.go.
//
//   node interrupts.mjs < scenarios.jsonl
//
// Each stdin line is a scenario:
//   {"id":…,"threadId":…,"messages":[…],"state":…,
//    "runs":[[…events…],…],            the agent's answers, one list per run it sends
//    "steps":[{"runId":…,"resume":[…]},…],   the runAgent() calls, in order
//    "disallow":[…]}                     tool names for a FilterToolCallsMiddleware, if any
// For each step one stdout line is printed:
//   {"id":…,"step":…,"ok":true|false,"error":"…",
//    "input":{…the RunAgentInput run() received, when it was sent…},
//    "pending":[…agent.pendingInterrupts…],"messages":[…],"state":…}
// A refused step sends nothing and uses up no run.

import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { AbstractAgent, FilterToolCallsMiddleware } from "@ag-ui/client";
import { from } from "rxjs";

const require = createRequire(import.meta.url);
const version = require("@ag-ui/client/package.json").version;
if (version !== "1.0.0") {
  console.error(`interrupts.mjs: @ag-ui/client is ${version}, not the pinned 1.0.0`);
  process.exit(2);
}

class Scripted extends AbstractAgent {
  constructor(sc) {
    super({ threadId: sc.threadId, initialMessages: sc.messages, initialState: sc.state });
    this.runs = [...sc.runs];
    this.sent = undefined;
  }
  run(input) {
    this.sent = JSON.parse(JSON.stringify(input));
    return from(this.runs.shift() ?? []);
  }
}

console.warn = () => {};
console.error = () => {};
console.debug = () => {};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const sc = JSON.parse(line);
  const agent = new Scripted(sc);
  if (sc.disallow) agent.use(new FilterToolCallsMiddleware({ disallowedToolCalls: sc.disallow }));
  for (const [i, step] of sc.steps.entries()) {
    agent.sent = undefined;
    const out = { id: sc.id, step: i, ok: true };
    try {
      const params = { runId: step.runId };
      if (step.resume !== undefined) params.resume = step.resume;
      await agent.runAgent(params);
    } catch (err) {
      out.ok = false;
      out.error = String(err?.message ?? err);
    }
    if (agent.sent !== undefined) out.input = agent.sent;
    out.pending = agent.pendingInterrupts;
    out.messages = agent.messages;
    out.state = agent.state;
    process.stdout.write(JSON.stringify(out) + "\n");
  }
}
