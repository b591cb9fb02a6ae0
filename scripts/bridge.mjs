// `npm run bridge -- <bridge options>`: builds the bridge and runs it. With
// --simulate and no --url, the bridge connects where the app's broker is,
// read from the app's own variables: MQTT_URL, else MQTT_HOST and MQTT_PORT.
//
// With --simulate and no password, the door is first provisioned in the app's
// database: the one the app reads from the same variables and defaults
// (DATABASE_URL, else DATA_DIR/app.db, DATA_DIR default `data`), which must
// exist (no second database is made). The door is created if missing, with a
// fresh credential, and the app's broker must accept that credential before
// the door is said to be ready: when the database is missing, the broker does
// not answer or refuses the credential (the app runs on another database),
// the script says so and exits with status 1.
//
// SIGINT or SIGTERM stops the child running at that moment (the build, the
// provisioning or the bridge, which shuts its door and says it is offline)
// and then this process: nothing is left behind. The npm script starts this
// file with `exec`, so npm's forwarded signal reaches it rather than a shell.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import mqtt from "mqtt";

const args = process.argv.slice(2);
const { values } = parseArgs({
  args,
  strict: false,
  options: { simulate: { type: "boolean" }, door: { type: "string" }, password: { type: "string" }, url: { type: "string" } },
});

/** How long the broker may answer 'Server unavailable' (the access service still starting) before we give up. */
const BROKER_STARTING_MS = 15_000;

/** A failure to tell the developer in plain words (no stack, exit status 1). */
class Plain extends Error {}

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

/** Runs `node <nodeArgs>` as the current child; resolves with its exit code and its stdout (when piped). */
function runNode(nodeArgs, options) {
  return new Promise((resolve, reject) => {
    let output = "";
    child = spawn(process.execPath, nodeArgs, options);
    child.stdout?.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      child = null;
      if (stopping) return reject(new Error(`stopped by ${signal ?? "a signal"}`));
      resolve({ code: code ?? 1, output });
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

/** The door in the app's database with a fresh credential (scripts/provision-door.ts). */
async function provision(door, env) {
  const { output } = await runNode(
    ["--input-type=module", "-e", 'import("./scripts/lib/run-ts.mjs").then((m) => m.runTs("scripts/provision-door.ts"))'],
    { env: { ...env, PROVISION_DOOR: door }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let result;
  try {
    result = JSON.parse(output.trim().split("\n").pop() ?? "");
  } catch {
    throw new Plain(`could not provision door "${door}" (see the error above)`);
  }
  if (!result.ok) throw new Plain(result.message);
  return result;
}

/**
 * Logs in to the broker once as the door, as its bridge will. Resolves when
 * the broker accepts the credential; a refusal or no answer is a Plain error.
 */
async function checkBrokerAccepts(url, credential, database) {
  const deadline = Date.now() + BROKER_STARTING_MS;
  for (;;) {
    try {
      const client = await mqtt.connectAsync(url, {
        // An id of its own, outside the coliving-bridge-<door> ids that the
        // broker gives to their doors by rule: the bridge's session is left alone.
        clientId: `coliving-check-${credential.username}-${randomUUID().slice(0, 8)}`,
        username: credential.username,
        password: credential.password,
        protocolVersion: 4,
        clean: true,
        reconnectPeriod: 0,
        connectTimeout: 5000,
      });
      await client.endAsync();
      return;
    } catch (error) {
      const code = error?.code;
      if (code === 3 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (code === 4 || code === 5) {
        throw new Plain(
          `the broker at ${url} refused door "${credential.username}"'s new credential (${error.message}): ` +
            `the app behind it does not use the database this script wrote to (${database}). ` +
            "Run this with the DATA_DIR or DATABASE_URL the app runs with (with Mosquitto, regenerate its password file first: docs/mqtt.md).",
        );
      }
      if (typeof code === "number") throw new Plain(`the broker at ${url} refused door "${credential.username}" (${error.message})`);
      throw new Plain(
        `no MQTT broker answers at ${url} (${error?.message ?? error}). Start the app first (npm start), ` +
          "and run this with the app's MQTT_URL, or MQTT_HOST and MQTT_PORT (or give --url).",
      );
    }
  }
}

async function main() {
  const env = { ...process.env };
  const url = values.url ?? appBrokerUrl(env);
  const provisioned = values.simulate && typeof values.door === "string" && !values.password && !env.BRIDGE_PASSWORD;
  if (provisioned) {
    // Before the build: a wrong database or an absent broker is said at once.
    const { credential, database } = await provision(values.door, env);
    await checkBrokerAccepts(url, credential, database);
    env.BRIDGE_PASSWORD = credential.password;
    console.info(`[bridge] door "${values.door}" ready in the app's database (${database}) with a fresh credential; the broker at ${url} accepts it.`);
  }

  // Incremental: a second run compiles only what changed. The build info lives
  // in bridge/dist, so removing dist rebuilds everything.
  const tsc = ["node_modules/typescript/bin/tsc", "-p", "bridge/tsconfig.json", "--incremental", "--tsBuildInfoFile", "bridge/dist/.tsbuildinfo"];
  const compiled = await runNode(tsc, { stdio: "inherit" });
  if (compiled.code !== 0) throw new Plain(`the bridge did not compile (tsc exit status ${compiled.code})`);
  if (provisioned) {
    console.info("[bridge] Type a card id (e.g. 004E2B4E) and Enter. An unknown card is denied and appears as pending in /admin/cards;");
    console.info("[bridge] approve it there (or from its denied row in /admin/logs) and swipe again to open the door.");
    console.info("[bridge] A guest's or a visitor's key: type its PIN followed by # (482913#), or its QR token (LC1-...).");
  }
  const bridgeArgs = values.simulate && values.url === undefined ? [...args, "--url", url] : args;

  child = spawn(process.execPath, ["bridge/dist/main.js", ...bridgeArgs], { stdio: "inherit", env });
  child.on("exit", (code) => process.exit(code ?? 0));
}

main().catch((error) => {
  if (stopping) process.exit(0);
  console.error(`[bridge] ${error instanceof Plain ? error.message : error.stack}`);
  process.exit(1);
});
