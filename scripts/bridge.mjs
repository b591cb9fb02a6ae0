// `npm run bridge -- <bridge options>`: builds the bridge and runs it. With
// --simulate and no password, the door is provisioned in the local database
// first (created if missing, fresh credential), so a newcomer only needs
// `npm start` in another terminal.
import { execFileSync, spawn } from "node:child_process";
import { parseArgs } from "node:util";

const args = process.argv.slice(2);
const { values } = parseArgs({ args, strict: false, options: { simulate: { type: "boolean" }, door: { type: "string" }, password: { type: "string" } } });

execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "bridge/tsconfig.json"], { stdio: "inherit" });

const env = { ...process.env };
if (values.simulate && typeof values.door === "string" && !values.password && !env.BRIDGE_PASSWORD) {
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", 'import("./scripts/lib/run-ts.mjs").then((m) => m.runTs("scripts/provision-door.ts"))'], {
    env: { ...env, PROVISION_DOOR: values.door },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const credential = JSON.parse(output.trim().split("\n").pop());
  if (!credential) throw new Error(`could not provision door ${values.door}`);
  env.BRIDGE_PASSWORD = credential.password;
  console.info(`[bridge] door "${values.door}" ready in the local database with a fresh credential.`);
  console.info("[bridge] Type a card id (e.g. 004E2B4E) and Enter. An unknown card is denied and appears as pending in /admin/cards;");
  console.info("[bridge] approve it there (or from its denied row in /admin/logs) and swipe again to open the door.");
}

const bridge = spawn(process.execPath, ["bridge/dist/main.js", ...args], { stdio: "inherit", env });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => bridge.kill(signal));
bridge.on("exit", (code) => process.exit(code ?? 0));
