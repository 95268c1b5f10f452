// The limits at their edges: a frame or SSE event of exactly the limit
// passes, one byte more is refused (a frame at its length prefix, an
// unfinished event as soon as the buffer passes the limit), whatever the
// chunking; and the quiet bound, on a body made here.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as proto from "@ag-ui/proto";
import {
  AgwireLimitError,
  BinaryCarrier,
  SSECarrier,
  createFetch,
  framesOf,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_SSE_EVENT_BYTES,
  DEFAULT_MAX_QUIET_MS,
} from "../index.js";

const enc = new TextEncoder();

function frame(payload) {
  const f = new Uint8Array(4 + payload.length);
  new DataView(f.buffer).setUint32(0, payload.length, false);
  f.set(payload, 4);
  return f;
}

function join(parts) {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function chunks(bytes, size) {
  const out = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

test("the defaults are @ag-ui/client 1.0.0's limits and the Go client's quiet bound", () => {
  assert.equal(DEFAULT_MAX_FRAME_BYTES, 10 * 1024 * 1024);
  assert.equal(DEFAULT_MAX_SSE_EVENT_BYTES, 10 * 1024 * 1024);
  assert.equal(DEFAULT_MAX_QUIET_MS, 600_000);
});

test("binary: a frame of maxFrameBytes passes, one byte more is refused at its prefix", () => {
  const max = 64;
  const event = frame(proto.encode({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" }));
  const fits = frame(new Uint8Array(max - 4).fill(7)); // the carrier does not decode
  assert.equal(fits.length, max);
  for (const size of [1, 3, 7, 1000]) {
    const c = new BinaryCarrier({ maxFrameBytes: max });
    const got = join(chunks(fits, size).flatMap((ch) => c.push(ch)));
    assert.deepEqual(got, fits, `chunks of ${size}: the frame of exactly the limit goes through`);
    assert.equal(c.error, null);
  }
  const over = frame(new Uint8Array(max - 3)); // 4 + max - 3 = max + 1 bytes
  // one chunk: the event before it is handed on, then the carrier stops
  const c = new BinaryCarrier({ maxFrameBytes: max });
  const out = c.push(join([event, over]));
  assert.deepEqual(join(out), event, "the whole frame before the refused one is handed on");
  assert.ok(c.error instanceof AgwireLimitError);
  assert.equal(c.error.kind, "frame");
  assert.equal(c.error.limit, max);
  assert.equal(c.error.actual, max + 1);
  assert.equal(c.error.option, "maxFrameBytes");
  assert.match(c.error.message, /length prefix \(00 00 00 3d\) announces a frame of 65 bytes, over maxFrameBytes = 64 bytes/);
  assert.equal(c.partLen, 0, "nothing of the refused frame is kept");
  assert.throws(() => c.push(new Uint8Array(1)), (e) => e === c.error, "a later push throws the same error");
  // byte by byte: refused at the fourth byte, the prefix's last
  const d = new BinaryCarrier({ maxFrameBytes: max });
  for (let i = 0; i < 3; i++) {
    d.push(over.subarray(i, i + 1));
    assert.equal(d.error, null, `after ${i + 1} bytes of the prefix`);
  }
  d.push(over.subarray(3, 4));
  assert.equal(d.error?.kind, "frame", "refused once the prefix is whole, before any byte of the frame");
});

test("binary: 0xFFFFFFFF at the default limit; keep-alive frames counted, not events", () => {
  const c = new BinaryCarrier();
  c.push(frame(proto.encode({ type: "RUN_STARTED", threadId: "t", runId: "r" })));
  c.push(new Uint8Array(8)); // two keep-alives
  assert.equal(c.events, 1);
  assert.equal(c.keepalives, 2);
  c.push(Uint8Array.of(0xff, 0xff));
  assert.equal(c.error, null);
  c.push(Uint8Array.of(0xff, 0xff, 1, 2, 3));
  assert.equal(c.error?.actual, 4 + 0xffffffff);
  assert.equal(c.error.limit, 10 * 1024 * 1024);
  assert.match(c.error.message, /ff ff ff ff\) announces a frame of 4294967299 bytes \(4096\.0 MiB\), over maxFrameBytes = 10485760 bytes \(10 MiB\)/);
});

test("sse: an event of maxSseEventBytes passes, one byte more is refused, whole or unfinished", () => {
  const max = 40;
  const body = (n) => "data: " + "x".repeat(n - 6); // a block of n bytes before its blank line
  const first = "id: r/1\ndata: {}\n\n";
  for (const size of [1, 2, 5, 1000]) {
    const c = new SSECarrier({ maxEventBytes: max });
    const text = first + body(max) + "\n\n";
    const got = join(chunks(enc.encode(text), size).flatMap((ch) => c.push(ch)));
    assert.equal(new TextDecoder().decode(got), text, `chunks of ${size}: the event of exactly the limit goes through`);
    assert.equal(c.error, null);
    assert.equal(c.events, 2);
  }
  // whole, in one chunk: the block before it is handed on
  const c = new SSECarrier({ maxEventBytes: max });
  const out = c.push(enc.encode(first + body(max + 1) + "\n\n"));
  assert.equal(new TextDecoder().decode(join(out)), first);
  assert.equal(c.lastId, "r/1");
  assert.equal(c.error?.kind, "sse-event");
  assert.equal(c.error.actual, max + 1);
  assert.match(c.error.message, /an SSE event of 41 bytes is larger than maxSseEventBytes = 40 bytes/);
  assert.throws(() => c.push(enc.encode("\n\n")), (e) => e === c.error);
  // unfinished, a line or a comment without its end: refused once past the limit
  for (const open of ["data: ", ": ", "data: {}\n", "id: 3"]) {
    for (const size of [1, 7]) {
      const d = new SSECarrier({ maxEventBytes: max });
      const bytes = enc.encode(open + "y".repeat(max));
      let fed = 0;
      for (const ch of chunks(bytes, size)) {
        d.push(ch);
        fed += ch.length;
        if (d.error) break;
      }
      assert.equal(d.error?.kind, "sse-event", `${JSON.stringify(open)}, chunks of ${size}`);
      assert.ok(fed > max && fed <= max + size, `refused after ${fed} bytes: as soon as the buffer passed ${max}`);
      assert.match(d.error.message, /grew past maxSseEventBytes = 40 bytes without the blank line that ends it/);
      assert.equal(d.partLen, 0, "the refused event's bytes are let go");
    }
  }
});

test("sse: comment blocks are keep-alives, blocks with a field are events", () => {
  const c = new SSECarrier();
  const text = ": keep-alive\n\n: a\n: b\n\nid: r/1\ndata: {}\n\n: x\ndata: {}\n\nretry: 5\n\n";
  for (const ch of chunks(enc.encode(text), 3)) c.push(ch);
  assert.equal(c.keepalives, 2);
  assert.equal(c.events, 3);
});

test("createFetch refuses a limit that is not a number, or below 1", () => {
  assert.throws(() => createFetch({ maxFrameBytes: 0 }), /maxFrameBytes must be a number >= 1, not 0/);
  assert.throws(() => createFetch({ maxSseEventBytes: "10MB" }), /maxSseEventBytes must be a number >= 1/);
  assert.throws(() => createFetch({ maxQuietMs: NaN }), /maxQuietMs must be a number/);
  createFetch({ maxQuietMs: 0 });
  createFetch({ maxQuietMs: -1 });
});

// quietBody is a response that sends one event, then a keep-alive every
// 20 ms, keepalives of them, then RUN_FINISHED.
function quietFetch(carrier, keepalives) {
  const sse = carrier === "sse";
  const ev = (e, id) => (sse ? enc.encode(`id: q/${id}\ndata: ${JSON.stringify(e)}\n\n`) : frame(proto.encode(e)));
  const ka = sse ? enc.encode(": keep-alive\n\n") : new Uint8Array(4);
  let requests = 0;
  let cancelled = null;
  const f = async () => {
    requests++;
    let n = 0;
    let timer;
    const body = new ReadableStream({
      start(c) {
        c.enqueue(ev({ type: "RUN_STARTED", threadId: "t", runId: "r" }, 1));
        timer = setInterval(() => {
          if (n++ < keepalives) return c.enqueue(ka);
          clearInterval(timer);
          c.enqueue(ev({ type: "RUN_FINISHED", threadId: "t", runId: "r" }, 2));
          c.close();
        }, 20);
      },
      cancel(reason) {
        clearInterval(timer);
        cancelled = reason;
      },
    });
    const headers = { "content-type": sse ? "text/event-stream" : "application/vnd.ag-ui.event+proto", "agwire-cursor": "q/0" };
    return new Response(body, { headers });
  };
  return { f, stats: () => ({ requests, cancelled }) };
}

for (const carrier of ["binary", "sse"]) {
  test(`${carrier}: keep-alives past maxQuietMs end the body with a quiet AgwireLimitError, cancelled, not resumed; 0 turns it off`, async () => {
    // 15 keep-alives 20 ms apart: at least 300 ms without an event, whatever
    // the load (the bound's timer is due before the later keep-alives).
    const q = quietFetch(carrier, 15);
    const resp = await createFetch({ fetch: q.f, maxQuietMs: 100, retryDelay: 1 })("http://agent.test/", { method: "POST", body: "{}" });
    const err = await resp.arrayBuffer().then(() => null, (e) => e);
    assert.ok(err instanceof AgwireLimitError, `got ${err}`);
    assert.equal(err.kind, "quiet");
    assert.equal(err.limit, 100);
    assert.ok(err.actual >= 100);
    assert.match(err.message, /^@agwire\/fetch: no event for 100ms \(only keep-alives: \d+ since the last event\); the response was cancelled and is not resumed/);
    assert.equal(q.stats().requests, 1, "not resumed");
    assert.equal(q.stats().cancelled, err, "the body was cancelled with the error");

    for (const off of [0, -1]) {
      const r = quietFetch(carrier, 15);
      const body = await (await createFetch({ fetch: r.f, maxQuietMs: off })("http://agent.test/", { method: "POST", body: "{}" })).arrayBuffer();
      assert.ok(body.byteLength > 0, `maxQuietMs ${off}: the whole body, no error`);
      assert.equal(r.stats().cancelled, null);
    }
  });
}

test("the quiet message names the limit as agwire's Go client does", async () => {
  const q = quietFetch("binary", 400);
  const resp = await createFetch({ fetch: q.f, maxQuietMs: 1500 })("http://agent.test/", { method: "POST", body: "{}" });
  const err = await resp.arrayBuffer().then(() => null, (e) => e);
  assert.match(err?.message, /no event for 1\.5s \(only keep-alives/);
});

test("createFetch hands maxFrameBytes and maxSseEventBytes to its carriers; the body is cancelled with the error", async () => {
  for (const [carrier, options, bytes, kind] of [
    ["binary", { maxFrameBytes: 64 }, frame(new Uint8Array(61)), "frame"],
    ["sse", { maxSseEventBytes: 40 }, enc.encode("data: " + "z".repeat(35)), "sse-event"],
  ]) {
    let cancelled = null;
    const body = new ReadableStream({
      start(c) {
        c.enqueue(bytes);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const type = carrier === "sse" ? "text/event-stream" : "application/vnd.ag-ui.event+proto";
    const f = createFetch({ ...options, fetch: async () => new Response(body, { headers: { "content-type": type } }) });
    const err = await (await f("http://agent.test/", { method: "POST", body: "{}" })).arrayBuffer().then(() => null, (e) => e);
    assert.ok(err instanceof AgwireLimitError, `${carrier}: got ${err}`);
    assert.equal(err.kind, kind);
    assert.equal(err.limit, Object.values(options)[0]);
    assert.equal(cancelled, err, `${carrier}: the response's body was cancelled with the error`);
  }
});

test("framesOf reads a carrier's pieces back into the events' payloads", () => {
  const payloads = [];
  const wire = [];
  for (let i = 0; i < 300; i++) {
    const p = proto.encode({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: `d${i}`.repeat(1 + (i % 40)) });
    payloads.push(p);
    wire.push(frame(p));
    if (i % 9 === 0) wire.push(new Uint8Array(4)); // keep-alives are not frames of a piece
  }
  const c = new BinaryCarrier({ pieceSize: 512 });
  const pieces = chunks(join(wire), 333).flatMap((ch) => c.push(ch));
  const got = pieces.flatMap((p) => [...framesOf(p)]);
  assert.equal(got.length, payloads.length);
  got.forEach((p, i) => assert.deepEqual(proto.decode(p), proto.decode(payloads[i])));
});
