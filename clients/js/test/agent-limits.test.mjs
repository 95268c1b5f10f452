// AgwireAgent's limits at their edges, against a node server in process:
// they are createFetch's (the options under `agwire`), with its errors,
// and the agent has no limit of its own beside them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import * as proto from "@ag-ui/proto";
import { AgwireAgent } from "../agent.js";
import { AgwireLimitError, DecodeError } from "../index.js";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";
process.on("unhandledRejection", () => {}); // @ag-ui/client's cancel rethrow (README, Errors)
const MiB = 1024 * 1024;

function frame(ev) {
  const payload = proto.encode(ev);
  const f = Buffer.alloc(4 + payload.length);
  f.writeUInt32BE(payload.length, 0);
  f.set(payload, 4);
  return f;
}

const start = (runId) => frame({ type: "RUN_STARTED", threadId: "t", runId });
const finish = (runId) => frame({ type: "RUN_FINISHED", threadId: "t", runId });
const custom = (value) => frame({ type: "CUSTOM", name: "c", value });

let server;
let base;
const bodies = new Map(); // run id -> the binary body to send

before(async () => {
  server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const { runId } = JSON.parse(text);
      res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto" });
      res.end(bodies.get(runId));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}/`;
});
after(() => new Promise((r) => server.close(r)));

async function run(runId, body, agwire) {
  bodies.set(runId, body);
  const agent = new AgwireAgent({ url: base, threadId: "t", agwire });
  const events = [];
  let failed = null;
  let error = null;
  try {
    await agent.runAgent({ runId }, { onEvent: ({ event }) => void events.push(event), onRunFailed: ({ error }) => void (failed = error) });
  } catch (err) {
    error = err;
  }
  return { events, failed, error };
}

test("AgwireAgent: maxFrameBytes raised above 10 MiB lets a 12 MiB event through", async () => {
  const big = "x".repeat(12 * MiB);
  const got = await run("big", Buffer.concat([start("big"), custom(big), finish("big")]), { maxFrameBytes: 16 * MiB });
  assert.equal(got.error, null, `runAgent failed: ${got.error}`);
  assert.deepEqual(got.events.map((e) => e.type), ["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]);
  assert.equal(got.events[1].value.length, big.length);
});

test("AgwireAgent: a frame of exactly maxFrameBytes is read, one byte more is an AgwireLimitError after the events before it", async () => {
  const edge = custom("y".repeat(1000));
  const limit = edge.length; // prefix included, as createFetch counts
  const ok = await run("edge", Buffer.concat([start("edge"), edge, finish("edge")]), { maxFrameBytes: limit });
  assert.equal(ok.error, null, `runAgent failed: ${ok.error}`);
  assert.equal(ok.events.length, 3);

  const over = custom("y".repeat(1001));
  const got = await run("over", Buffer.concat([start("over"), edge, over, finish("over")]), { maxFrameBytes: limit });
  assert.ok(got.error instanceof AgwireLimitError, `runAgent failed with ${got.error}`);
  assert.equal(got.error.kind, "frame");
  assert.equal(got.error.limit, limit);
  assert.equal(got.error.actual, over.length);
  assert.equal(got.error.option, "maxFrameBytes");
  assert.equal(got.failed, got.error, "onRunFailed got the same error");
  assert.deepEqual(got.events.map((e) => e.type), ["RUN_STARTED", "CUSTOM"], "the events before the refused frame arrived");
});

test("AgwireAgent: a body cut mid-frame (not resumable) is a DecodeError", async () => {
  const cut = custom("z".repeat(100)).subarray(0, 50);
  const got = await run("cut", Buffer.concat([start("cut"), cut]), { resume: false });
  assert.ok(got.error instanceof DecodeError, `runAgent failed with ${got.error}`);
  assert.match(got.error.message, /ended mid-frame/);
  assert.deepEqual(got.events.map((e) => e.type), ["RUN_STARTED"]);
});

test("AgwireAgent: a bad limit is a TypeError at construction, as createFetch's", () => {
  assert.throws(() => new AgwireAgent({ url: base, agwire: { maxFrameBytes: 0 } }), TypeError);
  assert.throws(() => new AgwireAgent({ url: base, agwire: { maxQuietMs: "soon" } }), TypeError);
});
