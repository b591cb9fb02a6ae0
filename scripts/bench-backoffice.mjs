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
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@libsql/client";
import { generateBackoffice } from "./generate-backoffice.mjs";
import { assertBuilt, measureSequential, signIn, startApp } from "./lib/server.mjs";

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
const PAGE_SIZE = 20;

assertBuilt();

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
  // The filter names the door by its hardware code (doorId on the wire).
  const [door] = (
    await client.execute(
      "SELECT d.door_id AS code, count(*) AS n FROM incidents i JOIN doors d ON d.id = i.door_id GROUP BY i.door_id ORDER BY n DESC LIMIT 1",
    )
  ).rows;
  // A sender from the middle of the list: a search that matches one row.
  const [sender] = (await client.execute("SELECT email FROM consultations LIMIT 1 OFFSET (SELECT count(*) / 2 FROM consultations)")).rows;
  const values = {
    busiestDoor: String(door.code),
    senderEmail: String(sender.email),
    incidents: await count("incidents"),
    reservations: await count("anonymous_reservations"),
    consultations: await count("consultations"),
  };
  client.close();
  return values;
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

// The generated consultations span a year: keep them all during the run.
const server = await startApp({ dataDir: dir, env: { DATABASE_URL: `file:${databaseFile}`, ACCESS_SERVICE: "off", RETENTION_MONTHS: "120" } });
const measure = (requestPath, headers) => measureSequential(server.url, requestPath, headers, { warmup: WARMUP, requests: REQUESTS });
try {
  const cookie = await signIn(server.url);
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
  await server.stop();
  if (args.keep || args.db) console.info(`[bench] database in ${databaseFile}`);
  if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
}
