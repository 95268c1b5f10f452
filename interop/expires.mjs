// Decides interrupt expiry as @ag-ui/client 1.0.0 does, new Date(expiresAt)
// <= now, for the Go test of interop/expires_test.go.
//
//   TZ=America/New_York node expires.mjs < cases.json
//
// stdin: {"now": <ms since the epoch>, "cases": ["…", …]}
// stdout: one JSON array, per case {"ms": <Date.parse result or null>, "expired": bool}

import { readFileSync } from "node:fs";

const { now, cases } = JSON.parse(readFileSync(0, "utf8"));
const at = new Date(now);
const out = cases.map((s) => {
  const d = new Date(s);
  const ms = d.getTime();
  return { ms: Number.isNaN(ms) ? null : ms, expired: d <= at };
});
process.stdout.write(JSON.stringify(out) + "\n");
