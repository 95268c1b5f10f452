// AgwireAgent against the Go handler: it asks for binary, reads it with the
// generated decoder, and the stock client assembles the very conversation
// the stock HttpAgent assembles over SSE; cut runs resume.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, startProxy, runStock, skipWithoutGo } from "./helpers.mjs";
import { AgwireAgent, AGWIRE_ACCEPT } from "../agent.js";

const skip = skipWithoutGo() ?? false;
let server;

before(async () => {
  if (skip) return;
  server = await startServer([]);
});
after(async () => {
  await server?.close();
});

function same(got, want, what) {
  assert.equal(got.error, undefined, `${what}: runAgent failed: ${got.error?.stack ?? got.error}`);
  assert.deepEqual(got.messages, want.messages, `${what}: messages`);
  assert.deepEqual(got.state, want.state, `${what}: state`);
  assert.deepEqual(got.result, want.result, `${what}: result`);
  assert.deepEqual(got.events, want.events, `${what}: events`);
}

test("binary through AgwireAgent assembles the stock client's SSE conversation", { skip }, async () => {
  const want = await runStock({ url: server.url, carrier: "sse", companion: null, test: { events: 300 } });
  assert.equal(want.contentType, "text/event-stream");
  assert.equal(want.events.length, 300);
  const got = await runStock({ url: server.url, carrier: "binary", Agent: AgwireAgent, test: { events: 300 } });
  assert.equal(got.contentType, "application/vnd.ag-ui.event+proto", "AgwireAgent asks for binary");
  same(got, want, "AgwireAgent");
});

test("a cut binary run resumes through AgwireAgent to the uncut conversation", { skip }, async () => {
  const want = await runStock({ url: server.url, carrier: "sse", companion: null, test: { events: 300 } });
  const proxy = await startProxy(server.url, { policy: (i) => (i === 0 ? { cutAfter: 3000 } : {}) });
  try {
    const got = await runStock({ url: proxy.url, carrier: "binary", Agent: AgwireAgent, companion: { retryDelay: 10 }, test: { events: 300 } });
    same(got, want, "resumed");
    assert.ok(proxy.stats.connections >= 2, `the run was cut and re-requested (${proxy.stats.connections} connections)`);
  } finally {
    await proxy.close();
  }
});

test("AgwireAgent falls back to SSE when the server does not speak binary", { skip }, async () => {
  const want = await runStock({ url: server.url, carrier: "sse", companion: null, test: { events: 50 } });
  // A fetch that forwards the request with Accept: text/event-stream only,
  // as a server without the binary form would answer.
  const sseOnly = (u, init) => globalThis.fetch(u, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), accept: "text/event-stream" } });
  const got = await runStock({ url: server.url, carrier: "binary", Agent: AgwireAgent, fetchImpl: sseOnly, test: { events: 50 } });
  assert.equal(got.contentType, "text/event-stream");
  same(got, want, "SSE fallback");
  assert.match(AGWIRE_ACCEPT, /^application\/vnd\.ag-ui\.event\+proto, text\/event-stream/);
});
