// The companion against hostile servers: a frame announcing 4 GiB, an SSE
// line or comment that never ends, a run that sends only keep-alives. Each
// stream is run twice, each run in a child process of its own
// (limits-child.mjs): by the stock HttpAgent with the companion, and by
// AgwireAgent with the same options under `agwire`. Each must end with the
// limit's typed error, delivered to the client as its run's failure, with
// the connection cancelled, and within 100 MiB of RSS over the child's
// idle size.
//
// This file imports nothing the companion added with its limits, so that
// against a companion without them it fails on what it measures.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as proto from "@ag-ui/proto";

const MiB = 1024 * 1024;
const BOUND = 100 * MiB;
const LIMIT = 10 * MiB; // @ag-ui/client 1.0.0's, the companion's default
const QUIET_MS = 300;

const FILL = Buffer.alloc(64 * 1024, "x");

function frame(ev) {
  const payload = proto.encode(ev);
  const f = Buffer.alloc(4 + payload.length);
  f.writeUInt32BE(payload.length, 0);
  f.set(payload, 4);
  return f;
}

// endless writes head, then FILL for as long as the client reads (the
// socket's backpressure paces it) and until the connection closes.
function endless(res, head) {
  let open = true;
  res.on("close", () => (open = false));
  res.write(head);
  const more = () => {
    while (open) {
      if (!res.write(FILL)) return void res.once("drain", more);
    }
  };
  more();
}

// every writes head, then tick every 20 ms until the connection closes.
function every(res, head, tick) {
  res.write(head);
  const t = setInterval(() => res.write(tick), 20);
  res.on("close", () => clearInterval(t));
}

const streams = {
  "binary: a length prefix of 0xFFFFFFFF, then bytes without end": (res) => {
    res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto" });
    endless(res, Buffer.from([0xff, 0xff, 0xff, 0xff]));
  },
  "sse: a data line without end": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    endless(res, "data: ");
  },
  "sse: a comment without end": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    endless(res, ": ");
  },
  "binary: one event, then keep-alive frames only (resumable)": (res) => {
    res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto", "agwire-cursor": "quiet/0", "agwire-keepalive": "1" });
    every(res, frame({ type: "RUN_STARTED", threadId: "t", runId: "hostile" }), Buffer.alloc(4));
  },
  "sse: one event, then keep-alive comments only (resumable)": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream", "agwire-cursor": "quiet/0" });
    every(res, `id: quiet/1\ndata: ${JSON.stringify({ type: "RUN_STARTED", threadId: "t", runId: "hostile" })}\n\n`, ": keep-alive\n\n");
  },
};

let server;
let base;
const requests = {}; // per stream: the runs asked for
const closed = {}; // per stream: resolves when its last response's connection closes

before(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    const name = u.searchParams.get("s");
    // Each client's runs are counted apart: both run every stream.
    const key = `${u.searchParams.get("a")}: ${name}`;
    if (u.pathname === "/warm") return void res.end("ok");
    if (u.pathname === "/status") {
      // Answers when the stream's response has closed, or after 20 s
      // (far beyond what a cancel takes) that it is still open.
      const t = setTimeout(() => res.end(JSON.stringify({ closed: false, requests: requests[key] ?? 0 })), 20_000);
      closed[key].then(() => {
        clearTimeout(t);
        res.end(JSON.stringify({ closed: true, requests: requests[key] ?? 0 }));
      });
      return;
    }
    req.resume();
    requests[key] = (requests[key] ?? 0) + 1;
    closed[key] = new Promise((r) => res.on("close", r));
    streams[name](res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
});

const childPath = fileURLToPath(new URL("./limits-child.mjs", import.meta.url));
const cwd = fileURLToPath(new URL("..", import.meta.url));

function runChild(name, carrier, companion, agent) {
  const q = `?s=${encodeURIComponent(name)}&a=${agent}`;
  const args = { url: `${base}/agent${q}`, statusUrl: `${base}/status${q}`, warmUrl: `${base}/warm`, carrier, companion, agent, boundBytes: BOUND, deadlineMs: 60_000 };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--expose-gc", childPath, JSON.stringify(args)], { cwd, timeout: 120_000, maxBuffer: MiB }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`child failed: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").pop()));
    });
  });
}

for (const agent of ["stock", "agwire"])
for (const [name, kind] of [
  ["binary: a length prefix of 0xFFFFFFFF, then bytes without end", "frame"],
  ["sse: a data line without end", "sse-event"],
  ["sse: a comment without end", "sse-event"],
  ["binary: one event, then keep-alive frames only (resumable)", "quiet"],
  ["sse: one event, then keep-alive comments only (resumable)", "quiet"],
]) {
  test(`${agent === "agwire" ? "AgwireAgent" : "HttpAgent + createFetch"}, ${name}: an AgwireLimitError (${kind}), the connection cancelled, RSS bounded`, async (t) => {
    const carrier = name.startsWith("binary") ? "binary" : "sse";
    const got = await runChild(name, carrier, kind === "quiet" ? { maxQuietMs: QUIET_MS, retryDelay: 5 } : {}, agent);
    const growth = Math.max(got.peak, got.maxRSS) - got.baseline;
    t.diagnostic(`RSS: ${(got.baseline / MiB).toFixed(1)} MiB idle, sampled peak ${(got.peak / MiB).toFixed(1)} MiB, peak ${(got.maxRSS / MiB).toFixed(1)} MiB (kernel maxRSS), ${(growth / MiB).toFixed(1)} MiB over idle`);
    assert.ok(!got.over, `the child's RSS grew past ${BOUND / MiB} MiB over its idle size: the companion buffers without limit`);
    assert.ok(!got.deadline, "no error within 60 s: the companion never gave up on the stream");
    assert.ok(!got.completed, "runAgent completed on a hostile stream");
    assert.equal(got.error?.name, "AgwireLimitError", `runAgent failed with ${JSON.stringify(got.error)}`);
    assert.equal(got.error.kind, kind);
    assert.deepEqual(got.runFailed, got.error, "onRunFailed got the same error");
    if (kind === "quiet") {
      assert.equal(got.error.limit, QUIET_MS);
      assert.equal(got.error.option, "maxQuietMs");
      assert.ok(got.error.actual >= QUIET_MS, `actual ${got.error.actual}`);
      assert.match(got.error.message, /no event for 300ms \(only keep-alives: \d+ since the last event\)/);
      assert.equal(got.server.requests, 1, "a quiet run is given up, not resumed");
    } else {
      assert.equal(got.error.limit, LIMIT);
      assert.equal(got.error.option, kind === "frame" ? "maxFrameBytes" : "maxSseEventBytes");
      assert.match(got.error.message, kind === "frame" ? /announces a frame of 4294967299 bytes .* over maxFrameBytes = 10485760 bytes \(10 MiB\)/ : /grew past maxSseEventBytes = 10485760 bytes \(10 MiB\) without the blank line/);
      if (kind === "frame") assert.equal(got.error.actual, 4 + 0xffffffff);
      else assert.ok(got.error.actual > LIMIT, `actual ${got.error.actual}`);
      assert.equal(got.server.requests, 1, "not resumed");
    }
    assert.ok(got.server.closed, "the server saw the connection close: the companion cancelled the request");
    assert.ok(growth <= BOUND, `RSS grew ${(growth / MiB).toFixed(1)} MiB over idle (bound ${BOUND / MiB} MiB)`);
  });
}
