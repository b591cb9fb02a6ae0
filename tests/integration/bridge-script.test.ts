// `npm run bridge -- --simulate --door X` (scripts/bridge.mjs) as a developer
// runs it: it builds the bridge, finds the app's broker from the app's own
// variables, and leaves no process behind when it is stopped.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestBroker } from "../../bridge/src/test-support/broker";
import { waitFor } from "../../bridge/src/test-support/serial-mock";
import { descendants, exitOf, isRunning } from "../setup/processes";

/** The script compiles the bridge first: allow for a slow, shared machine. */
const START_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 10_000;

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
function start(command: string, args: string[]) {
  const child = spawn(command, args, { env: appEnvironment(), stdio: ["pipe", "pipe", "pipe"] });
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
        await waitFor(() => isOnline(door), `the bridge's online state on port ${broker.port}`, START_TIMEOUT_MS).catch((error: Error) => {
          throw new Error(`${error.message}\n${script.output()}`);
        });
        expect(script.output()).toContain(`mqtt: connecting to mqtt://127.0.0.1:${broker.port} as ${door}`);
      } finally {
        script.child.kill("SIGTERM");
      }
      expect(await exitOf(script.child, "scripts/bridge.mjs", STOP_TIMEOUT_MS)).toBe(0);
      await waitFor(() => isOffline(door), "the bridge's offline state after SIGTERM", STOP_TIMEOUT_MS);
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
        await waitFor(() => isOnline(door), "the bridge's online state", START_TIMEOUT_MS).catch((error: Error) => {
          throw new Error(`${error.message}\n${npm.output()}`);
        });
        below = descendants(npm.child.pid!);
        expect(below.map((entry) => entry.command)).toContainEqual(expect.stringContaining("bridge/dist/main.js"));
      } finally {
        npm.child.kill("SIGTERM");
      }
      await exitOf(npm.child, "npm", STOP_TIMEOUT_MS);
      await waitFor(() => below.every((entry) => !isRunning(entry.pid)), "every process npm had started to end", STOP_TIMEOUT_MS).catch(
        (error: Error) => {
          const left = below.filter((entry) => isRunning(entry.pid));
          // Leave nothing running after a failure either.
          for (const entry of left) process.kill(entry.pid, "SIGKILL");
          throw new Error(`${error.message}; still running: ${left.map((entry) => `${entry.pid} ${entry.command}`).join("; ")}`);
        },
      );
      // The bridge stopped cleanly: door shut, retained state offline.
      await waitFor(() => isOffline(door), "the bridge's offline state", STOP_TIMEOUT_MS);
    },
    START_TIMEOUT_MS + 3 * STOP_TIMEOUT_MS,
  );
});
