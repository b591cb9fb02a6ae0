// Production build: the Remix app (build/index.js, public/build/) and the
// standalone access service (build/access.js, for `npm run start:access`).
import { execFileSync } from "node:child_process";
import { bundleTs } from "./lib/run-ts.mjs";

process.env.VITE_CJS_IGNORE_WARNING = "true";
execFileSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "build"], { stdio: "inherit" });
await bundleTs("app/access/main.server.ts", "build/access.js");
console.info("[build] access service -> build/access.js");
