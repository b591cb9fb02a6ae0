// `npm run bench:web`: server response time of pages and the JavaScript each
// ships, plus POST /api/anonymous-reservations with --bookings.
//
//   node scripts/bench-web.mjs [--amount=1000] [--connections=20] [--paths=/,/reservar,…]
//        [--admin-paths=/admin,/admin/cards,…] [--no-bare] [--bookings=N] [--url=http://…]
//
// For each path, in the same run: the app (production build on a scratch
// database; --url=… measures a running server instead) and a bare node:http
// server in its own process that answers the same path with the same bytes
// and Content-Type the app sent (captured first), both under the same
// closed-loop load (`amount` requests, `connections` at a time, after a
// warm-up). The ratio of their p95s is what rendering the page costs over
// merely sending it.
//
// Then the JS each page makes a browser download (gzip of every same-origin
// .js in a <script src> or <link rel=modulepreload>; lib/page-js.mjs), for
// the public paths and, signed in as the admin through POST /login, for the
// admin pages. --admin=user:password when --url points at another server.
//
// stdout: one JSON line per measurement, then a table of the same figures.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runLoad } from "./lib/load.mjs";
import { jsBudgetKB, pageJsSizes } from "./lib/page-js.mjs";
import { cpuSeconds } from "./lib/proc.mjs";
import { BENCH_ADMIN, signIn, startApp, startBare } from "./lib/server.mjs";

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const amount = Number(args.amount ?? 1000);
const connections = Number(args.connections ?? 20);
const paths = (args.paths ?? "/,/reservar,/consulta,/visita,/incidencias,/reserva-consulta,/login").split(",");
const adminPaths = (args["admin-paths"] ?? "/admin,/admin/cards,/admin/logs,/admin/users,/admin/incidents,/admin/reservations,/admin/consultations").split(",").filter(Boolean);
const [adminUser, adminPassword] = args.admin ? args.admin.split(":") : [BENCH_ADMIN.username, BENCH_ADMIN.password];

/** The bodies the load generator gets (a plain GET, no cookie, no Accept-Encoding), with their Content-Type. */
async function capturePages(baseUrl) {
  const pages = {};
  for (const pagePath of paths) {
    const response = await fetch(baseUrl + pagePath, { headers: { "Accept-Encoding": "identity" }, redirect: "manual" });
    if (response.status !== 200) throw new Error(`GET ${pagePath}: ${response.status}`);
    pages[pagePath] = { contentType: response.headers.get("content-type"), body: Buffer.from(await response.arrayBuffer()).toString("base64") };
  }
  return pages;
}


/**
 * Warm-up (100 requests, 5 at a time), then the measured run, with the CPU
 * each request cost the serving process (`pid`): on a shared machine it moves
 * less than the latencies do.
 */
async function measure(baseUrl, pagePath, pid) {
  const makeRequest = () => ({ path: pagePath });
  await runLoad({ baseUrl, total: 100, concurrency: 5, makeRequest });
  const cpuBefore = pid ? cpuSeconds(pid) : null;
  const result = await runLoad({ baseUrl, total: amount, concurrency: connections, makeRequest });
  const cpuAfter = pid ? cpuSeconds(pid) : null;
  if (cpuBefore !== null && cpuAfter !== null) result.cpuMsPerRequest = Math.round(((cpuAfter - cpuBefore) * 1000 * 100) / amount) / 100;
  if (Object.keys(result.statuses).some((status) => status !== "200")) console.error(`[bench] GET ${pagePath} on ${baseUrl}: ${JSON.stringify(result.statuses)}`);
  return result;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-web-"));
const server = args.url ? { url: args.url, stop() {} } : await startApp({ dataDir: dir, env: { ACCESS_SERVICE: "off" } });
let bare = null;
const table = [];
try {
  bare = !("no-bare" in args) ? await startBare(dir, await capturePages(server.url)) : null;
  const publicJs = new Map((await pageJsSizes(server.url, paths)).map((page) => [page.path, page]));
  for (const pagePath of paths) {
    const app = await measure(server.url, pagePath, server.webPid?.());
    const floor = bare ? await measure(bare.url, pagePath, bare.pid) : null;
    const { path: _path, ...js } = publicJs.get(pagePath);
    const p95Ratio = floor ? Math.round((app.p95 / floor.p95) * 10) / 10 : null;
    console.log(JSON.stringify({ request: `GET ${pagePath}`, concurrency: connections, latencyMs: app, bare: floor, p95Ratio, js }));
    table.push({ page: pagePath, app, bare: floor, p95Ratio, js });
  }

  if (adminPaths.length > 0) {
    const cookie = await signIn(server.url, { username: adminUser, password: adminPassword });
    for (const { path: pagePath, ...js } of await pageJsSizes(server.url, adminPaths, cookie)) {
      console.log(JSON.stringify({ page: pagePath, signedInAs: "admin", js }));
      table.push({ page: pagePath, js });
    }
  }

  if (args.bookings) {
    const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const body = JSON.stringify({ guestName: "Bench", guestEmail: "bench@example.com", guestPhone: "600 123 456", reservationType: "habitacion", roomType: "doble", startDate: day(3), endDate: day(5) });
    const result = await runLoad({
      baseUrl: server.url,
      total: Number(args.bookings),
      concurrency: connections,
      // A distinct client address per request keeps the per-IP limit out of the figure.
      makeRequest: (i) => ({ path: "/api/anonymous-reservations", method: "POST", body, headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.9.${(i >> 8) & 255}.${i & 255}` } }),
    });
    console.log(JSON.stringify({ request: "POST /api/anonymous-reservations", concurrency: connections, latencyMs: result }));
  }

  const cell = (value, width) => String(value ?? "–").padStart(width);
  console.log(`\n${"page".padEnd(22)}${cell("app p50", 9)}${cell("app p95", 9)}${cell("bare p50", 10)}${cell("bare p95", 10)}${cell("p95 ×", 7)}${cell("CPU ms", 8)}${cell("bare CPU", 10)}${cell("JS files", 10)}${cell("JS gzip KB", 12)}${cell("budget", 8)}`);
  for (const row of table) {
    console.log(
      `${row.page.padEnd(22)}${cell(row.app?.p50, 9)}${cell(row.app?.p95, 9)}${cell(row.bare?.p50, 10)}${cell(row.bare?.p95, 10)}${cell(row.p95Ratio, 7)}${cell(row.app?.cpuMsPerRequest, 8)}${cell(row.bare?.cpuMsPerRequest, 10)}${cell(row.js.status === 200 ? row.js.files : `(${row.js.status})`, 10)}${cell(row.js.gzipKB, 12)}${cell(jsBudgetKB(row.page), 8)}`,
    );
  }
  console.log(`(latencies in ms, ${amount} requests at ${connections} concurrent; CPU = ms of the serving process per request; JS = same-origin module scripts and modulepreloads, gzip -9)`);
} finally {
  await bare?.stop();
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
