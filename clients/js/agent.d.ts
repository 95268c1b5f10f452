import { HttpAgent, type HttpAgentConfig } from "@ag-ui/client";
import type { CreateFetchOptions } from "./index.js";

/** The Accept header AgwireAgent sends: binary first, SSE as the fallback. */
export const AGWIRE_ACCEPT: string;

/** HttpAgent reading the binary stream with agwire's decoder (SSE when the server answers with it). */
export class AgwireAgent extends HttpAgent {
  constructor(config: HttpAgentConfig & { agwire?: Omit<CreateFetchOptions, "fetch"> });
}
