// The package as npm publishes it: `npm pack`, unpacked into a project of
// its own, imported through its exports (both entries), with its types and
// README, and decoding a frame.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");

test("npm pack: a package with types and README that imports and decodes", () => {
  const dir = mkdtempSync(join(tmpdir(), "agwire-pack-"));
  try {
    const out = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: pkgDir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
    const files = out[0].files.map((f) => f.path).sort();
    for (const f of ["README.md", "LICENSE", "package.json", "index.js", "index.d.ts", "agent.js", "agent.d.ts", "decode.gen.js"]) {
      assert.ok(files.includes(f), `the package lacks ${f} (has ${files.join(", ")})`);
    }
    assert.ok(!files.some((f) => f.startsWith("test/") || f.startsWith("bench/")), `tests or benchmarks packed: ${files.join(", ")}`);
    // A project with the package unpacked into node_modules and the peers
    // (and what they need) from this package's own install: no registry.
    const project = join(dir, "project");
    const installed = join(project, "node_modules", "@agwire", "fetch");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", join(dir, out[0].filename), "-C", installed, "--strip-components=1"]);
    for (const name of readdirSync(join(pkgDir, "node_modules"))) {
      if (name.startsWith(".") || name === "@agwire") continue;
      symlinkSync(join(pkgDir, "node_modules", name), join(project, "node_modules", name));
    }
    assert.ok(existsSync(join(installed, "agent.d.ts")));
    writeFileSync(join(project, "package.json"), '{"type":"module"}\n');
    writeFileSync(
      join(project, "check.mjs"),
      `import { createFetch, decode, DecodeError, FrameReader } from "@agwire/fetch";
import { AgwireAgent } from "@agwire/fetch/agent";
import { HttpAgent } from "@ag-ui/client";
const ev = decode(Uint8Array.from([0x12, 0x0b, 0x0a, 0x02, 0x08, 0x01, 0x12, 0x01, 0x6d, 0x1a, 0x02, 0x68, 0x69]));
let refused = false;
try { decode(Uint8Array.from([0x12, 0x80])); } catch (e) { refused = e instanceof DecodeError; }
const agent = new AgwireAgent({ url: "http://127.0.0.1:1/" });
console.log(JSON.stringify({ ev, refused, fetch: typeof createFetch, frames: typeof FrameReader, agent: agent instanceof HttpAgent }));
`,
    );
    const got = JSON.parse(execFileSync("node", ["check.mjs"], { cwd: project, encoding: "utf8" }));
    assert.deepEqual(got, { ev: { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" }, refused: true, fetch: "function", frames: "function", agent: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
