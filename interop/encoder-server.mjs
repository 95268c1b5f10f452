#!/usr/bin/env node
// encoder-server.mjs — an AG-UI endpoint built from the real @ag-ui/encoder
// (pinned 1.0.0), for Go tests of agwire's client.
//
//   node encoder-server.mjs [fixtures.jsonl]
//
// Listens on 127.0.0.1, on a port the system picks, and prints one line on
// stdout: {"port":N}. Every POST is answered with the same run: each event of
// the fixture corpus (default fixtures/events.jsonl) that the peer encodes
// without a warning — every fixture not flagged "peerWarns" — in file order,
// as the request's Accept asks:
//
//   const encoder = new EventEncoder({ accept: req.headers.accept });
//   Content-Type: encoder.getContentType()
//   body: encoder.encodeBinary(event) for each event, one write per event
//
// which is how a TypeScript server built on @ag-ui/encoder answers: binary
// frames when the Accept header admits application/vnd.ag-ui.event+proto at
// any q, SSE otherwise.
//
// The request body must be JSON that @ag-ui/core's RunAgentInputSchema accepts
// (400 otherwise, with zod's message); anything but POST gets 405.
//
// After each response, one JSON line on stdout:
//   {"request":n,"accept":…,"contentType":…,"events":N,"warnings":[…],
//    "input":{"threadId":…,"runId":…,"messages":N}}
// Everything the packages print goes to stderr. The server exits when its
// stdin closes (the Go test holds a pipe to it), or after 120 s at most.

import http from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { EventEncoder } from "@ag-ui/encoder";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";

const require = createRequire(import.meta.url);
const PINNED = "1.0.0";
for (const name of ["@ag-ui/proto", "@ag-ui/core", "@ag-ui/encoder", "@ag-ui/client"]) {
  const v = require(`${name}/package.json`).version;
  if (v !== PINNED) die(`installed ${name} is ${v}, not ${PINNED}`);
}
if (process.env.SUPPRESS_TRANSFORMATION_WARNINGS) {
  die("SUPPRESS_TRANSFORMATION_WARNINGS is set; unset it so the encoder's warnings stay visible");
}

function die(message) {
  process.stderr.write(`encoder-server.mjs: ${message}\n`);
  process.exit(2);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const fixturesPath = process.argv[2] ?? path.join(here, "fixtures", "events.jsonl");
const events = readFileSync(fixturesPath, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line))
  .filter((fixture) => fixture.peerWarns !== true)
  .map((fixture) => fixture.event);

let captured = [];
const fmt = (args) => args.map((a) => (typeof a === "string" ? a : a instanceof Error ? a.stack : JSON.stringify(a))).join(" ");
console.warn = (...args) => {
  captured.push(fmt(args));
  process.stderr.write(`[encoder warn] ${fmt(args)}\n`);
};
for (const level of ["log", "info", "debug", "error"]) {
  console[level] = (...args) => process.stderr.write(`[encoder ${level}] ${fmt(args)}\n`);
}

let requests = 0;

const server = http.createServer(async (req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405, { Allow: "POST", "Content-Type": "text/plain" });
    res.end("405: POST a RunAgentInput\n");
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  let input;
  try {
    const parsed = RunAgentInputSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    if (!parsed.success) throw new Error(parsed.error.message);
    input = parsed.data;
  } catch (err) {
    res.writeHead(400, { "Content-Type": "text/plain" });
    res.end(`400: not a RunAgentInput: ${err.message}\n`);
    return;
  }

  const n = ++requests;
  captured = [];
  const accept = req.headers.accept;
  const encoder = new EventEncoder({ accept });
  const contentType = encoder.getContentType();
  res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-cache" });
  for (const event of events) {
    // One write per event, as a streaming server sends them.
    const bytes = encoder.encodeBinary(event);
    if (!res.write(bytes)) await new Promise((resolve) => res.once("drain", resolve));
  }
  res.end(() => {
    process.stdout.write(
      JSON.stringify({
        request: n,
        accept: accept ?? null,
        contentType,
        events: events.length,
        warnings: captured,
        input: { threadId: input.threadId, runId: input.runId, messages: input.messages.length },
      }) + "\n",
    );
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");
});

process.stdin.on("end", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 1000).unref();
});
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
setTimeout(() => die("still running after 120 s; exiting"), 120_000).unref();
