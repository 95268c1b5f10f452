// Where TextDecoder starts to pay: the time to turn n bytes of UTF-8 into a
// string, by TextDecoder and as the generated decoder does below its
// ASCII_ARGS (decode.gen.js): ASCII by one String.fromCharCode call with a
// byte per argument, two-byte text through UTF-16 units.
//
//   node bench/strings.bench.mjs

const td = new TextDecoder("utf-8", { ignoreBOM: true });
const units = [];

// ascii(b, s, n): the generated decoder's switch, one case per length.
const ascii = new Function(
  "b",
  "s",
  "n",
  "switch (n) {" +
    Array.from({ length: 64 }, (_, n) => `case ${n + 1}: return String.fromCharCode(${Array.from({ length: n + 1 }, (_, i) => `b[s + ${i}]`).join(", ")});`).join("\n") +
    "}",
);

function loop(buf, s, e) {
  for (let i = s; i < e; i++) if (buf[i] >= 0x80) return multi(buf, s, e);
  return ascii(buf, s, e - s);
}

function multi(buf, s, e) {
  let k = 0;
  for (let i = s; i < e; ) {
    const c = buf[i];
    if (c < 0x80) {
      units[k++] = c;
      i++;
    } else {
      units[k++] = ((c & 0x1f) << 6) | (buf[i + 1] & 0x3f);
      i += 2;
    }
  }
  units.length = k;
  return String.fromCharCode.apply(null, units);
}

function time(f, rounds) {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    f(rounds);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / rounds);
  }
  return best;
}

console.log("bytes\tascii arguments ns\tascii TextDecoder ns\t2-byte units ns\t2-byte TextDecoder ns");
for (const n of [4, 8, 12, 16, 24, 32, 48, 64]) {
  const ascii = new Uint8Array(1024).fill(0x61);
  const two = new Uint8Array(1024);
  for (let i = 0; i < two.length; i += 2) (two[i] = 0xc3), (two[i + 1] = 0xa4);
  const rounds = 200000;
  let sink = 0;
  const row = [n];
  for (const b of [ascii, two]) {
    row.push(time((k) => { for (let i = 0; i < k; i++) sink += loop(b, i & 63 & ~1, (i & 63 & ~1) + n).length; }, rounds).toFixed(1));
    row.push(time((k) => { for (let i = 0; i < k; i++) sink += td.decode(b.subarray(i & 63 & ~1, (i & 63 & ~1) + n)).length; }, rounds).toFixed(1));
  }
  console.log(row.join("\t"), sink > 0 ? "" : "!");
}
