/** The AG-UI binary media type (4-byte big-endian length + protobuf Event). */
export declare const BINARY_MEDIA_TYPE: "application/vnd.ag-ui.event+proto";
/** The largest piece of a binary body handed on (unless one frame is larger). */
export declare const DEFAULT_PIECE_SIZE: number;
/** 10 MiB: the largest binary frame, its 4-byte prefix included (@ag-ui/client 1.0.0's own limit). */
export declare const DEFAULT_MAX_FRAME_BYTES: number;
/** 10 MiB: the largest SSE event (@ag-ui/client 1.0.0's "SSE buffer size exceeded" limit). */
export declare const DEFAULT_MAX_SSE_EVENT_BYTES: number;
/** 600000 (10 minutes): how long a response may bring no event, keep-alives aside. */
export declare const DEFAULT_MAX_QUIET_MS: number;

export type FetchLike = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export interface CreateFetchOptions {
  /** The fetch to call; default globalThis.fetch. */
  fetch?: FetchLike;
  /** Re-request a run cut before RUN_FINISHED / RUN_ERROR from its cursor; default true. */
  resume?: boolean;
  /** How often a re-request that brings no event is tried again before giving up; default 5. */
  maxRetries?: number;
  /** Re-requests in all for one response; default 100. */
  maxResumes?: number;
  /** First backoff in ms, doubled per failed try with ±50 % jitter; default 250. */
  retryDelay?: number;
  /** Cap on the backoff in ms; default 5000. */
  maxRetryDelay?: number;
  /** Send `Agwire-Keepalive: 1`; default true. Zero-length frames are removed either way. */
  keepalive?: boolean;
  /** Largest piece of a binary body handed to the client; default 8192. */
  pieceSize?: number;
  /**
   * Largest binary frame in bytes, its 4-byte length prefix included; default 10 MiB
   * (DEFAULT_MAX_FRAME_BYTES). A larger one ends the response with an AgwireLimitError
   * ("frame") as soon as its prefix is read. The stock parser refuses frames over 10 MiB
   * itself, so a higher value only helps other readers.
   */
  maxFrameBytes?: number;
  /**
   * Largest SSE event in bytes (its lines, the blank line ending it not counted); default
   * 10 MiB (DEFAULT_MAX_SSE_EVENT_BYTES). A larger event, or a line or comment that never
   * ends, ends the response with an AgwireLimitError ("sse-event") once the buffer passes it.
   */
  maxSseEventBytes?: number;
  /**
   * How long a response may go without an event, in ms; keep-alives do not count; default
   * 600000 (DEFAULT_MAX_QUIET_MS). Past it the response ends with an AgwireLimitError
   * ("quiet") and is not resumed; the clock runs across re-requests. 0 or a negative value
   * turns it off.
   */
  maxQuietMs?: number;
  /** Stops a response and its re-requests, like the request's own signal. */
  signal?: AbortSignal;
  /** Called before each re-request. */
  onResume?: (info: { cursor: string; attempt: number; error: unknown }) => void;
}

/** Returns a fetch for `new HttpAgent({ url, fetch: createFetch() })`. */
export declare function createFetch(options?: CreateFetchOptions): FetchLike;

/** The error a response ends with when its run could not be resumed. */
export declare class ResumeError extends Error {
  readonly name: "ResumeError";
  /** The cursor of the last event received ("run/N"). */
  readonly cursor: string;
  /** Re-requests made. */
  readonly attempts: number;
  /** The last HTTP status, 0 when the request itself failed. */
  readonly status: number;
}

/**
 * The error a response ends with when it goes past one of the companion's limits. The
 * response is cancelled (its connection closes) and never resumed; `runAgent` rejects with
 * it and `onRunFailed` receives it.
 */
export declare class AgwireLimitError extends Error {
  readonly name: "AgwireLimitError";
  /**
   * "frame": a binary frame's length prefix announced more than maxFrameBytes;
   * "sse-event": an SSE event, line or comment grew past maxSseEventBytes;
   * "quiet": no event for maxQuietMs (only keep-alives, or nothing).
   */
  readonly kind: "frame" | "sse-event" | "quiet";
  /** The limit: bytes, or ms for "quiet". */
  readonly limit: number;
  /** What was seen: the frame's whole size, the event's bytes, the ms without an event. */
  readonly actual: number;
  /** The createFetch option that sets the limit. */
  readonly option: "maxFrameBytes" | "maxSseEventBytes" | "maxQuietMs";
}

/**
 * What a carrier does with a body, for callers with their own stream plumbing: push each
 * chunk, hand on the pieces returned. After a push, `error` is set when a limit stopped
 * the carrier (the pieces returned are those before it; every later push throws it).
 */
export interface Carrier {
  /** Frames (binary) or new ids (SSE) handed on since last cleared: the cursor's count. */
  count: number;
  /** Events handed on since last cleared (keep-alives are not events). */
  events: number;
  /** Keep-alives (zero-length frames, comment-only SSE blocks) since last cleared. */
  keepalives: number;
  /** Whether RUN_FINISHED or RUN_ERROR went through. */
  ended: boolean;
  /** The limit that stopped the carrier, if one did. */
  error: AgwireLimitError | null;
  push(chunk: Uint8Array): Uint8Array[];
  /** The bytes of an unfinished frame or block, if any (then forgotten). */
  rest(): Uint8Array | null;
  /** Forgets an unfinished frame or block (a new response starts). */
  reset(): void;
}

/**
 * Cuts a binary body into pieces of whole frames; drops zero-length frames. A partial frame
 * is kept as the chunks it arrived in and copied once, when whole. A number is the piece size.
 */
export declare class BinaryCarrier implements Carrier {
  constructor(options?: number | { pieceSize?: number; maxFrameBytes?: number });
  readonly binary: true;
  readonly pieceSize: number;
  readonly maxFrameBytes: number;
  count: number;
  events: number;
  keepalives: number;
  ended: boolean;
  error: AgwireLimitError | null;
  push(chunk: Uint8Array): Uint8Array[];
  rest(): Uint8Array | null;
  reset(): void;
}

/**
 * Yields the payload (the protobuf Event) of each frame in a piece returned by
 * BinaryCarrier.push; views into the piece, not copies. A piece that ends inside a frame
 * (a body cut mid-frame, the carrier's rest()) throws a DecodeError after the whole frames.
 */
export declare function framesOf(piece: Uint8Array): Generator<Uint8Array, void, undefined>;

/** Hands an SSE body on in whole blocks (ending at "\n\n"), reading each block's id and type. */
export declare class SSECarrier implements Carrier {
  constructor(options?: { maxEventBytes?: number });
  readonly binary: false;
  readonly maxEventBytes: number;
  count: number;
  events: number;
  keepalives: number;
  ended: boolean;
  error: AgwireLimitError | null;
  lastId: string | null;
  push(chunk: Uint8Array): Uint8Array[];
  rest(): Uint8Array | null;
  reset(): void;
}

/** A payload that is not an AG-UI 1.0 event; `offset` is where reading stopped. */
export class DecodeError extends Error {
  offset: number | undefined;
}
/** An event of a later protocol (only unknown arms, each a well-formed message). */
export class UnknownEventTypeError extends DecodeError {}
/** A malformed frame the AG-UI peer reads out of step with its structure. */
export class OutOfStepError extends DecodeError {}
/** Decodes one frame's payload (after the 4-byte length), as @ag-ui/proto's decode does. */
export function decode(payload: Uint8Array): { type: string; [key: string]: unknown };
/**
 * Cuts a binary stream into frame payloads, chunk by chunk: BinaryCarrier (its limits) and
 * framesOf. A frame over `maxFrameBytes` (prefix included, 10 MiB by default) throws the
 * carrier's AgwireLimitError (`kind` "frame") once the payloads before it are handed on.
 */
export class FrameReader {
  constructor(options?: { maxFrameBytes?: number });
  readonly pending: boolean;
  push(chunk: Uint8Array, onPayload: (payload: Uint8Array) => void): void;
}
