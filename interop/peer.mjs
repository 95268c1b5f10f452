#!/usr/bin/env node
// peer.mjs — a thin driver around the published AG-UI TypeScript packages
// (@ag-ui/proto, @ag-ui/encoder, @ag-ui/client, all pinned to 1.0.0 in
// package.json). agwire treats these packages as the reference peer: this
// script only feeds them input and reports what they produce. It holds no
// codec logic of its own.
//
// Modes:
//   node peer.mjs golden <fixtures.jsonl> <out.jsonl>
//       Encode every fixture with the real proto.encode, decode the bytes
//       back with the real proto.decode, and write one golden line each.
//   node peer.mjs serve
//       JSON-lines request/response loop on stdin/stdout (see README.md).
//   node peer.mjs diff <golden.jsonl>
//       Print, for each golden line, how the peer's decoded event differs
//       from the fixture input (semantic comparison; key order ignored).
//
// stdout carries protocol data only (serve mode). Everything the peer
// prints — console.warn above all — is routed to stderr and recorded, so a
// response can say whether the peer warned while handling it. No variable
// that silences the peer's warnings is set here, and the script refuses to
// run if one is set in the environment.

import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";

import * as proto from "@ag-ui/proto";
import { EventEncoder } from "@ag-ui/encoder";
import { parseProtoStream } from "@ag-ui/client";

const require = createRequire(import.meta.url);
const PINNED = "1.0.0";
const PEER_PACKAGES = ["@ag-ui/proto", "@ag-ui/core", "@ag-ui/encoder", "@ag-ui/client"];

// ---------------------------------------------------------------------------
// Environment checks

function peerVersions() {
  const versions = {};
  for (const name of PEER_PACKAGES) {
    versions[name] = require(`${name}/package.json`).version;
  }
  return versions;
}

function assertPinnedPeer() {
  const versions = peerVersions();
  const wrong = Object.entries(versions).filter(([, v]) => v !== PINNED);
  if (wrong.length > 0) {
    fail(`installed peer is not ${PINNED}: ${wrong.map(([n, v]) => `${n}@${v}`).join(", ")}`);
  }
  if (process.env.SUPPRESS_TRANSFORMATION_WARNINGS) {
    fail("SUPPRESS_TRANSFORMATION_WARNINGS is set; unset it so peer warnings stay visible");
  }
  return versions;
}

function fail(message) {
  process.stderr.write(`peer.mjs: ${message}\n`);
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Console capture: whatever the peer prints goes to stderr, and warnings are
// collected so the current request can report them.

let captured = [];

function formatArgs(args) {
  return args
    .map((a) => (typeof a === "string" ? a : a instanceof Error ? a.stack || String(a) : safeJSON(a)))
    .join(" ");
}

function safeJSON(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function installConsoleCapture() {
  console.warn = (...args) => {
    const text = formatArgs(args);
    captured.push(text);
    process.stderr.write(`[peer warn] ${text}\n`);
  };
  // Anything else the peer might print must not reach stdout either.
  for (const level of ["log", "info", "debug"]) {
    console[level] = (...args) => process.stderr.write(`[peer ${level}] ${formatArgs(args)}\n`);
  }
}

/** Runs fn with a fresh warning log; returns [result, warnings]. */
async function withWarnings(fn) {
  captured = [];
  try {
    const result = await fn();
    return [result, captured];
  } finally {
    captured = [];
  }
}

// ---------------------------------------------------------------------------
// Hex helpers

const toHex = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new RequestError("hex must be a string of an even number of hex digits");
  }
  return new Uint8Array(Buffer.from(hex, "hex"));
}

class RequestError extends Error {}

// ---------------------------------------------------------------------------
// JSON output that keeps what JSON.stringify would throw away.
//
// Identical to JSON.stringify for plain data, except that a negative zero is
// written as -0 (JSON.stringify writes 0) — the protobuf double keeps the
// sign bit, and the golden data should show that it did.

function stringify(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "number":
      if (Object.is(value, -0)) return "-0";
      return JSON.stringify(value); // non-finite becomes null, as in JSON.stringify
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return value.toString();
    case "object": {
      if (typeof value.toJSON === "function") return stringify(value.toJSON());
      if (Array.isArray(value)) {
        return "[" + value.map((v) => (v === undefined || typeof v === "function" ? "null" : stringify(v))).join(",") + "]";
      }
      const parts = [];
      for (const key of Object.keys(value)) {
        const v = value[key];
        if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
        parts.push(JSON.stringify(key) + ":" + stringify(v));
      }
      return "{" + parts.join(",") + "}";
    }
    default:
      return "null";
  }
}

// ---------------------------------------------------------------------------
// Raw-text extraction: the golden file carries each fixture's event exactly as
// it was written (key order, number spelling), so the event's source text is
// cut out of the fixture line rather than re-serialized after JSON.parse.

/** Returns the exact source text of the value under `key` in a top-level JSON object. */
function rawMember(text, key) {
  let i = skipWs(text, 0);
  if (text[i] !== "{") throw new Error("fixture line is not a JSON object");
  i = skipWs(text, i + 1);
  while (i < text.length && text[i] !== "}") {
    const keyEnd = skipString(text, i);
    const name = JSON.parse(text.slice(i, keyEnd));
    i = skipWs(text, keyEnd);
    if (text[i] !== ":") throw new Error(`expected ':' at offset ${i}`);
    const start = skipWs(text, i + 1);
    const end = skipValue(text, start);
    if (name === key) return text.slice(start, end);
    i = skipWs(text, end);
    if (text[i] === ",") i = skipWs(text, i + 1);
  }
  return undefined;
}

function skipWs(text, i) {
  while (i < text.length && " \t\r\n".includes(text[i])) i++;
  return i;
}

function skipString(text, i) {
  if (text[i] !== '"') throw new Error(`expected string at offset ${i}`);
  for (i++; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  throw new Error("unterminated string");
}

function skipValue(text, i) {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === "{" || c === "[") {
    let depth = 0;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') {
        i = skipString(text, i) - 1;
      } else if (ch === "{" || ch === "[") {
        depth++;
      } else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new Error("unbalanced brackets");
  }
  // number, true, false, null
  while (i < text.length && !",}] \t\r\n".includes(text[i])) i++;
  return i;
}

// ---------------------------------------------------------------------------
// golden mode

function readJsonl(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((line, index) => ({ line: line.replace(/\r$/, ""), lineNo: index + 1 }))
    .filter(({ line }) => line.trim() !== "");
}

async function golden(fixturesPath, outPath) {
  const versions = assertPinnedPeer();
  const fixtures = readJsonl(fixturesPath);
  const seen = new Set();
  const out = [];
  const problems = [];

  for (const { line, lineNo } of fixtures) {
    const where = `${fixturesPath}:${lineNo}`;
    let fixture;
    try {
      fixture = JSON.parse(line);
    } catch (err) {
      fail(`${where}: not JSON: ${err.message}`);
    }
    const { name } = fixture;
    if (typeof name !== "string" || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) {
      fail(`${where}: name must be kebab-case, got ${safeJSON(name)}`);
    }
    if (seen.has(name)) fail(`${where}: duplicate fixture name ${name}`);
    seen.add(name);
    const rawEvent = rawMember(line, "event");
    if (rawEvent === undefined) fail(`${where}: fixture has no "event"`);

    // The peer sees the event the way any JS consumer of the SSE text would:
    // through JSON.parse of the event's own text.
    const event = JSON.parse(rawEvent);
    const flags = {
      intKeys: fixture.intKeys === true,
      lossy: fixture.lossy === true,
      peerWarns: fixture.peerWarns === true,
    };

    let bytes;
    let decoded;
    let encodeError;
    let decodeError;
    const [, warnings] = await withWarnings(() => {
      try {
        bytes = proto.encode(event);
      } catch (err) {
        encodeError = err;
        return;
      }
      try {
        decoded = proto.decode(bytes);
      } catch (err) {
        decodeError = err;
      }
    });

    const warned = warnings.length > 0;
    if (encodeError) problems.push(`${name}: encode threw ${encodeError.name}: ${encodeError.message}`);
    if (decodeError) problems.push(`${name}: decode threw ${decodeError.name}: ${decodeError.message}`);
    if (warned && !flags.peerWarns) problems.push(`${name}: peer warned: ${warnings.join(" | ")}`);
    if (!warned && flags.peerWarns) problems.push(`${name}: marked peerWarns but the peer did not warn`);

    // Assembled by hand so that `input` is the fixture's own text.
    let record =
      `{"name":${JSON.stringify(name)}` +
      `,"peerVersion":${JSON.stringify(versions["@ag-ui/proto"])}` +
      `,"input":${rawEvent}` +
      `,"hex":${JSON.stringify(bytes ? toHex(bytes) : "")}` +
      `,"decoded":${decoded === undefined ? "null" : stringify(decoded)}` +
      `,"warned":${warned}`;
    if (warned) record += `,"warnings":${JSON.stringify(warnings)}`;
    if (encodeError) record += `,"encodeError":${JSON.stringify(String(encodeError.message))}`;
    if (decodeError) record += `,"decodeError":${JSON.stringify(String(decodeError.message))}`;
    record += `,"intKeys":${flags.intKeys},"lossy":${flags.lossy},"peerWarns":${flags.peerWarns}}`;
    JSON.parse(record); // the line must itself be valid JSON
    out.push(record);
  }

  writeFileSync(outPath, out.join("\n") + "\n");
  process.stderr.write(`peer.mjs: wrote ${out.length} golden lines to ${outPath}\n`);
  if (problems.length > 0) {
    process.stderr.write(problems.map((p) => `peer.mjs: ${p}\n`).join(""));
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------
// diff mode: where does decode(encode(input)) differ from input?

function diffValues(a, b, path, acc) {
  if (typeof a === "number" && typeof b === "number") {
    if (!Object.is(a, b)) acc.push(`${path || "/"}: ${stringify(a)} -> ${stringify(b)}`);
    return;
  }
  const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(a) !== kind(b)) {
    acc.push(`${path || "/"}: ${a === undefined ? "(absent)" : stringify(a)} -> ${b === undefined ? "(absent)" : stringify(b)}`);
    return;
  }
  if (Array.isArray(a)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) diffValues(a[i], b[i], `${path}/${i}`, acc);
    return;
  }
  if (kind(a) === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) diffValues(a[k], b[k], `${path}/${k}`, acc);
    return;
  }
  if (a !== b) acc.push(`${path || "/"}: ${stringify(a)} -> ${stringify(b)}`);
}

function diff(goldenPath) {
  let differing = 0;
  const lines = readJsonl(goldenPath);
  for (const { line } of lines) {
    const record = JSON.parse(line);
    // Parse the raw input again (JS semantics, as the peer saw it); -0 in the
    // decoded text is recovered by JSON.parse as -0 as well.
    const input = JSON.parse(rawMember(line, "input"));
    const decoded = JSON.parse(rawMember(line, "decoded"));
    const acc = [];
    diffValues(input, decoded, "", acc);
    if (acc.length > 0) {
      differing++;
      process.stdout.write(`${record.name}${record.lossy ? " [lossy]" : ""}${record.peerWarns ? " [peerWarns]" : ""}\n`);
      for (const d of acc) process.stdout.write(`    ${d}\n`);
    }
  }
  process.stdout.write(`${differing} of ${lines.length} fixtures decode to something other than their input\n`);
}

// ---------------------------------------------------------------------------
// serve mode

const HTTP_HEADERS = "headers"; // @ag-ui/client's HttpEventType.HEADERS (enum not exported)
const HTTP_DATA = "data"; // HttpEventType.DATA

function errorFields(err) {
  const unknownType = err instanceof proto.AGUIUnknownEventTypeError;
  return {
    error: err && err.message !== undefined ? String(err.message) : String(err),
    errorName: unknownType ? "AGUIUnknownEventTypeError" : "Error",
    errorClass: err && err.name ? String(err.name) : "Error",
  };
}

/**
 * Feeds bytes to the real parseProtoStream as the HTTP layer would: a headers
 * event, then the body as one or more data events, then completion. The source
 * holds its emissions until the parser's output has a subscriber, because the
 * parser relays through a plain Subject and anything pushed earlier is lost.
 */
function runParseProtoStream(chunks) {
  return new Promise((resolve) => {
    let sink;
    const source = {
      subscribe(observer) {
        sink = observer;
        return { unsubscribe() {} };
      },
    };
    const events = [];
    const output = parseProtoStream(source);
    output.subscribe({
      next: (event) => events.push(event),
      error: (err) => resolve({ ok: false, events, err }),
      complete: () => resolve({ ok: true, events }),
    });
    sink.next({
      type: HTTP_HEADERS,
      status: 200,
      headers: new Headers({ "content-type": proto.AGUI_MEDIA_TYPE }),
    });
    for (const chunk of chunks) sink.next({ type: HTTP_DATA, data: chunk });
    sink.complete();
  });
}

function splitChunks(bytes, chunkSize) {
  if (chunkSize === undefined) return [bytes];
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new RequestError("chunkSize must be a positive integer");
  }
  const chunks = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.slice(i, i + chunkSize));
  return chunks;
}

const OPS = {
  async encode(req) {
    if (req.event === undefined) throw new RequestError("encode needs an event");
    return { hex: toHex(proto.encode(req.event)) };
  },

  async decode(req) {
    return { event: proto.decode(fromHex(req.hex)) };
  },

  async frame(req) {
    if (!Array.isArray(req.events)) throw new RequestError("frame needs an events array");
    const encoder = new EventEncoder({ accept: req.accept ?? proto.AGUI_MEDIA_TYPE });
    const frames = req.events.map((event) => encoder.encodeBinary(event));
    const total = frames.reduce((n, f) => n + f.length, 0);
    const stream = new Uint8Array(total);
    let offset = 0;
    for (const f of frames) {
      stream.set(f, offset);
      offset += f.length;
    }
    return {
      contentType: encoder.getContentType(),
      hex: toHex(stream),
      frameLengths: frames.map((f) => f.length),
    };
  },

  async parseStream(req) {
    let chunks;
    if (Array.isArray(req.chunks)) {
      chunks = req.chunks.map(fromHex);
    } else {
      chunks = splitChunks(fromHex(req.hex), req.chunkSize);
    }
    const result = await runParseProtoStream(chunks);
    if (!result.ok) {
      // The stream failed; the events it delivered before failing still count.
      return { ok: false, ...errorFields(result.err), events: result.events };
    }
    return { events: result.events };
  },

  async versions() {
    return { versions: peerVersions() };
  },
};

function send(response) {
  process.stdout.write(stringify(response) + "\n");
}

async function serve() {
  assertPinnedPeer();
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  // Requests are handled strictly one at a time, so every warning the peer
  // prints is attributed to the request that caused it.
  for await (const line of rl) {
    if (line.trim() === "") continue;
    let req;
    try {
      req = JSON.parse(line);
    } catch (err) {
      send({ id: null, ok: false, error: `request is not JSON: ${err.message}`, errorName: "Error" });
      continue;
    }
    const id = req && typeof req === "object" ? (req.id ?? null) : null;
    const handler = req && typeof req.op === "string" && Object.hasOwn(OPS, req.op) ? OPS[req.op] : undefined;
    if (!handler) {
      send({ id, ok: false, error: `unknown op ${safeJSON(req?.op)}`, errorName: "Error", errorClass: "RequestError" });
      continue;
    }
    let response;
    const [, warnings] = await withWarnings(async () => {
      try {
        response = { id, ok: true, ...(await handler(req)) };
      } catch (err) {
        response = { id, ok: false, ...errorFields(err) };
        if (err instanceof RequestError) response.errorClass = "RequestError";
      }
    });
    response.warned = warnings.length > 0;
    if (response.warned) response.warnings = warnings;
    send(response);
  }
}

// ---------------------------------------------------------------------------

installConsoleCapture();

const [mode, ...args] = process.argv.slice(2);
switch (mode) {
  case "golden":
    if (args.length !== 2) fail("usage: node peer.mjs golden <fixtures.jsonl> <out.jsonl>");
    await golden(args[0], args[1]);
    break;
  case "serve":
    await serve();
    break;
  case "diff":
    if (args.length !== 1) fail("usage: node peer.mjs diff <golden.jsonl>");
    diff(args[0]);
    break;
  default:
    fail("usage: node peer.mjs golden <fixtures.jsonl> <out.jsonl> | serve | diff <golden.jsonl>");
}
