#!/usr/bin/env node
// tsbench.mjs — times the TypeScript peer, @ag-ui/proto@1.0.0 (installed in
// interop/node_modules by `npm ci`), on the benchmark inputs the Go harness
// writes, and prints Go benchmark lines so benchstat and the report read
// them beside the Go rows.
//
//   node tsbench.mjs bench <dir> [benchtimeMs] [count]
//       For every <dir>/<case>.jsonl (AG-UI JSON events, one per line):
//       encode = proto.encode(event) plus a 4-byte length prefix per event;
//       decode = proto.decode(payload) per frame. In process: node's start
//       and JSON.parse of the input are outside the timing.
//   node tsbench.mjs encode <in.jsonl> <out.bin>
//   node tsbench.mjs decode <in.bin> <out.jsonl>
//       The end-to-end forms (process start and file I/O included), timed
//       from outside against `agwire encode` / `agwire decode`.

import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";

const require = createRequire(new URL("../../interop/package.json", import.meta.url));
const proto = require("@ag-ui/proto");
const version = require("@ag-ui/proto/package.json").version;
if (version !== "1.0.0") {
  process.stderr.write(`tsbench.mjs: @ag-ui/proto is ${version}, want 1.0.0\n`);
  process.exit(2);
}
// The peer warns through console.warn on some inputs; keep stdout for results.
console.warn = () => {};

function lines(text) {
  return text.split("\n").filter((l) => l.length > 0);
}

function frame(payload) {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length, false);
  out.set(payload, 4);
  return out;
}

function* frames(buf) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let off = 0; off + 4 <= buf.length; ) {
    const n = view.getUint32(off, false);
    yield buf.subarray(off + 4, off + 4 + n);
    off += 4 + n;
  }
}

// time runs fn until at least ms milliseconds have passed; returns
// [iterations, wall ns per iteration, CPU ns per iteration]. CPU time is the
// process's user + system time (JIT and GC threads included), as the Go
// benchmarks' cpu-ns/op is.
function time(fn, ms) {
  // Warm up for half the budget: the JIT compiles hot code after some runs.
  const warm = process.hrtime.bigint();
  do fn(); while (process.hrtime.bigint() - warm < BigInt(ms) * 500000n);
  let n = 0;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const limit = BigInt(ms) * 1000000n;
  let elapsed = 0n;
  do {
    fn();
    n++;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < limit);
  const cpu = process.cpuUsage(cpu0);
  return [n, Number(elapsed) / n, ((cpu.user + cpu.system) * 1000) / n];
}

function bench(dir, ms, count) {
  const procs = availableParallelism();
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
  for (let round = 0; round < count; round++) {
    for (const file of files) {
      const name = file.slice(0, -".jsonl".length);
      const events = lines(readFileSync(`${dir}/${file}`, "utf8")).map((l) => JSON.parse(l));
      const payloads = events.map((ev) => proto.encode(ev));
      const size = payloads.reduce((s, p) => s + 4 + p.length, 0);
      const ops = {
        Encode: () => {
          for (const ev of events) frame(proto.encode(ev));
        },
        Decode: () => {
          for (const p of payloads) proto.decode(p);
        },
      };
      for (const [op, fn] of Object.entries(ops)) {
        const [n, ns, cpuNs] = time(fn, ms);
        const mbs = (size / (ns / 1e9)) / 1e6;
        let line = `BenchmarkSide/case=${name}/op=${op}/impl=ts-peer-${procs}\t${n}\t${ns.toFixed(0)} ns/op\t${mbs.toFixed(2)} MB/s\t${cpuNs.toFixed(0)} cpu-ns/op`;
        if (events.length > 1) {
          line += `\t${(events.length / (ns / 1e9)).toFixed(0)} events/s\t${(ns / events.length).toFixed(1)} ns/event\t${(cpuNs / events.length).toFixed(1)} cpu-ns/event`;
        }
        process.stdout.write(line + "\n");
      }
    }
  }
}

const [mode, a, b, c, d] = process.argv.slice(2);
switch (mode) {
  case "bench":
    bench(a, Number(b || 100), Number(c || 1));
    break;
  case "encode": {
    const parts = [];
    for (const l of lines(readFileSync(a, "utf8"))) parts.push(frame(proto.encode(JSON.parse(l))));
    writeFileSync(b, Buffer.concat(parts));
    break;
  }
  case "decode": {
    const out = [];
    for (const p of frames(new Uint8Array(readFileSync(a)))) out.push(JSON.stringify(proto.decode(p)));
    writeFileSync(b, out.join("\n") + "\n");
    break;
  }
  default:
    process.stderr.write("usage: tsbench.mjs bench <dir> [ms] [count] | encode <in.jsonl> <out.bin> | decode <in.bin> <out.jsonl>\n");
    process.exit(2);
}
