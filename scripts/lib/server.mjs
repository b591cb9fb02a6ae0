// Starts the production build (`npm run build`) under remix-serve for a
// benchmark, on 127.0.0.1:`port` with the given environment, and resolves
// once /healthz answers (the server has booted: env, migrations, admin).
import { spawn } from "node:child_process";

export async function startBuiltServer({ port, env, timeoutMs = 120_000 }) {
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: baseUrl, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return child;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error("server did not start");
}
