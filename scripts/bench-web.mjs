// `npm run bench:web`: server response time of pages (1,000 requests at 20
// concurrent by default; --paths=/,/reservar) and the JavaScript each ships
// (gzip), plus POST /api/anonymous-reservations with --bookings. Starts the
// production build on a scratch database; --url=… measures a running server.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { runLoad } from "./lib/load.mjs";

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const amount = Number(args.amount ?? 1000);
const connections = Number(args.connections ?? 20);
const paths = (args.paths ?? "/").split(",");

async function startServer() {
  if (!fs.existsSync("build/index.js")) throw new Error("run `npm run build` first");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-web-"));
  const port = 4790;
  const child = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, DATABASE_URL: `file:${dir}/app.db`, ACCESS_SERVICE: "off", ADMIN_PASSWORD: "bench-password", TRUST_PROXY: "true" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, stop: () => child.kill() };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server did not start");
}

/** JS a browser downloads for a page: the module scripts and modulepreloads in its HTML. */
async function shippedJs(url, pagePath) {
  const html = await (await fetch(url + pagePath)).text();
  const srcs = new Set([...html.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]));
  let raw = 0;
  let gzip = 0;
  for (const src of srcs) {
    const body = Buffer.from(await (await fetch(url + src)).arrayBuffer());
    raw += body.length;
    gzip += zlib.gzipSync(body, { level: 9 }).length;
  }
  return { files: srcs.size, rawKB: (raw / 1024).toFixed(1), gzipKB: (gzip / 1024).toFixed(1) };
}

const server = args.url ? { url: args.url, stop() {} } : await startServer();
try {
  for (const pagePath of paths) {
    await runLoad({ baseUrl: server.url, total: 100, concurrency: 5, makeRequest: () => ({ path: pagePath }) }); // warm-up
    const result = await runLoad({ baseUrl: server.url, total: amount, concurrency: connections, makeRequest: () => ({ path: pagePath }) });
    console.log(JSON.stringify({ request: `GET ${pagePath}`, concurrency: connections, latencyMs: result, js: await shippedJs(server.url, pagePath) }));
  }
  if (args.bookings) {
    const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const body = JSON.stringify({ guestName: "Bench", guestEmail: "bench@example.com", guestPhone: "600", reservationType: "habitacion", roomType: "doble", startDate: day(3), endDate: day(5) });
    const result = await runLoad({
      baseUrl: server.url,
      total: Number(args.bookings),
      concurrency: connections,
      // A distinct client address per request keeps the per-IP limit out of the figure.
      makeRequest: (i) => ({ path: "/api/anonymous-reservations", method: "POST", body, headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.9.${(i >> 8) & 255}.${i & 255}` } }),
    });
    console.log(JSON.stringify({ request: "POST /api/anonymous-reservations", concurrency: connections, latencyMs: result }));
  }
} finally {
  server.stop();
}
