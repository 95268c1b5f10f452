// Where a run's time goes in @ag-ui/client 1.0.0: the same 20,000-event run
// (CUSTOM events between one message's start and end, as the Chromium table
// sends) through runAgent from the Go handler — the stock HttpAgent on SSE,
// AgwireAgent on binary — and from memory (the events already decoded, run()
// returning them at once): the last is the client's own per-event work, which
// no transport changes.
//
//   node bench/pipeline.bench.mjs   (needs Go: builds the test server)

import { HttpAgent } from "@ag-ui/client";
import { Observable } from "rxjs";
import { startServer } from "../test/helpers.mjs";
import { AgwireAgent } from "../agent.js";
import { decode, FrameReader, BINARY_MEDIA_TYPE } from "../index.js";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";
const EVENTS = 20000;
const test = { events: EVENTS, custom: 1 };
const server = await startServer([]);
let seq = 0;
const config = () => ({ url: server.url, threadId: "thread-bench", initialMessages: [{ id: "user-1", role: "user", content: "Weather in Seoul?" }] });

async function timeRun(agent) {
  let n = 0;
  const t0 = performance.now();
  await agent.runAgent({ runId: `bench-${++seq}`, forwardedProps: { agwireTest: test } }, { onEvent: () => void n++ });
  const ms = performance.now() - t0;
  if (n !== EVENTS) throw new Error(`${n} events`);
  return ms;
}

// The run's events, decoded once.
const resp = await fetch(server.url, { method: "POST", headers: { "Content-Type": "application/json", Accept: BINARY_MEDIA_TYPE }, body: JSON.stringify({ threadId: "thread-bench", runId: "bench-0", messages: [], tools: [], context: [], state: {}, forwardedProps: { agwireTest: test } }) });
const events = [];
const frames = new FrameReader();
frames.push(new Uint8Array(await resp.arrayBuffer()), (p) => events.push(decode(p)));

// From memory, 200 events between yields to the event loop (all at once,
// the client queues what it has not applied and slows down).
class MemoryAgent extends HttpAgent {
  run(input) {
    const evs = events.map((e) => ("threadId" in e ? { ...e, threadId: input.threadId, runId: input.runId } : e));
    return new Observable((sub) => {
      let i = 0;
      const step = () => {
        for (const end = Math.min(i + 200, evs.length); i < end; i++) sub.next(evs[i]);
        if (i < evs.length) setImmediate(step);
        else sub.complete();
      };
      setImmediate(step);
    });
  }
}

const rows = [
  ["stock HttpAgent, SSE", () => new HttpAgent(config())],
  ["AgwireAgent, binary", () => new AgwireAgent(config())],
  ["from memory (no transport)", () => new MemoryAgent(config())],
];
for (const [, make] of rows) await timeRun(make()); // warm up
for (const [name, make] of rows) {
  let best = Infinity;
  for (let i = 0; i < 5; i++) best = Math.min(best, await timeRun(make()));
  console.log(`${name.padEnd(28)} ${best.toFixed(0).padStart(5)} ms  (${((best * 1000) / EVENTS).toFixed(1)} µs an event, best of 5)`);
}
await server.close();
