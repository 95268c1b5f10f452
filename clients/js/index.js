// @agwire/fetch — a fetch for @ag-ui/client's HttpAgent that re-chunks
// binary AG-UI streams, strips agwire keepalive frames, and resumes a cut
// run from its cursor. No dependencies; runs in browsers and Node 20+.
//
//   import { HttpAgent } from "@ag-ui/client";
//   import { createFetch } from "@agwire/fetch";
//   const agent = new HttpAgent({ url, fetch: createFetch() });

/** The AG-UI binary media type (4-byte big-endian length + protobuf Event). */
export const BINARY_MEDIA_TYPE = "application/vnd.ag-ui.event+proto";
const SSE_MEDIA_TYPE = "text/event-stream";

const HEADER_LAST_EVENT_ID = "Last-Event-ID";
const HEADER_CURSOR = "Agwire-Cursor";
const HEADER_KEEPALIVE = "Agwire-Keepalive";

/** The largest piece handed to the stock parser (unless one frame is larger). */
export const DEFAULT_PIECE_SIZE = 8 * 1024;

// Fields of the protobuf Event oneof that end a run: run_finished = 13,
// run_error = 14 (proto/ag_ui/events.proto).
const FIELD_RUN_FINISHED = 13;
const FIELD_RUN_ERROR = 14;

/**
 * ResumeError ends a response the companion could not resume. `cursor` is
 * where the client was (the last event it received), `attempts` the
 * re-requests made, `status` the last HTTP status (0 when the request
 * itself failed), `cause` the last failure.
 */
export class ResumeError extends Error {
  constructor(message, { cause, cursor, attempts, status } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "ResumeError";
    this.cursor = cursor;
    this.attempts = attempts;
    this.status = status ?? 0;
  }
}

/**
 * createFetch returns a function with fetch's signature, for
 * `new HttpAgent({ url, fetch: createFetch(options) })`.
 *
 * Options:
 * - fetch: the fetch to call (default globalThis.fetch).
 * - resume (true): re-request a run cut before RUN_FINISHED / RUN_ERROR
 *   from its cursor (Last-Event-ID), splicing the rest into the same body.
 * - maxRetries (5): how often a re-request that brings no event is tried
 *   again before giving up with a ResumeError (at most maxRetries + 1
 *   re-requests in a row without an event).
 * - maxResumes (100): re-requests in all for one response.
 * - retryDelay (250): the first backoff in ms; each failed try doubles
 *   it (up to maxRetryDelay, 5000), with ±50 % jitter.
 * - keepalive (true): send `Agwire-Keepalive: 1`; zero-length frames
 *   are removed from binary bodies whatever this says.
 * - pieceSize (8192): the largest piece of a binary body handed on (a
 *   frame larger than it goes whole).
 * - signal: an AbortSignal that, like the request's own, stops a
 *   response and its re-requests.
 * - onResume: called as onResume({ cursor, attempt, error }) before
 *   each re-request.
 */
export function createFetch(options = {}) {
  const base = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const cfg = {
    resume: options.resume ?? true,
    maxRetries: nonNegative(options.maxRetries ?? 5, "maxRetries"),
    maxResumes: nonNegative(options.maxResumes ?? 100, "maxResumes"),
    retryDelay: nonNegative(options.retryDelay ?? 250, "retryDelay"),
    maxRetryDelay: nonNegative(options.maxRetryDelay ?? 5000, "maxRetryDelay"),
    keepalive: options.keepalive ?? true,
    pieceSize: positive(options.pieceSize ?? DEFAULT_PIECE_SIZE, "pieceSize"),
    signal: options.signal,
    onResume: options.onResume,
  };
  return async function agwireFetch(input, init) {
    const req = requestParts(input, init, cfg);
    const resp = await base(req.input, req.init);
    const kind = streamKind(resp);
    if (kind === null) return resp;
    const body = kind === "binary" ? new BinaryCarrier(cfg.pieceSize) : new SSECarrier();
    const stream = spliced(resp, body, req, base, cfg);
    return new Response(stream, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
  };
}

function nonNegative(v, name) {
  if (typeof v !== "number" || !(v >= 0)) throw new TypeError(`@agwire/fetch: ${name} must be a number >= 0, not ${v}`);
  return v;
}

function positive(v, name) {
  if (typeof v !== "number" || !(v >= 1)) throw new TypeError(`@agwire/fetch: ${name} must be a number >= 1, not ${v}`);
  return v;
}

// requestParts adds the keepalive header and decides whether the request
// can be sent again (its body must be replayable).
function requestParts(input, init, cfg) {
  init = { ...(init ?? {}) };
  const isRequest = typeof Request !== "undefined" && input instanceof Request;
  const headers = new Headers(init.headers ?? (isRequest ? input.headers : undefined));
  if (cfg.keepalive && !headers.has(HEADER_KEEPALIVE)) headers.set(HEADER_KEEPALIVE, "1");
  init.headers = headers;
  const b = init.body;
  const replayable =
    !isRequest &&
    (b === undefined ||
      b === null ||
      typeof b === "string" ||
      b instanceof ArrayBuffer ||
      ArrayBuffer.isView(b) ||
      (typeof Blob !== "undefined" && b instanceof Blob) ||
      b instanceof URLSearchParams);
  const signals = [init.signal, cfg.signal].filter(Boolean);
  return { input, init, replayable, signals };
}

// streamKind says which carrier a response is, or null for anything the
// companion passes through untouched.
function streamKind(resp) {
  if (!resp.ok || !resp.body) return null;
  const ct = resp.headers.get("content-type") ?? "";
  // The stock client chooses protobuf only for this exact string.
  if (ct === BINARY_MEDIA_TYPE) return "binary";
  if (ct.split(";")[0].trim().toLowerCase() === SSE_MEDIA_TYPE) return "sse";
  return null;
}

// parseCursor splits a cursor at its last slash: "RUN/INC/N" (runlog.Cursor.String)
// is the run "RUN/INC", as far as resuming goes, and the event number N.
function parseCursor(text) {
  const i = text.lastIndexOf("/");
  if (i <= 0 || !/^[0-9]+$/.test(text.slice(i + 1))) return null;
  return { run: text.slice(0, i), seq: Number(text.slice(i + 1)) };
}

// spliced is the body the stock client reads: the first response's, then
// each continuation's, cut at event boundaries.
function spliced(first, carrier, req, base, cfg) {
  let reader = null;
  let done = false;
  let cancelled = false;
  const gen = pump();
  async function* pump() {
    let resp = first;
    let failures = 0;
    let resumes = 0;
    let lastError;
    let lastStatus = 0;
    let resumable = false;
    let cursor = null; // {run, seq}: the last event handed on
    const contentType = first.headers.get("content-type");
    for (;;) {
      if (carrier.binary) {
        const c = parseCursor(resp.headers.get(HEADER_CURSOR) ?? "");
        if (c) {
          if (cursor && (c.run !== cursor.run || c.seq !== cursor.seq)) {
            throw new ResumeError(`@agwire/fetch: asked to resume after ${cursorText(cursor)}, the server answered from ${cursorText(c)}`, { cursor: cursorText(cursor), attempts: resumes, status: resp.status });
          }
          cursor = c;
          resumable = true;
        }
      } else if (resp.headers.get(HEADER_CURSOR)) {
        resumable = true;
        cursor ??= parseCursor(resp.headers.get(HEADER_CURSOR));
      }
      carrier.reset();
      reader = resp.body.getReader();
      let cut = null;
      let events = 0;
      try {
        for (;;) {
          const { done: end, value } = await reader.read();
          if (end) break;
          const pieces = carrier.push(value);
          if (carrier.count > 0) {
            events += carrier.count;
            if (carrier.binary) {
              if (cursor) cursor = { run: cursor.run, seq: cursor.seq + carrier.count };
            } else if (carrier.lastId !== null) {
              const c = parseCursor(carrier.lastId);
              if (c) {
                cursor = c;
                resumable = true;
              }
            }
            carrier.count = 0;
          }
          for (const p of pieces) yield p;
        }
      } catch (err) {
        if (aborted(req.signals)) throw err;
        cut = err;
      } finally {
        reader = null;
      }
      if (cancelled) return;
      if (events > 0) failures = 0;
      if (carrier.ended) return; // RUN_FINISHED or RUN_ERROR went through
      if (!cfg.resume || !resumable || !req.replayable || cursor === null) {
        // Not resumable: the stock client sees what it would have seen.
        const rest = carrier.rest();
        if (rest) yield rest;
        if (cut) throw cut;
        return;
      }
      if (cut === null && resumes > 0 && events === 0) {
        // A continuation that ends at once with nothing: the run is over
        // without a RUN_FINISHED (the server's end trailer is not visible
        // to fetch). Nothing more will come.
        return;
      }
      if (cut === null) cut = new Error("the response ended before RUN_FINISHED or RUN_ERROR");
      lastError = cut;
      if (events === 0 && resumes > 0) failures++;
      // Re-request from the cursor until a response starts.
      for (;;) {
        if (failures > cfg.maxRetries || resumes >= cfg.maxResumes) {
          const why = resumes >= cfg.maxResumes ? `${resumes} re-requests in all (maxResumes)` : `${failures} re-requests in a row brought no event (maxRetries ${cfg.maxRetries})`;
          throw new ResumeError(`@agwire/fetch: the run was cut after ${cursorText(cursor)} and could not be resumed: ${why}; last failure: ${describe(lastError)}`, { cause: lastError, cursor: cursorText(cursor), attempts: resumes, status: lastStatus });
        }
        const delay = failures === 0 ? 0 : backoff(cfg, failures);
        cfg.onResume?.({ cursor: cursorText(cursor), attempt: resumes + 1, error: lastError });
        await sleep(delay, req.signals);
        if (cancelled) return;
        resumes++;
        const headers = new Headers(req.init.headers);
        headers.set(HEADER_LAST_EVENT_ID, cursorText(cursor));
        let next;
        try {
          next = await base(req.input, { ...req.init, headers });
        } catch (err) {
          if (aborted(req.signals)) throw abortReason(req.signals, err);
          lastError = err;
          lastStatus = 0;
          failures++;
          continue;
        }
        lastStatus = next.status;
        if (next.ok && next.body && next.headers.get("content-type") === contentType) {
          resp = next;
          break;
        }
        const text = await next.text().catch(() => "");
        lastError = new Error(`HTTP ${next.status}${text ? ": " + text.trim().slice(0, 500) : ""}`);
        if (next.ok) {
          throw new ResumeError(`@agwire/fetch: resuming after ${cursorText(cursor)}, the server answered ${JSON.stringify(next.headers.get("content-type"))}, not ${JSON.stringify(contentType)}`, { cause: lastError, cursor: cursorText(cursor), attempts: resumes, status: next.status });
        }
        if (next.status >= 400 && next.status < 500 && next.status !== 408 && next.status !== 429) {
          // 400 bad cursor, 404 unknown run, 410 evicted, 409…: final.
          throw new ResumeError(`@agwire/fetch: the run was cut after ${cursorText(cursor)} and the server refused to resume it: ${describe(lastError)}`, { cause: lastError, cursor: cursorText(cursor), attempts: resumes, status: next.status });
        }
        failures++;
      }
    }
  }
  return new ReadableStream(
    {
      async pull(controller) {
        try {
          // One macrotask per piece: the stock client reads as fast as it
          // can and queues what it has not applied yet; left alone, that
          // queue grows with the run and the run's cost with it.
          await macrotask();
          const { value, done: end } = await gen.next();
          if (end) {
            done = true;
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (err) {
          done = true;
          controller.error(err);
        }
      },
      async cancel(reason) {
        if (done) return;
        done = true;
        cancelled = true;
        const r = reader;
        if (r) await r.cancel(reason).catch(() => {});
        await gen.return(undefined).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

// macrotask resolves after the pending microtasks have run (a message on
// a MessageChannel: no timer clamping; setTimeout where there is none). In
// node the port holds the process open only while a wait is pending.
let channel = null;
const waiting = [];
function macrotask() {
  if (channel === null) {
    if (typeof MessageChannel === "undefined") return new Promise((r) => setTimeout(r, 0));
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const r = waiting.shift();
      if (waiting.length === 0) channel.port1.unref?.();
      r?.();
    };
    channel.port1.unref?.();
  }
  return new Promise((r) => {
    waiting.push(r);
    channel.port1.ref?.();
    channel.port2.postMessage(0);
  });
}

function cursorText(c) {
  return c ? `${c.run}/${c.seq}` : "(no cursor)";
}

function describe(err) {
  if (err === undefined || err === null) return "none";
  const msg = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : "";
  return msg + cause;
}

function backoff(cfg, failures) {
  const d = Math.min(cfg.maxRetryDelay, cfg.retryDelay * 2 ** (failures - 1));
  return d * (0.5 + Math.random());
}

function aborted(signals) {
  return signals.some((s) => s.aborted);
}

function abortReason(signals, fallback) {
  const s = signals.find((s) => s.aborted);
  return s?.reason ?? fallback;
}

function sleep(ms, signals) {
  return new Promise((resolve, reject) => {
    if (aborted(signals)) return reject(abortReason(signals));
    const off = () => signals.forEach((s) => s.removeEventListener("abort", onAbort));
    const onAbort = () => {
      clearTimeout(t);
      off();
      reject(abortReason(signals));
    };
    const t = setTimeout(() => {
      off();
      resolve();
    }, ms);
    signals.forEach((s) => s.addEventListener("abort", onAbort, { once: true }));
  });
}

/**
 * BinaryCarrier cuts a binary AG-UI body into pieces of whole frames, each
 * at most `pieceSize` bytes (a larger frame is a piece of its own), and
 * drops zero-length frames. `count` is the frames handed on since it was
 * last cleared, `ended` whether one of them was RUN_FINISHED or RUN_ERROR.
 * Exported for tests and for callers with their own stream plumbing.
 */
export class BinaryCarrier {
  constructor(pieceSize = DEFAULT_PIECE_SIZE) {
    this.pieceSize = pieceSize;
    this.binary = true;
    this.count = 0;
    this.ended = false;
    this.reset();
  }

  // reset forgets a partial frame (a new response starts).
  reset() {
    this.parts = []; // the partial frame's bytes
    this.partLen = 0;
    this.need = -1; // its whole size, once the prefix is known
  }

  // rest returns the bytes of a partial frame, if any (for a stream that
  // cannot be resumed: the stock parser then reports it as it would).
  rest() {
    if (this.partLen === 0) return null;
    const out = concat(this.parts, this.partLen);
    this.reset();
    return out;
  }

  push(chunk) {
    const out = [];
    let pos = 0;
    const n = chunk.length;
    if (this.partLen > 0) {
      if (this.need < 0) {
        const take = Math.min(4 - this.partLen, n);
        this.parts.push(chunk.subarray(0, take));
        this.partLen += take;
        pos = take;
        if (this.partLen < 4) return out;
        const head = concat(this.parts, this.partLen);
        this.parts = [head];
        this.need = 4 + readLen(head, 0);
      }
      const take = Math.min(this.need - this.partLen, n - pos);
      if (take > 0) this.parts.push(chunk.subarray(pos, pos + take));
      this.partLen += take;
      pos += take;
      if (this.partLen < this.need) return out;
      const frame = concat(this.parts, this.partLen);
      this.reset();
      this.frame(frame, 0, frame.length);
      if (frame.length > 4) out.push(frame);
    }
    let start = pos; // the piece being gathered: chunk[start, pos)
    while (n - pos >= 4) {
      const size = 4 + readLen(chunk, pos);
      if (n - pos < size) break;
      if (size === 4) {
        // keepalive: close the piece before it, skip it
        if (pos > start) out.push(chunk.subarray(start, pos));
        pos += 4;
        start = pos;
        continue;
      }
      if (pos > start && pos + size - start > this.pieceSize) {
        out.push(chunk.subarray(start, pos));
        start = pos;
      }
      this.frame(chunk, pos, size);
      pos += size;
    }
    if (pos > start) out.push(chunk.subarray(start, pos));
    if (pos < n) {
      const tail = chunk.subarray(pos);
      this.parts.push(tail);
      this.partLen = tail.length;
      if (tail.length >= 4) this.need = 4 + readLen(tail, 0);
    }
    return out;
  }

  // frame notes one whole frame of size bytes at buf[at].
  frame(buf, at, size) {
    if (size === 4) return;
    this.count++;
    const f = firstField(buf, at + 4, at + size);
    if (f === FIELD_RUN_FINISHED || f === FIELD_RUN_ERROR) this.ended = true;
  }
}

function readLen(b, at) {
  return ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
}

// firstField returns the field number of a message's first tag (the Event
// oneof arm), or -1.
function firstField(b, at, end) {
  let v = 0;
  let shift = 0;
  for (let i = at; i < end && shift < 35; i++, shift += 7) {
    v += (b[i] & 0x7f) * 2 ** shift;
    if ((b[i] & 0x80) === 0) return Math.floor(v / 8);
  }
  return -1;
}

function concat(parts, len) {
  if (parts.length === 1 && parts[0].length === len) return parts[0];
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const NL = 0x0a;

/**
 * SSECarrier hands on an SSE body in whole blocks (up to and including the
 * blank line), so a continuation never lands in the middle of one. After
 * each piece, `lastId` is the `id:` of its last event (the cursor), `count`
 * grew if that id is new, and `ended` tells whether that event was
 * RUN_FINISHED or RUN_ERROR.
 */
export class SSECarrier {
  constructor() {
    this.binary = false;
    this.count = 0;
    this.ended = false;
    this.lastId = null;
    this.decoder = new TextDecoder();
    this.reset();
  }

  reset() {
    this.parts = [];
    this.partLen = 0;
    this.lastByte = -1; // the last byte of the pending part, for "\n\n" across chunks
  }

  rest() {
    if (this.partLen === 0) return null;
    const out = concat(this.parts, this.partLen);
    this.reset();
    return out;
  }

  push(chunk) {
    // The end of the last "\n\n" in chunk (counting a "\n" ending the
    // pending part).
    let cut = -1;
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] === NL && (i > 0 ? chunk[i - 1] === NL : this.lastByte === NL)) {
        cut = i + 1;
        break;
      }
    }
    if (cut < 0) {
      if (chunk.length > 0) {
        this.parts.push(chunk);
        this.partLen += chunk.length;
        this.lastByte = chunk[chunk.length - 1];
      }
      return [];
    }
    const head = chunk.subarray(0, cut);
    let piece;
    if (this.partLen > 0) {
      this.parts.push(head);
      piece = concat(this.parts, this.partLen + head.length);
    } else {
      piece = head;
    }
    this.reset();
    if (cut < chunk.length) {
      const tail = chunk.subarray(cut);
      this.parts.push(tail);
      this.partLen = tail.length;
      this.lastByte = tail[tail.length - 1];
    }
    this.blocks(piece);
    return [piece];
  }

  // blocks reads the last event block of piece (whole blocks): its id is
  // the cursor, and whether it is RUN_FINISHED or RUN_ERROR. Only the last
  // one is decoded, so the cost per piece does not grow with it; a run's
  // end that is not the last event of its piece is missed, and then a
  // resume finds nothing more and ends the body.
  blocks(piece) {
    let end = piece.length - 2; // the block's end, before its blank line
    while (end > 0) {
      let start = end;
      while (start > 0 && !(piece[start - 1] === NL && start >= 2 && piece[start - 2] === NL)) start--;
      const block = this.decoder.decode(piece.subarray(start, end));
      let id = null;
      let data = null;
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = line.slice(line[3] === " " ? 4 : 3);
        else if (line.startsWith("data:")) data = (data === null ? "" : data + "\n") + line.slice(line[5] === " " ? 6 : 5);
      }
      if (data === null) {
        // a comment (keepalive): look at the block before it
        end = start - 2;
        continue;
      }
      if (id !== null && id !== this.lastId) {
        this.lastId = id;
        this.count++;
      }
      if (data.includes("RUN_FINISHED") || data.includes("RUN_ERROR")) {
        try {
          const t = JSON.parse(data).type;
          if (t === "RUN_FINISHED" || t === "RUN_ERROR") this.ended = true;
        } catch {
          // not JSON: the stock parser reports it
        }
      }
      return;
    }
  }
}

// The generated decoder of the 1.0 wire and its frame reader; AgwireAgent
// is in "@agwire/fetch/agent" (it needs @ag-ui/client, this file nothing).
export { decode, DecodeError, UnknownEventTypeError, OutOfStepError } from "./decode.gen.js";
export { FrameReader, MAX_FRAME } from "./frames.js";
