#!/usr/bin/env node
// `npm run bench:signed-in`: the signed-in pages the way `bench:web` measures
// the public ones. A scratch database holds a generated access log of
// `--rows` rows (scripts/generate-access-logs.mjs: ~50 doors, ~5,000 cards,
// ~3,500 users, 90 days) and residents with bookings, incidents and
// notifications (scripts/bench/portal-seed.ts); the production build serves
// it. For each page, signed in (the admin's session for /admin…, a
// resident's for /portal): the app and a bare node:http server in its own
// process answering the same path with the same bytes and Content-Type the
// app sent (captured first), each under the same closed-loop load
// (`--amount` requests, `--connections` at a time, after a warm-up), in three
// alternating rounds (app, bare, app, bare, app, bare). The figures are the
// medians of the three rounds' p50 and p95; the ratio is app p95 / bare p95.
// Also the CPU time per request of the web process in the app's rounds and of
// the bare server in its rounds (user + system, from /proc), and their ratio:
// on a shared machine latencies follow the other processes' load, and the
// bare server's p95 (a queue of 20 requests of ~0.3 ms) moves by half with
// one pause; the CPU a request costs moves less.
//
//   node scripts/bench-signed-in.mjs [--rows=1000000] [--amount=400] [--connections=20]
//        [--rounds=3] [--paths=/admin,/admin/logs,…] [--db=/path/app.db (reuse, kept)] [--keep]
//
// Needs `npm run build` first. Target (issue 27): every page within 12× bare
// on a 1,000,000-row log.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { generateAccessLogs } from "./generate-access-logs.mjs";
import { runLoad } from "./lib/load.mjs";
import { runTs } from "./lib/run-ts.mjs";
import { assertBuilt, signIn, startApp, startBare } from "./lib/server.mjs";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    amount: { type: "string", default: "400" },
    connections: { type: "string", default: "20" },
    rounds: { type: "string", default: "3" },
    paths: { type: "string", default: "/admin,/admin/logs,/admin/cards,/admin/users,/admin/incidents,/admin/reservations,/admin/consultations,/admin/habitaciones,/admin/ocupacion,/admin/instalaciones,/admin/grupos,/admin/invitaciones,/admin/auditoria,/admin/copias,/portal" },
    db: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const AMOUNT = Number(args.amount);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);
const PATHS = args.paths.split(",").filter(Boolean);
const SESSION_SECRET = "bench-signed-in-session-secret-long-enough";

assertBuilt();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-signed-in-"));
const databaseFile = args.db ? path.resolve(args.db) : path.join(dir, "app.db");
const reuse = Boolean(args.db) && fs.existsSync(databaseFile);
const env = { DATABASE_URL: `file:${databaseFile}`, DATA_DIR: dir, SESSION_SECRET, NODE_ENV: "production" };
Object.assign(process.env, env);
if (!reuse) {
  await generateAccessLogs({ url: env.DATABASE_URL, rows: Number(args.rows) });
}
// Residents with bookings, incidents and notifications; their session cookies (fresh ones on a reused database).
const { seedPortal } = await runTs("scripts/bench/portal-seed.ts");
const { sessions } = await seedPortal({ residents: 5, prefix: `r${Date.now().toString(36)}` });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];


const server = await startApp({ dataDir: dir, env: { ...env, ACCESS_SERVICE: "off" } });
let bare = null;
try {
  const adminCookie = await signIn(server.url);
  const cookieFor = (pagePath) => (pagePath.startsWith("/portal") ? sessions[0].cookie : adminCookie);
  // The bytes the load generator gets (no Accept-Encoding), as the bare server will send them.
  const pages = {};
  for (const pagePath of PATHS) {
    const response = await fetch(server.url + pagePath, { headers: { Cookie: cookieFor(pagePath), "Accept-Encoding": "identity" }, redirect: "manual" });
    if (response.status !== 200) throw new Error(`GET ${pagePath}: ${response.status}`);
    pages[pagePath] = { contentType: response.headers.get("content-type"), body: Buffer.from(await response.arrayBuffer()).toString("base64") };
  }
  bare = await startBare(dir, pages);

  const load = async (baseUrl, pagePath, total, concurrency) => {
    const result = await runLoad({ baseUrl, total, concurrency, makeRequest: () => ({ path: pagePath, headers: { Cookie: cookieFor(pagePath) } }) });
    if (Object.keys(result.statuses).some((status) => status !== "200")) console.error(`[bench] GET ${pagePath} on ${baseUrl}: ${JSON.stringify(result.statuses)}`);
    return result;
  };

  const webPid = server.webPid();
  /** A process's CPU time so far, in ms (utime + stime, in clock ticks of 10 ms). */
  const cpuMsOf = (pid) => {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const cpuMs = () => cpuMsOf(webPid);

  const table = [];
  for (const pagePath of PATHS) {
    await load(server.url, pagePath, 50, 5);
    await load(bare.url, pagePath, 50, 5);
    const app = [];
    const floor = [];
    let cpu = 0;
    let bareCpu = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const before = cpuMs();
      app.push(await load(server.url, pagePath, AMOUNT, CONNECTIONS));
      cpu += cpuMs() - before;
      const bareBefore = cpuMsOf(bare.pid);
      floor.push(await load(bare.url, pagePath, AMOUNT, CONNECTIONS));
      bareCpu += cpuMsOf(bare.pid) - bareBefore;
    }
    const row = {
      page: pagePath,
      bytes: Buffer.from(pages[pagePath].body, "base64").length,
      app: { p50: median(app.map((r) => r.p50)), p95: median(app.map((r) => r.p95)), rps: median(app.map((r) => r.requestsPerSecond)), cpuMsPerRequest: Math.round((cpu / (AMOUNT * ROUNDS)) * 10) / 10 },
      bare: { p50: median(floor.map((r) => r.p50)), p95: median(floor.map((r) => r.p95)), cpuMsPerRequest: Math.round((bareCpu / (AMOUNT * ROUNDS)) * 100) / 100 },
    };
    row.p95Ratio = Math.round((row.app.p95 / row.bare.p95) * 10) / 10;
    // Steadier than the p95 ratio on a shared machine: the bare server's p95 is a queue of
    // 20 requests of ~0.3 ms, so one pause of the machine moves it by half.
    row.cpuRatio = row.bare.cpuMsPerRequest > 0 ? Math.round((row.app.cpuMsPerRequest / row.bare.cpuMsPerRequest) * 10) / 10 : null;
    console.log(JSON.stringify({ request: `GET ${pagePath}`, rows: Number(args.rows), concurrency: CONNECTIONS, rounds: ROUNDS, ...row }));
    table.push(row);
  }

  const cell = (value, width) => String(value ?? "–").padStart(width);
  console.log(`\n${"page".padEnd(24)}${cell("KB", 6)}${cell("app p50", 9)}${cell("app p95", 9)}${cell("bare p50", 10)}${cell("bare p95", 10)}${cell("p95 ×", 7)}${cell("CPU ms/req", 12)}${cell("bare CPU", 10)}${cell("CPU ×", 7)}`);
  for (const row of table) {
    console.log(`${row.page.padEnd(24)}${cell(Math.round(row.bytes / 1024), 6)}${cell(row.app.p50, 9)}${cell(row.app.p95, 9)}${cell(row.bare.p50, 10)}${cell(row.bare.p95, 10)}${cell(row.p95Ratio, 7)}${cell(row.app.cpuMsPerRequest, 12)}${cell(row.bare.cpuMsPerRequest, 10)}${cell(row.cpuRatio, 7)}`);
  }
  console.log(`(ms; ${AMOUNT} requests at ${CONNECTIONS} concurrent per round, median of ${ROUNDS} alternating rounds; ${reuse ? "reused" : Number(args.rows)} log rows)`);
} finally {
  await bare?.stop();
  await server.stop();
  if (args.keep && !args.db) console.info(`[bench] database kept in ${databaseFile}`);
  if (args.keep || args.db) {
    for (const entry of fs.readdirSync(dir)) if (!databaseFile.startsWith(path.join(dir, entry))) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  } else fs.rmSync(dir, { recursive: true, force: true });
}
