#!/usr/bin/env node
// httpagent.mjs — runs the real HttpAgent of @ag-ui/client (pinned 1.0.0)
// against AG-UI endpoints and prints what it assembled.
//
//   node httpagent.mjs <url> <mode> [<url> <mode>]...
//
// One run per <url> <mode> pair, one after the other, each with a fresh
// agent (one process for all of them: loading the packages is the slow part).
//
// Modes (how the agent asks for its stream):
//   sse            HttpAgent exactly as shipped. Its requestInit() sends
//                  "Accept: text/event-stream", whatever the headers option
//                  holds (the header is written after the option's headers).
//   binary         A subclass overriding requestInit() — the hook HttpAgent
//                  documents for customising the request — to send
//                  "Accept: application/vnd.ag-ui.event+proto".
//   header-accept  HttpAgent as shipped with headers: {accept: <binary type>}.
//                  The lowercase key survives the spread next to the built-in
//                  "Accept", and fetch joins the two into one header:
//                  "application/vnd.ag-ui.event+proto, text/event-stream".
//
// Output: one JSON line per run on stdout,
//   {"mode","request":{"accept","acceptEncoding","contentType"},
//    "response":{"status","contentType","contentEncoding"},
//    "events":[…events as the agent's subscribers saw them…],
//    "messages":[…agent.messages after the run…],"state":{…agent.state…},
//    "result":…,"newMessageIds":[…],"warnings":[…],"errors":[…]}
// with "runError" instead of "result" when runAgent threw. Everything the
// client prints goes to stderr; its warnings and errors are also in the
// run's line.
//
// Each run's input carries thread id "thread-e2e", run id "run-<mode>", a
// user message (with metadata), an initial state, a tool and a context
// entry, so the server can check what HttpAgent sends.

import { createRequire } from "node:module";
import { HttpAgent } from "@ag-ui/client";
import * as proto from "@ag-ui/proto";

const require = createRequire(import.meta.url);
const PINNED = "1.0.0";
for (const name of ["@ag-ui/proto", "@ag-ui/core", "@ag-ui/encoder", "@ag-ui/client"]) {
  const v = require(`${name}/package.json`).version;
  if (v !== PINNED) die(`installed ${name} is ${v}, not ${PINNED}`);
}
if (process.env.SUPPRESS_TRANSFORMATION_WARNINGS) {
  die("SUPPRESS_TRANSFORMATION_WARNINGS is set; unset it so the client's warnings stay visible");
}

function die(message) {
  process.stderr.write(`httpagent.mjs: ${message}\n`);
  process.exit(2);
}

const MODES = ["sse", "binary", "header-accept"];
const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) die("usage: node httpagent.mjs <url> <mode> [<url> <mode>]...");
const runs = [];
for (let i = 0; i < args.length; i += 2) {
  if (!MODES.includes(args[i + 1])) die(`mode must be one of ${MODES.join(", ")}, not ${JSON.stringify(args[i + 1])}`);
  runs.push({ url: args[i], mode: args[i + 1] });
}

// A hung server must not hang the caller: give up after 5 minutes. This is
// a guard against a hang, not a bound on speed: the 10 MiB events of the
// limit tests take seconds on a loaded machine under the race detector, and
// the Go test that runs this script kills it sooner (nodeScriptTimeout).
setTimeout(() => die("no result within 5 minutes"), 300_000).unref();

// Whatever the client prints goes to stderr; warnings and errors are kept.
const warnings = [];
const errors = [];
const fmt = (args) => args.map((a) => (typeof a === "string" ? a : a instanceof Error ? a.stack : JSON.stringify(a))).join(" ");
console.warn = (...args) => {
  warnings.push(fmt(args));
  process.stderr.write(`[client warn] ${fmt(args)}\n`);
};
console.error = (...args) => {
  errors.push(fmt(args));
  process.stderr.write(`[client error] ${fmt(args)}\n`);
};
for (const level of ["log", "info", "debug"]) {
  console[level] = (...args) => process.stderr.write(`[client ${level}] ${fmt(args)}\n`);
}

class BinaryHttpAgent extends HttpAgent {
  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: proto.AGUI_MEDIA_TYPE } };
  }
}

async function runOnce(url, mode) {
  warnings.length = 0;
  errors.length = 0;

  // fetch wrapped only to record what went out and what came back.
  const seen = { request: {}, response: {} };
  const recordingFetch = async (u, init) => {
    const sent = new Headers(init.headers);
    seen.request = {
      accept: sent.get("accept"),
      acceptEncoding: sent.get("accept-encoding"),
      contentType: sent.get("content-type"),
    };
    const resp = await fetch(u, init);
    seen.response = {
      status: resp.status,
      contentType: resp.headers.get("content-type"),
      contentEncoding: resp.headers.get("content-encoding"),
    };
    return resp;
  };

  const config = {
    url,
    fetch: recordingFetch,
    threadId: "thread-e2e",
    initialMessages: [
      { id: "user-1", role: "user", content: "What's the weather in Seoul?", metadata: { client: "httpagent.mjs" } },
    ],
    initialState: { city: "unknown" },
  };
  let agent;
  switch (mode) {
    case "sse":
      agent = new HttpAgent(config);
      break;
    case "binary":
      agent = new BinaryHttpAgent(config);
      break;
    case "header-accept":
      agent = new HttpAgent({ ...config, headers: { accept: proto.AGUI_MEDIA_TYPE } });
      break;
  }

  const events = [];
  const out = { mode };
  try {
    const { result, newMessages } = await agent.runAgent(
      {
        runId: `run-${mode}`,
        tools: [{ name: "get_weather", description: "Current weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }],
        context: [{ description: "units", value: "metric" }],
        forwardedProps: { locale: "ko-KR" },
      },
      { onEvent: ({ event }) => void events.push(structuredClone(event)) },
    );
    out.result = result ?? null;
    out.newMessageIds = newMessages.map((m) => m.id);
  } catch (err) {
    out.runError = String(err && err.stack ? err.stack : err);
  }
  return Object.assign(out, {
    request: seen.request,
    response: seen.response,
    events,
    messages: agent.messages,
    state: agent.state,
    warnings: [...warnings],
    errors: [...errors],
  });
}

let text = "";
for (const { url, mode } of runs) text += JSON.stringify(await runOnce(url, mode)) + "\n";
process.stdout.write(text, () => process.exit(0));
