// Decides interrupt expiry with @ag-ui/client 1.0.0's own isInterruptExpired
// (new Date(expiresAt) <= now), for the Go test of interop/expires_test.go.
//
//   TZ=America/New_York node expires.mjs < cases.json
//
// stdin: {"now": <ms since the epoch>, "cases": ["…", …]}
// stdout: one JSON array, per case {"ms": <Date.parse result or null>, "expired": bool}

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { isInterruptExpired } from "@ag-ui/client";

const require = createRequire(import.meta.url);
const version = require("@ag-ui/client/package.json").version;
if (version !== "1.0.0") {
  console.error(`expires.mjs: @ag-ui/client is ${version}, not the pinned 1.0.0`);
  process.exit(2);
}

const { now, cases } = JSON.parse(readFileSync(0, "utf8"));
const at = new Date(now);
const out = cases.map((s) => {
  const ms = Date.parse(s);
  return { ms: Number.isNaN(ms) ? null : ms, expired: isInterruptExpired({ id: "i", reason: "r", expiresAt: s }, at) };
});
process.stdout.write(JSON.stringify(out) + "\n");
