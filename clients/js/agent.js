// AgwireAgent: @ag-ui/client's HttpAgent, asking for the binary stream and
// reading it with agwire's generated decoder; SSE when the server answers
// with it. Everything after the events is the stock client's: run() is the
// one method replaced, and its events go through the client's own pipeline
// (verification, middleware, state and message application).
//
//   import { AgwireAgent } from "@agwire/fetch";
//   const agent = new AgwireAgent({ url });

import { HttpAgent, runHttpRequest, transformHttpEventStream } from "@ag-ui/client";
import { Observable } from "rxjs";
import { createFetch, framesOf, BINARY_MEDIA_TYPE } from "./index.js";
import { decode, UnknownEventTypeError } from "./decode.gen.js";

/** What AgwireAgent asks for: binary first, SSE from servers without it. */
export const AGWIRE_ACCEPT = `${BINARY_MEDIA_TYPE}, text/event-stream;q=0.9`;

const STOP = Symbol("agwire.captured");

// The pieces createFetch hands on between yields to the event loop: the
// generated decoder is linear in any piece, so they can be larger than the
// stock parser's 8 KiB; the yield between them still bounds how far reading
// runs ahead of the client applying events.
const AGENT_PIECE_SIZE = 64 * 1024;

export class AgwireAgent extends HttpAgent {
  /**
   * Takes HttpAgent's configuration; `agwire` holds createFetch's options
   * (resume, maxRetries, retryDelay, keepalive, pieceSize, and the limits
   * maxFrameBytes, maxSseEventBytes, maxQuietMs), applied around the
   * configuration's `fetch`. They are checked here, as createFetch checks
   * them (a TypeError), not at the first run.
   */
  constructor(config = {}) {
    super(config);
    this.agwire = config.agwire ?? {};
    createFetch(this.agwire);
  }

  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: AGWIRE_ACCEPT } };
  }

  run(input) {
    const req = captureRequest(this, input);
    // The input did not pass the client's checks: the stock run reports it.
    if (req === null) return super.run(input);
    const f = createFetch({ pieceSize: AGENT_PIECE_SIZE, ...this.agwire, fetch: this.fetch });
    const logger = this.debugLogger;
    return new Observable((sub) => {
      let reader = null;
      let inner = null;
      let closed = false;
      (async () => {
        const resp = await f(req.url, req.init);
        if (closed) return;
        if (!resp.ok || !resp.body || resp.headers.get("content-type") !== BINARY_MEDIA_TYPE) {
          // SSE, or an error status: the stock client's own handling.
          inner = transformHttpEventStream(runHttpRequest(() => Promise.resolve(resp)), logger).subscribe(sub);
          return;
        }
        // The body is createFetch's: its BinaryCarrier has applied the
        // limits (a frame over maxFrameBytes refused at its prefix, the
        // quiet bound) and hands on pieces of whole frames, so the frames
        // are read in place and a limit arrives here as the read's
        // AgwireLimitError, the same error the stock client would get.
        reader = resp.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done || closed) break;
          for (const payload of framesOf(value)) {
            let ev;
            try {
              ev = decode(payload);
            } catch (err) {
              if (!(err instanceof UnknownEventTypeError)) throw err;
              // An event of a later protocol: dropped, as the stock client drops it.
              if (!(typeof process !== "undefined" && process.env?.SUPPRESS_TRANSFORMATION_WARNINGS)) {
                console.warn("[agwire] Dropped an event of a type this decoder does not know: the protocol has a variant it predates.");
              }
              continue;
            }
            sub.next(ev);
          }
        }
        if (closed) return;
        sub.complete();
      })().catch((err) => {
        if (!closed) sub.error(err);
      });
      return () => {
        closed = true;
        inner?.unsubscribe();
        reader?.cancel().catch(() => {});
      };
    });
  }

  clone() {
    const c = super.clone();
    c.agwire = this.agwire;
    return c;
  }
}

// captureRequest returns the request HttpAgent.run would send for input
// ({ url, init }): the input checked and stripped by the client's own
// rules (which it does not export), then requestInit. It runs the stock
// run with a fetch that records its arguments and sends nothing; null when
// the input is refused before any fetch.
function captureRequest(agent, input) {
  let req = null;
  const probe = Object.create(agent);
  probe.fetch = (url, init) => {
    req = { url, init };
    return Promise.reject(STOP);
  };
  const sub = HttpAgent.prototype.run.call(probe, input).subscribe({ error() {} });
  sub.unsubscribe();
  return req;
}
