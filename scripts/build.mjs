// Production build: the Remix app with the Remix Vite plugin (`remix
// vite:build` → build/client/ for browsers, build/server/index.js for
// remix-serve) and the access service (build/access.js), which the web
// process forks at start (ACCESS_SERVICE=on) and `npm run start:access` runs
// alone. The access entry is bundled by esbuild on its own: it is a plain
// Node program, not part of the Remix app.
// With --quiet (the build a first `npm start` runs) Vite prints warnings and
// errors only, not its list of files.
//   node scripts/build.mjs [--access-only] [--quiet]
import { execFileSync } from "node:child_process";
import { ACCESS_BUILD, SERVER_BUILD } from "./lib/build-paths.mjs";
import { bundleTs } from "./lib/run-ts.mjs";

const quiet = process.argv.includes("--quiet");
if (!process.argv.includes("--access-only")) {
  const logLevel = quiet ? ["--logLevel", "warn"] : [];
  execFileSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "vite:build", ...logLevel], { stdio: "inherit" });
  if (quiet) console.info(`[build] web app -> ${SERVER_BUILD} (browser files in build/client/)`);
}
await bundleTs("app/access/main.server.ts", ACCESS_BUILD);
console.info(`[build] access service -> ${ACCESS_BUILD}`);
