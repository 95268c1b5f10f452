// Prints, as one JSON object, the values @ag-ui/core's schema allows for
// each restricted string field agwire checks, read from the zod schemas
// themselves (enums, literals, and the discriminators of unions).
import * as s from "@ag-ui/core/schemas";

function values(schema) {
  let z = schema;
  while (z && typeof z.unwrap === "function" && !(z.options || z.values)) z = z.unwrap();
  if (Array.isArray(z.options) && z.options.every((o) => typeof o === "string")) return [...z.options];
  if (z.values) return [...z.values];
  if (z.value !== undefined) return [z.value];
  throw new Error("not an enum or literal: " + (z.def && z.def.type));
}

function discriminators(union, key) {
  return union.options.flatMap((o) => values(o.shape[key]));
}

const out = {
  textMessageStartRole: values(s.TextMessageStartEventSchema.shape.role),
  textMessageChunkRole: values(s.TextMessageChunkEventSchema.shape.role),
  toolCallResultRole: values(s.ToolCallResultEventSchema.shape.role),
  reasoningMessageStartRole: values(s.ReasoningMessageStartEventSchema.shape.role),
  reasoningEncryptedValueSubtype: values(s.ReasoningEncryptedValueEventSchema.shape.subtype),
  toolCallType: values(s.ToolCallSchema.shape.type),
  resumeEntryStatus: values(s.ResumeEntrySchema.shape.status),
  messageRole: values(s.RoleSchema),
  runFinishedOutcomeType: discriminators(s.RunFinishedOutcomeSchema, "type"),
  subagentFinishedOutcomeType: discriminators(s.SubagentFinishedOutcomeSchema, "type"),
  patchOp: s.JsonPatchOperationSchema.options.flatMap((o) => values(o.shape.op)),
};
process.stdout.write(JSON.stringify(out) + "\n");
