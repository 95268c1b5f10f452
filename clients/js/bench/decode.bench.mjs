// Decoding the recorded-style run (the bench corpus's Run, 85,008 events):
// events per second through JSON.parse of each event's JSON text (what the
// stock client does on SSE), through @ag-ui/proto 1.0.0's decode, and
// through the generated decoder (decode.gen.js), on the frames agwire's
// encoder writes. Checks first that the generated decoder returns what
// @ag-ui/proto returns for every event.
//
//   dir=$(mktemp -d)
//   (cd bench && go run ./cmd/runframes "$dir")
//   node clients/js/bench/decode.bench.mjs "$dir"

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deepStrictEqual } from "node:assert/strict";
import { decode as peerDecode } from "@ag-ui/proto";
import { decode } from "../decode.gen.js";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node bench/decode.bench.mjs DIR (written by bench's go run ./cmd/runframes DIR)");
  process.exit(2);
}
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";
const lines = readFileSync(join(dir, "run.jsonl"), "utf8").split("\n").filter(Boolean);
const frames = new Uint8Array(readFileSync(join(dir, "run.frames")));
const payloads = [];
for (let at = 0; at < frames.length; ) {
  const n = ((frames[at] << 24) >>> 0) + (frames[at + 1] << 16) + (frames[at + 2] << 8) + frames[at + 3];
  payloads.push(frames.subarray(at + 4, at + 4 + n));
  at += 4 + n;
}
if (payloads.length !== lines.length) throw new Error(`${payloads.length} frames, ${lines.length} JSON lines`);

for (let i = 0; i < payloads.length; i++) deepStrictEqual(decode(payloads[i]), peerDecode(payloads[i]), `event ${i}`);

// Each decoder's best round; the rounds of the three are interleaved, so a
// burst of other work on the machine does not fall on one decoder's rounds
// only (@ag-ui/proto, ten times slower, runs every third round).
const decoders = [
  ["JSON.parse", () => {
    let n = 0;
    for (const l of lines) n += JSON.parse(l).type.length;
    return n;
  }],
  ["@ag-ui/proto decode", () => {
    let n = 0;
    for (const p of payloads) n += peerDecode(p).type.length;
    return n;
  }],
  ["decode.gen.js decode", () => {
    let n = 0;
    for (const p of payloads) n += decode(p).type.length;
    return n;
  }],
];
const ROUNDS = 9;
const best = decoders.map(() => Infinity);
const ran = decoders.map(() => 0);
let sink = 0;
for (let r = 0; r < ROUNDS; r++) {
  decoders.forEach(([name, f], i) => {
    if (name.startsWith("@ag-ui") && r % 3 !== 0) return;
    const t0 = process.hrtime.bigint();
    sink += f();
    best[i] = Math.min(best[i], Number(process.hrtime.bigint() - t0) / 1e9);
    ran[i]++;
  });
}
const rates = best.map((b) => payloads.length / b);
decoders.forEach(([name], i) => {
  console.log(`${name.padEnd(22)} ${Math.round(rates[i]).toLocaleString("en-US").padStart(11)} events/s  (best of ${ran[i]}: ${(best[i] * 1000).toFixed(0)} ms for ${payloads.length} events)`);
});
const [json, peer, gen] = rates;
console.log(`generated / JSON.parse: ${(gen / json).toFixed(2)}x; generated / @ag-ui/proto: ${(gen / peer).toFixed(1)}x; node ${process.version}; ${frames.length} bytes of frames, ${lines.reduce((a, l) => a + l.length, 0)} bytes of JSON${sink ? "" : " "}`);
