#!/usr/bin/env node
// `npm run bench:portal`: the resident portal under load, on the production
// build with its access service (ACCESS_SERVICE=on, embedded broker) and a
// scratch database seeded by scripts/bench/portal-seed.ts (residents with
// bookings, incidents and notifications; a door linked to every facility).
// Measures, with `--connections` concurrent clients (default 20):
//   - GET /portal (each request as one of the residents, by session cookie);
//   - POST /api/user-portal/bookings (bearer tokens), each booking a free
//     slot (201), then the same slots again (409, the database refuses);
// and the 50-way race: 50 simultaneous POSTs for one slot by 50 residents,
// with the number of rows the database holds for it afterwards.
//
//   node scripts/bench-portal.mjs [--requests=1000] [--connections=20] [--residents=50]
//
//
// Needs `npm run build` first.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@libsql/client";
import { runLoad } from "./lib/load.mjs";
import { runTs } from "./lib/run-ts.mjs";
import { assertBuilt, freePort, startApp } from "./lib/server.mjs";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "1000" },
    connections: { type: "string", default: "20" },
    residents: { type: "string", default: "50" },
  },
});
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
const RESIDENTS = Math.max(50, Number(args.residents));

assertBuilt();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-portal-"));
const env = {
  NODE_ENV: "production",
  DATABASE_URL: `file:${path.join(dir, "app.db")}`,
  DATA_DIR: dir,
  SESSION_SECRET: "bench-portal-session-secret-long-enough",
  // Each resident books ~20 free slots here: lift the per-resident limit so they are booked.
  MAX_ACTIVE_BOOKINGS: "1000",
};
Object.assign(process.env, env);
console.info(`[bench] seeding ${RESIDENTS} residents in ${dir}`);
const { seedPortal } = await runTs("scripts/bench/portal-seed.ts");
const { sessions, facilities } = await seedPortal({ residents: RESIDENTS });


/** Day `offset` days from today in Europe/Madrid, "YYYY-MM-DD". */
function day(offset) {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Madrid" }).format(new Date());
  const date = new Date(`${today}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + offset);
  return date.toISOString().slice(0, 10);
}

/** The i-th distinct one-hour slot: every facility, on days 1…80, from 08:00 on. */
function slot(i) {
  const facility = facilities[i % facilities.length];
  const perHour = facilities.length * 80;
  return {
    facilityType: facility.type,
    facilityId: facility.id,
    date: day(1 + (Math.floor(i / facilities.length) % 80)),
    startTime: `${String(8 + Math.floor(i / perHour)).padStart(2, "0")}:00`,
    duration: "1",
  };
}

const server = await startApp({
  dataDir: dir,
  env: { ...env, ACCESS_SERVICE: "on", MQTT_HOST: "127.0.0.1", MQTT_PORT: String(await freePort()) },
});
const BASE_URL = server.url;
try {
  const pageRequest = (i) => ({ path: "/portal", headers: { Cookie: sessions[i % sessions.length].cookie } });
  await runLoad({ baseUrl: BASE_URL, total: 50, concurrency: 5, makeRequest: pageRequest });
  const page = await runLoad({ baseUrl: BASE_URL, total: REQUESTS, concurrency: CONNECTIONS, makeRequest: pageRequest });
  console.log(JSON.stringify({ request: "GET /portal", concurrency: CONNECTIONS, latencyMs: page }));

  const bookingRequest = (i) => ({
    path: "/api/user-portal/bookings",
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${sessions[i % sessions.length].token}` },
    body: JSON.stringify(slot(i)),
  });
  const created = await runLoad({ baseUrl: BASE_URL, total: REQUESTS, concurrency: CONNECTIONS, makeRequest: bookingRequest });
  console.log(JSON.stringify({ request: "POST /api/user-portal/bookings (free slots)", concurrency: CONNECTIONS, latencyMs: created }));
  const refused = await runLoad({ baseUrl: BASE_URL, total: REQUESTS, concurrency: CONNECTIONS, makeRequest: (i) => bookingRequest(i) });
  console.log(JSON.stringify({ request: "POST /api/user-portal/bookings (taken slots)", concurrency: CONNECTIONS, latencyMs: refused }));

  // The race: one slot, 50 residents at once.
  const contested = { ...slot(0), date: day(89), startTime: "21:00", duration: "2" };
  const answers = await Promise.all(
    sessions.slice(0, 50).map((session) =>
      fetch(`${BASE_URL}/api/user-portal/bookings`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${session.token}` },
        body: JSON.stringify(contested),
      }).then((response) => response.status),
    ),
  );
  const client = createClient({ url: env.DATABASE_URL });
  const [from, to] = [Date.parse(`${contested.date}T00:00:00Z`) - 86_400_000, Date.parse(`${contested.date}T23:59:59Z`) + 86_400_000];
  const rows = await client.execute({
    sql: "SELECT count(*) AS n FROM facility_bookings WHERE facility_id = ? AND status = 'confirmed' AND starts_at BETWEEN ? AND ? AND duration_hours = 2",
    args: [contested.facilityId, from, to],
  });
  client.close();
  const count = (status) => answers.filter((answer) => answer === status).length;
  console.log(JSON.stringify({ race: "50 simultaneous POST /api/user-portal/bookings, one slot", created: count(201), refused: count(409), other: answers.length - count(201) - count(409), rowsInDatabase: Number(rows.rows[0].n) }));
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
