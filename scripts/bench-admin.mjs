#!/usr/bin/env node
// `npm run bench:admin`: the admin access log on a large log. Fills a scratch
// database (scripts/generate-access-logs.mjs: 1,000,000 rows, ~50 doors,
// ~5,000 cards, ~30 % denied, 90 days), starts the production build on it,
// then measures, one request at a time:
//   - GET /admin/logs (an admin's session) and GET /api/logs (an admin's
//     token) for every filter combination: result × door × period × search
//     × credential kind (`--kinds`, default all of them), p50 and p95 of each;
//   - the last page of the whole log (the deepest OFFSET);
//   - GET /api/logs/export of every row: time, rows/s, and the server's
//     peak RSS during the export (VmHWM after resetting it), uncompressed and
//     with gzip as a browser asks for it; also rows per CPU-second of the
//     web process (its utime + stime), which a busy shared machine bends less.
//
//   node scripts/bench-admin.mjs [--rows=1000000] [--requests=20] [--warmup=3]
//        [--only=filters|export] [--kinds=all,card,pin,qr] [--searches=none,card,user,broad] [--db=/path/app.db (reuse a generated database)] [--keep]
//
// Needs `npm run build` first. Targets: p95 ≤ 150 ms for any filter; export
// ≥ 100,000 rows/s with peak RSS ≤ 200 MB.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { createClient } from "@libsql/client";
import { generateAccessLogs } from "./generate-access-logs.mjs";
import { assertBuilt, measureSequential, signInWithToken, startApp } from "./lib/server.mjs";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    requests: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    only: { type: "string" },
    kinds: { type: "string", default: "all,card,pin,qr" },
    searches: { type: "string", default: "none,card,user,broad" },
    db: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);

assertBuilt();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-admin-"));
let databaseFile = path.join(dir, "app.db");
if (args.db) {
  databaseFile = path.resolve(args.db);
  console.info(`[bench] reusing ${databaseFile}`);
} else {
  await generateAccessLogs({ url: `file:${databaseFile}`, rows: Number(args.rows) });
}

/** What the combinations filter on: the busiest and a quiet door, a real card prefix. */
async function pickFilterValues() {
  const client = createClient({ url: `file:${databaseFile}` });
  // The filters name a door by its hardware code (doorId on the wire).
  const doors = (
    await client.execute(
      "SELECT d.door_id AS code, count(*) AS n FROM access_logs l JOIN doors d ON d.id = l.door_id GROUP BY l.door_id ORDER BY n DESC",
    )
  ).rows;
  const [card] = (await client.execute("SELECT card_number FROM access_logs WHERE length(card_number) = 8 LIMIT 1 OFFSET 1234")).rows;
  const total = Number((await client.execute("SELECT count(*) AS n FROM access_logs")).rows[0].n);
  client.close();
  return {
    busiestDoor: { code: String(doors[0].code), rows: Number(doors[0].n) },
    quietDoor: { code: String(doors[doors.length - 1].code), rows: Number(doors[doors.length - 1].n) },
    cardPrefix: String(card.card_number).slice(0, 4),
    total,
  };
}


function procStatus(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : null;
}

/** The process's CPU time so far (user + system), in seconds. */
function procCpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100)
}

/** Streams the whole export; counts rows (CRLF lines) as they arrive. */
async function measureExport(pid, token, gzip) {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
  const rssBefore = procStatus(pid, "VmRSS");
  const cpuBefore = procCpuSeconds(pid);
  const started = performance.now();
  const { rows, bytes, wireBytes } = await new Promise((resolve, reject) => {
    const request = http.get(
      `${BASE_URL}/api/logs/export?export=csv&dateRange=all`,
      { headers: { Authorization: `Bearer ${token}`, "Accept-Encoding": gzip ? "gzip" : "identity" } },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`export: ${response.statusCode}`));
        let lines = 0;
        let size = 0;
        let wire = 0;
        response.on("data", (chunk) => (wire += chunk.length));
        const body = gzip ? response.pipe(zlib.createGunzip()) : response;
        body.on("data", (chunk) => {
          size += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        body.on("end", () => resolve({ rows: lines - 1, bytes: size, wireBytes: wire }));
        body.on("error", reject);
      },
    );
    request.on("error", reject);
  });
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = procCpuSeconds(pid) - cpuBefore;
  return {
    request: `GET /api/logs/export?export=csv&dateRange=all${gzip ? " (gzip)" : ""}`,
    rows,
    seconds: Math.round(seconds * 100) / 100,
    rowsPerSecond: Math.round(rows / seconds),
    serverCpuSeconds: Math.round(cpuSeconds * 100) / 100,
    rowsPerServerCpuSecond: Math.round(rows / cpuSeconds),
    csvMB: Math.round(bytes / 1048576),
    transferredMB: Math.round(wireBytes / 1048576),
    serverRssBeforeMB: rssBefore,
    serverPeakRssMB: procStatus(pid, "VmHWM"),
  };
}

const values = await pickFilterValues();
console.info(`[bench] ${values.total} rows; busiest door ${values.busiestDoor.rows} rows, quiet door ${values.quietDoor.rows}; card prefix ${values.cardPrefix}`);
const server = await startApp({ dataDir: dir, env: { DATABASE_URL: `file:${databaseFile}`, ACCESS_SERVICE: "off" } });
const BASE_URL = server.url;
const measure = (requestPath, headers) => measureSequential(BASE_URL, requestPath, headers, { warmup: WARMUP, requests: REQUESTS });
const results = [];
try {
  const { cookie, token } = await signInWithToken(BASE_URL);
  if (args.only !== "export") await measureFilters(cookie, token);
  if (args.only !== "filters") for (const gzip of [false, true]) console.info(JSON.stringify(await measureExport(server.webPid(), token, gzip)));
} finally {
  await server.stop();
  // The scratch directory holds the generated database (unless --db) and the server's data directory.
  if (args.keep) console.info(`[bench] database kept in ${databaseFile}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

async function measureFilters(cookie, token) {
  const doors = { any: "", busiest: values.busiestDoor.code, quiet: values.quietDoor.code };
  // Search: none, a card number's start, a username's start, one letter (matches ~15 % of rows).
  const searches = { none: "", card: values.cardPrefix, user: "mar", broad: "a" };
  const wanted = new Set(args.searches.split(","));
  for (const [searchName, search] of Object.entries(searches).filter(([name]) => wanted.has(name)))
    for (const credentialKind of args.kinds.split(","))
    for (const status of ["all", "granted", "denied"])
      for (const [doorName, doorId] of Object.entries(doors))
        for (const dateRange of ["24h", "7d", "30d", "all"]) {
          const query = new URLSearchParams({ status, dateRange });
          if (doorId) query.set("doorId", doorId);
          if (search) query.set("search", search);
          if (credentialKind !== "all") query.set("credentialKind", credentialKind);
          const combination = { status, door: doorName, dateRange, search: searchName, kind: credentialKind };
          const pageResult = await measure(`/admin/logs?${query}`, { Cookie: cookie });
          const apiResult = await measure(`/api/logs?${query}&t=${Date.now()}`, { Authorization: `Bearer ${token}` });
          const row = { ...combination, page: { p50: pageResult.p50, p95: pageResult.p95 }, api: { p50: apiResult.p50, p95: apiResult.p95 } };
          results.push(row);
          console.info(JSON.stringify(row));
        }
  const pages = Math.ceil(values.total / 50);
  const lastPage = {
    page: await measure(`/admin/logs?dateRange=all&page=${pages}`, { Cookie: cookie }),
    api: await measure(`/api/logs?dateRange=all&page=${pages}`, { Authorization: `Bearer ${token}` }),
  };
  console.info(JSON.stringify({ request: `last page (${pages}) of dateRange=all`, page: { p50: lastPage.page.p50, p95: lastPage.page.p95 }, api: { p50: lastPage.api.p50, p95: lastPage.api.p95 } }));

  const worst = (key) => results.reduce((max, row) => (row[key].p95 > max[key].p95 ? row : max));
  console.info(`\n[bench] ${results.length} combinations × ${REQUESTS} requests each, one at a time`);
  for (const key of ["page", "api"]) {
    const slowest = worst(key);
    const over = results.filter((row) => row[key].p95 > 150).length;
    console.info(`[bench] ${key === "page" ? "GET /admin/logs" : "GET /api/logs"}: worst p95 ${slowest[key].p95} ms (${slowest.status}/${slowest.door}/${slowest.dateRange}/${slowest.search}/${slowest.kind}); ${over} combinations over 150 ms`);
  }
}
