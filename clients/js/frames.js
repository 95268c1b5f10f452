// FrameReader: the binary AG-UI stream (each frame a 4-byte big-endian
// length and an ag_ui.Event payload) cut into payloads, chunk by chunk.
// A frame that lies whole in a chunk is handed on as a view of the chunk;
// only a frame split across chunks is copied, once, into a buffer of its
// size. Nothing is concatenated per chunk, so the cost is linear in the
// bytes however the chunks fall.

import { DecodeError } from "./decode.gen.js";

/** The largest frame payload read, as the stock client's limit (10 MiB). */
export const MAX_FRAME = 10 * 1024 * 1024;

export class FrameReader {
  constructor(maxFrame = MAX_FRAME) {
    this.maxFrame = maxFrame;
    this.head = new Uint8Array(4); // a length split across chunks
    this.headLen = 0;
    this.part = null; // a payload split across chunks, and how much of it is here
    this.partLen = 0;
  }

  /** Whether a frame is partly read (a stream ending now ends mid-frame). */
  get pending() {
    return this.headLen > 0 || this.part !== null;
  }

  /**
   * push reads chunk and calls onPayload(payload) for each whole frame's
   * payload (zero-length frames, keep-alives, are skipped).
   */
  push(chunk, onPayload) {
    let at = 0;
    const n = chunk.length;
    for (;;) {
      if (this.part !== null) {
        const take = Math.min(this.part.length - this.partLen, n - at);
        this.part.set(chunk.subarray(at, at + take), this.partLen);
        this.partLen += take;
        at += take;
        if (this.partLen < this.part.length) return;
        const p = this.part;
        this.part = null;
        onPayload(p);
      }
      let size;
      if (this.headLen > 0) {
        while (this.headLen < 4 && at < n) this.head[this.headLen++] = chunk[at++];
        if (this.headLen < 4) return;
        this.headLen = 0;
        size = readLen(this.head, 0);
      } else {
        if (n - at < 4) {
          while (at < n) this.head[this.headLen++] = chunk[at++];
          return;
        }
        size = readLen(chunk, at);
        at += 4;
      }
      if (size > this.maxFrame) throw new DecodeError(`a frame of ${size} bytes, above the limit of ${this.maxFrame}`);
      if (size === 0) continue;
      if (n - at >= size) {
        onPayload(chunk.subarray(at, at + size));
        at += size;
        continue;
      }
      this.part = new Uint8Array(size);
      this.partLen = 0;
    }
  }
}

function readLen(b, at) {
  return ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
}
