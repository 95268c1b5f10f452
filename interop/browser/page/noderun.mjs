#!/usr/bin/env node
// noderun.mjs URL CARRIER EVENTS RUNID — runs the stock HttpAgent of
// @ag-ui/client 1.0.0 with the @agwire/fetch companion in node (the
// packages of clients/js) and prints what it assembled, as the page does,
// so the browser test compares the two.

import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = resolve(here, "../../../clients/js");
const require = createRequire(join(clientDir, "package.json"));
const { HttpAgent } = await import(pathToFileURL(require.resolve("@ag-ui/client")).href);
const { createFetch, BINARY_MEDIA_TYPE } = await import(pathToFileURL(join(clientDir, "index.js")).href);

const [url, carrier, events, runId] = process.argv.slice(2);
class BinaryHttpAgent extends HttpAgent {
  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: BINARY_MEDIA_TYPE } };
  }
}
const config = {
  url,
  fetch: createFetch(),
  threadId: "thread-browser",
  initialMessages: [{ id: "user-1", role: "user", content: "Weather in Seoul?" }],
};
const agent = carrier === "binary" ? new BinaryHttpAgent(config) : new HttpAgent(config);
const { result } = await agent.runAgent({ runId, forwardedProps: { agwireTest: { events: Number(events) } } });
process.stdout.write(JSON.stringify({ messages: agent.messages, state: agent.state, result: result ?? null }) + "\n");
