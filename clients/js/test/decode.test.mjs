// Differential tests of the generated decoder (decode.gen.js) against the
// peer it stands in for, @ag-ui/proto 1.0.0's decode: on the golden frames
// of the interop fixtures, on seeded random events, and on mutated frames
// for a fixed time. For every payload the two must agree: the same event
// (deepStrictEqual: values, key presence, prototypes), or both refusing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode as peerDecode, encode as peerEncode, AGUIUnknownEventTypeError } from "@ag-ui/proto";
import { decode, DecodeError, UnknownEventTypeError, OutOfStepError } from "../decode.gen.js";
import { repoRoot } from "./helpers.mjs";
import { randomEvent, rng } from "./gen-events.mjs";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";

function golden() {
  const text = readFileSync(join(repoRoot, "codec/testdata/golden-peer-1.0.0.jsonl"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((g) => g.hex)
    .map((g) => ({ name: g.name, payload: Uint8Array.from(Buffer.from(g.hex, "hex")) }));
}

function run(fn, payload) {
  try {
    return { ok: true, value: fn(payload) };
  } catch (err) {
    return { ok: false, err };
  }
}

const hex = (b) => Buffer.from(b).toString("hex");

let outOfStep = 0;

// agree asserts that both decoders answer payload alike, and returns
// whether the peer accepted it. The one difference allowed: a frame whose
// unchecked message ends inside itself, which the peer may read out of step
// and accept, and the decoder refuses with an OutOfStepError (counted).
function agree(payload, what) {
  const want = run(peerDecode, payload.slice());
  const got = run(decode, payload);
  if (want.ok && !got.ok && got.err instanceof OutOfStepError) {
    outOfStep++;
    return false;
  }
  if (want.ok) {
    if (!got.ok) assert.fail(`${what}: the peer accepts ${hex(payload)}, the decoder refuses it: ${got.err?.stack ?? got.err}`);
    assert.deepStrictEqual(got.value, want.value, `${what}: ${hex(payload)}`);
    return true;
  }
  if (got.ok) assert.fail(`${what}: the peer refuses ${hex(payload)} (${want.err?.message}), the decoder returns ${JSON.stringify(got.value)}`);
  if (!(got.err instanceof DecodeError)) assert.fail(`${what}: ${hex(payload)}: not a DecodeError: ${got.err?.stack ?? got.err}`);
  assert.equal(want.err instanceof AGUIUnknownEventTypeError, got.err instanceof UnknownEventTypeError, `${what}: ${hex(payload)}: unknown-type errors differ (${want.err?.message} / ${got.err.message})`);
  return false;
}

test("golden frames: the same event as @ag-ui/proto", () => {
  const frames = golden();
  assert.equal(frames.length, 161, "the interop fixtures' golden frames");
  let accepted = 0;
  for (const f of frames) if (agree(f.payload, f.name)) accepted++;
  assert.equal(accepted, frames.length);
});

test("seeded random events: the same event as @ag-ui/proto", () => {
  const seed = Number(process.env.AGWIRE_DECODE_SEED ?? 1);
  const r = rng(seed);
  let n = 0;
  for (let i = 0; i < 3000; i++) {
    const ev = randomEvent(r);
    let payload;
    try {
      payload = peerEncode(ev);
    } catch {
      continue; // an event the peer does not encode
    }
    agree(payload, `seed ${seed}, event ${i} (${ev.type})`);
    n++;
  }
  assert.ok(n > 2000, `only ${n} random events were encodable`);
});

test("unknown arms, malformed payloads: refused alike, with typed errors", () => {
  const cases = {
    empty: [],
    "arm 40, a message": [0xc2, 0x02, 0x02, 0x08, 0x01],
    "arm 40, not a message": [0xc2, 0x02, 0x01, 0x07],
    "truncated varint": [0x12, 0x80],
    "length past the end": [0x12, 0x05, 0x0a, 0x00],
    "wrong wire type for an arm": [0x10, 0x01],
    "two event types": [0x12, 0x02, 0x0a, 0x00, 0x1a, 0x02, 0x0a, 0x00],
    "no base event": [0x12, 0x00],
    "base event of another type": [0x12, 0x04, 0x0a, 0x02, 0x08, 0x05],
    "field 0": [0x02, 0x00],
    "wire type 7": [0x0f],
    "stray end group": [0x0c],
  };
  for (const [name, bytes] of Object.entries(cases)) agree(Uint8Array.from(bytes), name);
  assert.throws(() => decode(Uint8Array.from([0xc2, 0x02, 0x02, 0x08, 0x01])), UnknownEventTypeError);
  assert.throws(() => decode(Uint8Array.from([0x12, 0x80])), DecodeError);
});

// mutate returns a copy of payload changed in one of a few ways that reach
// every check: bytes flipped, inserted, removed, cut, a span repeated.
function mutate(r, payload) {
  const b = Array.from(payload);
  const n = 1 + Math.floor(r() * 3);
  for (let k = 0; k < n; k++) {
    const at = Math.floor(r() * (b.length + 1));
    switch (Math.floor(r() * 6)) {
      case 0:
        if (b.length) b[Math.min(at, b.length - 1)] ^= 1 << Math.floor(r() * 8);
        break;
      case 1:
        b.splice(at, 0, Math.floor(r() * 256));
        break;
      case 2:
        b.splice(at, 1);
        break;
      case 3:
        b.length = Math.min(b.length, at);
        break;
      case 4: {
        const len = Math.floor(r() * 8);
        b.splice(at, 0, ...b.slice(at, at + len));
        break;
      }
      case 5:
        if (b.length) b[Math.min(at, b.length - 1)] = [0x00, 0x7f, 0x80, 0xff, 0x0c, 0x0b, 0x0f][Math.floor(r() * 7)];
        break;
    }
  }
  return Uint8Array.from(b);
}

test("mutated frames for a fixed time: both accept alike or both refuse", () => {
  // A fixed seed, a time budget and a cap on the count: a fast machine
  // does not reach mutations a slow one never ran. Another seed:
  // AGWIRE_FUZZ_SEED; a longer run: AGWIRE_FUZZ_MS and AGWIRE_FUZZ_MAX.
  const seed = Number(process.env.AGWIRE_FUZZ_SEED ?? 7);
  const budget = Number(process.env.AGWIRE_FUZZ_MS ?? 10000);
  const cap = Number(process.env.AGWIRE_FUZZ_MAX ?? 500000);
  const r = rng(seed);
  const corpus = golden().map((g) => g.payload);
  for (let i = 0; i < 300; i++) {
    try {
      corpus.push(peerEncode(randomEvent(r)));
    } catch {
      // not encodable
    }
  }
  const stop = Date.now() + budget;
  let n = 0;
  let accepted = 0;
  try {
    while (Date.now() < stop && n < cap) {
      for (let i = 0; i < 200; i++) {
        const m = mutate(r, corpus[Math.floor(r() * corpus.length)]);
        if (agree(m, `mutation ${n}`)) accepted++;
        n++;
      }
    }
  } catch (err) {
    err.message = `fuzz seed ${seed} (rerun with AGWIRE_FUZZ_SEED=${seed}): ${err.message}`;
    throw err;
  }
  console.log(`# decode fuzz: seed ${seed}, ${n} mutated frames in ${budget} ms, ${accepted} accepted by both, ${outOfStep} read out of step by the peer and refused here`);
  assert.ok(n > 1000, `only ${n} mutations ran`);
  assert.ok(accepted > 0, "no mutated frame was accepted: the mutations reach no valid frame");
});

// Long non-ASCII strings are kept by byte length and returned again for
// equal bytes: a string of the same length that differs in any byte (in a
// group of four, or in the one to three bytes after the last group) must
// be read anew, and the text must follow the bytes, not the length.
test("long text kept for reuse: equal bytes give the kept text, any other byte of the same length does not", () => {
  const enc = new TextEncoder();
  for (const tail of [0, 1, 2, 3]) {
    const text = "é".repeat(100) + "a".repeat(tail) + "ü".repeat(20); // 240 + tail bytes
    const bytes = enc.encode(text);
    const frame = (b) => peerEncode({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: new TextDecoder().decode(b) });
    for (let k = 0; k < 3; k++) agreeOK(frame(bytes), `the kept text, ${tail}`);
    // One character changed at each position: the same byte length, other bytes.
    for (let at = 0; at < bytes.length; at++) {
      const b = bytes.slice();
      if (b[at] >= 0x80) continue; // keep the UTF-8 well formed: change ASCII bytes only
      b[at] = b[at] === 0x61 ? 0x62 : 0x61;
      agreeOK(frame(b), `byte ${at} changed, ${tail}`);
      agreeOK(frame(bytes), `the kept text again after byte ${at}, ${tail}`);
    }
    for (let at = 0; at + 1 < bytes.length; at++) {
      const b = bytes.slice();
      if (b[at] !== 0xc3) continue;
      b[at + 1] = b[at + 1] === 0xa9 ? 0xbc : 0xa9; // é <-> ü, two bytes each
      agreeOK(frame(b), `character at ${at} changed, ${tail}`);
    }
  }
});

function agreeOK(payload, what) {
  assert.deepStrictEqual(decode(payload), peerDecode(payload), what);
}

// Short ids are read through a memo slot per field, compared four bytes to
// a word: an id of the same length that differs in any one byte must be
// read anew.
test("memo slots: an id of the same length differing in any byte is read anew", () => {
  for (let n = 1; n <= 32; n++) {
    const id = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    const frame = (messageId) => peerEncode({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: "d" });
    agreeOK(frame(id), `id of ${n}`);
    for (let at = 0; at < n; at++) {
      const other = id.slice(0, at) + "Z" + id.slice(at + 1);
      agreeOK(frame(other), `id of ${n}, byte ${at} changed`);
      agreeOK(frame(id), `id of ${n} again after byte ${at}`);
    }
  }
});
