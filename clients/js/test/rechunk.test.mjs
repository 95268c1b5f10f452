// The binary carrier: whole frames, pieces of at most 8 KiB, keepalive
// frames removed, the run's end seen; and the stock parser's cost made
// linear (bytes it copies, counted in the real parseProtoStream).

import { test } from "node:test";
import assert from "node:assert/strict";
import * as proto from "@ag-ui/proto";
import { parseProtoStream } from "@ag-ui/client";
import { BinaryCarrier, SSECarrier, DEFAULT_PIECE_SIZE } from "../index.js";

function frame(payload) {
  const f = new Uint8Array(4 + payload.length);
  new DataView(f.buffer).setUint32(0, payload.length, false);
  f.set(payload, 4);
  return f;
}

function join(parts) {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// body builds a run of n events as frames (one big delta every 50th, to
// have frames larger than a piece), with a keepalive frame every 7th.
function body(n, { keepalives = true, big = true } = {}) {
  const frames = [];
  const kept = [];
  frames.push(frame(proto.encode({ type: "RUN_STARTED", threadId: "t", runId: "r" })));
  kept.push(frames[0]);
  for (let i = 0; i < n - 2; i++) {
    const delta = big && i % 50 === 49 ? "x".repeat(20_000) : `w${i} `;
    const f = frame(proto.encode({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta }));
    frames.push(f);
    kept.push(f);
    if (keepalives && i % 7 === 3) frames.push(new Uint8Array(4));
  }
  const end = frame(proto.encode({ type: "RUN_FINISHED", threadId: "t", runId: "r" }));
  frames.push(end);
  kept.push(end);
  return { wire: join(frames), kept: join(kept), events: n };
}

// split cuts bytes at pseudo-random places (deterministic).
function split(bytes, seed, max) {
  const out = [];
  let x = seed;
  let at = 0;
  while (at < bytes.length) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const n = 1 + (x % max);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

test("binary carrier: whole frames, pieces ≤ 8 KiB unless one frame is larger, keepalives gone", () => {
  const { wire, kept, events } = body(400);
  for (const [seed, max] of [[1, 1], [2, 3], [3, 100], [4, 5000], [5, 70_000], [6, wire.length]]) {
    const c = new BinaryCarrier();
    const pieces = [];
    for (const chunk of split(wire, seed, max)) pieces.push(...c.push(chunk));
    assert.equal(c.rest(), null, "nothing left over");
    assert.deepEqual(join(pieces), kept, `seed ${seed}: the frames, in order, without keepalives`);
    assert.equal(c.count, events, "every event counted once, no keepalive");
    assert.ok(c.ended, "RUN_FINISHED seen");
    for (const p of pieces) {
      // each piece is whole frames
      let at = 0;
      let frames = 0;
      while (at < p.length) {
        const len = new DataView(p.buffer, p.byteOffset + at, 4).getUint32(0, false);
        assert.ok(len > 0, "no zero-length frame");
        at += 4 + len;
        frames++;
      }
      assert.equal(at, p.length, "a piece ends at a frame boundary");
      assert.ok(p.length <= DEFAULT_PIECE_SIZE || frames === 1, `a piece of ${p.length} bytes holds ${frames} frames`);
    }
  }
});

test("binary carrier: a cut leaves the partial frame out, rest() returns it", () => {
  const { wire } = body(30, { big: false, keepalives: false });
  const c = new BinaryCarrier();
  const cutAt = wire.length - 3;
  const pieces = c.push(wire.subarray(0, cutAt));
  assert.equal(c.ended, false);
  assert.equal(c.count, 29);
  const rest = c.rest();
  assert.equal(join(pieces).length + rest.length, cutAt);
  assert.deepEqual(join([join(pieces), rest]), wire.subarray(0, cutAt));
});

test("binary carrier: RUN_ERROR ends the run too", () => {
  const c = new BinaryCarrier();
  c.push(frame(proto.encode({ type: "RUN_ERROR", message: "boom" })));
  assert.ok(c.ended);
});

test("SSE carrier: whole blocks only, ids and the end read", () => {
  const text =
    'id: r/1\ndata: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n' +
    ": keep-alive\n\n" +
    'id: r/2\ndata: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"RUN_FINISHED is a word"}\n\n' +
    'id: r/3\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n';
  const bytes = new TextEncoder().encode(text);
  for (const max of [1, 2, 5, 40, bytes.length]) {
    const c = new SSECarrier();
    const pieces = [];
    const ids = [];
    for (const chunk of split(bytes, max, max)) {
      const ps = c.push(chunk);
      pieces.push(...ps);
      if (ps.length) ids.push(c.lastId);
      for (const p of ps) assert.ok(new TextDecoder().decode(p).endsWith("\n\n"), "a piece ends with a blank line");
    }
    assert.equal(new TextDecoder().decode(join(pieces)), text);
    assert.ok(c.count >= 1 && c.count <= 3, "new ids counted, the comment not");
    assert.equal(c.lastId, "r/3");
    assert.ok(c.ended);
  }
  const c = new SSECarrier();
  const upTo = text.indexOf("id: r/3");
  c.push(bytes.subarray(0, upTo));
  assert.equal(c.lastId, "r/2");
  assert.equal(c.ended, false, "a delta naming RUN_FINISHED is not the end");
  const k = new SSECarrier();
  k.push(new TextEncoder().encode('id: r/9\ndata: {"type":"RUN_ERROR","message":"x"}\n\n: keep-alive\n\n'));
  assert.equal(k.lastId, "r/9", "a trailing comment does not hide the last event");
  assert.ok(k.ended);
});

// copiesOf feeds chunks to the real parseProtoStream and counts the bytes
// it copies (Uint8Array slice and set, the two copies it makes).
function copiesOf(chunks) {
  let copied = 0;
  const slice = Uint8Array.prototype.slice;
  const set = Uint8Array.prototype.set;
  let events = 0;
  Uint8Array.prototype.slice = function (...a) {
    const r = slice.apply(this, a);
    copied += r.length;
    return r;
  };
  Uint8Array.prototype.set = function (src, ...a) {
    copied += src.length;
    return set.call(this, src, ...a);
  };
  try {
    // parseProtoStream subscribes to its source at once and hands events
    // on to whoever subscribed by then: feed it after subscribing.
    let o = null;
    const source = {
      subscribe(observer) {
        o = observer;
        return { unsubscribe() {} };
      },
    };
    let failed = null;
    let completed = false;
    parseProtoStream(source).subscribe({ next: () => events++, error: (e) => (failed = e), complete: () => (completed = true) });
    o.next({ type: "headers", status: 200, headers: new Headers({ "content-type": proto.AGUI_MEDIA_TYPE }) });
    for (const c of chunks) o.next({ type: "data", data: c });
    o.complete();
    if (failed) throw failed;
    assert.ok(completed, "the parser completed");
  } finally {
    Uint8Array.prototype.slice = slice;
    Uint8Array.prototype.set = set;
  }
  return { copied, events };
}

function viaCarrier(chunks) {
  const c = new BinaryCarrier();
  return chunks.flatMap((ch) => c.push(ch));
}

test("re-chunking makes the stock parser linear: 4x the run, about 4x the bytes copied", (t) => {
  // The whole body in one chunk, as a browser hands a fast response over.
  const n = 4_000;
  const small = body(n, { keepalives: false, big: false }).wire;
  const large = body(4 * n, { keepalives: false, big: false }).wire;
  const stockSmall = copiesOf([small]);
  const stockLarge = copiesOf([large]);
  const compSmall = copiesOf(viaCarrier([small]));
  const compLarge = copiesOf(viaCarrier([large]));
  assert.equal(stockSmall.events, n);
  assert.equal(compLarge.events, 4 * n);
  const stockRatio = stockLarge.copied / stockSmall.copied;
  const compRatio = compLarge.copied / compSmall.copied;
  t.diagnostic(`4x the run: ${stockRatio.toFixed(2)}x the bytes copied by the stock parser alone, ${compRatio.toFixed(2)}x with the companion`);
  // The measurement sees the quadratic cost of the stock parser alone…
  assert.ok(stockRatio > 12, `stock parser alone: 4x input cost ${stockRatio.toFixed(2)}x in copies (quadratic: ~16x)`);
  // …and the companion's pieces make it linear.
  assert.ok(compRatio < 4.5, `with the companion: 4x input cost ${compRatio.toFixed(2)}x in copies`);
  assert.ok(compLarge.copied * 10 < stockLarge.copied, `at ${4 * n} events the parser copies ${compLarge.copied} bytes with the companion, ${stockLarge.copied} without`);
});

test("a frame larger than a piece, arriving in small chunks, is assembled once (linear)", () => {
  const payload = proto.encode({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "y".repeat(2_000_000) });
  const f = frame(payload);
  const cost = (chunkSize) => {
    const chunks = [];
    for (let at = 0; at < f.length; at += chunkSize) chunks.push(f.subarray(at, at + chunkSize));
    return copiesOf(viaCarrier(chunks)).copied;
  };
  assert.equal(copiesOf(viaCarrier([f])).events, 1);
  const c1 = cost(64 * 1024);
  const c2 = cost(4 * 1024); // 16x the chunks
  assert.ok(c2 < 1.5 * c1, `16x the chunks: ${c1} → ${c2} bytes copied`);
  assert.ok(c2 < 4 * f.length, `copies ${c2} bytes for a ${f.length}-byte frame`);
});
