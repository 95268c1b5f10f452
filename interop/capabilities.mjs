#!/usr/bin/env node
// capabilities.mjs — fetches an agent's capabilities and parses them with
// the real AgentCapabilitiesSchema of @ag-ui/core (pinned 1.0.0).
//
//   node capabilities.mjs <url>...
//
// For each url: GET it with "Accept: application/json" and print one JSON
// line, {"status","contentType","ok","parsed"|"issues"}: parsed is what
// the schema's safeParse kept (unknown keys too, the objects being
// loose), issues its complaints.

import { createRequire } from "node:module";
import { AgentCapabilitiesSchema } from "@ag-ui/core/schemas";

const require = createRequire(import.meta.url);
const v = require("@ag-ui/core/package.json").version;
if (v !== "1.0.0") {
  process.stderr.write(`capabilities.mjs: installed @ag-ui/core is ${v}, not 1.0.0\n`);
  process.exit(2);
}
for (const url of process.argv.slice(2)) {
  const resp = await fetch(url, { headers: { accept: "application/json" } });
  const body = await resp.json();
  const result = AgentCapabilitiesSchema.safeParse(body);
  const line = { status: resp.status, contentType: resp.headers.get("content-type"), ok: result.success };
  if (result.success) line.parsed = result.data;
  else line.issues = result.error.issues;
  process.stdout.write(JSON.stringify(line) + "\n");
}
