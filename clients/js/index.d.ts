/** The AG-UI binary media type (4-byte big-endian length + protobuf Event). */
export declare const BINARY_MEDIA_TYPE: "application/vnd.ag-ui.event+proto";
/** The largest piece of a binary body handed on (unless one frame is larger). */
export declare const DEFAULT_PIECE_SIZE: number;

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

/** Cuts a binary body into pieces of whole frames; drops zero-length frames. */
export declare class BinaryCarrier {
  constructor(pieceSize?: number);
  readonly binary: true;
  count: number;
  ended: boolean;
  push(chunk: Uint8Array): Uint8Array[];
  rest(): Uint8Array | null;
  reset(): void;
}

/** Hands an SSE body on in whole blocks, reading each block's id and type. */
export declare class SSECarrier {
  readonly binary: false;
  count: number;
  ended: boolean;
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
export const MAX_FRAME: number;
/** Cuts a binary stream into frame payloads without concatenating chunks. */
export class FrameReader {
  constructor(maxFrame?: number);
  readonly pending: boolean;
  push(chunk: Uint8Array, onPayload: (payload: Uint8Array) => void): void;
}
