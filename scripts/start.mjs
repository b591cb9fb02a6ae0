// `npm start`: builds once if there is no build, then serves it with
// remix-serve (paths in lib/build-paths.mjs). Loading the build migrates the database, creates the first
// admin and forks the access service into its own process (see
// app/utils/boot.server.ts and app/access/process.server.ts); both stop on
// SIGINT/SIGTERM.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import { ACCESS_BUILD, SERVER_BUILD } from "./lib/build-paths.mjs";

if (!fs.existsSync(SERVER_BUILD) || !fs.existsSync(ACCESS_BUILD)) {
  console.info("[start] no build found: building once (npm run build)");
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}

const server = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", SERVER_BUILD], {
  stdio: "inherit",
  env: { NODE_ENV: "production", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
