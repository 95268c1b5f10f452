#!/usr/bin/env node
// build.mjs OUTFILE — bundles app.mjs (the stock @ag-ui/client 1.0.0 and
// the @agwire/fetch companion) for the browser with esbuild, both pinned in
// clients/js/package.json (install with `cd clients/js && npm ci`). The
// bundle is built by the browser test each run and is not committed.

import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = resolve(here, "../../../clients/js");
const require = createRequire(join(clientDir, "package.json"));
const esbuild = await import(require.resolve("esbuild"));

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: node build.mjs OUTFILE\n");
  process.exit(2);
}

// Every bare import resolves from clients/js/node_modules, whatever else
// is installed above this file (interop/node_modules holds the same pins).
const fromClient = {
  name: "from-clients-js",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "from-clients-js") return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, resolveDir: clientDir, pluginData: "from-clients-js" });
      return r.errors.length ? { errors: r.errors } : { path: r.path };
    });
  },
};

for (const name of ["@ag-ui/client", "@ag-ui/proto"]) {
  const v = require(`${name}/package.json`).version;
  if (v !== "1.0.0") {
    process.stderr.write(`build.mjs: installed ${name} is ${v}, not 1.0.0\n`);
    process.exit(2);
  }
}

await esbuild.build({
  entryPoints: [join(here, "app.mjs")],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  outfile: out,
  logLevel: "warning",
  plugins: [fromClient],
});
