// For benchmarks: the production build served on a given database, an
// admin's session (cookie and API token), and requests timed one at a time.
import { spawn } from "node:child_process";
import { runLoad } from "./load.mjs";

/** Starts `build/index.js` on `databaseFile` with its first admin; resolves once /healthz answers. */
export async function startAppServer({ port, databaseFile, dataDir, admin, env = {} }) {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: `file:${databaseFile}`,
      ACCESS_SERVICE: "off",
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      SESSION_SECRET: `${admin.username}-session-secret-long-enough`,
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error("server did not start");
}

/** Signs the admin in twice: the page's session cookie and a bearer token for the API. */
export async function signInAdmin(url, { username, password }) {
  const login = await fetch(`${url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: url, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }),
  });
  const cookie = login.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`login failed: ${login.status}`);
  const api = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const { data } = await api.json();
  return { cookie, token: data.token };
}

/** Sequential GETs after a warm-up, so each latency is one request alone; fails on any status but 200. */
export async function measureSequential(url, requestPath, headers, { warmup, requests }) {
  await runLoad({ baseUrl: url, total: warmup, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  const result = await runLoad({ baseUrl: url, total: requests, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  if (Object.keys(result.statuses).some((status) => status !== "200")) throw new Error(`${requestPath}: ${JSON.stringify(result.statuses)}`);
  return result;
}
