#!/usr/bin/env node
// `npm run bench:backoffice`: the back office's list pages on large lists.
// Fills a scratch database (scripts/generate-backoffice.mjs: 100,000
// incidents, 100,000 reservations and 100,000 consultations), starts the
// production build on it, signs in as an admin, then measures one request at
// a time (after a warm-up) each page with and without a filter or a search,
// its last page (the deepest OFFSET), and the JSON twin of each list: p50
// and p95 per request.
//
//   node scripts/bench-backoffice.mjs [--rows=100000] [--requests=30] [--warmup=3]
//        [--db=/path/app.db (reuse a generated database)] [--keep]
//
// Needs `npm run build` first.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@libsql/client";
import { generateBackoffice } from "./generate-backoffice.mjs";
import { runLoad } from "./lib/load.mjs";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    requests: { type: "string", default: "30" },
    warmup: { type: "string", default: "3" },
    db: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);
const PORT = 4798;
const BASE_URL = `http://127.0.0.1:${PORT}`;
const ADMIN_PASSWORD = "bench-backoffice-password";
const PAGE_SIZE = 20;

if (!fs.existsSync("build/index.js")) throw new Error("run `npm run build` first");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-backoffice-"));
let databaseFile = path.join(dir, "app.db");
if (args.db) {
  databaseFile = path.resolve(args.db);
  console.info(`[bench] reusing ${databaseFile}`);
} else {
  await generateBackoffice({ url: `file:${databaseFile}`, rows: Number(args.rows) });
}

/** Values the filters use: the busiest door, counts for the last pages. */
async function pickFilterValues() {
  const client = createClient({ url: `file:${databaseFile}` });
  const count = async (table) => Number((await client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  const [door] = (await client.execute("SELECT door_id AS id, count(*) AS n FROM incidents WHERE door_id IS NOT NULL GROUP BY door_id ORDER BY n DESC LIMIT 1")).rows;
  const [sender] = (await client.execute("SELECT email FROM consultations LIMIT 1 OFFSET 4321")).rows;
  const values = {
    busiestDoor: String(door.id),
    senderEmail: String(sender.email),
    incidents: await count("incidents"),
    reservations: await count("anonymous_reservations"),
    consultations: await count("consultations"),
  };
  client.close();
  return values;
}

async function startServer() {
  const child = spawn(process.execPath, ["node_modules/@remix-run/serve/dist/cli.js", "build/index.js"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_URL: BASE_URL,
      DATA_DIR: dir,
      DATABASE_URL: `file:${databaseFile}`,
      ACCESS_SERVICE: "off",
      ADMIN_USERNAME: "bench-backoffice",
      ADMIN_PASSWORD,
      SESSION_SECRET: "bench-backoffice-session-secret-long-enough",
      // The generated consultations span a year: keep them all during the run.
      RETENTION_MONTHS: "120",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${BASE_URL}/healthz`)).ok) return child;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error("server did not start");
}

async function signIn() {
  const login = await fetch(`${BASE_URL}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: BASE_URL, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "bench-backoffice", password: ADMIN_PASSWORD }),
  });
  const cookie = login.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`login failed: ${login.status}`);
  return cookie;
}

/** Sequential requests (after a warm-up): each latency is one request alone. */
async function measure(requestPath, headers) {
  await runLoad({ baseUrl: BASE_URL, total: WARMUP, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  const result = await runLoad({ baseUrl: BASE_URL, total: REQUESTS, concurrency: 1, makeRequest: () => ({ path: requestPath, headers }) });
  if (Object.keys(result.statuses).some((status) => status !== "200")) throw new Error(`${requestPath}: ${JSON.stringify(result.statuses)}`);
  return result;
}

const values = await pickFilterValues();
const lastPage = (rows) => Math.max(1, Math.ceil(rows / PAGE_SIZE));
console.info(`[bench] ${values.incidents} incidents, ${values.reservations} reservations, ${values.consultations} consultations`);

const REQUESTS_TO_MEASURE = [
  ["incidents", "/admin/incidents"],
  ["incidents", "/admin/incidents?status=open"],
  ["incidents", "/admin/incidents?type=hardware"],
  ["incidents", "/admin/incidents?urgency=critical"],
  ["incidents", `/admin/incidents?doorId=${values.busiestDoor}`],
  ["incidents", "/admin/incidents?status=in-progress&type=maintenance&urgency=high"],
  ["incidents", `/admin/incidents?page=${lastPage(values.incidents)}`],
  ["incidents", "/api/incidents?status=open&urgency=critical"],
  ["reservations", "/admin/reservations"],
  ["reservations", "/admin/reservations?status=pending"],
  ["reservations", "/admin/reservations?status=confirmed"],
  ["reservations", "/admin/reservations?status=cancelled"],
  ["reservations", "/admin/reservations?status=completed"],
  ["reservations", `/admin/reservations?page=${lastPage(values.reservations)}`],
  ["reservations", "/api/anonymous-reservations?status=pending"],
  ["consultations", "/admin/consultations"],
  ["consultations", "/admin/consultations?status=pending"],
  ["consultations", "/admin/consultations?search=perro"],
  ["consultations", `/admin/consultations?search=${encodeURIComponent(values.senderEmail)}`],
  ["consultations", "/admin/consultations?search=zzzz"],
  ["consultations", "/admin/consultations?status=replied&search=Oviedo"],
  ["consultations", `/admin/consultations?page=${lastPage(values.consultations)}`],
  ["consultations", "/api/consultations?search=habitaciones"],
];

const server = await startServer();
try {
  const cookie = await signIn();
  const results = [];
  for (const [list, requestPath] of REQUESTS_TO_MEASURE) {
    const result = await measure(requestPath, { Cookie: cookie });
    const row = { list, request: requestPath, p50: result.p50, p95: result.p95 };
    results.push(row);
    console.info(JSON.stringify(row));
  }
  const load = os.loadavg().map((value) => value.toFixed(1)).join(" ");
  console.info(`\n[bench] ${REQUESTS} requests each, one at a time (ms); machine load average ${load} on ${os.cpus().length} cores`);
  console.info("| list | request | p50 | p95 |\n|---|---|---|---|");
  for (const row of results) console.info(`| ${row.list} | \`${row.request}\` | ${row.p50} | ${row.p95} |`);
} finally {
  server.kill();
  if (args.keep || args.db) console.info(`[bench] database in ${databaseFile}`);
  if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
}
