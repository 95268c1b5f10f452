// Seeded random AG-UI events for the decoder's differential tests and the
// benchmark: every event type of the wire, optional members present or
// not, strings ASCII, non-ASCII and long, dynamic values nested.

// rng returns a seeded generator of numbers in [0, 1) (mulberry32).
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABETS = ["abcdefghijklmnopqrstuvwxyz0123456789 _-", "äöüßéèç", "日本語テキスト", "😀🚀🎉", "\u0000\t\n\"\\", "\ufeff"];

function str(r, max = 24) {
  const n = r() < 0.05 ? 40 + Math.floor(r() * 300) : Math.floor(r() * max);
  let s = "";
  const alpha = ALPHABETS[r() < 0.7 ? 0 : Math.floor(r() * ALPHABETS.length)];
  const chars = Array.from(alpha);
  for (let i = 0; i < n; i++) s += chars[Math.floor(r() * chars.length)];
  return s;
}

function num(r) {
  switch (Math.floor(r() * 5)) {
    case 0:
      return Math.floor(r() * 1000);
    case 1:
      return (r() - 0.5) * 1e6;
    case 2:
      return -Math.floor(r() * 1e15);
    case 3:
      return 0;
    default:
      return r();
  }
}

function value(r, depth = 0) {
  const k = Math.floor(r() * (depth > 2 ? 4 : 6));
  switch (k) {
    case 0:
      return null;
    case 1:
      return num(r);
    case 2:
      return str(r);
    case 3:
      return r() < 0.5;
    case 4:
      return object(r, depth + 1);
    default: {
      const a = [];
      const n = Math.floor(r() * 4);
      for (let i = 0; i < n; i++) a.push(value(r, depth + 1));
      return a;
    }
  }
}

function object(r, depth = 0) {
  const o = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) o[str(r, 8) || "k"] = value(r, depth + 1);
  return o;
}

const maybe = (r, p, f) => (r() < p ? f() : undefined);

function clean(o) {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

function base(r, type) {
  return clean({
    type,
    timestamp: maybe(r, 0.3, () => Math.floor(r() * 2e12)),
    rawEvent: maybe(r, 0.1, () => value(r)),
    metadata: maybe(r, 0.2, () => object(r)),
  });
}

const ROLES = ["developer", "system", "assistant", "user"];

function part(r) {
  const t = ["text", "image", "audio", "video", "document"][Math.floor(r() * 5)];
  if (t === "text") return clean({ type: "text", text: str(r), id: maybe(r, 0.3, () => str(r)) });
  const st = ["data", "url"][Math.floor(r() * 2)];
  const source = st === "data" ? { type: "data", value: str(r), mimeType: "image/png" } : clean({ type: "url", value: "https://x.test/" + str(r, 6), mimeType: maybe(r, 0.5, () => "image/jpeg") });
  return clean({ type: t, source, id: maybe(r, 0.3, () => str(r)), metadata: maybe(r, 0.2, () => object(r)) });
}

function message(r) {
  switch (Math.floor(r() * 5)) {
    case 0:
      return { id: str(r, 8) || "m", role: "user", content: r() < 0.5 ? str(r) : [part(r)] };
    case 1:
      return clean({
        id: str(r, 8) || "m",
        role: "assistant",
        content: maybe(r, 0.7, () => str(r)),
        toolCalls: maybe(r, 0.4, () => [{ id: "tc" + str(r, 4), type: "function", function: { name: str(r, 8) || "f", arguments: JSON.stringify(object(r)) } }]),
      });
    case 2:
      return { id: str(r, 8) || "m", role: "tool", content: str(r), toolCallId: "tc" + str(r, 4) };
    case 3:
      return { id: str(r, 8) || "m", role: ROLES[Math.floor(r() * 3)], content: str(r) };
    default:
      return { id: str(r, 8) || "m", role: "activity", activityType: str(r, 8) || "a", content: object(r) };
  }
}

function patch(r) {
  const op = ["add", "remove", "replace", "move", "copy", "test"][Math.floor(r() * 6)];
  const p = { op, path: "/" + str(r, 6) };
  if (op === "move" || op === "copy") p.from = "/" + str(r, 6);
  if (op === "add" || op === "replace" || op === "test") p.value = value(r);
  return p;
}

// randomEvent returns one random event of a random type.
export function randomEvent(r) {
  const id = () => str(r, 10) || "id";
  const sub = () => maybe(r, 0.1, () => id());
  const kinds = [
    () => clean({ ...base(r, "TEXT_MESSAGE_START"), messageId: id(), role: maybe(r, 0.5, () => ROLES[Math.floor(r() * 4)]), name: maybe(r, 0.2, () => str(r)), subagentRunId: sub() }),
    () => clean({ ...base(r, "TEXT_MESSAGE_CONTENT"), messageId: id(), delta: str(r) || "x", subagentRunId: sub() }),
    () => clean({ ...base(r, "TEXT_MESSAGE_END"), messageId: id(), subagentRunId: sub() }),
    () => clean({ ...base(r, "TEXT_MESSAGE_CHUNK"), messageId: maybe(r, 0.8, id), delta: maybe(r, 0.8, () => str(r)) }),
    () => clean({ ...base(r, "TOOL_CALL_START"), toolCallId: id(), toolCallName: id(), parentMessageId: maybe(r, 0.5, id) }),
    () => clean({ ...base(r, "TOOL_CALL_ARGS"), toolCallId: id(), delta: str(r) }),
    () => clean({ ...base(r, "TOOL_CALL_END"), toolCallId: id() }),
    () => clean({ ...base(r, "TOOL_CALL_CHUNK"), toolCallId: maybe(r, 0.8, id), toolCallName: maybe(r, 0.5, id), delta: maybe(r, 0.8, () => str(r)) }),
    () => clean({ ...base(r, "TOOL_CALL_RESULT"), messageId: id(), toolCallId: id(), content: r() < 0.7 ? str(r) : [part(r)], role: maybe(r, 0.3, () => "tool") }),
    () => ({ ...base(r, "STATE_SNAPSHOT"), snapshot: r() < 0.8 ? object(r) : value(r) }),
    () => ({ ...base(r, "STATE_DELTA"), delta: Array.from({ length: Math.floor(r() * 4) }, () => patch(r)) }),
    () => ({ ...base(r, "MESSAGES_SNAPSHOT"), messages: Array.from({ length: Math.floor(r() * 4) }, () => message(r)) }),
    () => clean({ ...base(r, "RAW"), event: value(r), source: maybe(r, 0.5, id) }),
    () => clean({ ...base(r, "CUSTOM"), name: id(), value: value(r) }),
    () => clean({ ...base(r, "RUN_STARTED"), threadId: id(), runId: id(), parentRunId: maybe(r, 0.2, id) }),
    () =>
      clean({
        ...base(r, "RUN_FINISHED"),
        threadId: id(),
        runId: id(),
        result: maybe(r, 0.4, () => value(r)),
        outcome: maybe(r, 0.3, () => (r() < 0.5 ? { type: "success" } : { type: "interrupt", interrupts: [clean({ id: id(), reason: str(r) || "why", message: maybe(r, 0.5, () => str(r)) })] })),
      }),
    () => clean({ ...base(r, "RUN_ERROR"), message: str(r) || "boom", code: maybe(r, 0.5, id) }),
    () => clean({ ...base(r, "STEP_STARTED"), stepName: id() }),
    () => clean({ ...base(r, "STEP_FINISHED"), stepName: id() }),
    () => clean({ ...base(r, "ACTIVITY_SNAPSHOT"), messageId: id(), activityType: id(), content: object(r), replace: maybe(r, 0.5, () => r() < 0.5) }),
    () => ({ ...base(r, "ACTIVITY_DELTA"), messageId: id(), activityType: id(), patch: Array.from({ length: 1 + Math.floor(r() * 3) }, () => patch(r)) }),
    () => ({ ...base(r, "REASONING_START"), messageId: id() }),
    () => ({ ...base(r, "REASONING_MESSAGE_START"), messageId: id(), role: "reasoning" }),
    () => ({ ...base(r, "REASONING_MESSAGE_CONTENT"), messageId: id(), delta: str(r) || "x" }),
    () => ({ ...base(r, "REASONING_MESSAGE_END"), messageId: id() }),
    () => clean({ ...base(r, "REASONING_MESSAGE_CHUNK"), messageId: maybe(r, 0.8, id), delta: maybe(r, 0.8, () => str(r)) }),
    () => ({ ...base(r, "REASONING_END"), messageId: id() }),
    () => ({ ...base(r, "REASONING_ENCRYPTED_VALUE"), subtype: r() < 0.5 ? "message" : "tool-call", entityId: id(), encryptedValue: str(r) }),
    () => clean({ ...base(r, "SUBAGENT_STARTED"), subagentRunId: id(), name: id(), description: maybe(r, 0.5, () => str(r)) }),
    () => clean({ ...base(r, "SUBAGENT_FINISHED"), subagentRunId: id(), result: maybe(r, 0.5, () => value(r)), outcome: maybe(r, 0.5, () => ({ type: "success" })) }),
    () => clean({ ...base(r, "SUBAGENT_ERROR"), subagentRunId: id(), message: str(r) || "boom", code: maybe(r, 0.5, id) }),
  ];
  return kinds[Math.floor(r() * kinds.length)]();
}
