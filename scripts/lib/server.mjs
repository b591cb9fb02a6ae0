// Ports and a production server for the benchmarks: the app started the way
// `npm start` does (scripts/start.mjs → remix-serve build/server/index.js), on a
// scratch data directory, plus the admin sign-in the pages need.
//
// Ports: by default the OS picks free ones. On a shared machine set
// BENCH_PORTS=5100-5199 to keep every port a benchmark opens in that range.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { SERVER_BUILD } from "./build-paths.mjs";
import { runLoad } from "./load.mjs";
import { processTree } from "./proc.mjs";

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function listenable(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      server.close(() => resolve(bound));
    });
  });
}

// Ports this process already handed out: a probed port is free again until
// its user binds it, so two quick calls could otherwise get the same one.
const handedOut = new Set();

/** A free TCP port on 127.0.0.1: in BENCH_PORTS (e.g. "5100-5199") when set, else any. */
export async function freePort() {
  const range = process.env.BENCH_PORTS?.match(/^(\d+)-(\d+)$/);
  if (!range) return listenable(0);
  const [low, high] = [Number(range[1]), Number(range[2])];
  // Start at a random place so that two benchmarks started together rarely collide.
  const offset = Math.floor(Math.random() * (high - low + 1));
  for (let i = 0; i <= high - low; i++) {
    const port = low + ((offset + i) % (high - low + 1));
    if (handedOut.has(port)) continue;
    if ((await listenable(port)) !== null) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

export async function waitForPort(port, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await sleep(25);
  }
  throw new Error(`nothing listens on ${port}`);
}

/** Stops a benchmark before it spends time on data when there is nothing to serve it. */
export function assertBuilt() {
  if (!fs.existsSync(SERVER_BUILD)) throw new Error("run `npm run build` first");
}

export const BENCH_ADMIN = { username: "bench-admin", password: "bench-admin-password" };

/**
 * Starts the production build like `npm start` (scripts/start.mjs), with
 * NODE_ENV=production on 127.0.0.1, the first admin BENCH_ADMIN, TRUST_PROXY,
 * a fixed session secret and `dataDir` as DATA_DIR (database `dataDir/app.db`
 * unless env.DATABASE_URL says otherwise); `env` adds or overrides variables.
 * Whether the access service runs in the web process or beside it is the
 * app's business: callers only see the HTTP and MQTT ports.
 *
 * The server's output goes to dataDir/server.log (its tail is printed if it
 * does not start). Returns { url, pid, stop() }: pid is the launcher, the root
 * of the server's process tree.
 */
export async function startApp({ dataDir, env = {}, startTimeoutMs = 120_000 }) {
  assertBuilt();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(dataDir, "server.log");
  const log = fs.openSync(logFile, "a");
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: `file:${path.join(dataDir, "app.db")}`,
      TRUST_PROXY: "true",
      ADMIN_USERNAME: BENCH_ADMIN.username,
      ADMIN_PASSWORD: BENCH_ADMIN.password,
      SESSION_SECRET: "bench-session-secret-long-enough-for-the-app",
      ...env,
    },
    stdio: ["ignore", log, log],
    // Its own process group: stop() can end whatever the launcher started.
    detached: true,
  });
  fs.closeSync(log);
  const exited = new Promise((resolve) => child.once("exit", resolve));

  async function stop() {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM"); // the launcher passes it on to the server
      const done = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!done) child.kill("SIGKILL");
    }
    // Anything of the group that outlived the launcher (a service process, say).
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }

  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, port, pid: child.pid, webPid: () => webServerPid(child.pid), logFile, stop };
    } catch {}
    await sleep(100);
  }
  await stop();
  const tail = fs.readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
  throw new Error(`the server did not start (log ${logFile}):\n${tail}`);
}

/** The web server under the launcher (the process that loaded the server build). */
function webServerPid(launcherPid) {
  for (const pid of processTree(launcherPid)) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(SERVER_BUILD)) return pid;
    } catch {} // it exited meanwhile
  }
  throw new Error("no web server process under the launcher");
}

/** Signs in through the login form (POST /login) and returns the session cookie ("name=value"). */
export async function signIn(baseUrl, { username, password } = BENCH_ADMIN) {
  const response = await fetch(`${baseUrl}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status < 300 || response.status >= 400 || !cookie) throw new Error(`sign-in as ${username} failed: ${response.status}`);
  return cookie;
}

/** Signs in twice: the page's session cookie (the login form) and an API bearer token. */
export async function signInWithToken(baseUrl, user = BENCH_ADMIN) {
  const cookie = await signIn(baseUrl, user);
  const api = await fetch(`${baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: user.username, password: user.password }),
  });
  if (!api.ok) throw new Error(`API sign-in as ${user.username} failed: ${api.status}`);
  const { data } = await api.json();
  return { cookie, token: data.token };
}

/** Sequential GETs after a warm-up, so each latency is one request alone; fails on any status but 200. */
export async function measureSequential(baseUrl, requestPath, headers, { warmup, requests }) {
  await runLoad({ baseUrl, total: warmup, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  const result = await runLoad({ baseUrl, total: requests, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  if (Object.keys(result.statuses).some((status) => status !== "200")) throw new Error(`${requestPath}: ${JSON.stringify(result.statuses)}`);
  return result;
}

/**
 * The benches' reference: scripts/bench/bare-server.mjs serving `pages`
 * (path → the app's captured answer) with plain node:http, the same bytes
 * without the app. `dir` holds its page file.
 */
export async function startBare(dir, pages) {
  const file = path.join(dir, "bare-pages.json");
  fs.writeFileSync(file, JSON.stringify(pages));
  const port = await freePort();
  const child = spawn(process.execPath, ["scripts/bench/bare-server.mjs", file, String(port)], { stdio: ["ignore", "ignore", "inherit"] });
  await waitForPort(port);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
