// The stock HttpAgent of @ag-ui/client 1.0.0, with the companion, against
// the Go handler through proxies that cut connections: it assembles the
// same conversation as an uncut run, on both carriers.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, startProxy, runStock, skipWithoutGo } from "./helpers.mjs";
import { createFetch, ResumeError } from "../index.js";

const skip = skipWithoutGo() ?? false;
let server;
let gzipped; // compresses (node's fetch offers gzip)
let plain; // not resumable

before(async () => {
  if (skip) return;
  server = await startServer([]);
  gzipped = await startServer(["-compression", "gzip"]);
  plain = await startServer(["-resumable=false"]);
});
after(async () => {
  await server?.close();
  await gzipped?.close();
  await plain?.close();
});

const EVENTS = 300;

// same checks two runs assembled the same conversation.
function same(got, want, what) {
  assert.equal(got.error, undefined, `${what}: runAgent failed: ${got.error?.stack ?? got.error}`);
  assert.deepEqual(got.messages, want.messages, `${what}: messages`);
  assert.deepEqual(got.state, want.state, `${what}: state`);
  assert.deepEqual(got.result, want.result, `${what}: result`);
  assert.equal(got.events.length, want.events.length, `${what}: event count`);
  assert.deepEqual(got.events, want.events, `${what}: events`);
}

for (const carrier of ["binary", "sse"]) {
  for (const coding of ["identity", "gzip"]) test(`${carrier} (${coding}): cut after every ~1/12th of the response, the run resumes to the uncut conversation`, { skip }, async () => {
    const origin = coding === "gzip" ? gzipped : server;
    const want = await runStock({ url: origin.url, carrier, companion: null, test: { events: EVENTS } });
    assert.equal(want.error, undefined, String(want.error));
    assert.equal(want.contentEncoding, coding === "gzip" ? "gzip" : null);
    assert.equal(want.contentType, carrier === "binary" ? "application/vnd.ag-ui.event+proto" : "text/event-stream");
    assert.equal(want.events.length, EVENTS);
    // the response's size through a proxy that cuts nothing
    let total = 0;
    const probe = await startProxy(origin.url, { onData: (_, d) => (total += d.length) });
    await runStock({ url: probe.url, carrier, test: { events: EVENTS } });
    await probe.close();
    let resumed = 0;
    for (let k = 1; k <= 12; k++) {
      const cutAfter = Math.floor((total * k) / 13);
      const proxy = await startProxy(origin.url, { policy: (i) => (i === 0 ? { cutAfter } : {}) });
      try {
        const got = await runStock({ url: proxy.url, carrier, test: { events: EVENTS, delayMs: 0 }, companion: { retryDelay: 10 } });
        same(got, want, `cut after ${cutAfter} of ${total} bytes`);
        assert.equal(proxy.stats.cuts, 1, "the first connection was cut");
        if (proxy.stats.connections > 1) resumed++;
      } finally {
        await proxy.close();
      }
    }
    assert.ok(resumed >= 10, `${resumed} of 12 runs resumed on a second connection`);
  });

  test(`${carrier}: without the companion the same cut loses the run`, { skip }, async () => {
    const proxy = await startProxy(server.url, { policy: (i) => (i === 0 ? { cutAfter: 3000 } : {}) });
    try {
      const got = await runStock({ url: proxy.url, carrier, companion: null, test: { events: EVENTS } });
      assert.ok(got.error !== undefined || got.events.length < EVENTS, "the stock client alone does not get the whole run");
    } finally {
      await proxy.close();
    }
  });

  test(`${carrier}: cut several times, paced, resumes each time`, { skip }, async () => {
    const want = await runStock({ url: server.url, carrier, companion: null, test: { events: 200 } });
    // every connection cut after 1.5 KB: the run needs many of them
    const proxy = await startProxy(server.url, { policy: () => ({ cutAfter: 1500 }) });
    try {
      const got = await runStock({ url: proxy.url, carrier, test: { events: 200, delayMs: 1 }, companion: { retryDelay: 5, maxResumes: 100 } });
      same(got, want, "cut every 1.5 KB");
      assert.ok(proxy.stats.connections >= 3, `${proxy.stats.connections} connections`);
    } finally {
      await proxy.close();
    }
  });

  test(`${carrier}: an idle-timeout proxy closes a silent connection, the run resumes`, { skip }, async () => {
    const test = { events: 40, pauseAfter: 20, pauseMs: 700 };
    const want = await runStock({ url: server.url, carrier, companion: null, test });
    const proxy = await startProxy(server.url, { idleMs: 250 });
    try {
      const got = await runStock({ url: proxy.url, carrier, test, companion: { retryDelay: 10 } });
      same(got, want, "idle cut");
      assert.ok(proxy.stats.idleCuts >= 1, "the proxy cut an idle connection");
      assert.ok(proxy.stats.connections >= 2, "the client came back");
    } finally {
      await proxy.close();
    }
  });

  test(`${carrier}: gives up with a ResumeError after maxRetries when every re-request fails`, { skip }, async () => {
    const proxy = await startProxy(server.url, { policy: (i) => (i === 0 ? { cutAfter: 2000 } : { refuse: true }) });
    try {
      const got = await runStock({ url: proxy.url, carrier, test: { events: EVENTS }, companion: { retryDelay: 5, maxRetries: 3 } });
      assert.ok(got.error instanceof ResumeError, `got ${got.error}`);
      assert.match(got.error.message, /could not be resumed: 4 re-requests in a row brought no event \(maxRetries 3\)/);
      assert.equal(got.error.attempts, 4);
      assert.match(got.error.cursor, /^run-.*\/\d+$/);
      assert.equal(proxy.stats.connections, 5, "the first request and four re-requests");
    } finally {
      await proxy.close();
    }
  });

  test(`${carrier}: a server that no longer holds the run: a ResumeError naming the 404 at once`, { skip }, async () => {
    // the continuation goes to another server, whose log never saw the run
    const other = await startServer([]);
    const first = await startProxy(server.url, { policy: () => ({ cutAfter: 2000 }) });
    let calls = 0;
    const fetchImpl = (u, init) => fetch(calls++ === 0 ? u : other.url, init);
    try {
      const got = await runStock({ url: first.url, carrier, test: { events: EVENTS }, fetchImpl, companion: { retryDelay: 5 } });
      assert.ok(got.error instanceof ResumeError, `got ${got.error}`);
      assert.equal(got.error.status, 404);
      assert.match(got.error.message, /server refused to resume it: HTTP 404/);
      assert.equal(calls, 2, "no retry after a 404");
      assert.deepEqual(got.cancelRejections, [got.error], "the stock client's reader.cancel() rejects with the same error");
    } finally {
      await first.close();
      await other.close();
    }
  });

  test(`${carrier}: a run that is not resumable is passed through as the stock client sees it`, { skip }, async () => {
    const proxy = await startProxy(plain.url, { policy: () => ({ cutAfter: 3000 }) });
    const accept = carrier === "binary" ? "application/vnd.ag-ui.event+proto" : "text/event-stream";
    const read = async (f, runId) => {
      const resp = await f(proxy.url, {
        method: "POST",
        // the header the companion adds, on both (the response's headers,
        // and so where the cut falls, are then the same)
        headers: { "Content-Type": "application/json", Accept: accept, "Agwire-Keepalive": "1" },
        body: JSON.stringify({ threadId: "t", runId, messages: [], tools: [], context: [], state: {}, forwardedProps: { agwireTest: { events: EVENTS } } }),
      });
      const parts = [];
      const rd = resp.body.getReader();
      let error = null;
      try {
        for (;;) {
          const { done, value } = await rd.read();
          if (done) break;
          parts.push(Buffer.from(value));
        }
      } catch (e) {
        error = e;
      }
      return { body: Buffer.concat(parts), error };
    };
    try {
      const stock = await read(fetch, `plain-a-${carrier}`);
      const comp = await read(createFetch(), `plain-b-${carrier}`);
      assert.equal(proxy.stats.connections, 2, "one request each, no re-request");
      assert.ok(stock.error, "the cut is an error for the stock fetch");
      assert.equal(String(comp.error), String(stock.error), "the same error");
      const norm = (b) => b.toString("latin1").replaceAll(/plain-[ab]-/g, "plain-");
      assert.equal(norm(comp.body), norm(stock.body), "the same bytes, the partial event included");
      // and the stock client fails the run the same way with or without it
      const a = await runStock({ url: proxy.url, carrier, companion: null, test: { events: EVENTS } });
      const b = await runStock({ url: proxy.url, carrier, test: { events: EVENTS } });
      assert.ok(a.error, "the stock client fails");
      assert.equal(String(b.error), String(a.error));
    } finally {
      await proxy.close();
    }
  });
}

test("errors and non-stream responses pass through untouched", { skip }, async () => {
  const f = createFetch();
  const bad = await f(server.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /400 bad request/);
  const caps = await f(server.url, { headers: { Accept: "application/json" } });
  assert.equal(caps.status, 200);
  assert.equal(caps.headers.get("content-type").split(";")[0], "application/json");
  assert.equal(typeof (await caps.json()), "object");
});

test("the request's signal stops a resume waiting in its backoff", { skip }, async () => {
  const proxy = await startProxy(server.url, { policy: (i) => (i === 0 ? { cutAfter: 2000 } : { refuse: true }) });
  const ac = new AbortController();
  try {
    const f = createFetch({ retryDelay: 60_000, maxRetries: 5, onResume: ({ attempt }) => attempt === 2 && setTimeout(() => ac.abort(), 50) });
    const resp = await f(proxy.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/vnd.ag-ui.event+proto" },
      body: JSON.stringify({ threadId: "t", runId: `abort-${process.pid}`, messages: [], tools: [], context: [], state: {}, forwardedProps: { agwireTest: { events: EVENTS } } }),
      signal: ac.signal,
    });
    const t0 = Date.now();
    await assert.rejects(resp.arrayBuffer(), (e) => e.name === "AbortError");
    assert.ok(Date.now() - t0 < 30_000, "did not wait out the 60 s backoff");
  } finally {
    await proxy.close();
  }
});

for (const carrier of ["binary", "sse"]) {
  test(`${carrier}: keepalive keeps a quiet run alive through an idle-timeout proxy; zero-length frames never reach the stock parser`, { skip }, async () => {
    const quiet = await startServer(["-heartbeat", "50ms"]);
    const proxy = await startProxy(quiet.url, { idleMs: 300 });
    const test = { events: 40, pauseAfter: 20, pauseMs: 1000 };
    let keepaliveAnswer = null;
    const recording = async (u, init) => {
      const r = await fetch(u, init);
      keepaliveAnswer ??= r.headers.get("agwire-keepalive");
      return r;
    };
    try {
      const want = await runStock({ url: quiet.url, carrier, companion: null, test: { events: 40 } });
      const got = await runStock({ url: proxy.url, carrier, test, fetchImpl: recording });
      same(got, want, "quiet run");
      assert.equal(proxy.stats.idleCuts, 0, "no idle cut: keepalives flowed");
      assert.equal(proxy.stats.connections, 1, "one connection");
      if (carrier === "binary") assert.equal(keepaliveAnswer, "1", "the server answered Agwire-Keepalive: 1");
    } finally {
      await proxy.close();
      await quiet.close();
    }
  });
}

test("binary: the stock client alone cannot read keepalive frames (why the companion strips them)", { skip }, async () => {
  const quiet = await startServer(["-heartbeat", "50ms"]);
  try {
    const stockWithHeader = (u, init) => fetch(u, { ...init, headers: { ...init.headers, "Agwire-Keepalive": "1" } });
    const got = await runStock({ url: quiet.url, carrier: "binary", companion: null, fetchImpl: stockWithHeader, test: { events: 40, pauseAfter: 20, pauseMs: 300 } });
    assert.ok(got.error, "the stock parser fails on a zero-length frame");
    assert.match(String(got.error), /Failed to decode protocol buffer message: Invalid event/);
    assert.equal(got.events.length, 20, "it stops at the first keepalive, after the pause");
  } finally {
    await quiet.close();
  }
});

test("a node process reading a body through the companion exits by itself", async () => {
  // The companion waits one macrotask per piece on a MessageChannel; the
  // port must keep node alive while a wait is pending (and never after).
  // Nothing else is alive here: the body is in memory.
  const { execFile } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const dir = fileURLToPath(new URL("..", import.meta.url));
  const script = `
    import { createFetch } from "./index.js";
    const body = new TextEncoder().encode('id: r/1\\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\\n\\n');
    const f = createFetch({ fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
    const r = await f("http://127.0.0.1:9/agent", { method: "POST", body: "{}" });
    console.log(JSON.stringify(await r.text()));`;
  const { code, stdout, stderr } = await new Promise((res) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, timeout: 30_000 }, (err, stdout, stderr) =>
      res({ code: err ? err.code ?? err.signal : 0, stdout, stderr }),
    );
  });
  assert.equal(code, 0, `exit ${code} (13: a top-level await never settled): ${stderr}`);
  assert.equal(JSON.parse(stdout), 'id: r/1\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n');
});
