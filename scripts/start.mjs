// `npm start`: builds once if there is no build, then serves it with
// remix-serve (paths in lib/build-paths.mjs). Loading the build migrates the database, creates the first
// admin and forks the access service into its own process (see
// app/boot.server.ts and app/access/process.server.ts).
//
// SIGINT or SIGTERM stops the child running at that moment (the build, or
// remix-serve, which stops the access service beside it) and then this
// process: nothing is left on its ports. The npm script starts this file with
// `exec`, so npm's forwarded signal reaches it rather than a shell that would
// die alone and leave it orphaned.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { ACCESS_BUILD, SERVER_BUILD } from "./lib/build-paths.mjs";

// A young generation of 8 MB semi-spaces (V8's default is 16 MB) keeps the web
// process under 200 MB while it streams a million-row CSV export, at no cost in
// page speed (figures in the closing note of issue 11; `npm run bench:access
// -- --scenario export`, `npm run bench:web`).
const V8_FLAGS = ["--max-semi-space-size=8"];

/** The child process running now; a stop signal is passed on to it (to its whole process group when it leads one). */
let child = null;
let childLeadsGroup = false;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopping = true;
    if (!child) process.exit(0);
    if (childLeadsGroup) process.kill(-child.pid, signal);
    else child.kill(signal);
  });
}

/**
 * Runs `node <args>` as the current child; resolves with its exit code (1 if
 * a signal ended it). `group: true` starts it as the leader of its own
 * process group, so a stop signal reaches what it runs in turn (the build's
 * Vite, which it waits for synchronously).
 */
function runNode(args, { group = false, ...options } = {}) {
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, args, { stdio: "inherit", detached: group, ...options });
    childLeadsGroup = group;
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      child = null;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

if (!fs.existsSync(SERVER_BUILD) || !fs.existsSync(ACCESS_BUILD)) {
  console.info("[start] no build found: building once (npm run build)");
  const code = await runNode(["scripts/build.mjs", "--quiet"], { group: true });
  if (stopping) process.exit(0);
  if (code !== 0) process.exit(code);
}

process.exit(
  await runNode([...V8_FLAGS, "node_modules/@remix-run/serve/dist/cli.js", SERVER_BUILD], {
    env: { NODE_ENV: "production", ...process.env },
  }),
);
