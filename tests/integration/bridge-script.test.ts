// `npm run bridge -- --simulate --door X` (scripts/bridge.mjs) as a developer
// runs it: it builds the bridge, finds the app's broker from the app's own
// variables, provisions the door in the app's own database (never a new one)
// and says plainly when it cannot reach that database or broker, and leaves
// no process behind when it is stopped.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestBroker } from "../../bridge/src/test-support/broker";
import { eventually } from "../../bridge/src/test-support/eventually";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { getDoorByCode } from "~/models/door.server";
import { descendants, exitOf, isRunning } from "../setup/processes";
import { TEST_ROOT } from "../setup/test-db";

/** The script compiles the bridge first: allow for a slow, shared machine. */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;
/** A script that cannot provision its door ends before it builds the bridge. */
const END_TIMEOUT_MS = 30_000;

let broker: TestBroker;
let observer: MqttClient;
const states = new Map<string, unknown[]>();
const doors: string[] = [];

beforeAll(async () => {
  broker = await TestBroker.create();
  observer = await mqtt.connectAsync(broker.url, { clientId: `script-observer-${randomUUID()}`, reconnectPeriod: 0 });
  observer.on("message", (topic, payload) => {
    const door = topic.split("/")[2]!;
    states.set(door, [...(states.get(door) ?? []), JSON.parse(payload.toString("utf8"))]);
  });
  await observer.subscribeAsync("coliving/doors/+/state", { qos: 1 });
});

afterAll(async () => {
  await observer?.endAsync(true);
  await broker?.close();
  for (const door of doors) fs.rmSync(path.resolve("bridge", "data", door), { recursive: true, force: true });
});

/** A door id of its own (simulate mode keeps its data in bridge/data/<door>). */
function newDoorId() {
  const door = `script-${randomUUID().slice(0, 8)}`;
  doors.push(door);
  return door;
}

const isOnline = (door: string) => (states.get(door) ?? []).some((state) => (state as { online?: boolean }).online === true);
const isOffline = (door: string) => JSON.stringify((states.get(door) ?? []).at(-1)) === '{"online":false}';

/** The environment of a developer whose app runs its embedded broker on another port. */
function appEnvironment() {
  const env: NodeJS.ProcessEnv = { ...process.env, MQTT_HOST: "127.0.0.1", MQTT_PORT: String(broker.port), BRIDGE_PASSWORD: "simulated-secret" };
  delete env.MQTT_URL;
  return env;
}

/** Starts a command with its stdin kept open (the keyboard reader) and its output kept for failure messages. */
function start(command: string, args: string[], env = appEnvironment()) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return { child, output: () => output };
}

describe("npm run bridge -- --simulate", () => {
  it(
    "connects to the app's embedded broker on MQTT_PORT when no --url is given",
    async () => {
      const door = newDoorId();
      const script = start(process.execPath, ["scripts/bridge.mjs", "--simulate", "--door", door]);
      try {
        await eventually(() => isOnline(door), `the bridge's online state on port ${broker.port}`, START_TIMEOUT_MS).catch((error: Error) => {
          throw new Error(`${error.message}\n${script.output()}`);
        });
        expect(script.output()).toContain(`mqtt: connecting to mqtt://127.0.0.1:${broker.port} as ${door}`);
      } finally {
        script.child.kill("SIGTERM");
      }
      expect(await exitOf(script.child, "scripts/bridge.mjs", STOP_TIMEOUT_MS)).toBe(0);
      await eventually(() => isOffline(door), "the bridge's offline state after SIGTERM", STOP_TIMEOUT_MS);
    },
    START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
  );

  it(
    "SIGTERM to npm stops the bridge it started: no process is left",
    async () => {
      const door = newDoorId();
      const npm = start("npm", ["run", "-s", "bridge", "--", "--simulate", "--door", door]);
      let below: Array<{ pid: number; command: string }> = [];
      try {
        await eventually(() => isOnline(door), "the bridge's online state", START_TIMEOUT_MS).catch((error: Error) => {
          throw new Error(`${error.message}\n${npm.output()}`);
        });
        below = descendants(npm.child.pid!);
        expect(below.map((entry) => entry.command)).toContainEqual(expect.stringContaining("bridge/dist/main.js"));
      } finally {
        npm.child.kill("SIGTERM");
      }
      await exitOf(npm.child, "npm", STOP_TIMEOUT_MS);
      await eventually(() => below.every((entry) => !isRunning(entry.pid)), "every process npm had started to end", STOP_TIMEOUT_MS).catch(
        (error: Error) => {
          const left = below.filter((entry) => isRunning(entry.pid));
          // Leave nothing running after a failure either.
          for (const entry of left) process.kill(entry.pid, "SIGKILL");
          throw new Error(`${error.message}; still running: ${left.map((entry) => `${entry.pid} ${entry.command}`).join("; ")}`);
        },
      );
      // The bridge stopped cleanly: door shut, retained state offline.
      await eventually(() => isOffline(door), "the bridge's offline state", STOP_TIMEOUT_MS);
    },
    START_TIMEOUT_MS + 3 * STOP_TIMEOUT_MS,
  );
});

describe("npm run bridge -- --simulate without a password: the door is provisioned in the app's database", () => {
  let service: AccessServiceHandle;
  const dirs: string[] = [];

  beforeAll(async () => {
    // The app: its access service and embedded broker on this test file's database (DATA_DIR).
    service = await startAccessService({ host: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    await service?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The developer's shell: the app's variables as given, no password, DATABASE_URL left to its default. */
  function developerEnvironment(fields: { DATA_DIR: string; MQTT_PORT: number }) {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: fields.DATA_DIR, MQTT_HOST: "127.0.0.1", MQTT_PORT: String(fields.MQTT_PORT) };
    for (const name of ["DATABASE_URL", "MQTT_URL", "BRIDGE_PASSWORD"]) delete env[name];
    return env;
  }

  function tempDir() {
    const dir = fs.mkdtempSync(path.join(TEST_ROOT, "bridge-script-"));
    dirs.push(dir);
    return dir;
  }

  /** Runs the script to its end (it must end by itself, before it builds the bridge); resolves with its exit code and output. */
  async function runToEnd(env: NodeJS.ProcessEnv) {
    const door = newDoorId();
    const script = start(process.execPath, ["scripts/bridge.mjs", "--simulate", "--door", door], env);
    try {
      const code = await exitOf(script.child, "scripts/bridge.mjs", END_TIMEOUT_MS);
      return { door, code, output: script.output() };
    } finally {
      if (isRunning(script.child.pid!)) script.child.kill("SIGKILL");
    }
  }

  it(
    "with the app's DATA_DIR: the door is ready in the app's database and the bridge logs in to the app's broker",
    async () => {
      const door = newDoorId();
      const env = developerEnvironment({ DATA_DIR: process.env.DATA_DIR!, MQTT_PORT: service.mqttPort! });
      const script = start(process.execPath, ["scripts/bridge.mjs", "--simulate", "--door", door], env);
      try {
        await eventually(() => script.output().includes("mqtt: connected"), "the bridge's login to the app's broker", START_TIMEOUT_MS).catch(
          (error: Error) => {
            throw new Error(`${error.message}\n${script.output()}`);
          },
        );
        expect(script.output()).toContain(`door "${door}" ready in the app's database (file:${process.env.DATA_DIR}/app.db)`);
        expect((await getDoorByCode(door))?.bridgeSecretHash).toBeTruthy();
      } finally {
        script.child.kill("SIGTERM");
      }
      expect(await exitOf(script.child, "scripts/bridge.mjs", STOP_TIMEOUT_MS)).toBe(0);
    },
    START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
  );

  it("with a DATA_DIR that holds no database: says so, makes no database, and stops", async () => {
    const dataDir = tempDir();
    const { code, output } = await runToEnd(developerEnvironment({ DATA_DIR: dataDir, MQTT_PORT: service.mqttPort! }));
    expect(code).toBe(1);
    expect(output).toContain(`there is no app database at ${dataDir}/app.db (DATA_DIR=${dataDir}). Start the app first (npm start)`);
    expect(output).not.toContain("ready");
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, END_TIMEOUT_MS + 5000);

  it("with another database than the app's: says the app's broker refused the credential, and stops", async () => {
    const dataDir = tempDir();
    fs.copyFileSync(path.join(TEST_ROOT, "vitest", "base.db"), path.join(dataDir, "app.db"));
    const { door, code, output } = await runToEnd(developerEnvironment({ DATA_DIR: dataDir, MQTT_PORT: service.mqttPort! }));
    expect(code).toBe(1);
    expect(output).toContain(`the broker at mqtt://127.0.0.1:${service.mqttPort} refused door "${door}"'s new credential`);
    expect(output).toContain(`the app behind it does not use the database this script wrote to (file:${dataDir}/app.db)`);
    expect(output).not.toContain("ready");
  }, END_TIMEOUT_MS + 5000);

  it("with no broker where the app's variables say: says so, and stops", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { code, output } = await runToEnd(developerEnvironment({ DATA_DIR: process.env.DATA_DIR!, MQTT_PORT: port }));
    expect(code).toBe(1);
    expect(output).toContain(`no MQTT broker answers at mqtt://127.0.0.1:${port}`);
    expect(output).not.toContain("ready");
  }, END_TIMEOUT_MS + 5000);
});
