// `npm run bridge -- <bridge options>`: builds the bridge and runs it. With
// --simulate and no password, the door is provisioned in the local database
// first (created if missing, fresh credential), so a newcomer only needs
// `npm start` in another terminal. With --simulate and no --url, the bridge
// connects where the app's broker is, read from the app's own variables:
// MQTT_URL, else MQTT_HOST and MQTT_PORT.
//
// SIGINT or SIGTERM stops the child running at that moment (the build, the
// provisioning or the bridge, which shuts its door and says it is offline)
// and then this process: nothing is left behind. The npm script starts this
// file with `exec`, so npm's forwarded signal reaches it rather than a shell.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";

const args = process.argv.slice(2);
const { values } = parseArgs({
  args,
  strict: false,
  options: { simulate: { type: "boolean" }, door: { type: "string" }, password: { type: "string" }, url: { type: "string" } },
});

/** The child process running now; a stop signal is passed on to it. */
let child = null;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopping = true;
    if (child) child.kill(signal);
    else process.exit(0);
  });
}

/** Runs `node <nodeArgs>` as the current child; resolves with its stdout (when piped) if it exits with 0. */
function runNode(nodeArgs, options) {
  return new Promise((resolve, reject) => {
    let output = "";
    child = spawn(process.execPath, nodeArgs, options);
    child.stdout?.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      child = null;
      if (code === 0) resolve(output);
      else reject(new Error(`node ${nodeArgs.join(" ")}: ${signal ?? `exit status ${code}`}`));
    });
  });
}

/** Where the app's broker listens (docs/mqtt.md): MQTT_URL, else the embedded broker's MQTT_HOST and MQTT_PORT. */
function appBrokerUrl(env) {
  if (env.MQTT_URL) return env.MQTT_URL;
  const host = env.MQTT_HOST || "127.0.0.1";
  const reachable = ["0.0.0.0", "::"].includes(host) ? "127.0.0.1" : host;
  return `mqtt://${reachable.includes(":") ? `[${reachable}]` : reachable}:${env.MQTT_PORT || 1883}`;
}

async function main() {
  await runNode(["node_modules/typescript/bin/tsc", "-p", "bridge/tsconfig.json"], { stdio: "inherit" });

  const env = { ...process.env };
  if (values.simulate && typeof values.door === "string" && !values.password && !env.BRIDGE_PASSWORD) {
    const output = await runNode(
      ["--input-type=module", "-e", 'import("./scripts/lib/run-ts.mjs").then((m) => m.runTs("scripts/provision-door.ts"))'],
      { env: { ...env, PROVISION_DOOR: values.door }, stdio: ["ignore", "pipe", "inherit"] },
    );
    const credential = JSON.parse(output.trim().split("\n").pop());
    if (!credential) throw new Error(`could not provision door ${values.door}`);
    env.BRIDGE_PASSWORD = credential.password;
    console.info(`[bridge] door "${values.door}" ready in the local database with a fresh credential.`);
    console.info("[bridge] Type a card id (e.g. 004E2B4E) and Enter. An unknown card is denied and appears as pending in /admin/cards;");
    console.info("[bridge] approve it there (or from its denied row in /admin/logs) and swipe again to open the door.");
  }
  const bridgeArgs = values.simulate && values.url === undefined ? [...args, "--url", appBrokerUrl(env)] : args;

  child = spawn(process.execPath, ["bridge/dist/main.js", ...bridgeArgs], { stdio: "inherit", env });
  child.on("exit", (code) => process.exit(code ?? 0));
}

main().catch((error) => {
  if (stopping) process.exit(0);
  console.error(`[bridge] ${error.message}`);
  process.exit(1);
});
