// The production build started on a scratch database for the benchmarks,
// with a signed-in admin (session cookie and API token), and sequential
// measurements of single requests.
import { spawn } from "node:child_process";
import net from "node:net";
import { runLoad } from "./load.mjs";

/** A TCP port nothing listens on now (the machine is shared: fixed ports collide). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts `remix-serve build/index.js` on the database (access service off); resolves once /healthz answers. */
export async function startBenchServer({ port, dataDir, databaseFile, admin }) {
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: baseUrl,
      DATA_DIR: dataDir,
      DATABASE_URL: `file:${databaseFile}`,
      ACCESS_SERVICE: "off",
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      SESSION_SECRET: "bench-session-secret-that-is-long-enough",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 600; i++) {
    // Our own server, not another process that answers on the same port.
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok && child.exitCode === null) return { child, baseUrl };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error("server did not start");
}

/** Signs the admin in twice: the page's session cookie and an API bearer token. */
export async function signInBenchAdmin(baseUrl, { username, password }) {
  const login = await fetch(`${baseUrl}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }),
  });
  const cookie = login.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`login failed: ${login.status}`);
  const api = await fetch(`${baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const { data } = await api.json();
  return { cookie, token: data.token };
}

/** Sequential requests (after a warm-up): each latency is one request alone. */
export async function measureSequential(baseUrl, requestPath, headers, { requests, warmup }) {
  await runLoad({ baseUrl, total: warmup, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  const result = await runLoad({ baseUrl, total: requests, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  if (Object.keys(result.statuses).some((status) => status !== "200")) throw new Error(`${requestPath}: ${JSON.stringify(result.statuses)}`);
  return result;
}
