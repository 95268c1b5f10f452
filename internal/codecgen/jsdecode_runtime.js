// The reading primitives, the dynamic values and the event finish of the
// generated JavaScript decoder. internal/codecgen copies this text into
// clients/js/decode.gen.js ahead of the per-message readers it generates from
// the field tables; edit it here, then run go generate ./codec.
//
// What the decoder returns and what it refuses follow @ag-ui/proto 1.0.0's
// decode, which is three passes over each frame: a framing check of every
// event message, a merge of repeated occurrences of singular messages, and
// ts-proto's readers. Here they are one pass over the frame with one cursor:
//   - a message the peer checks (every message but ToolCall.Function,
//     Context, Usage and the content sources, which it never opens before its
//     readers do) is read strictly: tags of at most five bytes, no field 0,
//     no wire type 6 or 7, groups closed by their own number, nothing past the
//     message's end;
//   - a singular message that occurs again is read into the object the first
//     occurrence made, which is what reading the concatenated occurrences
//     gives when each is well-formed; when one is not, the frame is merged
//     as the peer merges it (merge, below) and read again;
//   - a Value keeps only its last arm, a struct or list arm that repeats
//     merges, a Struct entry whose value carries no arm is left out;
//   - strings are UTF-8 read as TextDecoder reads it without `fatal`:
//     malformed sequences become U+FFFD, a leading U+FEFF stays.

/** DecodeError: a payload that is not an AG-UI 1.0 event; `offset` is where reading stopped. */
export class DecodeError extends Error {
  constructor(message, offset) {
    super(`agwire: ${message}${offset === undefined ? "" : ` (at byte ${offset})`}`);
    this.name = "DecodeError";
    this.offset = offset;
  }
}

/**
 * UnknownEventTypeError: the envelope carries only arms this build does not
 * know, each a well-formed message — an event of a later protocol, which the
 * stock client drops with a warning rather than failing the run.
 */
export class UnknownEventTypeError extends DecodeError {
  constructor(offset) {
    super("the event is of a type this decoder does not know", offset);
    this.name = "UnknownEventTypeError";
  }
}

/**
 * OutOfStepError: a malformed frame that the peer reads out of step with
 * its structure, and may accept, where this decoder refuses it: a message
 * the peer decodes unchecked (ToolCall.Function, Context, Usage, a content
 * source) that ends early at a tag 0 or an end-group tag, or runs past its
 * end; the peer reads the rest of it as fields of the message around it. No
 * encoder writes such a frame.
 */
export class OutOfStepError extends DecodeError {
  constructor(offset) {
    super("a frame the AG-UI peer reads out of step with its structure: a message ends inside itself (a tag 0 or an end-group tag) or past its end", offset);
    this.name = "OutOfStepError";
  }
}

let buf = new Uint8Array(0); // the payload being read
let pos = 0; // the cursor
let len = 0; // buf.length
let base; // the event's base event, read aside

function bad(why) {
  throw new DecodeError(why, pos);
}

function eof() {
  throw new DecodeError("the payload ends inside a field", pos);
}

// U32 reads a varint as the peer's uint32 does: up to ten bytes, the bits
// beyond 32 dropped.
function U32() {
  if (pos >= len) eof();
  let b = buf[pos++];
  if (b < 0x80) return b;
  let r = b & 0x7f;
  for (let shift = 7; shift < 28; shift += 7) {
    if (pos >= len) eof();
    b = buf[pos++];
    r |= (b & 0x7f) << shift;
    if (b < 0x80) return r;
  }
  if (pos >= len) eof();
  b = buf[pos++];
  r |= (b & 0x0f) << 28;
  for (let n = 5; b >= 0x80; n++) {
    if (n === 10) bad("a varint longer than ten bytes");
    if (pos >= len) eof();
    b = buf[pos++];
  }
  return r >>> 0;
}

// T reads a tag of a checked message: at most five bytes, a field number
// above 0, a wire type of 0 to 5.
function T() {
  if (pos < len) {
    const b = buf[pos];
    if (b < 0x80 && b >= 8 && (b & 7) < 6) {
      pos++;
      return b;
    }
  }
  const start = pos;
  const t = U32();
  if (pos - start > 5 || (pos - start === 5 && buf[pos - 1] > 0x0f)) bad("a tag wider than 32 bits");
  if (t >>> 3 === 0 || (t & 7) > 5) bad(`an invalid tag (field ${t >>> 3}, wire type ${t & 7})`);
  return t;
}

// L reads a length and returns where the bytes it counts end, which must be
// within end.
function L(end) {
  const n = U32();
  const e = pos + n;
  if (e > end) bad("a length past the end of its message");
  return e;
}

// skipVarint skips a varint of any length, as the peer's skip does.
function skipVarint() {
  while (pos < len && buf[pos] >= 0x80) pos++;
  if (pos >= len) eof();
  pos++;
}

// skipGroup skips a group's fields up to its end tag, which must carry
// field (or any number when field is 0).
function skipGroup(field, depth) {
  if (depth > 100) bad("groups nested too deep");
  for (;;) {
    const t = T();
    const wt = t & 7;
    if (wt === 4) {
      if (field !== 0 && t >>> 3 !== field) bad("a group closed by another field's end tag");
      return;
    }
    skipOne(t, depth + 1);
  }
}

function skipOne(t, depth) {
  switch (t & 7) {
    case 0:
      skipVarint();
      break;
    case 1:
      pos += 8;
      break;
    case 2: {
      const n = U32(); // read before pos is: pos += U32() would add to the old pos
      pos += n;
      break;
    }
    case 3:
      skipGroup(t >>> 3, depth);
      break;
    case 5:
      pos += 4;
      break;
    default:
      bad(`wire type ${t & 7} where a field starts`);
  }
  if (pos > len) eof();
}

// K skips an unknown field of a checked message.
function K(t, end) {
  skipOne(t, 0);
  if (pos > end) bad("a field past the end of its message");
}

// KL skips an unknown field of a message the peer reads unchecked (an
// end-group tag or tag 0 there is an OutOfStepError, before this).
function KL(wt) {
  if (wt === 3) skipGroup(0, 0);
  else skipOne(wt, 0);
}

// Strings. ASCII up to ASCII_ARGS bytes is one String.fromCharCode call
// with the bytes as arguments (ascii, generated at the end of this file):
// faster than TextDecoder's call up to about 32 bytes, and flat. Longer
// strings, and any that is not well-formed UTF-8, go to TextDecoder, which
// also makes each malformed sequence's U+FFFD; short well-formed multi-byte
// text is decoded here (utf8Multi). Measured by
// clients/js/bench/strings.bench.mjs; on the recorded-style run 32 was
// faster than 64.
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
// utf8Multi's UTF-16 units: a string of up to ASCII_ARGS bytes has at most
// as many units (a 4-byte sequence is two). 32 is ASCII_ARGS, which the
// generator declares at the end of the file, after this runs.
const units = new Uint16Array(32);

function utf8(s, e) {
  const n = e - s;
  if (n > ASCII_ARGS) return n >= LONG_MIN ? long(s, e) : textDecoder.decode(buf.subarray(s, e));
  for (let i = s; i < e; i++) if (buf[i] >= 0x80) return utf8Multi(s, e);
  return ascii(s, n);
}

// bufView returns a DataView of buf (one per payload, made when first
// needed): comparisons read four bytes at a time through it.
let view = null;
let viewOf = null;

function bufView() {
  if (viewOf !== buf) {
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    viewOf = buf;
  }
  return view;
}

// same reports whether the n bytes at buf[s] equal those at k[at] (k a
// DataView), four at a time.
function same(s, k, at, n) {
  const v = bufView();
  let i = 0;
  const last = n - 4;
  while (i <= last && v.getInt32(s + i, true) === k.getInt32(at + i, true)) i += 4;
  if (i <= last) return false;
  while (i < n && v.getUint8(s + i) === k.getUint8(at + i)) i++;
  return i === n;
}

// Long text that is not ASCII costs TextDecoder many times what ASCII
// does (it builds a two-byte string), and it recurs: each MESSAGES_SNAPSHOT repeats the conversation's earlier
// messages. So such strings are kept by byte length, their bytes copied
// into one arena, and bytes equal to a kept string's return it: on the
// recorded-style run most of the snapshots' long contents are repeats.
// Bounded: the arena's LONG_ARENA bytes (allocated on first use, emptied
// when full), strings of at most LONG_MAX bytes.
const LONG_MIN = 128;
const LONG_MAX = 64 * 1024;
const LONG_ARENA = 1024 * 1024;
const longKept = new Map(); // byte length -> { at: the bytes' offset in the arena, str }
let arena = null;
let arenaView = null;
let arenaUsed = 0;

function long(s, e) {
  const n = e - s;
  const kept = longKept.get(n);
  if (kept !== undefined && same(s, arenaView, kept.at, n)) return kept.str;
  const str = textDecoder.decode(buf.subarray(s, e));
  if (str.length !== n && n <= LONG_MAX) {
    if (kept !== undefined) {
      // The same length: the new bytes take the old ones' place.
      arena.set(buf.subarray(s, e), kept.at);
      kept.str = str;
    } else {
      if (arena === null) {
        arena = new Uint8Array(LONG_ARENA);
        arenaView = new DataView(arena.buffer);
      }
      if (arenaUsed + n > LONG_ARENA) {
        longKept.clear();
        arenaUsed = 0;
      }
      arena.set(buf.subarray(s, e), arenaUsed);
      longKept.set(n, { at: arenaUsed, str });
      arenaUsed += n;
    }
  }
  return str;
}

// Each string field of the generated readers has a memo slot: the bytes and
// the string it read last. Ids repeat from event to event (a message's id on
// each of its deltas), and comparing bytes costs less than a new string.
const MEMO_SLOTS = 256;
const MEMO_MAX = 32; // bytes: longer strings are read without a memo
const memoLen = new Int32Array(MEMO_SLOTS).fill(-1);
const memoBytes = new Uint8Array(MEMO_SLOTS * MEMO_MAX);
const memoWords = new Int32Array(memoBytes.buffer);
// The words are built little-endian; on a big-endian machine memoWords
// reads them the other way round, so there the bytes are compared singly.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const memoStr = new Array(MEMO_SLOTS).fill("");

function memo(s, e, slot) {
  const n = e - s;
  if (n > MEMO_MAX) return utf8(s, e);
  const at = slot * MEMO_MAX;
  if (memoLen[slot] === n) {
    // Four bytes to a comparison against the slot's words, put together
    // here: a DataView of the payload (same) costs more than it saves on
    // strings this short.
    const b = buf;
    let i = 0;
    let w = at >> 2;
    const last = LITTLE_ENDIAN ? n - 4 : -1;
    while (i <= last && (b[s + i] | (b[s + i + 1] << 8) | (b[s + i + 2] << 16) | (b[s + i + 3] << 24)) === memoWords[w]) {
      i += 4;
      w++;
    }
    if (i > last) {
      while (i < n && memoBytes[at + i] === b[s + i]) i++;
      if (i === n) return memoStr[slot];
    }
  }
  const str = utf8(s, e);
  memoLen[slot] = n;
  for (let i = 0; i < n; i++) memoBytes[at + i] = buf[s + i];
  memoStr[slot] = str;
  return str;
}

// SM reads a string field of a checked message through memo slot.
function SM(end, slot) {
  const n = U32();
  const s = pos;
  const e = s + n;
  if (e > end) bad("a string past the end of its message");
  pos = e;
  return memo(s, e, slot);
}

// utf8Multi decodes a short string holding non-ASCII bytes; one that is
// not well-formed goes to TextDecoder.
function utf8Multi(s, e) {
  let k = 0;
  let i = s;
  while (i < e) {
    const c = buf[i];
    if (c < 0x80) {
      units[k++] = c;
      i++;
      continue;
    }
    let cp;
    if (c >= 0xc2 && c <= 0xdf && i + 1 < e) {
      const c1 = buf[i + 1];
      if ((c1 & 0xc0) !== 0x80) return textDecoder.decode(buf.subarray(s, e));
      cp = ((c & 0x1f) << 6) | (c1 & 0x3f);
      i += 2;
    } else if (c >= 0xe0 && c <= 0xef && i + 2 < e) {
      const c1 = buf[i + 1];
      const c2 = buf[i + 2];
      const lo = c === 0xe0 ? 0xa0 : 0x80;
      const hi = c === 0xed ? 0x9f : 0xbf;
      if (c1 < lo || c1 > hi || (c2 & 0xc0) !== 0x80) return textDecoder.decode(buf.subarray(s, e));
      cp = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
      i += 3;
    } else if (c >= 0xf0 && c <= 0xf4 && i + 3 < e) {
      const c1 = buf[i + 1];
      const c2 = buf[i + 2];
      const c3 = buf[i + 3];
      const lo = c === 0xf0 ? 0x90 : 0x80;
      const hi = c === 0xf4 ? 0x8f : 0xbf;
      if (c1 < lo || c1 > hi || (c2 & 0xc0) !== 0x80 || (c3 & 0xc0) !== 0x80) return textDecoder.decode(buf.subarray(s, e));
      cp = (((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f)) - 0x10000;
      units[k++] = 0xd800 + (cp >> 10);
      cp = 0xdc00 + (cp & 0x3ff);
      i += 4;
    } else {
      return textDecoder.decode(buf.subarray(s, e));
    }
    units[k++] = cp;
  }
  return chars(k);
}

// S reads a string field of a checked message.
function S(end) {
  const n = U32();
  const s = pos;
  const e = s + n;
  if (e > end) bad("a string past the end of its message");
  pos = e;
  return utf8(s, e);
}

// SL reads a string field of an unchecked message: only the payload bounds it.
function SL() {
  const n = U32();
  const s = pos;
  const e = s + n;
  if (e > len) eof();
  pos = e;
  return utf8(s, e);
}

// I32 reads an enum (int32).
function I32() {
  return U32() | 0;
}

// B reads a bool: any varint but 0 is true.
function B() {
  if (pos >= len) eof();
  const b = buf[pos];
  if (b < 0x80) {
    pos++;
    return b !== 0;
  }
  const [lo, hi] = varint64();
  return lo !== 0 || hi !== 0;
}

function varint64() {
  let lo = 0;
  let hi = 0;
  let b;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= len) eof();
    b = buf[pos++];
    lo |= (b & 0x7f) << shift;
    if (b < 0x80) return [lo, hi];
  }
  if (pos >= len) eof();
  b = buf[pos++];
  lo |= (b & 0x0f) << 28;
  hi = (b & 0x70) >> 4;
  if (b < 0x80) return [lo, hi];
  for (let shift = 3; shift <= 31; shift += 7) {
    if (pos >= len) eof();
    b = buf[pos++];
    hi |= (b & 0x7f) << shift;
    if (b < 0x80) return [lo, hi];
  }
  bad("a varint longer than ten bytes");
}

// I64 reads an int64 as a number; one outside ±(2^53 - 1) is refused, as the
// peer refuses it.
function I64() {
  const [lo, hi] = varint64();
  const h = hi >>> 0;
  const v = (h >= 0x80000000 ? h - 4294967296 : h) * 4294967296 + (lo >>> 0);
  if (v > Number.MAX_SAFE_INTEGER || v < Number.MIN_SAFE_INTEGER) bad("an int64 outside the range a number holds exactly");
  return v;
}

const f64 = new DataView(new ArrayBuffer(8));

// F64 reads a double (little-endian).
function F64() {
  if (pos + 8 > len) eof();
  for (let i = 0; i < 8; i++) f64.setUint8(i, buf[pos + i]);
  pos += 8;
  return f64.getFloat64(0, true);
}

// Dynamic values: google.protobuf.Value, Struct and ListValue as plain JS
// values (null, number, string, boolean, object, array); a Value with no arm
// is undefined.

// V reads a Value ending at end into v, the value of its earlier
// occurrences (undefined for none). Its struct and list arms are read once
// the Value is: an arm that a later one replaces is never opened, by the
// peer either, so what is inside it does not matter.
function V(end, v) {
  let kind = 0; // 5 while the last arm read is a struct, 6 a list
  let into; // the object or array those arms merge into
  let spans = null; // their payloads, start and end
  while (pos < end) {
    const t = T();
    switch (t) {
      case 8:
        U32();
        v = null;
        kind = 0;
        break;
      case 17:
        v = F64();
        kind = 0;
        break;
      case 26:
        v = S(end);
        kind = 0;
        break;
      case 32:
        v = B();
        kind = 0;
        break;
      case 42:
      case 50: {
        const k = t >>> 3;
        const e = L(end);
        if (kind !== k) {
          const same = kind === 0 && (k === 5 ? v !== null && typeof v === "object" && !Array.isArray(v) : Array.isArray(v));
          into = same ? v : undefined;
          kind = k;
          spans = [];
        }
        spans.push(pos, e);
        pos = e;
        break;
      }
      default:
        K(t, end);
    }
    if (pos > end) bad("a field past the end of its message");
  }
  if (kind !== 0) {
    for (let i = 0; i < spans.length; i += 2) {
      pos = spans[i];
      into = kind === 5 ? O(spans[i + 1], into) : A(spans[i + 1], into);
    }
    pos = end;
    v = into;
  }
  return v;
}

// O reads a Struct ending at end into o (or a new object).
function O(end, o) {
  if (o === undefined) o = {};
  while (pos < end) {
    const t = T();
    if (t === 10) {
      const e = L(end);
      let key = "";
      let v;
      while (pos < e) {
        const u = T();
        if (u === 10) key = S(e);
        else if (u === 18) v = V(L(e), v);
        else K(u, e);
        if (pos > e) bad("a field past the end of its message");
      }
      // A key "__proto__" never reaches the peer's object: its assignment
      // sets the prototype of the map it reads into.
      if (v !== undefined && key !== "__proto__") o[key] = v;
    } else {
      K(t, end);
    }
  }
  return o;
}

// A reads a ListValue ending at end onto a (or a new array); an element
// with no arm is undefined, as the peer has it.
function A(end, a) {
  if (a === undefined) a = [];
  while (pos < end) {
    const t = T();
    if (t === 10) a.push(V(L(end), undefined));
    else K(t, end);
  }
  return a;
}

// Content parts (InputContent: a oneof of five part messages) and their
// sources (InputContentSource: a oneof of three), mapped by hand as the Go
// coders map them.

const PART_TYPES = ["", "text", "image", "audio", "video", "document"];
const SOURCE_TYPES = ["", "data", "url", "file"];

// P reads an InputContent ending at end into p ({arm, fields}).
function P(end, p) {
  if (p === undefined) p = { arm: 0, f: undefined };
  while (pos < end) {
    const t = T();
    const arm = t >>> 3;
    if ((t & 7) === 2 && arm >= 1 && arm <= 5) {
      if (p.arm !== 0 && p.arm !== arm) bad("a content part with two arms");
      p.f = arm === 1 ? textPart(L(end), p.arm === arm ? p.f : undefined) : mediaPart(L(end), p.arm === arm ? p.f : undefined);
      p.arm = arm;
    } else {
      K(t, end);
    }
    if (pos > end) bad("a field past the end of its message");
  }
  return p;
}

function textPart(end, m) {
  if (m === undefined) m = { text: "" };
  while (pos < end) {
    const t = T();
    switch (t) {
      case 10:
        m.text = S(end);
        break;
      case 18:
        m.id = S(end);
        break;
      case 26: {
        const v = V(L(end), m.metadata);
        if (v !== undefined) m.metadata = v;
        break;
      }
      default:
        K(t, end);
    }
    if (pos > end) bad("a field past the end of its message");
  }
  return m;
}

function mediaPart(end, m) {
  if (m === undefined) m = {};
  while (pos < end) {
    const t = T();
    switch (t) {
      case 10:
        m.source = source(L(end), m.source);
        break;
      case 18: {
        const v = V(L(end), m.metadata);
        if (v !== undefined) m.metadata = v;
        break;
      }
      case 26:
        m.id = S(end);
        break;
      default:
        K(t, end);
    }
    if (pos > end) bad("a field past the end of its message");
  }
  return m;
}

function source(end, s) {
  if (s === undefined) s = { arm: 0, f: undefined };
  while (pos < end) {
    const t = T();
    const arm = t >>> 3;
    if ((t & 7) === 2 && arm >= 1 && arm <= 3) {
      if (s.arm !== 0 && s.arm !== arm) bad("a content source with two arms");
      s.f = sourceArm(L(end), arm, s.arm === arm ? s.f : undefined);
      s.arm = arm;
    } else {
      K(t, end);
    }
    if (pos > end) bad("a field past the end of its message");
  }
  return s;
}

// sourceArm reads one source message, which the peer decodes unchecked.
function sourceArm(end, arm, m) {
  if (m === undefined) m = arm === 1 ? { value: "", mimeType: "" } : { value: "" };
  while (pos < end) {
    const t = U32();
    if (t === 10) {
      m.value = SL();
      continue;
    }
    if ((arm === 1 && t === 18) || (arm === 2 && t === 18) || (arm === 3 && t === 26)) {
      m.mimeType = SL();
      continue;
    }
    if (arm === 3 && t === 18) {
      m.provider = SL();
      continue;
    }
    if ((t & 7) === 4 || t === 0) throw new OutOfStepError(pos);
    KL(t & 7);
  }
  if (pos !== end) throw new OutOfStepError(pos);
  return m;
}

// partOut turns a read part into the event's form, or undefined for a part
// of no known arm (or whose source has none), which the peer drops with a
// warning.
function partOut(p) {
  if (p.arm === 0) return undefined;
  const f = p.f;
  const out = { type: PART_TYPES[p.arm] };
  if (p.arm === 1) {
    if (f.id !== undefined) out.id = f.id;
    out.text = f.text;
    if (f.metadata !== undefined) out.metadata = f.metadata;
    return out;
  }
  if (f.source !== undefined) {
    if (f.source.arm === 0) return undefined;
  }
  if (f.id !== undefined) out.id = f.id;
  if (f.source !== undefined) {
    const s = f.source.f;
    const src = { type: SOURCE_TYPES[f.source.arm], value: s.value };
    if (s.provider !== undefined) src.provider = s.provider;
    if (s.mimeType !== undefined) src.mimeType = s.mimeType;
    out.source = src;
  }
  if (f.metadata !== undefined) out.metadata = f.metadata;
  return out;
}

function warnDroppedPart() {
  if (typeof process !== "undefined" && process.env !== undefined && process.env.SUPPRESS_TRANSFORMATION_WARNINGS) return;
  console.warn("[ag-ui][proto] Dropped a content part this build does not know: the protocol has a variant this SDK predates.");
}

function partsOut(parts) {
  const out = [];
  for (const p of parts) {
    const m = partOut(p);
    if (m === undefined) warnDroppedPart();
    else out.push(m);
  }
  return out;
}

// The wire's Message carries every role's fields; which one is `content`
// depends on the role, as the peer has it.
const MESSAGE_WIRE = new Set(["contentParts", "activityContent"]);
const MESSAGE_WIRE_NO_CALLS = new Set(["contentParts", "activityContent", "toolCalls"]);
const KNOWN_ROLES = new Set(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]);

function messageOut(w) {
  const role = w.role;
  const known = KNOWN_ROLES.has(role);
  const nParts = w.contentParts.length;
  const usesParts = known ? role === "user" || role === "tool" : nParts > 0;
  const usesMap = known ? role === "activity" : !usesParts && w.activityContent !== undefined;
  if (!known && (w.content !== undefined ? 1 : 0) + (nParts > 0 ? 1 : 0) + (w.activityContent !== undefined ? 1 : 0) > 1) bad("a message with more than one content form");
  if (known) {
    if (!usesParts && nParts > 0) bad("a message with content parts for a role that has none");
    if (w.activityContent !== undefined && !usesMap) bad("a message with activity content for a role other than activity");
    if (usesMap && w.content !== undefined) bad("an activity message with string content");
    if (usesParts && w.content !== undefined && nParts > 0) bad("a message with both string content and content parts");
  }
  const m = without(w, w.toolCalls.length === 0 ? MESSAGE_WIRE_NO_CALLS : MESSAGE_WIRE);
  if (usesParts && w.content === undefined) m.content = partsOut(w.contentParts);
  if (usesMap && w.activityContent !== undefined) m.content = w.activityContent;
  return m;
}

// future reports whether a frame with no known arm names only arms of a
// later protocol: at least one unknown length-delimited field at the top,
// each such payload well-formed protobuf, no known arm number under any wire
// type, nothing malformed.
function future(isArm) {
  let n = 0;
  pos = 0;
  try {
    while (pos < len) {
      const t = T();
      const wt = t & 7;
      if (isArm(t >>> 3) && wt !== 4) return false;
      if (wt === 2) {
        const e = L(len);
        if (!wellFormed(e)) return false;
        n++;
        pos = e;
      } else if (wt === 4) {
        return false;
      } else {
        skipOne(t, 0);
      }
    }
  } catch (err) {
    if (err instanceof DecodeError) return false;
    throw err;
  }
  return n > 0;
}

function wellFormed(end) {
  const saved = len;
  len = end;
  try {
    while (pos < end) skipOne(T(), 0);
    return true;
  } catch (err) {
    if (err instanceof DecodeError) return false;
    throw err;
  } finally {
    len = saved;
  }
}

// without returns a copy of o without the keys in skip: an object that
// loses a key is slower to use from then on, a copy is not.
function without(o, skip) {
  const out = {};
  for (const k in o) if (!skip.has(k)) out[k] = o[k];
  return out;
}

const RUN_FINISHED_WIRE = new Set(["outcome", "pendingToolCallIds", "interrupts", "usage"]);
const SUBAGENT_FINISHED_WIRE = new Set(["outcome", "interruptIds"]);
const USAGE = new Set(["usage"]);
const CONTENT_PARTS = new Set(["contentParts"]);

// finish moves the base event's fields onto the event (its reader wrote
// the type) and applies what the peer's decode does after reading (outcomes, content,
// patch operation names, empty lists left out).
function finish(ev, type, enumValue) {
  if (base === undefined) bad("an event without its base event");
  if (base.type !== enumValue) bad(`an envelope carrying ${type} whose base event declares type ${base.type}`);
  if (base.timestamp !== undefined) ev.timestamp = base.timestamp;
  if (base.rawEvent !== undefined) ev.rawEvent = base.rawEvent;
  if (base.metadata !== undefined) ev.metadata = base.metadata;
  switch (type) {
    case "MESSAGES_SNAPSHOT":
      ev.messages = ev.messages.map(messageOut);
      break;
    case "RUN_FINISHED": {
      const outcome = ev.outcome;
      const pending = ev.pendingToolCallIds;
      const interrupts = ev.interrupts;
      const usage = ev.usage;
      ev = without(ev, RUN_FINISHED_WIRE);
      if (outcome === "") {
        if (pending.length > 0) ev.pendingToolCallIds = pending;
        if (interrupts.length > 0) ev.interrupts = interrupts;
      } else {
        const o = { type: outcome };
        if (pending.length > 0) o.pendingToolCallIds = pending;
        if (interrupts.length > 0 || outcome === "interrupt") o.interrupts = interrupts;
        ev.outcome = o;
      }
      if (usage.length > 0) ev.usage = usage;
      break;
    }
    case "RUN_ERROR":
      if (ev.usage.length === 0) ev = without(ev, USAGE);
      break;
    case "SUBAGENT_FINISHED": {
      const outcome = ev.outcome;
      const ids = ev.interruptIds;
      ev = without(ev, SUBAGENT_FINISHED_WIRE);
      if (outcome === "") {
        if (ids.length > 0) ev.interruptIds = ids;
      } else {
        const o = { type: outcome };
        if (ids.length > 0) o.interruptIds = ids;
        ev.outcome = o;
      }
      break;
    }
    case "STATE_DELTA":
      for (const op of ev.delta) op.op = PATCH_OPS[op.op] ?? String(op.op);
      break;
    case "ACTIVITY_DELTA":
      for (const op of ev.patch) op.op = PATCH_OPS[op.op] ?? String(op.op);
      break;
    case "TOOL_CALL_RESULT":
      if (ev.content !== undefined && ev.contentParts.length > 0) bad("a tool result with both string content and content parts");
      {
        const parts = ev.contentParts;
        ev = without(ev, CONTENT_PARTS);
        if (ev.content === undefined) ev.content = partsOut(parts);
      }
      break;
    case "RUN_STARTED":
      if (ev.input !== undefined) ev.input.messages = ev.input.messages.map(messageOut);
      break;
  }
  return ev;
}

// check and merge treat a frame as the peer does before reading it. check
// walks the event messages and those they reach (not the dynamic values),
// each occurrence on its own: tags, lengths within their message, one arm
// per content part and source. merge rewrites the frame: the occurrences of
// each singular message concatenated into the first, a oneof arm dropped
// when another follows, level by level along spec (SPECS); it returns
// payload itself when nothing changes. Only frames the one-pass readers
// refuse come here: these tell a frame whose occurrences are malformed only
// apart from one malformed however read.
function check(payload, spec) {
  const saved = [buf, pos, len];
  buf = payload;
  pos = 0;
  len = payload.length;
  try {
    checkLevel(spec, len);
  } finally {
    [buf, pos, len] = saved;
  }
}

function checkLevel(spec, end) {
  let arm = 0;
  while (pos < end) {
    const t = T();
    const num = t >>> 3;
    const wt = t & 7;
    if (wt === 2) {
      const e = L(end);
      if (spec.oneArm && spec.arms.has(num)) {
        if (arm !== 0 && arm !== num) bad("two arms of one oneof");
        arm = num;
      }
      const child = SPECS[spec.child[num]];
      if (child !== undefined && child.check) checkLevel(child, e);
      pos = e;
    } else if (wt === 4) {
      bad("an end-group tag outside a group");
    } else {
      skipOne(t, 0);
      if (pos > end) bad("a field past the end of its message");
    }
  }
}

function merge(payload, spec) {
  const saved = [buf, pos, len];
  buf = payload;
  pos = 0;
  len = payload.length;
  try {
    return mergeLevel(spec);
  } finally {
    [buf, pos, len] = saved;
  }
}

function mergeLevel(spec) {
  const fields = []; // {num, start, end, payloads: [[s, e], ...] | undefined}
  const at = new Map(); // field number -> index in fields of its last occurrence
  let arm = 0;
  let changed = false;
  while (pos < len) {
    const start = pos;
    const t = T();
    const num = t >>> 3;
    const wt = t & 7;
    let payload;
    if (wt === 2) {
      const e = L(len);
      payload = [pos, e];
      pos = e;
    } else if (wt === 4) {
      bad("an end-group tag outside a group");
    } else {
      skipOne(t, 0);
    }
    const isArm = spec.arms !== undefined && spec.arms.has(num) && wt === (spec.armWire?.[num] ?? 2);
    if (isArm) {
      if (arm !== 0 && arm !== num) {
        const i = at.get(arm);
        if (i !== undefined) fields[i] = undefined;
        at.delete(arm);
        changed = true;
      }
      arm = num;
      if (!spec.singular.has(num)) {
        const i = at.get(num);
        if (i !== undefined) {
          fields[i] = undefined;
          at.delete(num);
          changed = true;
        }
      }
    }
    const isMessage = payload !== undefined && (spec.singular.has(num) || spec.child[num] !== undefined);
    const i = at.get(num);
    if (isMessage && spec.singular.has(num) && i !== undefined && fields[i]?.payloads !== undefined) {
      fields[i].payloads.push(payload);
      changed = true;
      continue;
    }
    if (isMessage || isArm) at.set(num, fields.length);
    fields.push({ num, start, end: pos, payloads: isMessage ? [payload] : undefined });
  }
  const parts = [];
  for (const f of fields) {
    if (f === undefined) continue;
    if (f.payloads !== undefined) {
      let body = concat(f.payloads);
      const child = spec.child[f.num];
      let inner = false;
      if (child !== undefined) {
        const m = merge(body, SPECS[child]);
        inner = m !== body;
        body = m;
      }
      if (f.payloads.length > 1 || inner) {
        parts.push(fieldBytes(f.num, body));
        changed = true;
        continue;
      }
    }
    parts.push(buf.subarray(f.start, f.end));
  }
  return changed ? concat(parts.map((p) => (p instanceof Uint8Array ? [p, 0, p.length] : p))) : buf;
}

function concat(spans) {
  // spans: [start, end] of buf, or [bytes, start, end]
  let n = 0;
  for (const s of spans) n += s.length === 2 ? s[1] - s[0] : s[2] - s[1];
  const out = new Uint8Array(n);
  let o = 0;
  for (const s of spans) {
    if (s.length === 2) {
      out.set(buf.subarray(s[0], s[1]), o);
      o += s[1] - s[0];
    } else {
      out.set(s[0].subarray(s[1], s[2]), o);
      o += s[2] - s[1];
    }
  }
  return out;
}

function fieldBytes(num, body) {
  const head = [];
  for (let v = num * 8 + 2; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      head.push(v);
      break;
    }
    head.push((v & 0x7f) | 0x80);
  }
  for (let v = body.length; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      head.push(v);
      break;
    }
    head.push((v & 0x7f) | 0x80);
  }
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

// The merge levels of the dynamic values and the content parts, written by
// hand as their readers are; the generated messages' follow (SPECS).
const SPECS = {
  Value: { singular: new Set([5, 6]), child: { 5: "Struct", 6: "ListValue" }, arms: new Set([1, 2, 3, 4, 5, 6]), armWire: { 1: 0, 2: 1, 3: 2, 4: 0, 5: 2, 6: 2 } },
  Struct: { singular: new Set(), child: { 1: "Struct.FieldsEntry" } },
  "Struct.FieldsEntry": { singular: new Set([2]), child: { 2: "Value" } },
  ListValue: { singular: new Set(), child: { 1: "Value" } },
  InputContent: { singular: new Set([1, 2, 3, 4, 5]), child: { 1: "TextInputPart", 2: "MediaPart", 3: "MediaPart", 4: "MediaPart", 5: "MediaPart" }, arms: new Set([1, 2, 3, 4, 5]), oneArm: true, check: true },
  TextInputPart: { singular: new Set([3]), child: { 3: "Value" }, check: true },
  MediaPart: { singular: new Set([1, 2]), child: { 1: "InputContentSource", 2: "Value" }, check: true },
  InputContentSource: { singular: new Set([1, 2, 3]), child: {}, arms: new Set([1, 2, 3]), oneArm: true, check: true },
};
