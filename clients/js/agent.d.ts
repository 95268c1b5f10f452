import { HttpAgent, type HttpAgentConfig } from "@ag-ui/client";
import type { CreateFetchOptions } from "./index.js";

/** The Accept header AgwireAgent sends: binary first, SSE as the fallback. */
export const AGWIRE_ACCEPT: string;

/**
 * HttpAgent reading the binary stream with agwire's decoder (SSE when the server answers with
 * it), through createFetch: resume, keep-alives and the limits are the companion's. A frame
 * over `maxFrameBytes`, an SSE event over `maxSseEventBytes` or `maxQuietMs` without an event
 * rejects `runAgent` (and reaches `onRunFailed`) with the companion's `AgwireLimitError`; a
 * malformed frame, or a body cut mid-frame that cannot be resumed, with a `DecodeError`.
 */
export class AgwireAgent extends HttpAgent {
  /**
   * `agwire`: createFetch's options (limits included), applied around the configuration's
   * `fetch`; checked here (a TypeError for a bad one, as createFetch throws).
   */
  constructor(config: HttpAgentConfig & { agwire?: Omit<CreateFetchOptions, "fetch"> });
  agwire: Omit<CreateFetchOptions, "fetch">;
}
