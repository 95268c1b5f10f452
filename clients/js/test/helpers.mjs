// Shared by the companion's tests: the Go agent server, two misbehaving
// proxies, and the stock HttpAgent with or without the companion.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import net from "node:net";
import { HttpAgent } from "@ag-ui/client";
import { createFetch, BINARY_MEDIA_TYPE } from "../index.js";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, "../../..");

let built = null;

// goServerBinary builds internal/cmd/webagent once per test file and
// returns its path, or throws a clear error (the tests then skip, or fail
// under CI).
export function goServerBinary() {
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), "agwire-fetch-test-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, "webagent");
  execFileSync("go", ["build", "-o", bin, "./internal/cmd/webagent"], { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] });
  built = bin;
  return bin;
}

// skipWithoutGo returns a reason to skip (null when go is there); under CI
// a missing go is a failure.
export function skipWithoutGo() {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return null;
  } catch {
    if (process.env.CI) throw new Error("go is not installed, and CI is set: the companion's tests need the Go server");
    return "go is not installed: these tests need the Go server (set CI=1 to make this a failure)";
  }
}

// startServer starts the Go agent with the given flags; resolves to
// { url, close }.
export async function startServer(args = []) {
  const bin = goServerBinary();
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const rl = createInterface({ input: child.stdout });
  const first = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`webagent printed nothing in 20 s: ${stderr}`)), 20_000);
    rl.once("line", (l) => {
      clearTimeout(t);
      res(l);
    });
    child.once("exit", (code) => rej(new Error(`webagent exited ${code}: ${stderr}`)));
  });
  const { url } = JSON.parse(first);
  return {
    url,
    close: () =>
      new Promise((res) => {
        child.once("exit", res);
        child.stdin.end();
        setTimeout(() => child.kill(), 5000).unref();
      }),
  };
}

// startProxy forwards TCP to target's host:port. policy(i) for the i-th
// connection (from 0) returns { cutAfter } (close both sides once that
// many response bytes went through), { refuse: true } (close at once), or
// {}; idleMs closes any connection silent that long both ways. stats
// counts connections and bytes.
export async function startProxy(targetUrl, { policy = () => ({}), idleMs = 0, onData } = {}) {
  const target = new URL(targetUrl);
  const stats = { connections: 0, cuts: 0, idleCuts: 0, bytes: 0 };
  const sockets = new Set();
  const server = net.createServer((client) => {
    const i = stats.connections++;
    const p = policy(i) ?? {};
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    if (p.refuse) {
      client.destroy();
      return;
    }
    const up = net.connect(Number(target.port), target.hostname);
    sockets.add(up);
    up.on("close", () => sockets.delete(up));
    up.on("error", () => client.destroy());
    let sent = 0;
    let timer = null;
    const kill = () => {
      client.destroy();
      up.destroy();
    };
    const touch = () => {
      if (!idleMs) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        stats.idleCuts++;
        kill();
      }, idleMs);
    };
    touch();
    client.on("data", (d) => {
      touch();
      up.write(d);
    });
    client.on("end", () => up.end());
    client.on("close", () => {
      clearTimeout(timer);
      up.destroy();
    });
    up.on("end", () => client.end());
    up.on("data", (d) => {
      touch();
      onData?.(i, d);
      if (p.cutAfter !== undefined && sent + d.length >= p.cutAfter) {
        const keep = p.cutAfter - sent;
        if (keep > 0) client.write(d.subarray(0, keep));
        sent += keep;
        stats.bytes += keep;
        stats.cuts++;
        // let the bytes go out, then cut both sides
        client.end();
        setImmediate(kill);
        return;
      }
      sent += d.length;
      stats.bytes += d.length;
      client.write(d);
    });
  });
  await new Promise((res) => server.listen(0, "127.0.0.1", res));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    stats,
    close: () =>
      new Promise((res) => {
        for (const s of sockets) s.destroy();
        server.close(() => res());
      }),
  };
}

class BinaryHttpAgent extends HttpAgent {
  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: BINARY_MEDIA_TYPE } };
  }
}

let runSeq = 0;

// runStock runs the stock HttpAgent once; carrier "binary" or "sse";
// companion: options for createFetch, or null for the stock fetch.
// Resolves to what it assembled (ids of the run removed from the events).
export async function runStock({ url, carrier, companion = {}, test = {}, fetchImpl, runId, Agent }) {
  let f = fetchImpl ?? globalThis.fetch;
  const seen = { contentType: null, contentEncoding: undefined };
  const recording = async (u, init) => {
    const r = await f(u, init);
    seen.contentType ??= r.headers.get("content-type");
    if (seen.contentEncoding === undefined) seen.contentEncoding = r.headers.get("content-encoding");
    return r;
  };
  // Agent (AgwireAgent) wraps the fetch it is given itself.
  const fetch = companion && !Agent ? createFetch({ ...companion, fetch: recording }) : recording;
  const config = {
    url,
    fetch,
    threadId: "thread-js",
    initialMessages: [{ id: "user-1", role: "user", content: "Weather in Seoul?" }],
  };
  const agent = Agent ? new Agent({ ...config, agwire: companion ?? undefined }) : carrier === "binary" ? new BinaryHttpAgent(config) : new HttpAgent(config);
  const events = [];
  const out = { carrier };
  const errors = [];
  const origError = console.error;
  console.error = (...a) => errors.push(a.map(String).join(" "));
  // @ag-ui/client 1.0.0 cancels the body's reader when its stream ends in
  // an error, and rethrows that cancel's rejection (the stored error) from
  // a .catch handler nobody awaits: every failed body becomes an unhandled
  // rejection, which fails a node test. Record those instead.
  const cancel = ReadableStreamDefaultReader.prototype.cancel;
  out.cancelRejections = [];
  ReadableStreamDefaultReader.prototype.cancel = function (...a) {
    return cancel.apply(this, a).catch((e) => {
      out.cancelRejections.push(e);
    });
  };
  try {
    const { result } = await agent.runAgent(
      { runId: runId ?? `run-${process.pid}-${++runSeq}`, forwardedProps: { agwireTest: test } },
      { onEvent: ({ event }) => void events.push(strip(event)) },
    );
    out.result = result ?? null;
  } catch (err) {
    out.error = err;
  } finally {
    console.error = origError;
    await new Promise((r) => setTimeout(r, 0));
    ReadableStreamDefaultReader.prototype.cancel = cancel;
  }
  out.contentType = seen.contentType;
  out.contentEncoding = seen.contentEncoding ?? null;
  out.events = events;
  out.messages = agent.messages;
  out.state = agent.state;
  return out;
}

function strip(ev) {
  const e = structuredClone(ev);
  delete e.runId;
  delete e.threadId;
  delete e.rawEvent;
  return e;
}

export { existsSync };
