// TypeScript entries that import app code (the `~/` alias, .ts files), for
// scripts: bundled with esbuild into node_modules/.cache, where their bare
// imports resolve.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

/** Bundles `entry` to `outfile` (default: a per-process file in the cache) and returns its path. */
export async function bundleTs(entry, outfile = path.resolve("node_modules", ".cache", "run-ts", `${path.basename(entry, ".ts")}-${process.pid}.mjs`)) {
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
  return outfile;
}

/** Bundles and runs `entry` in this process. */
export async function runTs(entry) {
  const outfile = await bundleTs(entry);
  try {
    return await import(outfile);
  } finally {
    fs.rmSync(outfile, { force: true });
  }
}
