// Production build: the Remix app (build/index.js, public/build/) and the
// access service (build/access.js), which the web process forks at start
// (ACCESS_SERVICE=on) and `npm run start:access` runs alone. The access entry
// is bundled by esbuild on its own, whatever builds the Remix app.
//   node scripts/build.mjs [--access-only]
import { execFileSync } from "node:child_process";
import { bundleTs } from "./lib/run-ts.mjs";

if (!process.argv.includes("--access-only")) {
  process.env.VITE_CJS_IGNORE_WARNING = "true";
  execFileSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "build"], { stdio: "inherit" });
}
await bundleTs("app/access/main.server.ts", "build/access.js");
console.info("[build] access service -> build/access.js");
