// Starts the production build for the end-to-end run on a fresh data
// directory and key store; the server migrates its new database while booting.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { SERVER_BUILD } from "../../scripts/lib/build-paths.mjs";

const root = process.env.DATA_DIR;
if (!root || !root.includes("coliving-tests")) throw new Error("e2e-server: DATA_DIR must be the e2e temp dir");
// The key store goes with the database: a head published by an earlier run would
// name events this fresh trail never had.
for (const dir of [root, process.env.KEYS_DIR]) {
  if (!dir?.includes("coliving-tests")) throw new Error("e2e-server: KEYS_DIR must be beside the e2e temp dir");
  fs.rmSync(dir, { recursive: true, force: true });
}
fs.mkdirSync(root, { recursive: true });

const server = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", SERVER_BUILD], {
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 1));
