// Production build: the Remix app (build/index.js, public/build/) and the
// standalone access service (build/access.js, for `npm run start:access`).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { build } from "esbuild";

process.env.VITE_CJS_IGNORE_WARNING = "true";
execFileSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "build"], { stdio: "inherit" });

const accessEntry = "app/access/main.server.ts";
if (fs.existsSync(accessEntry)) {
  await build({
    entryPoints: [accessEntry],
    outfile: "build/access.js",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
  });
  console.info("[build] access service -> build/access.js");
}
