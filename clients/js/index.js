// @agwire/fetch — a fetch for @ag-ui/client's HttpAgent that re-chunks
// binary AG-UI streams, strips agwire keepalive frames, and resumes a cut
// run from its cursor. No dependencies; runs in browsers and Node 20+.
//
//   import { HttpAgent } from "@ag-ui/client";
//   import { createFetch } from "@agwire/fetch";
//   const agent = new HttpAgent({ url, fetch: createFetch() });

import { DecodeError } from "./decode.gen.js";

/** The AG-UI binary media type (4-byte big-endian length + protobuf Event). */
export const BINARY_MEDIA_TYPE = "application/vnd.ag-ui.event+proto";
const SSE_MEDIA_TYPE = "text/event-stream";

const HEADER_LAST_EVENT_ID = "Last-Event-ID";
const HEADER_CURSOR = "Agwire-Cursor";
const HEADER_KEEPALIVE = "Agwire-Keepalive";

/** The largest piece handed to the stock parser (unless one frame is larger). */
export const DEFAULT_PIECE_SIZE = 8 * 1024;

const MiB = 1024 * 1024;

/**
 * The largest binary frame read, its 4-byte length prefix included: the
 * limit of @ag-ui/client 1.0.0's own binary parser ("Protobuf message size
 * exceeded maximum limit of 10 MB"), which counts the prefix too. A frame
 * over it is refused when its prefix is read, before any of it is kept.
 */
export const DEFAULT_MAX_FRAME_BYTES = 10 * MiB;

/**
 * The largest SSE event (block of lines up to its blank line) read: the
 * 10 MB of @ag-ui/client 1.0.0's "SSE buffer size exceeded" limit. A line
 * or comment that never ends is refused once it passes it.
 */
export const DEFAULT_MAX_SSE_EVENT_BYTES = 10 * MiB;

/**
 * How long a response may go without an event (keep-alives do not count)
 * before it is given up: 10 minutes, as agwire's Go client.
 */
export const DEFAULT_MAX_QUIET_MS = 10 * 60 * 1000;

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
 * AgwireLimitError ends a response that went past one of the companion's
 * limits; the response is cancelled (the server sees its connection close)
 * and never resumed. `kind` says which limit: "frame" (a binary frame's
 * length prefix announced more than `maxFrameBytes`), "sse-event" (an SSE
 * event, line or comment grew past `maxSseEventBytes`), "quiet" (no event
 * for `maxQuietMs`, only keep-alives or nothing). `limit` is the limit (bytes,
 * or ms for "quiet"), `actual` what was seen (the frame's whole size, the
 * event's bytes, the ms without an event), `option` the createFetch option
 * that sets the limit.
 */
export class AgwireLimitError extends Error {
  constructor(message, { kind, limit, actual, option } = {}) {
    super(message);
    this.name = "AgwireLimitError";
    this.kind = kind;
    this.limit = limit;
    this.actual = actual;
    this.option = option;
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
 * - maxFrameBytes (10 MiB): the largest binary frame, prefix included; a
 *   larger one ends the response with an AgwireLimitError as soon as its
 *   length prefix is read.
 * - maxSseEventBytes (10 MiB): the largest SSE event; a longer one (or a
 *   line or comment without its end) ends the response with an
 *   AgwireLimitError once that many bytes of it are buffered.
 * - maxQuietMs (600000, 10 minutes): a response that brings no event for
 *   that long (keep-alives only, or nothing) ends with an AgwireLimitError
 *   and is not resumed; 0 or a negative value turns it off.
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
    maxFrameBytes: positive(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, "maxFrameBytes"),
    maxSseEventBytes: positive(options.maxSseEventBytes ?? DEFAULT_MAX_SSE_EVENT_BYTES, "maxSseEventBytes"),
    maxQuietMs: quietLimit(options.maxQuietMs ?? DEFAULT_MAX_QUIET_MS),
    signal: options.signal,
    onResume: options.onResume,
  };
  return async function agwireFetch(input, init) {
    const req = requestParts(input, init, cfg);
    const resp = await base(req.input, req.init);
    const kind = streamKind(resp);
    if (kind === null) return resp;
    const body =
      kind === "binary"
        ? new BinaryCarrier({ pieceSize: cfg.pieceSize, maxFrameBytes: cfg.maxFrameBytes })
        : new SSECarrier({ maxEventBytes: cfg.maxSseEventBytes });
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

// quietLimit reads maxQuietMs: 0, a negative value or Infinity turn the
// bound off (Infinity inside).
function quietLimit(v) {
  if (typeof v !== "number" || Number.isNaN(v)) throw new TypeError(`@agwire/fetch: maxQuietMs must be a number (0 or less turns it off), not ${v}`);
  return v > 0 ? v : Infinity;
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
    // The quiet bound runs from the first response and across re-requests:
    // a run that only sends keep-alives, on one connection or on many, is
    // given up once, not resumed for ever.
    let lastEventAt = now();
    let keepalives = 0; // received since the last event
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
      // stop: the AgwireLimitError that ends this response. Cancelling the
      // reader cancels the fetch under it (the connection closes, so the
      // server stops sending) and resolves a pending read as done.
      let stop = null;
      const halt = (err) => {
        stop ??= err;
        reader?.cancel(err).catch(() => {});
      };
      let timer = null;
      const arm = () => {
        if (cfg.maxQuietMs === Infinity) return;
        // One timer per response, moved forward lazily: an event only
        // records its time, the timer re-arms itself for what is left.
        timer = setTimeout(() => {
          timer = null;
          if (reader === null || stop) return;
          const quiet = now() - lastEventAt;
          if (quiet < cfg.maxQuietMs) return arm();
          halt(quietError(cfg.maxQuietMs, quiet, keepalives));
        }, Math.max(0, lastEventAt + cfg.maxQuietMs - now()));
      };
      arm();
      try {
        for (;;) {
          const { done: end, value } = await reader.read();
          if (end || stop) break;
          const pieces = carrier.push(value);
          // The carrier stops at a limit after handing back the whole
          // frames or events before it: cancel at once, hand those on (as
          // the stock parser would have), then fail.
          if (carrier.error) halt(carrier.error);
          if (carrier.events > 0) {
            lastEventAt = now();
            keepalives = 0;
            carrier.events = 0;
          }
          keepalives += carrier.keepalives;
          carrier.keepalives = 0;
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
          if (stop) break;
        }
      } catch (err) {
        if (!stop) {
          if (aborted(req.signals)) throw err;
          cut = err;
        }
      } finally {
        reader = null;
        clearTimeout(timer);
      }
      if (cancelled) return;
      if (stop) throw stop; // never resumed: a limit holds for the continuation too
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

function now() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

// quietError is the "quiet" AgwireLimitError, worded as agwire's Go client
// words it ("no event for 10m0s (only keep-alives)").
function quietError(limit, quiet, keepalives) {
  const what = keepalives > 0 ? `only keep-alives: ${keepalives} since the last event` : "nothing received, not even a keep-alive";
  return new AgwireLimitError(
    `@agwire/fetch: no event for ${goDuration(limit)} (${what}); the response was cancelled and is not resumed. ` +
      `The server kept the run open without progress; if such a pause is legitimate, raise maxQuietMs (now ${limit}), or set it to 0 to wait without limit.`,
    { kind: "quiet", limit, actual: Math.round(quiet), option: "maxQuietMs" },
  );
}

// goDuration writes ms as Go's time.Duration.String does ("10m0s", "1.5s",
// "250ms"), so that both clients name a limit the same way.
function goDuration(ms) {
  if (ms < 1000) return `${+ms.toFixed(3)}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = +((ms % 60_000) / 1000).toFixed(3);
  return (h > 0 ? `${h}h` : "") + (h > 0 || m > 0 ? `${m}m` : "") + `${s}s`;
}

// bytesText names a size in bytes, with MiB for the large ones.
function bytesText(n) {
  if (n < MiB) return `${n} bytes`;
  const mib = n / MiB;
  return `${n} bytes (${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB)`;
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
 * drops zero-length frames. `count` and `events` are the frames handed on
 * since they were last cleared (the pump clears them apart: one moves the
 * cursor, the other the quiet clock), `keepalives` the zero-length frames
 * dropped, `ended` whether a frame was RUN_FINISHED or RUN_ERROR.
 *
 * A frame whose length prefix announces more than `maxFrameBytes` (prefix
 * included) stops it: push returns the pieces before that frame and sets
 * `error` to an AgwireLimitError, and every later push throws it. A partial
 * frame is kept as the list of chunks it arrived in and copied once, when
 * it is whole, so a pending frame costs its own bytes (at most the limit)
 * plus the unread end of one chunk.
 *
 * Exported for tests and for callers with their own stream plumbing.
 * `new BinaryCarrier({ pieceSize, maxFrameBytes })` (a number is the piece
 * size, as before).
 */
export class BinaryCarrier {
  constructor(options = {}) {
    const o = typeof options === "number" ? { pieceSize: options } : options;
    this.pieceSize = o.pieceSize ?? DEFAULT_PIECE_SIZE;
    this.maxFrameBytes = o.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.binary = true;
    this.count = 0;
    this.events = 0;
    this.keepalives = 0;
    this.ended = false;
    this.error = null;
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
    if (this.error) throw this.error;
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
        if (this.need > this.maxFrameBytes) return this.refuse(out, head, 0);
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
      if (size > this.maxFrameBytes) {
        if (pos > start) out.push(chunk.subarray(start, pos));
        return this.refuse(out, chunk, pos);
      }
      if (n - pos < size) break;
      if (size === 4) {
        // keepalive: close the piece before it, skip it
        if (pos > start) out.push(chunk.subarray(start, pos));
        this.keepalives++;
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
      // A tail of 4 bytes or more is a frame the loop above measured
      // against the limit; a shorter one is a prefix still to come.
      const tail = chunk.subarray(pos);
      this.parts.push(tail);
      this.partLen = tail.length;
      if (tail.length >= 4) this.need = 4 + readLen(tail, 0);
    }
    return out;
  }

  // refuse stops the carrier at the frame whose prefix is at b[at].
  refuse(out, b, at) {
    const size = 4 + readLen(b, at);
    const prefix = Array.from(b.subarray(at, at + 4), (x) => x.toString(16).padStart(2, "0")).join(" ");
    this.reset();
    this.error = new AgwireLimitError(
      `@agwire/fetch: a binary frame's length prefix (${prefix}) announces a frame of ${bytesText(size)}, over maxFrameBytes = ${bytesText(this.maxFrameBytes)}; ` +
        `refused before reading it, and the response was cancelled. @ag-ui/client refuses frames over 10 MiB as well: the server sent a broken stream, or not an AG-UI binary one.`,
      { kind: "frame", limit: this.maxFrameBytes, actual: size, option: "maxFrameBytes" },
    );
    return out;
  }

  // frame notes one whole frame of size bytes at buf[at].
  frame(buf, at, size) {
    if (size === 4) {
      this.keepalives++;
      return;
    }
    this.count++;
    this.events++;
    const f = firstField(buf, at + 4, at + size);
    if (f === FIELD_RUN_FINISHED || f === FIELD_RUN_ERROR) this.ended = true;
  }
}

/**
 * framesOf yields the payload (the protobuf Event) of each frame in a piece
 * that BinaryCarrier.push returned: whole frames, none empty, none over the
 * carrier's maxFrameBytes, so a reader that decodes events itself (rather
 * than handing the pieces to @ag-ui/client) needs no limits of its own.
 * The payloads are views into the piece, not copies.
 *
 * A piece that ends inside a frame is what a body cut mid-frame leaves
 * (the carrier's rest(), handed on when the run cannot be resumed): that
 * is a DecodeError, after the whole frames before it.
 */
export function* framesOf(piece) {
  let at = 0;
  const n = piece.length;
  while (at < n) {
    const end = at + 4 > n ? n + 1 : at + 4 + readLen(piece, at);
    if (end > n) throw new DecodeError(`the binary stream ended mid-frame: ${n - at} bytes of a frame${at + 4 <= n ? ` of ${end - at} bytes` : ""}`, at);
    yield piece.subarray(at + 4, end);
    at = end;
  }
}

/**
 * FrameReader cuts a binary stream, chunk by chunk, into frame payloads:
 * BinaryCarrier (its limits included) and framesOf, for a caller that
 * reads the body itself rather than through createFetch. A frame over
 * `maxFrameBytes` (prefix included, 10 MiB by default) throws the
 * carrier's AgwireLimitError when its prefix is read, after the payloads
 * before it; zero-length frames (keep-alives) are skipped.
 */
export class FrameReader {
  constructor(options = {}) {
    this.carrier = new BinaryCarrier({ pieceSize: Infinity, maxFrameBytes: positive(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, "maxFrameBytes") });
  }

  /** Whether a frame is partly read (a stream ending now ends mid-frame). */
  get pending() {
    return this.carrier.partLen > 0;
  }

  /** push reads chunk and calls onPayload(payload) for each whole frame's payload. */
  push(chunk, onPayload) {
    const c = this.carrier;
    for (const piece of c.push(chunk)) for (const p of framesOf(piece)) onPayload(p);
    c.count = c.events = c.keepalives = 0;
    if (c.error) throw c.error;
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
const COLON = 0x3a;

/**
 * SSECarrier hands on an SSE body in whole blocks (up to and including the
 * blank line), so a continuation never lands in the middle of one. After
 * each piece, `lastId` is the `id:` of its last event (the cursor), `count`
 * grew if that id is new, and `ended` tells whether that event was
 * RUN_FINISHED or RUN_ERROR. `events` counts the blocks with a field line
 * (not only `:` comments), `keepalives` the blocks of comments only.
 *
 * Blocks end at "\n\n", as @ag-ui/client splits them. A block longer than
 * `maxEventBytes` (its blank line not counted), or an unfinished one that
 * grows past it — a line or comment that never ends — stops the carrier:
 * push returns the whole blocks before it and sets `error` to an
 * AgwireLimitError, and every later push throws it. What it holds between
 * pushes is the unfinished block, so at most the limit plus one chunk.
 *
 * `new SSECarrier({ maxEventBytes })`.
 */
export class SSECarrier {
  constructor(options = {}) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_SSE_EVENT_BYTES;
    this.binary = false;
    this.count = 0;
    this.events = 0;
    this.keepalives = 0;
    this.ended = false;
    this.error = null;
    this.lastId = null;
    this.decoder = new TextDecoder();
    this.reset();
  }

  reset() {
    this.parts = []; // the unfinished block's bytes
    this.partLen = 0;
    this.afterNL = false; // its last byte is a "\n" not yet part of a blank line
    this.lineStart = true; // the next byte opens a line
    this.fields = false; // it has a line that is not a comment
  }

  rest() {
    if (this.partLen === 0) return null;
    const out = concat(this.parts, this.partLen);
    this.reset();
    return out;
  }

  push(chunk) {
    if (this.error) throw this.error;
    const n = chunk.length;
    if (n === 0) return [];
    const max = this.maxEventBytes;
    let blockStart = -this.partLen; // where the block began, in chunk offsets
    let cut = -1; // the end of the last whole block (after its blank line)
    let { afterNL, lineStart, fields } = this;
    let i = 0;
    let refused = -1; // the size of a whole block over the limit
    // One step per line: indexOf finds the line's end natively, so a long
    // data line costs a memchr, not a loop in JS.
    while (i < n) {
      if (afterNL && chunk[i] === NL) {
        // "\n\n": the block ends here
        const size = i - 1 - blockStart;
        if (size > max) {
          refused = size;
          break;
        }
        if (fields) this.events++;
        else if (size > 0) this.keepalives++;
        fields = false;
        afterNL = false;
        lineStart = true;
        i++;
        cut = i;
        blockStart = i;
        continue;
      }
      if (lineStart && chunk[i] !== COLON && chunk[i] !== NL) fields = true;
      const j = chunk.indexOf(NL, i);
      if (j < 0) {
        afterNL = false;
        lineStart = false;
        i = n;
        break;
      }
      afterNL = true;
      lineStart = true;
      i = j + 1;
    }
    let piece = null;
    if (cut > 0) {
      const head = chunk.subarray(0, cut);
      piece = this.partLen > 0 ? concat([...this.parts, head], this.partLen + cut) : head;
      this.parts = [];
      this.partLen = 0;
    }
    if (refused >= 0) return this.refuse(piece, refused, true);
    const tail = cut > 0 ? chunk.subarray(cut) : chunk;
    if (tail.length > 0) {
      this.parts.push(tail);
      this.partLen += tail.length;
    }
    this.afterNL = afterNL;
    this.lineStart = lineStart;
    this.fields = fields;
    // A "\n" that may open the blank line is not the event's own byte (as
    // for a whole block, whose size leaves the blank line out).
    const open = this.partLen - (afterNL ? 1 : 0);
    if (open > max) return this.refuse(piece, open, false);
    if (piece === null) return [];
    this.blocks(piece);
    return [piece];
  }

  // refuse stops the carrier at a block of size bytes (whole: it ended;
  // otherwise it is still open), after the piece of blocks before it.
  refuse(piece, size, whole) {
    this.reset();
    const what = whole
      ? `an SSE event of ${bytesText(size)} is larger than maxSseEventBytes = ${bytesText(this.maxEventBytes)}`
      : `an SSE event, line or comment grew past maxSseEventBytes = ${bytesText(this.maxEventBytes)} without the blank line that ends it (${bytesText(size)} buffered)`;
    this.error = new AgwireLimitError(
      `@agwire/fetch: ${what}; the response was cancelled. @ag-ui/client stops at 10 MiB as well ("SSE buffer size exceeded"): ` +
        `the server sent an event that large, or a stream that is not SSE (no "\\n\\n" between events).`,
      { kind: "sse-event", limit: this.maxEventBytes, actual: size, option: "maxSseEventBytes" },
    );
    if (piece === null) return [];
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

// The generated decoder of the 1.0 wire; AgwireAgent is in
// "@agwire/fetch/agent" (it needs @ag-ui/client, this file nothing).
export { decode, DecodeError, UnknownEventTypeError, OutOfStepError } from "./decode.gen.js";
