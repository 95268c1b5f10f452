// AgwireAgent's cost grows with the run as the run does: 20,000 and then
// 80,000 events from the Go handler, counted rather than timed (a loaded
// machine moves times, not counts). Each run must leave nothing behind on
// the heap once collected (an array of events, a buffer kept per event),
// read no further ahead of the client for 4x the events (what is read and
// not yet applied is queued, and a queue that grows with the run makes
// each event cost more), and collect garbage at most 4.4x as often (an
// allocation that grows with what came before, such as a buffer
// concatenated to, costs more per event the longer the run).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import v8 from "node:v8";
import vm from "node:vm";
import { PerformanceObserver, constants } from "node:perf_hooks";
import { startServer, skipWithoutGo } from "./helpers.mjs";
import { AgwireAgent } from "../agent.js";

const skip = skipWithoutGo() ?? false;
const MiB = 1024 * 1024;
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

let server;
before(async () => {
  if (skip) return;
  server = await startServer([]);
});
after(async () => {
  await server?.close();
});

let minorGCs = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minorGCs++;
});

let seq = 0;
async function measure(events) {
  // The body's bytes as the agent reads them: how far reading is ahead of
  // the events the client has applied.
  let read = 0;
  const counting = async (url, init) => {
    const resp = await fetch(url, init);
    const body = resp.body.pipeThrough(
      new TransformStream({
        transform(chunk, c) {
          read += chunk.length;
          c.enqueue(chunk);
        },
      }),
      { preventCancel: false },
    );
    return new Response(body, { status: resp.status, headers: resp.headers });
  };
  const agent = new AgwireAgent({ url: server.url, threadId: "t-linear", fetch: counting });
  gc();
  gc();
  const base = process.memoryUsage().heapUsed;
  const reads = []; // bytes read when each 500th event was applied
  let n = 0;
  const gcs = minorGCs;
  await agent.runAgent(
    { runId: `linear-${++seq}`, forwardedProps: { agwireTest: { events, custom: 1 } } },
    {
      onEvent: () => {
        if (++n % 500 === 0) reads.push(read);
      },
    },
  );
  // The observer hears of a collection a tick after it.
  await new Promise((r) => setTimeout(r, 50));
  const collections = minorGCs - gcs;
  gc();
  gc();
  const kept = process.memoryUsage().heapUsed - base;
  assert.equal(n, events);
  // The events are alike (CUSTOM, a few bytes apart): the bytes of n events
  // are about n times the average.
  const per = read / events;
  const ahead = Math.max(...reads.map((r, i) => r - (i + 1) * 500 * per));
  return { events, collections, ahead, kept };
}

test("AgwireAgent over 20,000 and 80,000 events: nothing kept, reading bounded ahead of the client, collections linear", { skip }, async (t) => {
  obs.observe({ entryTypes: ["gc"] });
  try {
    await measure(20_000); // warm up: JIT, connection, the decoder's memo
    const small = await measure(20_000);
    const large = await measure(80_000);
    for (const m of [small, large]) t.diagnostic(`${m.events} events: ${m.collections} minor collections, read at most ${(m.ahead / 1024).toFixed(0)} KiB ahead of the events applied, ${(m.kept / MiB).toFixed(2)} MiB kept`);
    assert.ok(large.kept < 2 * MiB, `80,000 events left ${(large.kept / MiB).toFixed(1)} MiB on the heap after collection: something keeps each event`);
    // A piece (64 KiB) and what the streams hold between the socket and
    // the agent: bounded, whatever the run's length (16 KiB measured; a
    // reader that takes the whole body first is 2 MiB ahead at 80,000).
    assert.ok(large.ahead < Math.max(2 * small.ahead, 1 * MiB), `read ${(large.ahead / MiB).toFixed(1)} MiB ahead of the client for 80,000 events, ${(small.ahead / MiB).toFixed(1)} MiB for 20,000: the reader runs ahead of the client`);
    assert.ok(small.collections > 0, "no collection counted for 20,000 events");
    assert.ok(large.collections <= 4.4 * small.collections, `${large.collections} collections for 80,000 events, ${small.collections} for 20,000: allocation grows faster than the run`);
  } finally {
    obs.disconnect();
  }
});
