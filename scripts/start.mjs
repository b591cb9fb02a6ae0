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

// A young generation of 8 MB semi-spaces (V8's default is 16 MB) keeps the web
// process under 200 MB while it streams a million-row CSV export, at no cost in
// page speed (figures in the closing note of issue 11; `npm run bench:access
// -- --scenario export`, `npm run bench:web`).
const V8_FLAGS = ["--max-semi-space-size=8"];

const server = spawn(process.execPath, [...V8_FLAGS, "node_modules/@remix-run/serve/dist/cli.js", SERVER_BUILD], {
  stdio: "inherit",
  env: { NODE_ENV: "production", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
