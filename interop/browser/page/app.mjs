// The browser lane's page: the stock HttpAgent of @ag-ui/client 1.0.0, with
// or without the @agwire/fetch companion, bundled by build.mjs. The Go test
// calls window.agwireRun(options) and reads what the agent assembled.

import { HttpAgent } from "@ag-ui/client";
import { createFetch, BINARY_MEDIA_TYPE } from "../../../clients/js/index.js";
import { AgwireAgent } from "../../../clients/js/agent.js";

class BinaryHttpAgent extends HttpAgent {
  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: BINARY_MEDIA_TYPE } };
  }
}

// agwireRun({url, carrier: "binary"|"sse", companion: false | {...options},
//            agent: "" | "agwire", runId, test: {events, ...}}) resolves to
// {ms, messages, state, result, events, contentType, error?}.
window.agwireRun = async function agwireRun({ url, carrier, companion, agent: which, runId, test }) {
  let contentType = null;
  const recording = async (u, init) => {
    const r = await fetch(u, init);
    contentType ??= r.headers.get("content-type");
    return r;
  };
  // AgwireAgent wraps the fetch itself, with companion as createFetch's options.
  const f = companion && which !== "agwire" ? createFetch({ ...companion, fetch: recording }) : recording;
  const config = {
    url,
    fetch: f,
    threadId: "thread-browser",
    initialMessages: [{ id: "user-1", role: "user", content: "Weather in Seoul?" }],
  };
  const agent = which === "agwire" ? new AgwireAgent({ ...config, agwire: companion || {} }) : carrier === "binary" ? new BinaryHttpAgent(config) : new HttpAgent(config);
  let events = 0;
  const out = { carrier };
  const t0 = performance.now();
  try {
    const { result } = await agent.runAgent(
      { runId, forwardedProps: { agwireTest: test ?? {} } },
      { onEvent: () => void events++ },
    );
    out.result = result ?? null;
  } catch (err) {
    out.error = String(err && err.stack ? err.stack : err);
  }
  out.ms = performance.now() - t0;
  out.events = events;
  out.contentType = contentType;
  out.messages = agent.messages;
  out.state = agent.state;
  return out;
};
window.agwireReady = true;
