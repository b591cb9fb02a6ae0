// Runs a TypeScript entry that imports app code (the `~/` alias, .ts files):
// bundles it with esbuild into a temp file beside node_modules and imports it.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export async function runTs(entry) {
  const outfile = path.resolve("node_modules", ".cache", "run-ts", `${path.basename(entry, ".ts")}-${process.pid}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
  });
  try {
    return await import(outfile);
  } finally {
    fs.rmSync(outfile, { force: true });
  }
}
