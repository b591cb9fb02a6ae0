// `npm start` as a process manager runs it: SIGTERM or SIGINT to npm stops the
// web server and the access service it started (ports closed, no process
// left); its server still serves public/. The build a first start runs is
// tests/system/first-start-build.test.ts (it rebuilds build/).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { descendants, exitOf, isRunning, type ProcessEntry } from "../setup/processes";
import { eventually } from "../../bridge/src/test-support/eventually";

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function freePort() {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function isListening(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("npm start", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(
      `${signal} to npm stops the web server and the access service: both ports close, no process is left`,
      async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "start-"));
        dataDirs.push(dataDir);
        const [port, mqttPort] = [await freePort(), await freePort()];
        const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" };
        Object.assign(env, { MQTT_HOST: "127.0.0.1", MQTT_PORT: String(mqttPort), ACCESS_SERVICE: "on", ADMIN_PASSWORD: "start-test-password" });
        for (const name of ["DATABASE_URL", "MQTT_URL", "NODE_ENV", "SESSION_SECRET", "SMTP_URL"]) delete env[name];
        const npm = spawn("npm", ["start"], { env, stdio: ["ignore", "pipe", "pipe"] });
        let output = "";
        npm.stdout!.on("data", (chunk) => (output += chunk));
        npm.stderr!.on("data", (chunk) => (output += chunk));
        let below: ProcessEntry[] = [];
        try {
          try {
            await eventually(async () => (await isListening(port)) && (await isListening(mqttPort)), "the web and MQTT ports to listen", START_TIMEOUT_MS).catch((error: Error) => {
              throw new Error(`${error.message}\n${output}`);
            });
            below = descendants(npm.pid!);
            expect(below.map((entry) => entry.command)).toContainEqual(expect.stringContaining("build/access.js"));
            expect(below.map((entry) => entry.command)).toContainEqual(expect.stringContaining("@remix-run/serve"));
            if (signal === "SIGTERM") {
              // public/ and the build's browser files are still served.
              const favicon = await fetch(`http://127.0.0.1:${port}/favicon.svg`);
              expect(favicon.status).toBe(200);
              expect(await favicon.text()).toBe(fs.readFileSync("public/favicon.svg", "utf8"));
              const script = fs.readdirSync("build/client/assets").find((name) => name.endsWith(".js"))!;
              const asset = await fetch(`http://127.0.0.1:${port}/assets/${script}`);
              expect(asset.status).toBe(200);
              expect(asset.headers.get("cache-control")).toContain("immutable");
            }
          } finally {
            if (below.length === 0) below = descendants(npm.pid!);
            npm.kill(signal);
          }
          await exitOf(npm, "npm", STOP_TIMEOUT_MS);
          await eventually(() => below.every((entry) => !isRunning(entry.pid)), "every process npm start had started to end", STOP_TIMEOUT_MS).catch((error: Error) => {
            const left = below.filter((entry) => isRunning(entry.pid));
            throw new Error(`${error.message}; still running: ${left.map((entry) => `${entry.pid} ${entry.command}`).join("; ")}`);
          });
        } finally {
          // Leave nothing running after a failure either.
          for (const entry of [{ pid: npm.pid! }, ...below]) if (isRunning(entry.pid)) process.kill(entry.pid, "SIGKILL");
        }
        expect(await isListening(port)).toBe(false);
        expect(await isListening(mqttPort)).toBe(false);
      },
      START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
    );
  }
});
