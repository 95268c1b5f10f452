// Runs events through @ag-ui/client 1.0.0's own consumer stages, the
// compatibility boundary and then enforceEvents (strip what is not
// recognised, warn, then validate with @ag-ui/core's schemas), for the Go
// test of interop/enforce_test.go.
//
//   node enforce.mjs < events.jsonl
//
// Each stdin line is one JSON event; each stdout line is
// {"delivered": bool, "ok": bool, "error": "…", "warnings": ["…"]}: ok is
// false when the client refuses the event, delivered false when it drops
// it (an unknown type), warnings are the paths its warnings name.

import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { CompatibilityBoundary, enforceEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";

const require = createRequire(import.meta.url);
const version = require("@ag-ui/client/package.json").version;
if (version !== "1.0.0") {
  console.error(`enforce.mjs: @ag-ui/client is ${version}, not the pinned 1.0.0`);
  process.exit(2);
}

let warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(" "));
console.debug = () => {};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  warnings = [];
  const out = { delivered: false, ok: true, error: "" };
  try {
    const boundary = new CompatibilityBoundary();
    const ev = boundary.transformEvent(JSON.parse(line));
    const evs = await lastValueFrom(from([ev]).pipe(enforceEvents(), toArray()));
    out.delivered = evs.length > 0;
  } catch (err) {
    out.ok = false;
    out.error = String(err?.message ?? err).slice(0, 300);
  }
  out.warnings = warnings.flatMap((w) => [...w.matchAll(/at '([^']*)'/g)].map((m) => m[1]));
  console.log(JSON.stringify(out));
}
