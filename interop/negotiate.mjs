#!/usr/bin/env node
// negotiate.mjs — what the real EventEncoder of @ag-ui/encoder (pinned
// 1.0.0) answers for Accept headers.
//
//   node negotiate.mjs '<headers.json>'
//
// Input: its argument, a JSON array of Accept header values (null for no header).
// Output: a JSON array of the same length, each getContentType() of
// new EventEncoder({ accept }) for that value.

import { createRequire } from "node:module";
import { EventEncoder } from "@ag-ui/encoder";

const require = createRequire(import.meta.url);
const v = require("@ag-ui/encoder/package.json").version;
if (v !== "1.0.0") {
  process.stderr.write(`negotiate.mjs: installed @ag-ui/encoder is ${v}, not 1.0.0\n`);
  process.exit(2);
}
const headers = JSON.parse(process.argv[2]);
const out = headers.map((accept) => new EventEncoder(accept === null ? {} : { accept }).getContentType());
process.stdout.write(JSON.stringify(out) + "\n");
