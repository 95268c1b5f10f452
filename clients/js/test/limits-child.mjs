// Run by limits.test.mjs in a process of its own (node --expose-gc), so
// that its RSS is the stock HttpAgent's and the companion's alone: one run
// against a hostile server, then one JSON line on stdout saying how it
// ended and how much memory it took.
//
// It imports only what every version of the companion exports, so that
// against one without limits it reports the memory it took (and stops at
// the bound) instead of failing to load.

import { HttpAgent } from "@ag-ui/client";
import { createFetch, BINARY_MEDIA_TYPE } from "../index.js";

const { url, statusUrl, warmUrl, carrier, companion, boundBytes, deadlineMs, agent: which } = JSON.parse(process.argv[2]);

// @ag-ui/client 1.0.0 rethrows a failed body's error from a reader.cancel()
// handler nobody awaits; the error that matters reaches runAgent.
process.on("unhandledRejection", () => {});

// The idle size is taken after one request, so that what node's fetch
// loads on first use is not counted as the run's.
await (await fetch(warmUrl)).text();
globalThis.gc();
globalThis.gc();
const baseline = process.memoryUsage().rss;
let peak = baseline;
let finished = false;

function finish(out) {
  if (finished) return;
  finished = true;
  const maxRSS = process.resourceUsage().maxRSS * 1024; // kernel's peak, in KiB
  process.stdout.write(JSON.stringify({ ...out, baseline, peak: Math.max(peak, process.memoryUsage().rss), maxRSS }) + "\n", () => process.exit(0));
}

// Sampled to stop a companion that buffers without limit before it takes
// the machine down; the peak asserted is the kernel's maxRSS.
setInterval(() => {
  const r = process.memoryUsage().rss;
  if (r > peak) peak = r;
  if (r - baseline > boundBytes) finish({ over: true });
}, 5).unref();
// A companion that never gives up on a quiet stream is reported, not waited
// for without end.
setTimeout(() => finish({ deadline: true }), deadlineMs).unref();

class BinaryHttpAgent extends HttpAgent {
  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: BINARY_MEDIA_TYPE } };
  }
}

const describe = (e) => (e ? { name: e.name, kind: e.kind, limit: e.limit, actual: e.actual, option: e.option, message: String(e.message) } : null);

// "agwire": AgwireAgent, the limits passed as createFetch's options under
// `agwire` (it asks for binary and reads SSE when the server answers it);
// otherwise the stock HttpAgent with createFetch.
let agent;
if (which === "agwire") {
  const { AgwireAgent } = await import("../agent.js");
  agent = new AgwireAgent({ url, threadId: "t", agwire: companion });
} else {
  const config = { url, fetch: createFetch(companion), threadId: "t" };
  agent = carrier === "binary" ? new BinaryHttpAgent(config) : new HttpAgent(config);
}
let failed = null;
try {
  await agent.runAgent({ runId: "hostile" }, { onRunFailed: ({ error }) => void (failed = error) });
  finish({ completed: true });
} catch (err) {
  // The server answers once the hostile response's connection has closed
  // (or says it is still open after a while).
  const server = await (await fetch(statusUrl)).json();
  finish({ error: describe(err), runFailed: describe(failed), server });
}
