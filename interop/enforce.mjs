// Runs @ag-ui/core 1.0.0's EventSchemas over events, as @ag-ui/client's
// enforcement stage does after its compatibility boundary, for
// the Go test of interop/enforce_test.go.
//
//   node enforce.mjs < events.jsonl
//
// Each stdin line is one JSON event; each stdout line is
// {"known": bool, "ok": bool, "error": "…"}: known is false for an event
// type the protocol does not describe (the client drops it), ok whether
// the schema accepts the event.

import { createInterface } from "node:readline";
import { EventType } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";

const known = new Set(Object.values(EventType));
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const ev = JSON.parse(line);
  if (ev === null || typeof ev !== "object" || !known.has(ev.type)) {
    console.log(JSON.stringify({ known: false, ok: false }));
    continue;
  }
  // The client's compatibility boundary runs first and reads these pre-1.0
  // nulls as absent fields.
  if (ev.rawEvent === null) delete ev.rawEvent;
  if ((ev.type === "RUN_FINISHED" || ev.type === "SUBAGENT_FINISHED") && ev.result === null) delete ev.result;
  if ((ev.type === "TOOL_CALL_START" || ev.type === "TOOL_CALL_CHUNK") && ev.parentMessageId === null) delete ev.parentMessageId;
  if (ev.type === "RUN_FINISHED" && ev.outcome === null) delete ev.outcome;
  const r = EventSchemas.safeParse(ev);
  console.log(JSON.stringify({ known: true, ok: r.success, error: r.success ? "" : r.error.issues.map((i) => i.path.join(".") + ": " + i.message).join("; ") }));
}
